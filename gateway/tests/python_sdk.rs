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

/// Runs `script` against `gw`; its stdout, or `None` when the SDK is not installed.
fn run(gw: &TestGateway, script: &str, env: &[(&str, &str)]) -> Option<String> {
    if !sdk_installed() {
        return None;
    }
    let path = format!("{}/tests/sdk/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(&path)
        .env("ACCOUNT_HOST", gw.endpoint())
        .env("ACCOUNT_KEY", gateway::EMULATOR_KEY)
        .envs(env.iter().copied())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    Some(stdout)
}

#[test]
fn account_databases_and_containers() {
    let gw = TestGateway::start();
    run(&gw, "resources.py", &[]);
}

#[test]
fn items_etags_patch_and_read_feed() {
    let gw = TestGateway::start();
    let Some(out) = run(&gw, "items.py", &[]) else {
        return;
    };
    // The point read's x-ms-request-charge is the engine's own charge for the same read.
    let charge: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("POINT_READ_CHARGE "))
        .expect("the script printed the charge")
        .trim()
        .parse()
        .unwrap();
    let c = gw.engine.database("app").container("items");
    let embedded = c.read_item_raw("a", &"p1".into()).unwrap();
    assert!(embedded.request_charge > 0.0);
    assert_eq!(charge, embedded.request_charge);
}

#[test]
fn queries_of_every_shape_across_physical_partitions() {
    let gw = TestGateway::start();
    let results = gw.dir.join("results.json");
    let Some(_) = run(
        &gw,
        "queries.py",
        &[("RESULTS_FILE", results.to_str().unwrap())],
    ) else {
        return;
    };
    let c = gw.engine.database("q").container("things");
    let partitions = c.partitions().unwrap().len();
    assert!(partitions >= 4, "{partitions} partitions");
    assert_eq!(c.read_container().unwrap().throughput(), Some(50_000));
    let results: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    assert!(results.len() >= 10);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for r in results {
        let sql = r["sql"].as_str().unwrap();
        let params: Vec<(String, serde_json::Value)> = r["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["name"].as_str().unwrap().to_owned(), p["value"].clone()))
            .collect();
        let options = engine::QueryOptions {
            partition_key: r["pk"].as_str().map(Into::into),
            ..Default::default()
        };
        let embedded = rt
            .block_on(c.query_all::<serde_json::Value>(sql, &params, options))
            .unwrap();
        assert_eq!(
            serde_json::Value::Array(embedded.items),
            r["rows"],
            "the SDK's rows differ from the engine's for {sql}"
        );
    }
}

#[test]
fn the_readme_python_example_works_as_pasted() {
    let gw = TestGateway::start();
    let Some(out) = run(&gw, "readme.py", &[]) else {
        return;
    };
    assert!(out.contains("42 1 RU"), "{out}");
    assert!(out.contains("sum of all orders: 42"), "{out}");
}

#[test]
fn session_tokens_come_back_on_reads() {
    let gw = TestGateway::start();
    run(&gw, "session.py", &[]);
}

#[test]
fn change_feed_from_the_beginning_now_a_time_and_a_continuation() {
    let gw = TestGateway::start();
    if run(&gw, "changefeed.py", &[]).is_none() {
        return;
    }
    let partitions = gw
        .engine
        .database("cf")
        .container("events")
        .partitions()
        .unwrap()
        .len();
    assert!(partitions >= 4, "{partitions} partitions");
}

#[test]
fn all_versions_and_deletes_change_feed_with_a_container_policy() {
    let gw = TestGateway::start();
    let Some(out) = run(&gw, "allversions.py", &[]) else {
        return;
    };
    assert!(out.contains("allversions ok"), "{out}");
}

#[test]
fn hierarchical_partition_keys_full_and_prefix() {
    let gw = TestGateway::start();
    let Some(out) = run(&gw, "hierarchical.py", &[]) else {
        return;
    };
    assert!(out.contains("hierarchical ok"), "{out}");
}

#[test]
fn computed_properties_across_physical_partitions() {
    let gw = TestGateway::start();
    run(&gw, "computed.py", &[]);
}

#[test]
fn transactional_batch_all_or_nothing() {
    let gw = TestGateway::start();
    run(&gw, "batch.py", &[]);
}

#[test]
fn stored_procedures_and_triggers_registered_in_rust() {
    use engine::{ContainerProperties, Error, Trigger, TriggerOperation};
    use serde_json::{json, Value};

    let data = tempfile::tempdir().unwrap();
    let gw = TestGateway::at(data.path(), gateway::Limits::default());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let c = rt.block_on(async {
        let db = gw.engine.create_database("s").await.unwrap();
        db.create_container(ContainerProperties::new("c", "/pk"))
            .await
            .unwrap()
    });
    let scripts = c.scripts();
    // Adds args[1] to the partition's counter item (created on first use); 0 is refused.
    scripts
        .create_stored_procedure(
            "bump",
            |ctx: &mut engine::ScriptContext<'_, '_, '_>, args: &[Value]| {
                let by = args.get(1).and_then(Value::as_i64).unwrap_or(0);
                if by == 0 {
                    return Err(Error::bad("args", "bump by a number other than 0"));
                }
                let pk = ctx.partition_key().to_json().unwrap_or(Value::Null);
                let count = ctx
                    .read_item("counter")?
                    .and_then(|d| d["count"].as_i64())
                    .unwrap_or(0);
                ctx.upsert_item(json!({"id": "counter", "pk": pk, "count": count + by}))
            },
        )
        .unwrap();
    scripts
        .upsert_trigger(
            "stamp",
            Trigger::pre(TriggerOperation::Create, |doc: &mut Value| {
                doc["stamped"] = json!(true);
                Ok(())
            }),
        )
        .unwrap();
    if run(&gw, "scripts.py", &[]).is_none() {
        return;
    }
    // The JavaScript ones created over the API outlive a restart (the app's own are registered
    // by the app at its start, which this restart does not do).
    drop((scripts, c, gw));
    assert!(data.path().join("gateway-scripts.json").exists());
    let gw = TestGateway::at(data.path(), gateway::Limits::default());
    run(&gw, "scripts_restarted.py", &[]);
}

#[test]
fn https_with_the_self_signed_certificate() {
    let gw = TestGateway::tls();
    let cert = gateway::tls::cert_path(&gw.dir);
    assert!(gw.endpoint().starts_with("https://"));
    // The SDK trusts the certificate it is given, as with the emulator's.
    let Some(out) = run(
        &gw,
        "readme.py",
        &[("REQUESTS_CA_BUNDLE", cert.to_str().unwrap())],
    ) else {
        return;
    };
    assert!(out.contains("sum of all orders: 42"), "{out}");
    // The key stays private to its owner.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(gw.dir.join(gateway::tls::KEY_FILE))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
}

#[test]
fn a_split_under_a_paged_query_and_change_feed() {
    let gw = TestGateway::splitting_at(48 * 1024);
    if run(&gw, "split.py", &[]).is_none() {
        return;
    }
    // The ranges the SDK saw are the engine's physical partitions.
    let parts = gw
        .engine
        .database("split")
        .container("events")
        .partitions()
        .unwrap();
    assert!(parts.len() >= 4, "{} partitions", parts.len());
}

/// The article's three scripts (createComment, updateUsernames, truncateFeed of the seed
/// `004_*`), created and run through the SDK with the article's results: 100 feed items kept.
/// When the seeds are beside the repository (`../shared/seeds`), the script's copies are checked
/// to be the article's, character for character.
#[test]
fn the_articles_scripts_run_verbatim_through_the_sdk() {
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/seeds");
    let article = std::fs::read_dir(&seeds).ok().and_then(|dir| {
        dir.flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("004_"))
            .and_then(|e| std::fs::read_to_string(e.path()).ok())
    });
    let script = std::fs::read_to_string(format!(
        "{}/tests/sdk/seed_scripts.py",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    if let Some(article) = article {
        for name in ["createComment", "updateUsernames", "truncateFeed"] {
            let start = article.find(&format!("function {name}(")).unwrap();
            let body = &article[start..start + article[start..].find("\n```").unwrap()];
            assert!(script.contains(body), "{name} is not the article's");
        }
    }
    let gw = TestGateway::start();
    if let Some(out) = run(&gw, "seed_scripts.py", &[]) {
        assert!(out.contains("SEED_SCRIPTS_OK 100"), "{out}");
    }
}
