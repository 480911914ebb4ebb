#!/usr/bin/env bash
# CI's run of the official Python SDK's own tests against `engine serve`, held to
# expected-failures.tsv (check.py): the emulator set over https on 127.0.0.1:8081 (the
# emulator's own address, which several tests hard-code) and the live single-region set.
# Needs target/release/engine (`cargo build --release -p engine-cli`) and installs the pinned
# SDK and pytest plugins when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
need=(azure-cosmos==4.17.1 pytest pytest-asyncio pytest-timeout aiohttp)
if ! "$PY" -c 'import azure.cosmos, pytest, pytest_asyncio, pytest_timeout, aiohttp, sys; sys.exit(azure.cosmos.__version__ != "4.17.1")' 2>/dev/null; then
  echo "installing ${need[*]}"
  "$PY" -m pip install -q "${need[@]}" || "$PY" -m pip install -q --break-system-packages "${need[@]}"
fi
if ss -ltn 2>/dev/null | grep -q '127.0.0.1:8081 \|\*:8081 \|0.0.0.0:8081 '; then
  echo "port 8081 is taken: the emulator set needs it (the tests hard-code https://localhost:8081/)" >&2
  exit 1
fi
export PRECREATE_DB="${PRECREATE_DB:-1}"
rc=0
TLS=1 RESULTS_TAG=ci bash sdk-suite/run.sh emulator || rc=1
RESULTS_TAG=ci bash sdk-suite/run.sh live || rc=1
"$PY" sdk-suite/check.py target/sdk-suite/emulator-ci target/sdk-suite/live-ci || rc=1
exit $rc
