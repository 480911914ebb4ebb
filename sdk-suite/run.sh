#!/usr/bin/env bash
# Runs azure-cosmos 4.17.1's own test suite (its tests/ folder, unchanged, fetched and checked by
# fetch.sh) against the project's Cosmos DB REST gateway. See README.md; ci.sh holds CI to
# expected-failures.tsv.
#
#   bash run.sh [emulator|live|emulator-async|live-async|all] [TEST_FILE.py ...]
#
#   emulator        sync files, tests marked cosmosEmulator (the suite the SDK's maintainers
#                   run against the Cosmos DB emulator)          [default]
#   live            sync files, tests marked cosmosLong / cosmosQuery / cosmosSplit and not
#                   cosmosEmulator (the maintainers run these against live single-region
#                   Azure accounts)
#   *-async         the same for the *_async.py files
#   all             the four sets above, one after the other
#   TEST_FILE.py    only these files (within the chosen set)
#
# Environment:
#   ACCOUNT_HOST    the endpoint (default http://localhost:18383/; localhost is 127.0.0.1
#                   here, and several emulator tests fake a second region by rewriting
#                   "localhost" to "127.0.0.1", as they do against the emulator)
#   ACCOUNT_KEY     default: the emulator's well-known key (test_config.py's default)
#   START_GATEWAY=1 start $ENGINE on a fresh, empty data directory ($DATA) on 127.0.0.1:$PORT
#                   for the run and stop it (by PID) afterwards  [default 1]
#   TLS=1           serve https on 127.0.0.1:8081 (the gateway's --tls, self-signed) and use
#                   ACCOUNT_HOST=https://localhost:8081/, the emulator's own address, which
#                   test_config.py and several tests hard-code (TestConfig.local_host); the
#                   certificate is trusted through REQUESTS_CA_BUNDLE / SSL_CERT_FILE. With it
#                   test_config's is_emulator is True by itself. [default 0: http, port 18383]
#   ENGINE          default $CARGO_TARGET_DIR (or target)/release/engine of the project root you run it from
#   DATA            default $TMPDIR/sdk-suite-data, with TLS=1 …-tls (removed and re-created when START_GATEWAY=1)
#   FILE_TIMEOUT    seconds per test file (default 600); TEST_TIMEOUT per test (default 240)
#   PRECREATE_DB=1  before each file, create the shared test database without throughput and
#                   pass it as COSMOS_TEST_DATABASE_ID (test_config reads it), because the
#                   gateway refuses conftest's database-level offer_throughput=400 [default 0]
#   SDK_SUITE_OUT   where results go (default target/sdk-suite of the project)
#   SDKTESTS_DIR    the upstream tests/ folder (default: fetched by fetch.sh into
#                   target/sdk-suite/tests-4.17.1)
#   RESULTS_TAG     results go to <out>/<set>-<tag> instead of <out>/<set>
#   SDKTESTS_IS_EMULATOR=1  have test_config treat the gateway as the emulator (default 1;
#                   see shim/gateway_as_emulator.py)
#
# Needs: pip install azure-cosmos==4.17.1 pytest pytest-asyncio pytest-timeout aiohttp
# Results: <out>/<set>/<file>.log (pytest -rA output), <out>/<set>/results.jsonl
# (one line per test outcome, with its markers), <out>/<set>/summary.txt.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SET="${1:-emulator}"; shift || true
TLS="${TLS:-0}"
if [ "$TLS" = 1 ]; then
  PORT="${PORT:-8081}"
  export ACCOUNT_HOST="${ACCOUNT_HOST:-https://localhost:${PORT}/}"
else
  PORT="${PORT:-18383}"
  export ACCOUNT_HOST="${ACCOUNT_HOST:-http://localhost:${PORT}/}"
fi
export ACCOUNT_KEY="${ACCOUNT_KEY:-C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==}"
export SDKTESTS_IS_EMULATOR="${SDKTESTS_IS_EMULATOR:-1}"
START_GATEWAY="${START_GATEWAY:-1}"
PRECREATE_DB="${PRECREATE_DB:-0}"
PROJECT_DIR="$PWD"
ENGINE="${ENGINE:-${CARGO_TARGET_DIR:-$PROJECT_DIR/target}/release/engine}"
DATA="${DATA:-${TMPDIR:-/tmp}/sdk-suite-data$([ "$TLS" = 1 ] && echo -tls)}"
FILE_TIMEOUT="${FILE_TIMEOUT:-600}"
TEST_TIMEOUT="${TEST_TIMEOUT:-240}"
PY="${PYTHON:-python3}"

ver="$($PY -c 'import azure.cosmos as c; print(c.__version__)' 2>/dev/null)"
[ "$ver" = "4.17.1" ] || echo "warning: azure-cosmos is '${ver:-missing}', the tests are 4.17.1's" >&2

if [ "$SET" = all ]; then
  rc=0
  for s in emulator live emulator-async live-async; do bash "$0" "$s" "$@" || rc=1; done
  exit $rc
fi

case "$SET" in
  emulator|emulator-async) MARK='cosmosEmulator' ;;
  live|live-async) MARK='(cosmosLong or cosmosQuery or cosmosSplit) and not cosmosEmulator' ;;
  *) echo "unknown set: $SET" >&2; exit 2 ;;
esac

export SDKTESTS_DIR="${SDKTESTS_DIR:-$(bash "$HERE/fetch.sh")}" || exit 1
cd "$SDKTESTS_DIR"
if [ $# -gt 0 ]; then
  FILES=("$@")
else
  # the files that hold tests of the set's markers, sync or async
  pat='cosmosEmulator'; [ "${SET%-async}" = live ] && pat='cosmosLong|cosmosQuery|cosmosSplit'
  mapfile -t FILES < <(grep -lE "pytest\.mark\.($pat)\b" test_*.py routing/test_*.py 2>/dev/null | sort |
    if [ "${SET#*-}" = async ]; then grep '_async\.py$'; else grep -v '_async\.py$'; fi)
fi

OUTDIR="${SDK_SUITE_OUT:-$PROJECT_DIR/target/sdk-suite}/$SET${RESULTS_TAG:+-$RESULTS_TAG}"
mkdir -p "$OUTDIR"
rm -f "$OUTDIR/results.jsonl" "$OUTDIR"/*.log "$OUTDIR/files.tsv" "$OUTDIR/precreate.err"
export SDKTESTS_JSONL="$OUTDIR/results.jsonl"
export PYTHONPATH="$HERE/shim${PYTHONPATH:+:$PYTHONPATH}"

TLSARG=(); SCHEME=http
if [ "$TLS" = 1 ]; then
  TLSARG=(--tls); SCHEME=https
  # the gateway's self-signed certificate (made in $DATA on its first start), trusted by
  # requests (sync client) and by Python's default SSL context (aiohttp, async client)
  export REQUESTS_CA_BUNDLE="$DATA/gateway-cert.pem" SSL_CERT_FILE="$DATA/gateway-cert.pem"
fi
start_gateway() {
  "$ENGINE" --data "$DATA" serve --addr "127.0.0.1:${PORT}" "${TLSARG[@]}" >>"$OUTDIR/gateway.log" 2>&1 &
  GW_PID=$!
  for _ in $(seq 1 100); do
    curl -sk -o /dev/null "$SCHEME://127.0.0.1:${PORT}/" && return 0
    kill -0 "$GW_PID" 2>/dev/null || { echo "gateway exited, see $OUTDIR/gateway.log" >&2; exit 1; }
    sleep 0.2
  done
}
GW_PID=""
stop_gateway() { if [ -n "$GW_PID" ]; then kill "$GW_PID" 2>/dev/null; wait "$GW_PID" 2>/dev/null; GW_PID=""; fi; }
trap stop_gateway EXIT
if [ "$START_GATEWAY" = 1 ]; then
  rm -rf "$DATA"; mkdir -p "$DATA"; : >"$OUTDIR/gateway.log"
  start_gateway
  echo "gateway pid $GW_PID on 127.0.0.1:${PORT}, data $DATA"
fi

echo "set=$SET marker='$MARK' host=$ACCOUNT_HOST files=${#FILES[@]}"
for f in "${FILES[@]}"; do
  if [ -n "$GW_PID" ] && ! kill -0 "$GW_PID" 2>/dev/null; then
    echo "GATEWAY DIED before $f (see gateway.log); restarting it on the same data" | tee -a "$OUTDIR/files.tsv"
    start_gateway
  fi
  log="$OUTDIR/$(echo "$f" | tr '/' '_').log"
  if [ "$PRECREATE_DB" = 1 ]; then
    # conftest's session start asks for the shared database with offer_throughput=400
    # (create_database_if_not_exists reads it first, so an existing one is used as is)
    export COSMOS_TEST_DATABASE_ID="PythonSDKTest-gw-$(basename "$f" .py)-$RANDOM$RANDOM"
    "$PY" -c 'import os,sys; from azure.cosmos import CosmosClient as C; C(os.environ["ACCOUNT_HOST"], os.environ["ACCOUNT_KEY"]).create_database(os.environ["COSMOS_TEST_DATABASE_ID"])' \
      >/dev/null 2>>"$OUTDIR/precreate.err" || echo "precreate failed for $f" >&2
  fi
  start=$(date +%s)
  timeout -k 10 "$FILE_TIMEOUT" "$PY" -m pytest "$f" -p gateway_as_emulator -p no:cacheprovider \
    -q -rA --timeout "$TEST_TIMEOUT" -m "$MARK" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  printf '%s\t%s\t%s\t%s\n' "$f" "$rc" "$secs" "$(tail -n 1 "$log")" | tee -a "$OUTDIR/files.tsv"
done

"$PY" "$HERE/summarize.py" "$OUTDIR" | tee "$OUTDIR/summary.txt"
