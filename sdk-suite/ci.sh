#!/usr/bin/env bash
# CI's run of the official Python SDK's own tests against `engine serve`, held to
# expected-failures.tsv (check.py): the emulator set over https on 127.0.0.1:8081 (the
# emulator's own address, which several tests hard-code), sync and async (the *_async.py files,
# ~8.5 min on 2 cores), and the live single-region set (sync). A test
# that fails unlisted is run once more alone (up to 10 per set); one that then passes is
# reported FLAKY and does not fail CI, one that fails again does.
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
OUT="${SDK_SUITE_OUT:-target/sdk-suite}"
run_set() { # set, extra env
  local set=$1; shift
  env "$@" RESULTS_TAG=ci bash sdk-suite/run.sh "$set"
  mapfile -t again < <("$PY" sdk-suite/check.py --unexpected "$OUT/$set-ci" | grep .)
  rm -rf "$OUT/$set-ci-retry"
  if [ "${#again[@]}" -gt 0 ] && [ "${#again[@]}" -le 10 ]; then
    echo "running ${#again[@]} unlisted failure(s) of $set once more, alone"
    env "$@" RESULTS_TAG=ci-retry bash sdk-suite/run.sh "$set" "${again[@]}"
  fi
}
run_set emulator TLS=1
run_set emulator-async TLS=1
run_set live TLS=0
"$PY" sdk-suite/check.py "$OUT/emulator-ci" "$OUT/emulator-async-ci" "$OUT/live-ci" \
  --retried "$OUT/emulator-ci-retry" "$OUT/emulator-async-ci-retry" "$OUT/live-ci-retry"
