#!/usr/bin/env bash
# CI's run of the JavaScript SDK tests (issue 39): `@azure/cosmos` as pinned by package-lock.json
# (npm ci), driving `engine serve` over http. Each test file starts its own gateway on a fresh
# data directory and a free port (tests/gateway.js: `--addr 127.0.0.1:0`, the endpoint read from
# what it prints) and stops it by its pid; this script only installs and runs them, and fails
# when a test fails.
# Needs Node 20+ and npm, and the engine binary: $ENGINE, default
# ${CARGO_TARGET_DIR:-target}/release/engine (`cargo build --release -p engine-cli`).
set -euo pipefail
cd "$(dirname "$0")/.."
# The engine, resolved from the project root (CARGO_TARGET_DIR may be relative to it).
target="${CARGO_TARGET_DIR:-target}"
ENGINE="${ENGINE:-$target/release/engine}"
ENGINE="$(cd "$(dirname "$ENGINE")" 2>/dev/null && pwd)/$(basename "$ENGINE")" || true
export ENGINE
cd sdk-js
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "sdk-js: node and npm are needed (Node 20 or later)" >&2
  exit 1
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
  echo "sdk-js: Node $(node --version) is too old: 20 or later" >&2
  exit 1
fi
[ -x "$ENGINE" ] || { echo "sdk-js: no engine at $ENGINE (cargo build --release -p engine-cli)" >&2; exit 1; }
# --no-audit/--no-fund: nothing but the packages themselves from the registry.
npm ci --no-audit --no-fund --loglevel=error
start=$(date +%s)
# One file at a time: each starts its own engine, and the machine has two cores.
node --test --test-concurrency=1 tests/
echo "sdk-js: passed in $(( $(date +%s) - start )) s"
