"""Writes items through the SDK as fast as it can, printing each id once its create is
acknowledged, until it is killed (the crash test kills the server under it)."""
import os
import sys

from azure.cosmos import CosmosClient, PartitionKey

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]},
                      retry_total=0)
db = client.create_database_if_not_exists("crash")
c = db.create_container_if_not_exists("c", partition_key=PartitionKey("/pk"), offer_throughput=40000)
prefix = os.environ["PREFIX"]
i = 0
while True:
    item_id = f"{prefix}-{i}"
    c.create_item({"id": item_id, "pk": f"p{i % 13}", "payload": "x" * 200})
    print("ACK", item_id, flush=True)
    i += 1
