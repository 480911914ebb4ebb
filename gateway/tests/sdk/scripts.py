"""Server-side scripts through the SDK: the container's Rust stored procedure and pre-trigger
(registered by the test, as an app registers them) listed, read, executed and run; a JavaScript
body refused with Cosmos DB's script error."""
import os

from azure.cosmos import CosmosClient, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
c = client.get_database_client("s").get_container_client("c")

assert [p["id"] for p in c.scripts.list_stored_procedures()] == ["bump"]
assert c.scripts.get_stored_procedure("bump")["id"] == "bump"
triggers = list(c.scripts.list_triggers())
assert [(t["id"], t["triggerType"], t["triggerOperation"]) for t in triggers] == [("stamp", "Pre", "Create")], triggers
assert list(c.scripts.list_user_defined_functions()) == []

# The procedure runs in one logical partition, as one transaction.
r1 = c.scripts.execute_stored_procedure("bump", partition_key="k", params=["by two", 2])
r2 = c.scripts.execute_stored_procedure("bump", partition_key="k", params=["by two", 2])
assert r1["count"] == 2 and r2["count"] == 4, (r1, r2)
assert float(c.client_connection.last_response_headers["x-ms-request-charge"]) > 0
assert c.read_item("counter", partition_key="k")["count"] == 4

# A procedure's own error is its status, and it commits nothing.
try:
    c.scripts.execute_stored_procedure("bump", partition_key="k", params=["by nothing", 0])
    raise AssertionError("bump refuses 0")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e.status_code
assert c.read_item("counter", partition_key="k")["count"] == 4

try:
    c.scripts.execute_stored_procedure("missing", partition_key="k")
    raise AssertionError("no such procedure")
except exceptions.CosmosResourceNotFoundError:
    pass

# The pre-trigger named on a create runs before the write.
item = c.create_item({"id": "i1", "pk": "k"}, pre_trigger_include="stamp")
assert item["stamped"] is True, item

# JavaScript: what Cosmos DB answers for a script it cannot compile.
for create in (c.scripts.create_stored_procedure, c.scripts.create_user_defined_function):
    try:
        create({"id": "js", "body": "function () { return 1; }"})
        raise AssertionError("a JavaScript body must be refused")
    except exceptions.CosmosHttpResponseError as e:
        assert e.status_code == 400 and "compiling Javascript" in e.message, e.message
print("scripts: ok")
