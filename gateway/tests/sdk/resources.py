"""Databases and containers through the SDK: create, read, list, replace, delete, 404/409."""
import os

from azure.cosmos import CosmosClient, PartitionKey, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})

db = client.create_database("shop")
assert db.read()["id"] == "shop"
assert [d["id"] for d in client.list_databases()] == ["shop"]
try:
    client.create_database("shop")
    raise AssertionError("a second create must conflict")
except exceptions.CosmosResourceExistsError:
    pass
again = client.create_database_if_not_exists("shop")
assert again.id == "shop"

c = db.create_container("orders", partition_key=PartitionKey("/customerId"), default_ttl=3600)
props = c.read()
assert props["partitionKey"]["paths"] == ["/customerId"], props
assert props["defaultTtl"] == 3600, props
assert props["_rid"] and props["_self"], props
v1 = db.create_container("legacy", partition_key=PartitionKey("/pk", version=1))
assert v1.read()["partitionKey"]["paths"] == ["/pk"]
names = sorted(x["id"] for x in db.list_containers())
assert names == ["legacy", "orders"], names

policy = {"indexingMode": "consistent", "automatic": True,
          "includedPaths": [{"path": "/customerId/?"}], "excludedPaths": [{"path": "/*"}]}
replaced = db.replace_container(c, partition_key=PartitionKey("/customerId"), indexing_policy=policy,
                                default_ttl=3600)
assert replaced.read()["indexingPolicy"]["includedPaths"] == [{"path": "/customerId/?"}]

try:
    db.get_container_client("nope").read()
    raise AssertionError("a missing container must be 404")
except exceptions.CosmosResourceNotFoundError:
    pass

# A unique key policy (issue 23): a second item with the same email in one partition is a 409.
users = db.create_container("users", partition_key=PartitionKey("/tenant"),
                            unique_key_policy={"uniqueKeys": [{"paths": ["/email"]}]})
assert users.read()["uniqueKeyPolicy"]["uniqueKeys"] == [{"paths": ["/email"]}], users.read()
users.create_item({"id": "a", "tenant": "t1", "email": "a@x.org"})
users.create_item({"id": "a", "tenant": "t2", "email": "a@x.org"})
try:
    users.create_item({"id": "b", "tenant": "t1", "email": "a@x.org"})
    raise AssertionError("a second item with the email must conflict")
except exceptions.CosmosResourceExistsError as e:
    assert "unique" in str(e).lower(), e
db.delete_container("users")

# Queries over databases and containers select what they name, as the service's do: the SDK
# sends them to the feed with the query as the body.
found = list(client.query_databases(query="SELECT * FROM root r WHERE r.id=@id",
                                    parameters=[{"name": "@id", "value": "shop"}]))
assert [d["id"] for d in found] == ["shop"], found
assert list(client.query_databases(query="SELECT * FROM root r WHERE r.id='nope'")) == []
found = list(db.query_containers(query="SELECT * FROM root r WHERE r.id=@id",
                                 parameters=[{"name": "@id", "value": "legacy"}]))
assert [c["id"] for c in found] == ["legacy"], found
assert found[0]["_self"] == db.get_container_client("legacy").read()["_self"], found
# A single-region account has no conflicts: an empty feed, and a conflict by id is a 404.
legacy = db.get_container_client("legacy")
assert list(legacy.list_conflicts()) == []
assert list(legacy.query_conflicts(query="SELECT * FROM root r", enable_cross_partition_query=True)) == []
try:
    legacy.get_conflict("c1", partition_key="p")
    raise AssertionError("a conflict that does not exist must be 404")
except exceptions.CosmosResourceNotFoundError:
    pass
names = sorted(c["id"] for c in db.query_containers(query="SELECT VALUE r FROM root r"))
assert names == sorted(x["id"] for x in db.list_containers()), names

db.delete_container("legacy")
assert [x["id"] for x in db.list_containers()] == ["orders"]
client.delete_database("shop")
assert list(client.list_databases()) == []
try:
    client.get_database_client("shop").read()
    raise AssertionError("a deleted database must be 404")
except exceptions.CosmosResourceNotFoundError:
    pass
print("resources: ok")
