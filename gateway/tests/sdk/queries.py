"""Queries through the SDK over a container of several physical partitions (40,000 RU/s: seven),
each shape paged with a small max_item_count, checked against rows computed here. The rows are
written to RESULTS_FILE so the Rust side compares them with the engine's own query_all."""
import json
import os

from azure.cosmos import CosmosClient, PartitionKey, exceptions
from azure.cosmos._execution_context.query_execution_info import _PartitionedQueryExecutionInfo

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("q")
c = db.create_container("things", partition_key=PartitionKey("/pk"), offer_throughput=40000)
assert c.get_throughput().offer_throughput == 40000

N = 300
docs = []
for i in range(N):
    d = {"id": f"t{i:03}", "pk": f"c{i % 23}", "n": i, "cat": "abc"[i % 3], "price": (i * 37) % 101}
    docs.append(d)
    c.create_item(d)

results = []


def run(sql, params=None, pk=None, page_size=17, min_pages=1):
    kwargs = {"max_item_count": page_size}
    if pk is None:
        kwargs["enable_cross_partition_query"] = True
    else:
        kwargs["partition_key"] = pk
    pages = list(c.query_items(sql, parameters=params or [], **kwargs).by_page())
    rows = [r for p in pages for r in p]
    assert len(pages) >= min_pages, (sql, len(pages))
    results.append({"sql": sql, "params": params or [], "pk": pk, "rows": rows})
    return rows


def bare(rows):
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]


# A filter with a parameter, paged: every match once.
rows = run("SELECT * FROM c WHERE c.n >= @lo", [{"name": "@lo", "value": 100}], min_pages=5)
assert sorted(r["n"] for r in rows) == list(range(100, N)), len(rows)

# ORDER BY across partitions: one global order.
rows = run("SELECT c.id, c.n FROM c ORDER BY c.n DESC", min_pages=5)
assert [r["n"] for r in rows] == list(range(N - 1, -1, -1))

# Aggregates.
assert run("SELECT VALUE COUNT(1) FROM c") == [N]
assert run("SELECT VALUE SUM(c.price) FROM c") == [sum(d["price"] for d in docs)]
assert run("SELECT VALUE MIN(c.price) FROM c") == [min(d["price"] for d in docs)]
assert run("SELECT VALUE MAX(c.n) FROM c WHERE c.cat = 'b'") == [max(d["n"] for d in docs if d["cat"] == "b")]
avg = run("SELECT VALUE AVG(c.n) FROM c")
assert abs(avg[0] - (N - 1) / 2) < 1e-9, avg

# DISTINCT.
assert sorted(run("SELECT DISTINCT VALUE c.cat FROM c", page_size=2)) == ["a", "b", "c"]

# GROUP BY.
rows = run("SELECT c.cat, COUNT(1) AS cnt FROM c GROUP BY c.cat")
assert sorted((r["cat"], r["cnt"]) for r in rows) == [("a", 100), ("b", 100), ("c", 100)], rows

# OFFSET / LIMIT and TOP.
rows = run("SELECT c.n FROM c ORDER BY c.n OFFSET 10 LIMIT 25", page_size=7, min_pages=4)
assert [r["n"] for r in rows] == list(range(10, 35)), rows
rows = run("SELECT TOP 12 c.n FROM c ORDER BY c.n DESC", page_size=5, min_pages=3)
assert [r["n"] for r in rows] == list(range(N - 1, N - 13, -1)), rows

# One logical partition.
rows = run("SELECT * FROM c ORDER BY c.n", pk="c3", page_size=4, min_pages=3)
assert [r["n"] for r in rows] == [d["n"] for d in docs if d["pk"] == "c3"]
assert bare(rows) == [d for d in docs if d["pk"] == "c3"]

# Query metrics, when asked for: on each page (one range's, as the service pages a
# cross-partition filter), counting that page's rows.
seen = []
list(c.query_items("SELECT * FROM c WHERE c.n < 10", enable_cross_partition_query=True,
                   populate_query_metrics=True,
                   response_hook=lambda h, _: seen.append(h["x-ms-documentdb-query-metrics"])))
assert all("retrievedDocumentCount=" in m for m in seen), seen
assert sum(int(m.split("outputDocumentCount=")[1].split(";")[0]) for m in seen) == 10, seen

# A bad query is a 400 with the parser's message.
try:
    list(c.query_items("SELECT FROM WHERE", enable_cross_partition_query=True))
    raise AssertionError("a malformed query must fail")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e.status_code

# The query plan, as the service gives it: the whole key space, what the SDK merges, and the
# query it sends to each range.
plan = c.client_connection._GetQueryPlanThroughGateway("SELECT * FROM c ORDER BY c.n", c.container_link)
info = _PartitionedQueryExecutionInfo(plan)
assert info.get_query_ranges()[0]["min"] == "" and info.get_query_ranges()[0]["max"] == "FF", plan
assert info.get_order_by() == ["Ascending"] and not info.has_aggregates(), plan
assert "orderByItems" in info.get_rewritten_query(), plan

# Neither a partition key nor enable_cross_partition_query: the service's 400 (the message
# azure-cosmos's own tests read), unless the filter fixes one whole key, which it serves.
try:
    list(c.query_items("SELECT * FROM c"))
    raise AssertionError("a query with no key and no cross-partition flag was answered")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400 and "Cross partition query is required but disabled" in e.message, e
one = list(c.query_items("SELECT * FROM c WHERE c.pk = 'c5'"))
assert sorted(d["id"] for d in one) == sorted(d["id"] for d in docs if d["pk"] == "c5"), one
try:
    list(c.query_items("SELECT * FROM c WHERE c.pk IN ('c5', 'c6')"))
    raise AssertionError("two keys without the cross-partition flag were answered")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e
try:
    list(c.query_conflicts("SELECT * FROM r"))
    raise AssertionError("a conflicts query with no key and no cross-partition flag was answered")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e

# Throughput: replaced through the offer.
c.replace_throughput(50000)
assert c.get_throughput().offer_throughput == 50000

with open(os.environ["RESULTS_FILE"], "w") as f:
    json.dump(results, f)
print("queries: ok")
