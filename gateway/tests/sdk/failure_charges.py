"""Failed requests carry their charge (engine/RU.md, "Failed requests"): the SDK's exceptions
hold the response headers, and x-ms-request-charge is what the failed attempt cost."""
import os

from azure.core import MatchConditions
from azure.cosmos import CosmosClient, PartitionKey, exceptions

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]},
                      retry_total=0)
db = client.create_database_if_not_exists("charges")
c = db.create_container_if_not_exists(
    "users", partition_key=PartitionKey("/pk"),
    unique_key_policy={"uniqueKeys": [{"paths": ["/email"]}]})


def charge_of(error, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except error as e:
        return e.status_code, float(e.headers["x-ms-request-charge"])
    raise AssertionError(f"{fn.__name__} should have raised {error.__name__}")


def show(name, status, charge):
    print(f"{name} {status} {charge}")


created = c.create_item({"id": "a", "pk": "t", "email": "a@x.org", "name": "Ann", "age": 30})
write = float(c.client_connection.last_response_headers["x-ms-request-charge"])
show("create", 201, write)

status, ru = charge_of(exceptions.CosmosResourceNotFoundError, c.read_item, "missing", partition_key="t")
show("read_missing", status, ru)
assert status == 404 and ru >= 1, (status, ru)

status, ru = charge_of(exceptions.CosmosResourceNotFoundError, c.delete_item, "missing", partition_key="t")
show("delete_missing", status, ru)
assert status == 404 and ru >= 1, (status, ru)

status, ru = charge_of(exceptions.CosmosResourceExistsError, c.create_item,
                       {"id": "a", "pk": "t", "email": "other@x.org"})
show("id_conflict", status, ru)
assert status == 409 and ru >= 1, (status, ru)

status, ru = charge_of(exceptions.CosmosResourceExistsError, c.create_item,
                       {"id": "b", "pk": "t", "email": "a@x.org", "name": "Bob", "age": 31})
show("unique_conflict", status, ru)
assert status == 409 and abs(ru - write) <= write * 0.1, (status, ru, write)

status, ru = charge_of(exceptions.CosmosAccessConditionFailedError, c.replace_item, "a",
                       {"id": "a", "pk": "t", "email": "a@x.org"}, etag='"stale"',
                       match_condition=MatchConditions.IfNotModified)
show("stale_etag", status, ru)
assert status == 412 and ru >= 1, (status, ru)

# A query the evaluator refuses after it has read items: charged what it read.
status, ru = charge_of(exceptions.CosmosHttpResponseError, lambda: list(c.query_items(
    "SELECT * FROM c WHERE RegexMatch(c.email, 'a(?=b)')", partition_key="t")))
show("query_refused_regex", status, ru)
assert status == 400 and ru > 0, (status, ru)

# A malformed query is refused before it runs: nothing to charge.
status, ru = charge_of(exceptions.CosmosHttpResponseError, lambda: list(c.query_items(
    "SELECT FROM", partition_key="t")))
show("query_syntax_error", status, ru)
assert status == 400 and ru == 0, (status, ru)
