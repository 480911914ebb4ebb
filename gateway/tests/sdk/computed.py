"""Computed properties through the SDK: defined with the container, queried as c.<name> in
SELECT, WHERE, ORDER BY, aggregates and GROUP BY across three physical partitions (the SDK's own
fan-out from the gateway's query plan), absent from SELECT *, replaced with the container, and
refused when malformed."""
import os

from azure.cosmos import CosmosClient, PartitionKey, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("cp")
cps = [{"name": "cp_len", "query": "SELECT VALUE LENGTH(c.name) FROM c"}]
c = db.create_container("people", PartitionKey("/pk"), offer_throughput=30000, computed_properties=cps)
assert c.read()["computedProperties"] == cps
for i, n in enumerate(["a", "bbbb", "cc", "ddd", "eeeee", "f"]):
    c.create_item({"id": str(i), "pk": "p%d" % i, "name": n})

def q(sql, **kw):
    return list(c.query_items(sql, enable_cross_partition_query=True, **kw))

rows = q("SELECT c.id, c.cp_len FROM c ORDER BY c.cp_len DESC")
assert [r["cp_len"] for r in rows] == [5, 4, 3, 2, 1, 1], rows
assert sorted(q("SELECT VALUE c.id FROM c WHERE c.cp_len > 2")) == ["1", "3", "4"]
assert q("SELECT VALUE MAX(c.cp_len) FROM c") == [5]
groups = {r["cp_len"]: r["n"] for r in q("SELECT c.cp_len, COUNT(1) AS n FROM c GROUP BY c.cp_len")}
assert groups == {1: 2, 2: 1, 3: 1, 4: 1, 5: 1}, groups
star = list(c.query_items("SELECT * FROM c", partition_key="p1"))
assert "cp_len" not in star[0], star

# Replaced: the new definition answers, the old name is a plain (absent) property again.
upper = [{"name": "cp_upper", "query": "SELECT VALUE UPPER(c.name) FROM c"}]
db.replace_container(c, PartitionKey("/pk"), computed_properties=upper)
assert c.read()["computedProperties"] == upper
assert q("SELECT VALUE [c.cp_upper, c.cp_len] FROM c WHERE c.id = '1'") == [["BBBB"]]

# Malformed: the service's 400, the definition unchanged.
try:
    db.replace_container(c, PartitionKey("/pk"), computed_properties=upper[0])
    raise AssertionError("an object instead of a list was accepted")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400 and "One of the specified inputs is invalid" in e.http_error_message
try:
    db.replace_container(c, PartitionKey("/pk"),
                         computed_properties=[{"name": "cp", "query": "SELECT VALUE c.a FROM c WHERE c.b = 1"}])
    raise AssertionError("a WHERE clause was accepted")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e
assert c.read()["computedProperties"] == upper
print("computed properties ok")
