"""Items through the SDK: create, read, replace, upsert, delete, etags (412, 304), 409, 404,
patch (every operation, and a conditional patch), the read feed in pages, PartitionKey.None."""
import os

from azure.core import MatchConditions
from azure.cosmos import CosmosClient, PartitionKey, exceptions
from azure.cosmos.partition_key import NonePartitionKeyValue

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("app")
c = db.create_container_if_not_exists("items", partition_key=PartitionKey("/pk"))


def expect(error, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except error as e:
        return e
    raise AssertionError(f"{fn.__name__} should have raised {error.__name__}")


created = c.create_item({"id": "a", "pk": "p1", "n": 1, "tags": ["x"]})
assert created["n"] == 1 and created["_etag"] and created["_rid"] and created["_ts"] > 0, created
assert created["_self"], created
read = c.read_item("a", partition_key="p1")
assert read["n"] == 1 and read["_etag"] == created["_etag"]
headers = c.client_connection.last_response_headers
assert float(headers["x-ms-request-charge"]) > 0, headers
assert headers["etag"] == created["_etag"], headers
print("POINT_READ_CHARGE", headers["x-ms-request-charge"])

e = expect(exceptions.CosmosResourceExistsError, c.create_item, {"id": "a", "pk": "p1"})
assert e.status_code == 409
e = expect(exceptions.CosmosResourceNotFoundError, c.read_item, "missing", partition_key="p1")
assert e.status_code == 404
expect(exceptions.CosmosResourceNotFoundError, c.read_item, "a", partition_key="other")

# Optimistic concurrency: the current etag applies, a stale one is 412.
replaced = c.replace_item("a", {"id": "a", "pk": "p1", "n": 2, "tags": ["x"]},
                          etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
assert replaced["n"] == 2 and replaced["_etag"] != created["_etag"]
e = expect(exceptions.CosmosAccessConditionFailedError, c.replace_item, "a",
           {"id": "a", "pk": "p1", "n": 3}, etag=created["_etag"],
           match_condition=MatchConditions.IfNotModified)
assert e.status_code == 412
assert c.read_item("a", partition_key="p1")["n"] == 2, "a 412 stores nothing"
e = expect(exceptions.CosmosAccessConditionFailedError, c.delete_item, "a", partition_key="p1",
           etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
# If-None-Match with the current etag: 304 Not Modified (which the SDK does not raise).
c.read_item("a", partition_key="p1", etag=replaced["_etag"], match_condition=MatchConditions.IfModified)
assert c.client_connection.last_response_headers["etag"] == replaced["_etag"]
status = []
c.read_item("a", partition_key="p1", etag=replaced["_etag"], match_condition=MatchConditions.IfModified,
            raw_response_hook=lambda r: status.append(r.http_response.status_code))
assert status == [304], status

# Upsert: creates, then replaces.
up = c.upsert_item({"id": "u", "pk": "p1", "v": 1})
assert up["v"] == 1
up = c.upsert_item({"id": "u", "pk": "p1", "v": 2})
assert up["v"] == 2 and c.read_item("u", partition_key="p1")["v"] == 2

# Patch: every operation in one request.
patched = c.patch_item("a", partition_key="p1", patch_operations=[
    {"op": "add", "path": "/color", "value": "red"},
    {"op": "set", "path": "/size", "value": 10},
    {"op": "replace", "path": "/n", "value": 5},
    {"op": "incr", "path": "/size", "value": 3},
    {"op": "add", "path": "/tags/-", "value": "y"},
    {"op": "move", "from": "/color", "path": "/colour"},
    {"op": "remove", "path": "/tags/0"},
])
assert patched["n"] == 5 and patched["size"] == 13 and patched["colour"] == "red", patched
assert "color" not in patched and patched["tags"] == ["y"], patched
e = expect(exceptions.CosmosHttpResponseError, c.patch_item, "a", partition_key="p1",
           patch_operations=[{"op": "remove", "path": "/nothere"}])
assert e.status_code == 400, e.status_code
# A conditional patch applies only when its predicate holds.
ok = c.patch_item("a", partition_key="p1", patch_operations=[{"op": "incr", "path": "/n", "value": 1}],
                  filter_predicate="FROM c WHERE c.n = 5")
assert ok["n"] == 6
e = expect(exceptions.CosmosAccessConditionFailedError, c.patch_item, "a", partition_key="p1",
           patch_operations=[{"op": "incr", "path": "/n", "value": 1}],
           filter_predicate="FROM c WHERE c.n = 5")
assert c.read_item("a", partition_key="p1")["n"] == 6

# An item without the partition key property: PartitionKey.None.
c.create_item({"id": "nopk", "v": 1})
assert c.read_item("nopk", partition_key=NonePartitionKeyValue)["v"] == 1
c.delete_item("nopk", partition_key=NonePartitionKeyValue)
expect(exceptions.CosmosResourceNotFoundError, c.read_item, "nopk", partition_key=NonePartitionKeyValue)

# Numbers, booleans as partition keys.
c.create_item({"id": "num", "pk": 7})
assert c.read_item("num", partition_key=7)["pk"] == 7
c.create_item({"id": "bool", "pk": True})
assert c.read_item("bool", partition_key=True)["pk"] is True

# Delete.
c.delete_item("u", partition_key="p1")
expect(exceptions.CosmosResourceNotFoundError, c.read_item, "u", partition_key="p1")
expect(exceptions.CosmosResourceNotFoundError, c.delete_item, "u", partition_key="p1")

# The read feed, in pages of 7, over 40 items in 5 partitions.
for i in range(40):
    c.create_item({"id": f"f{i:02}", "pk": f"g{i % 5}", "i": i})
pages = list(c.read_all_items(max_item_count=7).by_page())
ids = [d["id"] for p in pages for d in p]
assert len(pages) >= 6, len(pages)
assert sorted(ids) == sorted(["a", "num", "bool"] + [f"f{i:02}" for i in range(40)]), ids
assert len(ids) == len(set(ids)), "no item twice"
# Usage headers: the items stored.
c.read(populate_quota_info=True)
usage = c.client_connection.last_response_headers["x-ms-resource-usage"]
assert "documentsCount=43" in usage, usage
assert "x-ms-resource-quota" in c.client_connection.last_response_headers

# One logical partition's items, queried.
g0 = list(c.query_items("SELECT * FROM c", partition_key="g0"))
assert sorted(d["i"] for d in g0) == list(range(0, 40, 5)), g0

# Every item of one logical partition deleted; the others kept.
c.delete_all_items_by_partition_key("g1")
assert list(c.query_items("SELECT * FROM c", partition_key="g1")) == []
assert len(list(c.query_items("SELECT * FROM c", partition_key="g2"))) == 8
print("items: ok")
