"""After a restart: the JavaScript scripts created over the API (procedures, a trigger, a UDF) are
there and run."""
import os

from azure.cosmos import CosmosClient

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
c = client.get_database_client("s").get_container_client("c")
ids = sorted(p["id"] for p in c.scripts.list_stored_procedures())
assert ids == ["add", "hello"], ids
assert c.scripts.execute_stored_procedure("hello", partition_key="k", params=["cy"]) == "hello cy"
assert c.create_item({"id": "i3", "pk": "k"}, pre_trigger_include="jsStamp")["js"] is True
rows = list(c.query_items("SELECT VALUE udf.triple(2) FROM c WHERE c.id = 'counter'", partition_key="k"))
assert rows == [6], rows
print("scripts after restart: ok")
