"""Prints a run of the SDK's suite as the Markdown table PROTOCOL.md keeps: per set, per file,
passed / failed / errors / skipped, and the failures by cause from expected-failures.tsv.

    python3 sdk-suite/table.py target/sdk-suite/emulator-ci target/sdk-suite/live-ci"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check import outcomes, read_list  # noqa: E402


def main(folders):
    listed = read_list()
    causes = collections.Counter()
    for folder in folders:
        per_test, _ = outcomes(folder)
        by_file = collections.defaultdict(collections.Counter)
        for nodeid, status in per_test.items():
            by_file[nodeid.split("::")[0]][status] += 1
            if status in ("failed", "error"):
                causes[listed.get(nodeid, ("not listed", ""))[0]] += 1
        total = collections.Counter()
        print(f"\n**{os.path.basename(folder)}**\n")
        print("| file | passed | failed | errors | skipped |")
        print("|---|---:|---:|---:|---:|")
        for name in sorted(by_file):
            c = by_file[name]
            total.update(c)
            if c["failed"] or c["error"]:
                print(f"| {name} | {c['passed']} | {c['failed']} | {c['error']} | {c['skipped']} |")
        print(f"| all {len(by_file)} files (those with failures listed) | {total['passed']} | "
              f"{total['failed']} | {total['error']} | {total['skipped']} |")
    print("\nFailures by cause: " + ", ".join(f"{k} {v}" for k, v in causes.most_common()))


if __name__ == "__main__":
    main(sys.argv[1:])
