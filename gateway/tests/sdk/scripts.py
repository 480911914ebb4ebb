"""Server-side scripts through the SDK: the container's Rust stored procedure and pre-trigger
(registered by the test, as an app registers them) listed, read, executed and run; JavaScript
procedures, triggers and user-defined functions created, executed, replaced and deleted; a
script that does not compile refused with Cosmos DB's script error."""
import os

from azure.cosmos import CosmosClient, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
c = client.get_database_client("s").get_container_client("c")

assert [p["id"] for p in c.scripts.list_stored_procedures()] == ["bump"]
assert c.scripts.get_stored_procedure("bump")["id"] == "bump"
triggers = list(c.scripts.list_triggers())
assert [(t["id"], t["triggerType"], t["triggerOperation"]) for t in triggers] == [("stamp", "Pre", "Create")], triggers
assert list(c.scripts.list_user_defined_functions()) == []  # none registered yet

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

# JavaScript created over the API: run by the engine, kept by the gateway.
hello = c.scripts.create_stored_procedure({"id": "hello", "body":
    "function hello(name) { getContext().getResponse().setBody('hi ' + name); }"})
assert hello["id"] == "hello" and "function hello" in hello["body"], hello
assert c.scripts.execute_stored_procedure("hello", partition_key="k", params=["ann"]) == "hi ann"
try:
    c.scripts.create_stored_procedure({"id": "hello", "body": "function hello() {}"})
    raise AssertionError("a second create must conflict")
except exceptions.CosmosResourceExistsError:
    pass
c.scripts.replace_stored_procedure("hello", {"id": "hello", "body":
    "function hello(name) { getContext().getResponse().setBody('hello ' + name); }"})
assert c.scripts.execute_stored_procedure("hello", partition_key="k", params=["bo"]) == "hello bo"
bodies = {p["id"]: p["body"] for p in c.scripts.list_stored_procedures()}
assert "hello '" in bodies["hello"] and "bump" in bodies, bodies
# A query over the scripts selects what it names.
found = list(c.scripts.query_stored_procedures(query="SELECT * FROM root r WHERE r.id=@id",
                                               parameters=[{"name": "@id", "value": "hello"}]))
assert [p["id"] for p in found] == ["hello"] and "hello '" in found[0]["body"], found
assert list(c.scripts.query_triggers(query="SELECT * FROM root r WHERE r.id='nope'")) == []

# One that writes in its partition's transaction.
c.scripts.create_stored_procedure({"id": "add", "body": """function add(doc) {
    var coll = getContext().getCollection();
    var ok = coll.createDocument(coll.getSelfLink(), doc, function (err, created) {
        if (err) throw err;
        getContext().getResponse().setBody(created.id);
    });
    if (!ok) throw new Error('not accepted');
}"""})
assert c.scripts.execute_stored_procedure("add", partition_key="k", params=[{"id": "js1", "pk": "k"}]) == "js1"
assert c.read_item("js1", partition_key="k")["pk"] == "k"

# A JavaScript pre-trigger.
c.scripts.create_trigger({"id": "jsStamp", "triggerType": "Pre", "triggerOperation": "Create", "body":
    "function jsStamp() { var r = getContext().getRequest(); var d = r.getBody(); d.js = true; r.setBody(d); }"})
assert c.create_item({"id": "i2", "pk": "k"}, pre_trigger_include="jsStamp")["js"] is True

# User-defined functions, called in queries.
c.scripts.create_user_defined_function({"id": "triple", "body": "function triple(x) { return x * 3; }"})
c.scripts.create_user_defined_function({"id": "double", "body": "function double(x) { return x * 2; }"})
rows = list(c.query_items("SELECT VALUE [udf.double(c.count), udf.triple(c.count)] FROM c WHERE c.id = 'counter'",
                          partition_key="k"))
assert rows == [[8, 12]], rows
assert sorted(f["id"] for f in c.scripts.list_user_defined_functions()) == ["double", "triple"]
c.scripts.delete_user_defined_function("double")
try:
    list(c.query_items("SELECT VALUE udf.double(1) FROM c", partition_key="k"))
    raise AssertionError("a deleted UDF must be unknown")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e.status_code

# What Cosmos DB answers for a script that does not compile.
for create, body in ((c.scripts.create_stored_procedure, "function (] {"),
                     (c.scripts.create_user_defined_function, "function (x { return x; }")):
    try:
        create({"id": "broken", "body": body})
        raise AssertionError("must be refused")
    except exceptions.CosmosHttpResponseError as e:
        assert e.status_code == 400 and "compiling Javascript" in e.message, e.message
assert "broken" not in [p["id"] for p in c.scripts.list_stored_procedures()]

# The application's own scripts are not the API's to replace or delete.
for call in (lambda: c.scripts.delete_stored_procedure("bump"),
             lambda: c.scripts.replace_stored_procedure("bump", {"id": "bump", "body": "function b() {}"})):
    try:
        call()
        raise AssertionError("an app-registered script must stay")
    except exceptions.CosmosHttpResponseError as e:
        assert e.status_code == 405, e.status_code

# Deleted: gone.
c.scripts.create_stored_procedure({"id": "temp", "body": "function temp() {}"})
c.scripts.delete_stored_procedure("temp")
try:
    c.scripts.execute_stored_procedure("temp", partition_key="k")
    raise AssertionError("deleted")
except exceptions.CosmosResourceNotFoundError:
    pass
# The SDK's own constants (documents.TriggerType.Pre is "pre", TriggerOperation.All is "all").
from azure.cosmos import documents
c.scripts.create_trigger({"id": "upper", "triggerType": documents.TriggerType.Pre,
                          "triggerOperation": documents.TriggerOperation.All,
                          "body": "function upper() { var r = getContext().getRequest(); var d = r.getBody(); d.id = d.id.toUpperCase(); r.setBody(d); }"})
assert c.create_item({"id": "low", "pk": "k"}, pre_trigger_include="upper")["id"] == "LOW"

# console.log is the script log the request may ask for (test_crud.py's script-logging test),
# and appendValue appends to the body (its stored-procedure test).
c.scripts.create_stored_procedure({"id": "logs", "body":
    "function () { var t = 'x'; var v = 1; console.log('The value of %s is %s.', t, v); "
    "for (var i = 0; i < 10; i++) getContext().getResponse().appendValue('Body', i); }"})
assert c.scripts.execute_stored_procedure("logs", partition_key="k") == "0123456789"
headers = c.scripts.client_connection.last_response_headers
assert "x-ms-documentdb-script-log-results" not in headers, headers
c.scripts.execute_stored_procedure("logs", partition_key="k", enable_script_logging=True)
log = c.scripts.client_connection.last_response_headers.get("x-ms-documentdb-script-log-results")
import urllib.parse
assert log == urllib.parse.quote("The value of x is 1."), log
c.scripts.delete_stored_procedure("logs")
c.scripts.delete_trigger("upper")
print("scripts: ok")
