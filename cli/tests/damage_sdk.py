"""Issue 34: what the official Python SDK (azure-cosmos) reads through `engine serve`, paged.

Run by `cli/tests/damage_campaign.rs` (`damaged_copies_through_serve_and_the_python_sdk`) on the
undamaged store and on each damaged copy: `python3 damage_sdk.py http://127.0.0.1:PORT/`. Prints
one JSON line per read: `{"name": ..., "ok": [ids or values, in the order read]}` or
`{"name": ..., "status": HTTP status, "error": message}` when the service refused. Small pages
(20-50 items) so that every read crosses many continuations. The SDK's retries are turned off:
a refusal is reported as the service gave it.
"""

import json
import sys
import traceback

from azure.cosmos import CosmosClient, exceptions

# The Cosmos DB emulator's well-known key (`engine serve`'s default on a loopback address).
KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="


def pages(iterable):
    """Every item of a paged SDK answer, page by page (as an application pages it)."""
    out = []
    for page in iterable.by_page():
        out.extend(page)
    return out


def ids(items):
    return [i["id"] if isinstance(i, dict) else i for i in items]


def main():
    endpoint = sys.argv[1]
    client = CosmosClient(endpoint, {"masterKey": KEY}, retry_total=0,
                          connection_timeout=30)
    db = client.get_database_client("d")
    c = db.get_container_client("c")
    h = db.get_container_client("h")
    reads = [
        ("sdk read feed", lambda: ids(pages(c.read_all_items(max_item_count=50)))),
        ("sdk query ids", lambda: pages(c.query_items(
            "SELECT VALUE c.id FROM c", enable_cross_partition_query=True,
            max_item_count=50))),
        ("sdk query range", lambda: pages(c.query_items(
            "SELECT VALUE c.id FROM c WHERE c.v > 2500", enable_cross_partition_query=True,
            max_item_count=40))),
        ("sdk query eq", lambda: pages(c.query_items(
            "SELECT VALUE c.id FROM c WHERE c.v = @v", parameters=[{"name": "@v", "value": 1234}],
            enable_cross_partition_query=True, max_item_count=20))),
        ("sdk query p7", lambda: pages(c.query_items(
            "SELECT VALUE c.id FROM c", partition_key="p7", max_item_count=20))),
        ("sdk prefix ids", lambda: pages(h.query_items(
            "SELECT VALUE c.id FROM c", partition_key=["t3"], max_item_count=20))),
        ("sdk prefix filtered", lambda: pages(h.query_items(
            "SELECT VALUE c.id FROM c WHERE STARTSWITH(c.id, 'h1')", partition_key=["t1"],
            max_item_count=20))),
        # One logical partition's share of a value past 1 024 entries in its physical partition,
        # and a second indexed equality (checked per item by a lookup of its entry).
        ("sdk eq past 1024 of p7", lambda: pages(c.query_items(
            "SELECT VALUE c.id FROM c WHERE c.kind = 'a'", partition_key="p7",
            max_item_count=20))),
        ("sdk two equalities", lambda: pages(c.query_items(
            "SELECT VALUE c.id FROM c WHERE c.kind = @k AND c.m = @m",
            parameters=[{"name": "@k", "value": "a"}, {"name": "@m", "value": 3}],
            enable_cross_partition_query=True, max_item_count=25))),
    ]
    for name, read in reads:
        try:
            print(json.dumps({"name": name, "ok": read()}), flush=True)
        except exceptions.CosmosHttpResponseError as e:
            print(json.dumps({"name": name, "status": e.status_code, "error": str(e.message)[:2000]}),
                  flush=True)
        except Exception as e:  # a connection closed by a server that died, a timeout
            print(json.dumps({"name": name, "status": 0, "error": f"{type(e).__name__}: {e}",
                              "trace": traceback.format_exc()[-3000:]}),
                  flush=True)


if __name__ == "__main__":
    main()
