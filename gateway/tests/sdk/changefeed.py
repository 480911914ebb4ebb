"""The change feed through the SDK, over seven physical partitions (40,000 RU/s at 6,000 each, as the service starts them): from the beginning in pages,
continued with its continuation (304: nothing new), from now, from a point in time, one
partition key."""
import datetime
import os
import time

from azure.cosmos import CosmosClient, PartitionKey

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("cf")
c = db.create_container("events", partition_key=PartitionKey("/pk"), offer_throughput=40000)

for i in range(30):
    c.create_item({"id": f"e{i}", "pk": f"p{i % 7}", "v": 0})


def drain(**kwargs):
    pager = c.query_items_change_feed(**kwargs).by_page()
    items = [d for page in pager for d in page]
    # A drain whose first answer is a 304 yields no page, and so no new token: keep the old one.
    return items, pager.continuation_token or kwargs.get("continuation")


items, token = drain(start_time="Beginning", max_item_count=4)
assert sorted(d["id"] for d in items) == sorted(f"e{i}" for i in range(30)), items
assert token

# Nothing new since the token: no items.
again, token = drain(continuation=token)
assert again == [], again

# Three creates and two writes to one item: each changed item once, at its latest version.
for i in range(30, 33):
    c.create_item({"id": f"e{i}", "pk": f"p{i % 7}", "v": 0})
c.upsert_item({"id": "e5", "pk": "p5", "v": 1})
c.upsert_item({"id": "e5", "pk": "p5", "v": 2})
changed, token = drain(continuation=token)
assert sorted(d["id"] for d in changed) == ["e30", "e31", "e32", "e5"], changed
assert [d["v"] for d in changed if d["id"] == "e5"] == [2]

# From now: nothing of what is there, one 304 per partition key range (one per physical
# partition). The SDK leaves its continuation (an etag per range, base64) in the last
# response's etag; it continues from that moment.
status = []
now, _ = drain(start_time="Now", raw_response_hook=lambda r: status.append(r.http_response.status_code))
assert now == [] and status == [304] * 7, (now, status)
now_token = c.client_connection.last_response_headers["etag"]
c.create_item({"id": "late", "pk": "p1"})
after = list(c.query_items_change_feed(continuation=now_token))
assert [d["id"] for d in after] == ["late"], after

# From a point in time (whole seconds, as _ts).
time.sleep(1.1)
since = datetime.datetime.now(datetime.timezone.utc)
time.sleep(1.1)
c.create_item({"id": "timed", "pk": "p2"})
timed, _ = drain(start_time=since)
assert [d["id"] for d in timed] == ["timed"], timed

# One logical partition: this SDK names it by Cosmos DB's EPK bounds, which the gateway
# computes for each change (the engine's own hash differs).
p3, p3_token = drain(start_time="Beginning", partition_key="p3", max_item_count=2)
assert sorted(d["id"] for d in p3) == sorted(f"e{i}" for i in range(33) if i % 7 == 3), p3
c.create_item({"id": "p3-late", "pk": "p3"})
c.create_item({"id": "p4-late", "pk": "p4"})
more, _ = drain(continuation=p3_token)
assert [d["id"] for d in more] == ["p3-late"], more

# By partition key range id (azure-cosmos sends no header for it and keeps only a digit etag as
# that feed's continuation): the etag is the range's LSN, and reading on from it gives what
# came after, as on the service.
one = db.create_container("one-range", partition_key=PartitionKey("/pk"))
list(one.query_items_change_feed(partition_key_range_id="0", is_start_from_beginning=True))
lsn_token = one.client_connection.last_response_headers["etag"]
assert lsn_token.strip('"').isdigit(), lsn_token
one.create_item({"id": "r1", "pk": "a"})
one.create_item({"id": "r2", "pk": "b"})
by_range = list(one.query_items_change_feed(partition_key_range_id="0", continuation=lsn_token, max_item_count=1))
assert [d["id"] for d in by_range] == ["r1", "r2"], by_range
print("changefeed: ok")
