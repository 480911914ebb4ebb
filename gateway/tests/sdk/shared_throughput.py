"""Database-level (shared) throughput through the SDK (issue 35): a database created with
offer_throughput (the SDK suite's conftest does so), its offer read and replaced, containers
sharing it or keeping their own."""
import os

from azure.cosmos import CosmosClient, PartitionKey, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})

db = client.create_database("shared", offer_throughput=400)
t = db.get_throughput()
assert t.offer_throughput == 400, t.properties
assert t.properties["resource"] == db.read()["_self"], t.properties
assert t.properties["offerResourceId"] == db.read()["_rid"], t.properties
assert db.replace_throughput(600).offer_throughput == 600
assert db.get_throughput().offer_throughput == 600

sharing = db.create_container("sharing", partition_key=PartitionKey("/pk"))
own = db.create_container("own", partition_key=PartitionKey("/pk"), offer_throughput=1000)
assert own.get_throughput().offer_throughput == 1000
sharing.upsert_item({"id": "a", "pk": "p"})
# The database's offer and the container's are two offers, each found by its resource; the
# sharing container has none of its own. (Not asked through sharing.get_throughput(): for a
# container without an offer, azure-cosmos 4.17.1 raises its 404/10004 inside a retry that then
# fails on a missing container link, an AttributeError whatever the server.)
ids = {o["resource"]: o["id"] for o in client.client_connection.ReadOffers()}
assert set(ids) == {db.read()["_self"], own.read()["_self"]}, ids
assert len(set(ids.values())) == 2, ids
assert db.get_throughput().offer_throughput == 600
try:
    client.create_database("bad", offer_throughput=100)
    raise AssertionError("less than 400 RU/s is refused")
except exceptions.CosmosHttpResponseError as e:
    assert e.status_code == 400, e
print("SHARED OK")
