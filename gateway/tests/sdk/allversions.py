"""The all-versions-and-deletes change feed through the SDK: a container created with a change
feed policy (retention in minutes) shows it; from now, a create, two replaces and a delete come
back as four records in order, each with its operation, the delete with the id it removed; a
container without the policy refuses the mode with a 400."""
import os

from azure.cosmos import CosmosClient, PartitionKey
from azure.cosmos.exceptions import CosmosHttpResponseError

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("av")
c = db.create_container(
    "orders", partition_key=PartitionKey("/pk"), change_feed_policy={"retentionDuration": 10}
)
props = c.read()
assert props["changeFeedPolicy"] == {"retentionDuration": 10}, props

for i in range(5):
    c.create_item({"id": f"before{i}", "pk": "p"})


def drain(**kwargs):
    pager = c.query_items_change_feed(mode="AllVersionsAndDeletes", **kwargs).by_page()
    items = [d for page in pager for d in page]
    return items, pager.continuation_token or kwargs.get("continuation")


# From now: none of what is there.
seen, token = drain(start_time="Now")
assert seen == [], seen
token = token or c.client_connection.last_response_headers["etag"]

c.create_item({"id": "o1", "pk": "p", "v": 1})
c.replace_item("o1", {"id": "o1", "pk": "p", "v": 2})
c.upsert_item({"id": "o1", "pk": "p", "v": 3})
c.delete_item("o1", partition_key="p")

records, token = drain(continuation=token)
ops = [r["metadata"]["operationType"] for r in records]
assert ops == ["create", "replace", "replace", "delete"], records
assert [r["current"]["v"] for r in records[:3]] == [1, 2, 3], records
deleted = records[3]["metadata"]
# A delete's current image is empty, as the service's is (azure-cosmos's own
# test_change_feed_all_versions.py expects `"current": {}` on delete records).
assert deleted["id"] == "o1" and records[3]["current"] == {}, records[3]
lsns = [r["metadata"]["lsn"] for r in records]
assert lsns == sorted(lsns) and len(set(lsns)) == 4, lsns
assert records[1]["metadata"]["previousImageLSN"] == lsns[0], records[1]

# Nothing new: no records.
again, _ = drain(continuation=token)
assert again == [], again

# The latest-version feed of the same container still works.
latest = list(c.query_items_change_feed(start_time="Beginning"))
assert sorted(d["id"] for d in latest) == [f"before{i}" for i in range(5)], latest

# Without the policy the mode is refused.
plain = db.create_container("plain", partition_key=PartitionKey("/pk"))
plain.create_item({"id": "x", "pk": "p"})
try:
    list(plain.query_items_change_feed(mode="AllVersionsAndDeletes", start_time="Now"))
    raise AssertionError("the all-versions feed of a container without the policy")
except CosmosHttpResponseError as e:
    assert e.status_code == 400, e
print("allversions ok")
