//! The gateway driven by the official Python SDK (`azure-cosmos` from PyPI): each script in
//! `tests/sdk/` runs against a gateway over a real engine and asserts what it got back.
//! Without the SDK installed the tests fail under CI (`CI` set) and are skipped otherwise.

mod common;

use std::process::Command;

use common::TestGateway;

fn sdk_installed() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import azure.cosmos"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("the Python SDK is missing: pip install azure-cosmos (CI installs it)");
        }
        eprintln!(
            "SKIPPED: python3 -c 'import azure.cosmos' failed; `pip install azure-cosmos` to run \
             the SDK tests"
        );
    }
    ok
}

fn run(script: &str) {
    if !sdk_installed() {
        return;
    }
    let gw = TestGateway::start();
    let path = format!("{}/tests/sdk/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(&path)
        .env("ACCOUNT_HOST", gw.endpoint())
        .env("ACCOUNT_KEY", gateway::EMULATOR_KEY)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
}

#[test]
fn account_databases_and_containers() {
    run("resources.py");
}
