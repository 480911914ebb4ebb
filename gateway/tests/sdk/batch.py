"""Transactional batch through the SDK: every operation kind in one batch, and a failing batch
that commits nothing and names the failing operation."""
import os

from azure.cosmos import CosmosClient, PartitionKey, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database_if_not_exists("b")
c = db.create_container_if_not_exists("orders", partition_key=PartitionKey("/customerId"))
c.create_item({"id": "cust", "customerId": "c1", "orders": 0})
c.create_item({"id": "old", "customerId": "c1"})
etag = c.read_item("cust", partition_key="c1")["_etag"]

results = c.execute_item_batch([
    ("create", ({"id": "o1", "customerId": "c1", "total": 5},)),
    ("upsert", ({"id": "o2", "customerId": "c1", "total": 7},)),
    ("patch", ("cust", [{"op": "incr", "path": "/orders", "value": 2}]), {"if_match_etag": etag}),
    ("read", ("o1",)),
    ("replace", ("o2", {"id": "o2", "customerId": "c1", "total": 8})),
    ("delete", ("old",)),
], partition_key="c1")
assert [r["statusCode"] for r in results] == [201, 201, 200, 200, 200, 204], results
assert results[3]["resourceBody"]["total"] == 5
assert float(c.client_connection.last_response_headers["x-ms-request-charge"]) > 0
assert c.read_item("cust", partition_key="c1")["orders"] == 2
assert c.read_item("o2", partition_key="c1")["total"] == 8

# The second create conflicts: nothing of the batch is committed.
try:
    c.execute_item_batch([
        ("create", ({"id": "o3", "customerId": "c1"},)),
        ("create", ({"id": "o1", "customerId": "c1"},)),
    ], partition_key="c1")
    raise AssertionError("the batch must fail")
except exceptions.CosmosBatchOperationError as e:
    assert e.error_index == 1, e.error_index
    statuses = [r["statusCode"] for r in e.operation_responses]
    assert statuses == [424, 409], statuses
try:
    c.read_item("o3", partition_key="c1")
    raise AssertionError("o3 must not exist")
except exceptions.CosmosResourceNotFoundError:
    pass
print("batch: ok")
