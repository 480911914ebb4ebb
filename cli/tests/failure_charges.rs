//! A refused write, read or query prints what it cost on stderr ("request charge: N RU"), as
//! Cosmos DB charges failed requests (engine/RU.md, "Failed requests"); run as a real process.

use std::process::{Command, Output};

fn engine(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(dir)
        .args(args)
        .output()
        .expect("run engine")
}

/// The charges `stderr` names, in order.
fn charges(stderr: &str) -> Vec<f64> {
    stderr
        .split("request charge: ")
        .skip(1)
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn refused_requests_print_their_charge() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("users.jsonl");
    std::fs::write(
        &file,
        "{\"id\":\"a\",\"pk\":\"t\",\"email\":\"a@x.org\",\"s\":\"word\"}\n\
         {\"id\":\"b\",\"pk\":\"t\",\"email\":\"a@x.org\",\"s\":\"word\"}\n",
    )
    .unwrap();
    let target = ["--db", "d", "--container", "users"];
    let mut args = vec!["import"];
    args.extend(target);
    args.extend([
        "--partition-key",
        "/pk",
        "--unique-key",
        "/email",
        "--mode",
        "create",
    ]);
    args.push(file.to_str().unwrap());
    let o = engine(&data, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    println!("{err}");
    assert!(!o.status.success());
    // The second line's write is refused by the unique key: charged about the first's write.
    assert!(err.contains("(409); request charge: "), "{err}");
    let refused = charges(&err)[0];
    let summary: serde_json::Value = err
        .lines()
        .find(|l| l.starts_with("{\"failed\"") || l.contains("\"imported\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .expect("the summary line");
    let total = summary["requestCharge"].as_f64().unwrap();
    assert!(refused > 4.0, "{err}");
    assert!(
        (total - 2.0 * refused).abs() <= refused * 0.2,
        "{total} for two writes, {err}"
    );

    // A point read of a missing item: the lookup.
    let mut args = vec!["get"];
    args.extend(target);
    args.extend(["--pk", "t", "missing"]);
    let o = engine(&data, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("error (404)"), "{err}");
    assert_eq!(charges(&err), vec![1.0], "{err}");

    // A query the evaluator refuses once it reads items: what it read.
    let mut args = vec!["query"];
    args.extend(target);
    args.push("SELECT * FROM c WHERE RegexMatch(c.s, 'a(?=b)')");
    let o = engine(&data, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    println!("{err}");
    assert!(!o.status.success());
    assert!(err.contains("error (400)"), "{err}");
    let charged = charges(&err);
    assert_eq!(charged.len(), 1, "{err}");
    assert!(charged[0] >= 5.0, "{err}");
}
