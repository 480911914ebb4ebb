# `just` ships in the PyPI package `rust-just` (pip install rust-just) or `cargo install just`.

# The demo: both sites on one engine under ./data (seeded on first start).
run:
    cargo run --release

# The whole test suite (what CI runs, after fmt and clippy).
test:
    cargo test --workspace

# The engine alone: seed ./data with the blog model and walk its requests with their RU charges.
demo:
    cargo run --release -p engine --example demo

# Benchmarks; figures go to BENCHMARKS.md.
bench:
    cargo bench -p engine

lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# What CI runs.
ci:
    bash .ci/run
