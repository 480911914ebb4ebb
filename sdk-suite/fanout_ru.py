"""What a cross-partition query costs when the official Python SDK drives it against
`engine serve` (it asks the gateway for the query plan, then queries each partition key range and
merges the pages itself, as on Azure), against what the engine charges when it runs the same query
whole (the CLI's `engine query`, the embedded client's path). Issue 35: they should agree within
10%.

    python3 sdk-suite/fanout_ru.py [--engine target/debug/engine] [--items 4000] [--ru 40000]

It starts the gateway on an empty data directory and a free port, creates a container of
`--ru` RU/s (10 000 RU/s per physical partition: 40 000 gives 4 ranges), writes the items through
the SDK, runs each query through the SDK (page size 100, every HTTP response's
`x-ms-request-charge` summed by an azure-core `raw_response_hook`: the plan request, the
partition-key-range reads and every range's pages), stops the gateway, and runs each query with
`engine query --max-item-count 100` on the same directory (the sum of its pages' charges). Both
answers are compared too (row count). Prints a Markdown table."""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from azure.cosmos import CosmosClient, PartitionKey

KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
PAGE = 100  # --page
QUERIES = [
    ("filter", "SELECT * FROM c WHERE c.cat = 3"),
    ("projection", "SELECT c.id, c.n FROM c WHERE c.n >= 1000"),
    ("ORDER BY", "SELECT * FROM c WHERE c.cat = 2 ORDER BY c.n DESC"),
    ("TOP + ORDER BY", "SELECT TOP 10 c.id, c.n FROM c ORDER BY c.n"),
    ("TOP", "SELECT TOP 50 * FROM c WHERE c.price > 10"),
    ("COUNT", "SELECT VALUE COUNT(1) FROM c"),
    ("SUM (filter)", "SELECT VALUE SUM(c.price) FROM c WHERE c.cat = 1"),
    ("AVG", "SELECT VALUE AVG(c.price) FROM c"),
    ("DISTINCT", "SELECT DISTINCT VALUE c.cat FROM c"),
    ("GROUP BY", "SELECT c.cat, COUNT(1) AS n FROM c GROUP BY c.cat"),
    ("OFFSET LIMIT", "SELECT c.id FROM c ORDER BY c.n OFFSET 100 LIMIT 20"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def item(i):
    return {
        "id": f"item-{i}",
        "pk": f"customer-{i % 250}",
        "n": i,
        "cat": i % 7,
        "price": round((i * 37 % 1000) / 10, 1),
        "name": f"an item with a name of some length, number {i}",
        "tags": ["a", "b", "c"][: 1 + i % 3],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="target/debug/engine")
    ap.add_argument("--items", type=int, default=4000)
    ap.add_argument("--ru", type=int, default=40000)
    ap.add_argument("--page", type=int, default=100, help="max_item_count, both ways")
    ap.add_argument("--keep", action="store_true", help="keep the data directory (printed)")
    ap.add_argument("--verbose", action="store_true", help="print every request of the SDK's")
    args = ap.parse_args()
    global PAGE
    PAGE = args.page
    data = tempfile.mkdtemp(prefix="fanout-ru-")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    gw = subprocess.Popen([args.engine, "--data", data, "serve", "--addr", f"127.0.0.1:{port}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        charges = []
        querying = False

        def hook(response):
            h = response.http_response.headers
            charges.append(float(h.get("x-ms-request-charge", 0) or 0))
            if args.verbose and querying:
                rq = response.http_request
                print("   ", rq.method, rq.url.split("/", 3)[-1],
                      rq.headers.get("x-ms-documentdb-partitionkeyrangeid", ""),
                      "plan" if rq.headers.get("x-ms-cosmos-is-query-plan-request") else "",
                      h.get("x-ms-item-count", ""), charges[-1], file=sys.stderr)

        client = CosmosClient(url, KEY, raw_response_hook=hook)
        db = client.create_database("fanout")
        c = db.create_container("items", PartitionKey("/pk"), offer_throughput=args.ru)
        ranges = len(list(c.read_feed_ranges()))
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda i: c.create_item(item(i)), range(args.items)))
        sdk = []
        querying = True
        for name, sql in QUERIES:
            if args.verbose:
                print(sql, file=sys.stderr)
            charges.clear()
            rows = list(c.query_items(sql, enable_cross_partition_query=True, max_item_count=PAGE))
            sdk.append((sum(charges), len(charges), len(rows)))
    finally:
        gw.terminate()
        gw.wait()
    out = [f"{args.items} items of ~380 bytes in {ranges} partition key ranges "
           f"({args.ru} RU/s), page size {PAGE}", "",
           "| query | SDK RU (requests) | engine RU (pages) | SDK / engine | rows SDK / engine |",
           "|---|---:|---:|---:|---|"]
    worst = 0.0
    for (name, sql), (sdk_ru, reqs, sdk_rows) in zip(QUERIES, sdk):
        p = subprocess.run([args.engine, "--data", data, "query", "--db", "fanout", "--container",
                            "items", "--max-item-count", str(PAGE), sql],
                           capture_output=True, text=True, check=True)
        lines = [json.loads(l) for l in p.stderr.splitlines() if l.startswith("{")]
        eng_ru = lines[-1]["requestCharge"]
        pages = sum(1 for l in lines if "page" in l)
        eng_rows = len(json.loads(p.stdout))
        ratio = sdk_ru / eng_ru if eng_ru else float("inf")
        worst = max(worst, abs(ratio - 1))
        out.append(f"| {name}: `{sql}` | {sdk_ru:.2f} ({reqs}) | {eng_ru:.2f} ({pages}) | "
                   f"{ratio:.2f} | {sdk_rows} / {eng_rows} |")
    out.append("")
    out.append(f"largest difference: {worst:.0%}")
    print("\n".join(out))
    if args.keep:
        print(f"data: {data}")
    else:
        shutil.rmtree(data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
