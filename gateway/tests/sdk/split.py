"""Physical partitions as partition key ranges, and a split under the SDK's feet (issue 21).

The gateway's engine splits a partition past 48 KB (TestGateway::splitting_at). The SDK starts a
query and a change feed on one range; writes split it into several while both are between pages;
the query goes on with its continuation and the change feed with its token (the old range is
410/1002, the SDK reads /pkranges again and carries on with the children); every item comes
exactly once. Then the ranges are what the SDK computes: each feed range's change feed and query
hold exactly the items whose EPK the SDK places in it."""
import os

from azure.cosmos import CosmosClient, PartitionKey

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("split")
c = db.create_container("events", partition_key=PartitionKey("/pk"), offer_throughput=400)


def ranges():
    return list(c.client_connection._ReadPartitionKeyRanges(c.container_link))


def create(i, pad=0):
    c.create_item({"id": f"e{i}", "pk": f"p{i % 97}", "n": i, "pad": "x" * pad})


first = 60
for i in range(first):
    create(i)
assert [(r["id"], r["minInclusive"], r["maxExclusive"]) for r in ranges()] == [("0", "", "FF")]
assert len(list(c.read_feed_ranges(force_refresh=True))) == 1

# A query and a change feed, each one page in.
pages = c.query_items("SELECT c.id FROM c", enable_cross_partition_query=True, max_item_count=10).by_page()
seen = [r["id"] for r in next(pages)]
query_token = pages.continuation_token
assert query_token and len(seen) == 10

feed = c.query_items_change_feed(start_time="Beginning", max_item_count=10).by_page()
fed = [d["id"] for d in next(feed)]
feed_token = feed.continuation_token
assert feed_token and len(fed) == 10

# Writes that split the one partition several times.
total = 400
for i in range(first, total):
    create(i, pad=400)
now = ranges()
assert len(now) >= 4, now
assert all(r["parents"] and r["parents"][0] == "0" for r in now), now
assert now[0]["minInclusive"] == "" and now[-1]["maxExclusive"] == "FF", now
for a, b in zip(now, now[1:]):
    assert a["maxExclusive"] == b["minInclusive"], (a, b)

# The query goes on across the split: the first 60 items each once (later ones may come too).
rest = c.query_items("SELECT c.id FROM c", enable_cross_partition_query=True, max_item_count=10)
for page in rest.by_page(query_token):
    seen.extend(r["id"] for r in page)
assert len(seen) == len(set(seen)), "an item came twice"
assert {f"e{i}" for i in range(first)} <= set(seen)

# The change feed goes on with its token: every item, each once.
statuses = []
more = c.query_items_change_feed(
    continuation=feed_token, raw_response_hook=lambda r: statuses.append(r.http_response.status_code)
)
fed.extend(d["id"] for d in more)
assert sorted(fed) == sorted(f"e{i}" for i in range(total)), (len(fed), len(set(fed)))

# Each feed range holds exactly the items whose EPK the SDK computes inside it.
feed_ranges = list(c.read_feed_ranges(force_refresh=True))
assert len(feed_ranges) == len(now), (feed_ranges, now)
by_range = []
for fr in feed_ranges:
    changes = sorted(d["id"] for d in c.query_items_change_feed(feed_range=fr, start_time="Beginning"))
    queried = sorted(r["id"] for r in c.query_items("SELECT c.id FROM c", feed_range=fr))
    assert changes == queried, (fr, changes, queried)
    assert changes, f"an empty range {fr}"
    by_range.append(set(changes))
assert sum(len(s) for s in by_range) == total
assert set().union(*by_range) == {f"e{i}" for i in range(total)}
for fr, ids in zip(feed_ranges, by_range):
    for i in (int(x[1:]) for x in ids):
        assert c.is_feed_range_subset(fr, c.feed_range_from_partition_key(f"p{i % 97}")), (fr, i)
# Answers name a range the SDK knows (the one holding the item), or it would refresh its whole
# routing map after each one.
c.upsert_item({"id": "e1", "pk": "p1", "n": 1})
named = c.client_connection.last_response_headers["x-ms-documentdb-partitionkeyrangeid"]
epk = PartitionKey("/pk")._get_epk_range_for_partition_key("p1").min
holder = [r for r in now if r["minInclusive"] <= epk < r["maxExclusive"]]
assert [r["id"] for r in holder] == [named], (named, holder)
assert c.client_connection.last_response_headers["x-ms-session-token"].startswith(f"{named}:")
print(f"split: ok, {len(now)} ranges; change feed statuses {sorted(set(statuses))}")
