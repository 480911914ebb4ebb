//! `engine patch` and `engine delete-partition`: the engine's conditional patch and
//! delete-by-partition-key from the command line, run as a real process on real files.

use std::process::{Command, Output};

use serde_json::Value;

fn engine(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(dir)
        .args(args)
        .output()
        .expect("run engine")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The last JSON line of stderr: the command's charge summary.
fn summary(o: &Output) -> Value {
    let text = stderr(o);
    let line = text.lines().last().expect("a summary line");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const TARGET: [&str; 4] = ["--db", "shop", "--container", "products"];

fn with_target<'a>(verb: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![verb];
    args.extend(TARGET);
    args.extend(rest);
    args
}

#[test]
fn patch_conditionally_and_delete_a_partition() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let lines: String = (0..250)
        .map(|i| format!("{{\"id\":\"p{i}\",\"cat\":\"c{}\",\"stock\":1}}\n", i % 2))
        .collect();
    let file = tmp.path().join("products.jsonl");
    std::fs::write(&file, lines).unwrap();
    let file = file.to_str().unwrap();
    let o = engine(
        &data,
        &with_target("import", &["--partition-key", "/cat", file]),
    );
    assert!(o.status.success(), "{}", stderr(&o));

    // Stock 1 > 0: the decrement applies, and the patched item is printed with its charge.
    let decrement = r#"[{"op":"incr","path":"/stock","value":-1}]"#;
    let condition = "FROM c WHERE c.stock > 0";
    let args = with_target(
        "patch",
        &["--pk", "c0", "--condition", condition, "p0", decrement],
    );
    let o = engine(&data, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let item: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(item["stock"], 0);
    assert!(summary(&o)["requestCharge"].as_f64().unwrap() > 1.0);

    // Now the condition fails: a 412, charged, and the item unchanged.
    let o = engine(&data, &args);
    assert!(!o.status.success());
    let text = stderr(&o);
    assert!(text.contains("error (412)"), "{text}");
    assert!(text.contains("request charge:"), "{text}");
    let o = engine(&data, &with_target("get", &["--pk", "c0", "p0"]));
    let item: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(item["stock"], 0);

    // The `{"operations": …}` form, without a condition.
    let wrapped = r#"{"operations":[{"op":"set","path":"/tag","value":"sale"}]}"#;
    let o = engine(&data, &with_target("patch", &["--pk", "c1", "p1", wrapped]));
    assert!(o.status.success(), "{}", stderr(&o));
    let item: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(item["tag"], "sale");

    // Bad operations name the argument.
    let o = engine(&data, &with_target("patch", &["--pk", "c1", "p1", "[1]"]));
    assert!(!o.status.success());
    assert!(stderr(&o).contains("operations"), "{}", stderr(&o));

    // 125 items in c0 (more than one batch of 100): all gone, c1 untouched.
    let o = engine(&data, &with_target("delete-partition", &["--pk", "c0"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let s = summary(&o);
    assert_eq!(s["deleted"], 125, "{s}");
    assert!(s["requestCharge"].as_f64().unwrap() > 125.0, "{s}");
    let count = |pk: &str| {
        let o = engine(
            &data,
            &with_target("query", &["--pk", pk, "SELECT VALUE COUNT(1) FROM c"]),
        );
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v[0].as_u64().unwrap()
    };
    assert_eq!(count("c0"), 0);
    assert_eq!(count("c1"), 125);

    // Both write: refused without LMDB's lock.
    let mut args = vec!["--no-lock"];
    args.extend(with_target("delete-partition", &["--pk", "c1"]));
    let o = engine(&data, &args);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("delete-partition writes"),
        "{}",
        stderr(&o)
    );
    assert_eq!(count("c1"), 125);
}
