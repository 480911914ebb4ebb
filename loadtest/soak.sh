#!/usr/bin/env bash
# The soak: both k6 scripts at once with PROFILE=soak (10 minutes at a constant rate) against a
# running demo, sampling the server's memory every 30 s: its heap and other private memory
# (RssAnon: a leak shows as a rising column) and the data file's pages mapped in (RssFile: LMDB
# reads through mmap, so this grows as the soak touches more of the data, and the kernel may
# take it back). Writes loadtest/results/soak-rss.md and exits non-zero when k6 fails.
#
#   loadtest/soak.sh [WEBSTORE_URL] [BLOG_URL]     # defaults: 127.0.0.1:8080 and :8081
#
# PID: the server's process id (default: the newest cosmos-lmdb process); RATE_SCALE and DURATION
# as for the k6 scripts; RESULTS_DIR (default loadtest/results).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WS=${1:-http://127.0.0.1:8080}
BLOG=${2:-http://127.0.0.1:8081}
PID=${PID:-$(pgrep -n cosmos-lmdb || true)}
export RESULTS_DIR=${RESULTS_DIR:-$HERE/results}
mkdir -p "$RESULTS_DIR"
if [[ -z "$PID" || ! -r /proc/$PID/status ]]; then
  echo "no server process (set PID)" >&2
  exit 2
fi
kib() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$PID/status"; }

OUT=$RESULTS_DIR/soak-rss.md
start=$(date +%s)
{
  echo "Soak of $WS and $BLOG (PROFILE=soak), server pid $PID: memory every 30 s (MiB)."
  echo
  echo "| elapsed s | RSS | anonymous (heap) | file (LMDB map) |"
  echo "|---:|---:|---:|---:|"
} >"$OUT"
sample() {
  echo "| $(($(date +%s) - start)) | $(($(kib VmRSS) / 1024)) | $(($(kib RssAnon) / 1024)) | $(($(kib RssFile) / 1024)) |" >>"$OUT"
}
sample
PROFILE=soak BASE_URL=$WS k6 run --quiet "$HERE/webstore.js" >"$RESULTS_DIR/soak-webstore.log" 2>&1 &
ws=$!
PROFILE=soak BASE_URL=$BLOG k6 run --quiet "$HERE/blog.js" >"$RESULTS_DIR/soak-blog.log" 2>&1 &
bl=$!
while kill -0 "$ws" 2>/dev/null || kill -0 "$bl" 2>/dev/null; do
  sleep 30
  sample
done
wait "$ws"; ws_status=$?
wait "$bl"; bl_status=$?
sample
echo >>"$OUT"
echo "k6 exit: webstore $ws_status, blog $bl_status (0 = every check and threshold passed)." >>"$OUT"
cat "$OUT"
[[ $ws_status -eq 0 && $bl_status -eq 0 ]]
