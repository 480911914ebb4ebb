"""Session tokens through the SDK (issue 35): after a write, the SDK's session container holds
the container's token and sends it back on the next read, as it does against the service. It
keeps a token only for an answer that names its owner (`x-ms-alt-content-path`)."""
import os

from azure.cosmos import CosmosClient, PartitionKey

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database("session")
c = db.create_container("with space", partition_key=PartitionKey("/pk"))

answers = []
c.create_item({"id": "a", "pk": "p"}, response_hook=lambda h, _: answers.append(h))
assert answers[0].get("x-ms-alt-content-path") == "dbs/session/colls/with space", answers[0]

sent = []
c.read_item("a", partition_key="p",
            raw_response_hook=lambda r: sent.append(r.http_request.headers.get("x-ms-session-token")))
assert sent[0], "the read carries the session token of the write: %r" % sent
assert sent[0] == answers[0]["x-ms-session-token"], (sent, answers[0])
# Each write's answer carries its lsn, one more than the write before it in the partition.
first = c.upsert_item({"id": "b", "pk": "p"}).get_response_headers()["lsn"]
second = c.upsert_item({"id": "c", "pk": "p"}).get_response_headers()["lsn"]
assert int(second) == int(first) + 1, (first, second)
print("session: ok", sent[0])
