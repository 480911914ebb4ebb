//! Failed requests answer the RU they cost in `x-ms-request-charge`, driven by the official
//! Python SDK (its exceptions carry the headers): a 404 point read ≥ 1 RU, a unique-key 409
//! about the write it refused, a query refused while it read items > 0, a syntax error 0.
//! Without the SDK installed the test fails under CI (`CI` set) and is skipped otherwise.

mod common;

use std::process::Command;

use common::TestGateway;

#[test]
fn failed_requests_answer_their_charge() {
    let ok = Command::new("python3")
        .args(["-c", "import azure.cosmos"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "pip install azure-cosmos (CI installs it)"
        );
        eprintln!("SKIPPED: the Python SDK is not installed (pip install azure-cosmos)");
        return;
    }
    let gw = TestGateway::start();
    let script = format!(
        "{}/tests/sdk/failure_charges.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = Command::new("python3")
        .arg(&script)
        .env("ACCOUNT_HOST", gw.endpoint())
        .env("ACCOUNT_KEY", gateway::EMULATOR_KEY)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "failure_charges.py failed");
    // What the header said is what the engine charged: the 404 is the lookup's minimum.
    let read_missing = stdout
        .lines()
        .find_map(|l| l.strip_prefix("read_missing 404 "))
        .expect("the script printed the 404's charge");
    assert_eq!(read_missing.trim().parse::<f64>().unwrap(), 1.0);
}
