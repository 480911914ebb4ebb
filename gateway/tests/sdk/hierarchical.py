"""Hierarchical (MultiHash) partition keys through the SDK: a container of three paths, point
operations with the full key, a wrong number of values refused, queries and the change feed on
a full key and on a prefix (the SDK sends a prefix as a range of Cosmos EPKs), and the
container read back as MultiHash."""
import os

from azure.cosmos import CosmosClient, PartitionKey, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("hpk")
c = db.create_container(
    "sessions",
    partition_key=PartitionKey(path=["/tenantId", "/userId", "/sessionId"], kind="MultiHash"),
    offer_throughput=40000,
)
props = c.read()
assert props["partitionKey"]["kind"] == "MultiHash", props["partitionKey"]
assert props["partitionKey"]["paths"] == ["/tenantId", "/userId", "/sessionId"], props

for t in range(4):
    for u in range(3):
        for s in range(2):
            c.create_item({"id": f"e{t}{u}{s}", "tenantId": f"t{t}", "userId": f"u{u}",
                           "sessionId": f"s{s}", "n": t * 100 + u * 10 + s})

# Point operations take the full key.
item = c.read_item("e121", partition_key=["t1", "u2", "s1"])
assert item["n"] == 121, item
c.upsert_item({"id": "e121", "tenantId": "t1", "userId": "u2", "sessionId": "s1", "n": -1})
assert c.read_item("e121", partition_key=["t1", "u2", "s1"])["n"] == -1

# A prefix is not a key: 400, naming the paths.
try:
    c.read_item("e121", partition_key=["t1", "u2"])
    raise AssertionError("a prefix read succeeded")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e
    assert "/tenantId" in e.message, e.message

# Queries: a full key, a prefix of one value, of two values.
rows = list(c.query_items("SELECT VALUE c.id FROM c", partition_key=["t1", "u2", "s1"]))
assert rows == ["e121"], rows
rows = sorted(c.query_items("SELECT VALUE c.id FROM c", partition_key=["t2"]))
assert rows == sorted(f"e2{u}{s}" for u in range(3) for s in range(2)), rows
rows = sorted(c.query_items("SELECT VALUE c.id FROM c", partition_key=["t2", "u0"]))
assert rows == ["e200", "e201"], rows
# The same prefix in the filter, across partitions.
rows = list(c.query_items("SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = 't3'",
                          enable_cross_partition_query=True))
assert rows == [6], rows

# The change feed of a prefix and of a full key.
feed = list(c.query_items_change_feed(start_time="Beginning", partition_key=["t3"]))
assert sorted(d["id"] for d in feed) == sorted(f"e3{u}{s}" for u in range(3) for s in range(2)), feed
feed = list(c.query_items_change_feed(start_time="Beginning", partition_key=["t0", "u1", "s0"]))
assert [d["id"] for d in feed] == ["e010"], feed

c.delete_item("e010", partition_key=["t0", "u1", "s0"])
rows = list(c.query_items("SELECT VALUE c.id FROM c", partition_key=["t0", "u1"]))
assert rows == ["e011"], rows
print("hierarchical ok")
