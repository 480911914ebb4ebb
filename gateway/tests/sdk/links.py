"""`_self` links and resource ids through the SDK (issue 35): items, containers, databases and
scripts come back with Cosmos DB's `_rid`/`_self`, and the SDK's calls that take a resource read
back (which address it by its `_self`) reach exactly that resource."""
import base64
import os

from azure.cosmos import CosmosClient, PartitionKey, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})


def rid_bytes(rid):
    return base64.b64decode(rid.replace("-", "/"))


db = client.create_database("links")
dbp = db.read()
c = db.create_container("c", partition_key=PartitionKey("/pk"))
cp = c.read()
assert len(rid_bytes(dbp["_rid"])) == 4, dbp
coll = rid_bytes(cp["_rid"])
# .NET's ResourceId.TryParse: 8 bytes, the database's 4 first, then a collection (top bit set).
assert len(coll) == 8 and coll[:4] == rid_bytes(dbp["_rid"]) and coll[4] & 0x80, cp
assert cp["_self"] == "dbs/%s/colls/%s/" % (dbp["_rid"], cp["_rid"]), cp

doc = c.create_item({"id": "a b", "pk": "p1", "n": 1})
r = rid_bytes(doc["_rid"])
# 16 bytes: the collection's 8, then a document (top 4 bits of the last byte 0).
assert len(r) == 16 and r[:8] == coll and r[15] >> 4 == 0, doc
assert doc["_self"] == "%sdocs/%s/" % (cp["_self"], doc["_rid"]), doc

# The SDK's samples: replace / read / delete with the item read back (by its _self link).
read_back = c.read_item("a b", partition_key="p1")
read_back["n"] = 2
replaced = c.replace_item(item=read_back, body=read_back)
assert replaced["n"] == 2 and replaced["_rid"] == doc["_rid"], replaced
assert c.read_item(item=replaced, partition_key="p1")["n"] == 2
# The same rid under the wrong partition key names nothing.
try:
    c.read_item(item=replaced, partition_key="p2")
    raise AssertionError("the item's rid under another partition key must be 404")
except exceptions.CosmosResourceNotFoundError:
    pass
c.delete_item(item=replaced, partition_key="p1")
try:
    c.read_item("a b", partition_key="p1")
    raise AssertionError("deleted by its _self, it must be gone")
except exceptions.CosmosResourceNotFoundError:
    pass

# A container addressed by its _self (the SDK's container link may be one).
by_link = db.get_container_client(cp)
by_link.upsert_item({"id": "x", "pk": "p"})
assert [i["id"] for i in c.query_items("SELECT * FROM c", partition_key="p")] == ["x"]

# Scripts: their _self links name them too.
sproc = c.scripts.create_stored_procedure(
    {"id": "hello", "body": "function () { getContext().getResponse().setBody('hi'); }"}
)
s = rid_bytes(sproc["_rid"])
assert len(s) == 16 and s[:8] == coll and s[15] >> 4 == 8, sproc
assert c.scripts.execute_stored_procedure(sproc=sproc, partition_key="p") == "hi"
assert c.scripts.get_stored_procedure(sproc)["id"] == "hello"

# A container deleted and re-created under its name, seen through the SDK's stale cache (as the
# SDK suite's test_container_properties_cache does): the SDK sends the old container's rid in
# x-ms-cosmos-intended-collection-rid, gets 400/1024, refreshes its cache and retries.
import copy  # noqa: E402

rc = db.create_container("recreated", partition_key=PartitionKey("/old"))
rc.create_item({"id": "1", "old": "v"})
old_cache = copy.deepcopy(client.client_connection._CosmosClientConnection__container_properties_cache)
db.delete_container("recreated")
rc = db.create_container("recreated", partition_key=PartitionKey("/new"))
client.client_connection._CosmosClientConnection__container_properties_cache = copy.deepcopy(old_cache)
seen = []
rc.create_item({"id": "2", "new": "w"}, response_hook=lambda h, _: seen.append(h))
assert rc.read_item("2", partition_key="w")["new"] == "w"
client.client_connection._CosmosClientConnection__container_properties_cache = copy.deepcopy(old_cache)
stale = rc.read_item("2", partition_key="w")
assert stale["id"] == "2", stale

# A database deleted and re-created under the same name has a new rid: old links reach nothing.
client.delete_database(db)
db2 = client.create_database("links")
assert db2.read()["_rid"] != dbp["_rid"]
db2.create_container("c", partition_key=PartitionKey("/pk"))
try:
    client.client_connection.ReadContainer(cp["_self"])
    raise AssertionError("the old database's links must be 404")
except exceptions.CosmosResourceNotFoundError:
    pass
print("LINKS OK")
