//! The same calls on both backends — the embedded engine, and the gateway through the official
//! Rust SDK — with the same answers and the same charges (the gateway charges what the engine
//! charges), each recorded on the request's ledger.

mod common;

use cosmos::{
    ledger, Account, ConnectionSettings, Container, ContainerProperties, Error, ItemOptions,
    Labelled, PatchOperation, QueryOptions, RequestCharge, Routing, TransactionalBatch,
    TriggerOperation, NO_PARAMS,
};
use gateway::testing::TestGateway;
use serde_json::{json, Value};

use common::connect;

const BUMP: &str = r#"
function bump(id, by) {
    var c = getContext().getCollection();
    var link = c.getAltLink() + "/docs/" + id;
    var ok = c.readDocument(link, {}, function (err, doc) {
        if (err) throw err;
        doc.n += by;
        c.replaceDocument(doc._self, doc, function (err2, saved) {
            if (err2) throw err2;
            getContext().getResponse().setBody(saved.n);
        });
    });
    if (!ok) throw new Error("not accepted");
}"#;

const STAMP: &str = r#"
function stamp() {
    var c = getContext().getCollection();
    var doc = getContext().getResponse().getBody();
    var ok = c.upsertDocument(c.getSelfLink(), {id: "log-" + doc.id, pk: doc.pk, of: doc.id}, function (err) {
        if (err) throw err;
    });
    if (!ok) throw new Error("not accepted");
}"#;

/// What one run saw: each step's name, charge and result.
type Trace = Vec<(String, f64, Value)>;

async fn scenario(account: Account) -> (Trace, Vec<cosmos::EngineCall>) {
    let mut trace: Trace = Vec::new();
    let db = account.create_database_if_not_exists("shop").await.unwrap();
    let c: Container = db
        .create_container_if_not_exists(
            ContainerProperties::new("items", "/pk").with_indexing_policy(json!({
                "includedPaths": [{"path": "/n/?"}], "excludedPaths": [{"path": "/*"}]
            })),
        )
        .await
        .unwrap();
    // Twice: the second finds it.
    let c2 = db
        .create_container_if_not_exists(ContainerProperties::new("items", "/pk"))
        .await
        .unwrap();
    assert_eq!(c2.id(), "items");

    let ru = RequestCharge::default();
    ledger::scope(ru.clone(), async {
        for i in 0..6 {
            let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 2), "n": i});
            let r = c
                .create_item(&doc, None, None)
                .labelled("[C] create")
                .await
                .unwrap();
            trace.push((
                "create".into(),
                r.request_charge,
                r.resource.unwrap()["n"].clone(),
            ));
        }
        let r = c
            .read_item::<Value>("i2", "p0", None)
            .labelled("[R] read")
            .await
            .unwrap();
        let etag = r.etag.clone().unwrap();
        trace.push((
            "read".into(),
            r.request_charge,
            r.resource.unwrap()["n"].clone(),
        ));

        // The errors an access pattern matches on.
        let e = c.read_item::<Value>("nope", "p0", None).await.unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{e}");
        let dup = json!({"id": "i0", "pk": "p0", "n": 0});
        let e = c.create_item(&dup, None, None).await.unwrap_err();
        assert!(matches!(e, Error::Conflict { .. }), "{e}");

        let r = c
            .replace_item(
                &json!({"id": "i2", "pk": "p0", "n": 20}),
                "i2",
                None,
                Some(ItemOptions::if_match(&etag)),
            )
            .await
            .unwrap();
        trace.push((
            "replace".into(),
            r.request_charge,
            r.resource.unwrap()["n"].clone(),
        ));
        let e = c
            .replace_item(
                &json!({"id": "i2", "pk": "p0", "n": 21}),
                "i2",
                None,
                Some(ItemOptions::if_match(&etag)),
            )
            .await
            .unwrap_err();
        assert!(matches!(e, Error::PreconditionFailed { .. }), "{e}");

        let r = c
            .patch_item::<Value>(
                "i4",
                "p0",
                &[
                    PatchOperation::set("/tag", "x"),
                    PatchOperation::increment("/n", 1),
                ],
                None,
            )
            .await
            .unwrap();
        let doc = r.resource.unwrap();
        assert_eq!(doc["tag"], "x");
        trace.push(("patch".into(), r.request_charge, doc["n"].clone()));

        let r = c
            .upsert_item(&json!({"id": "i5", "pk": "p1", "n": 50}), None, None)
            .await
            .unwrap();
        trace.push((
            "upsert".into(),
            r.request_charge,
            r.resource.unwrap()["n"].clone(),
        ));

        // One logical partition, then every partition in pages of two.
        let r = c
            .query_items::<Value>(
                "SELECT VALUE c.n FROM c WHERE c.n >= @min ORDER BY c.n",
                &[("@min", json!(1))],
                QueryOptions {
                    partition_key: Some("p0".into()),
                    ..Default::default()
                },
            )
            .labelled("[Q] one partition")
            .await
            .unwrap();
        trace.push((
            "query one partition".into(),
            r.request_charge,
            json!(r.items),
        ));
        let mut seen = Vec::new();
        let mut options = QueryOptions {
            max_item_count: Some(2),
            ..Default::default()
        };
        let mut pages = 0;
        loop {
            let r = c
                .query_items::<Value>("SELECT VALUE c.id FROM c", NO_PARAMS, options.clone())
                .await
                .unwrap();
            pages += 1;
            seen.extend(r.items);
            match r.continuation {
                Some(t) => options.continuation = Some(t),
                None => break,
            }
            assert!(pages < 10, "the continuation must end");
        }
        assert_eq!(pages, 3, "six items in pages of two: no empty fourth page");
        seen.sort_by_key(|v| v.to_string());
        assert_eq!(seen.len(), 6, "{seen:?}");
        let r = c
            .query_all::<Value>(
                "SELECT VALUE c.n FROM c ORDER BY c.n",
                NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(r.items.len(), 6);
        trace.push(("query all".into(), r.request_charge, json!(r.items)));

        // JavaScript: a procedure and a post-trigger, as written for Cosmos DB.
        c.upsert_stored_procedure("bump", BUMP).await.unwrap();
        c.upsert_post_trigger("stamp", STAMP, TriggerOperation::All)
            .await
            .unwrap();
        let r = c
            .execute_stored_procedure::<Value>("bump", "p1", &[json!("i1"), json!(100)])
            .labelled("[P] bump")
            .await
            .unwrap();
        trace.push(("procedure".into(), r.request_charge, r.resource));
        let r = c
            .upsert_item(
                &json!({"id": "i9", "pk": "p1", "n": 9}),
                None,
                Some(ItemOptions::with_triggers(&[], &["stamp"])),
            )
            .await
            .unwrap();
        trace.push((
            "upsert with trigger".into(),
            r.request_charge,
            r.resource.unwrap()["n"].clone(),
        ));
        let log = c.read_item::<Value>("log-i9", "p1", None).await.unwrap();
        assert_eq!(
            log.resource.unwrap()["of"],
            "i9",
            "the trigger ran in the write"
        );

        let r = c
            .execute_batch(
                TransactionalBatch::new("p2")
                    .create_item(&json!({"id": "b1", "pk": "p2", "n": 1}))
                    .upsert_item(&json!({"id": "b2", "pk": "p2", "n": 2}))
                    .read_item("b1"),
            )
            .await
            .unwrap();
        assert!(r.is_success(), "{:?}", r.error_message);
        let statuses: Vec<u16> = r.results.iter().map(|o| o.status_code).collect();
        trace.push(("batch".into(), r.request_charge, json!(statuses)));

        let r = c.delete_item("i3", "p1", None).await.unwrap();
        trace.push(("delete".into(), r.request_charge, Value::Null));
    })
    .await;
    (trace, ru.calls())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_backends_answer_and_charge_alike() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let (embedded, embedded_calls) = scenario(Account::embedded(engine)).await;

    let gw = TestGateway::start();
    let account = connect(&gw).await;
    let (remote, remote_calls) = scenario(account).await;

    assert_eq!(embedded.len(), remote.len());
    for (e, r) in embedded.iter().zip(&remote) {
        assert_eq!(e.0, r.0);
        assert_eq!(e.2, r.2, "{}: same answer", e.0);
        assert!(e.1 > 0.0, "{}: charged", e.0);
        assert_eq!(
            e.1, r.1,
            "{}: the gateway charges what the engine charges",
            e.0
        );
    }
    // The ledger: every successful call, under its label or what it did.
    for calls in [&embedded_calls, &remote_calls] {
        let ops: Vec<&str> = calls.iter().map(|c| c.operation.as_str()).collect();
        assert_eq!(ops[0], "[C] create");
        assert!(ops.contains(&"[R] read"));
        assert!(ops.contains(&"[P] bump"));
        assert!(ops.contains(&"replace items"), "{ops:?}");
        let q = calls
            .iter()
            .find(|c| c.operation == "[Q] one partition")
            .unwrap();
        assert_eq!(q.routing, Routing::SinglePartition);
        let p = calls.iter().find(|c| c.operation == "[P] bump").unwrap();
        assert_eq!(p.routing, Routing::Procedure);
    }
    let total = |calls: &[cosmos::EngineCall]| calls.iter().map(|c| c.request_charge).sum::<f64>();
    assert!((total(&embedded_calls) - total(&remote_calls)).abs() < 1e-6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_key_or_no_endpoint_is_one_clear_error() {
    let gw = TestGateway::start();
    let wrong = "bm90IHRoZSBrZXkgb2YgdGhpcyBhY2NvdW50IGF0IGFsbA==";
    let e = Account::connect(&ConnectionSettings::new(gw.endpoint(), wrong))
        .await
        .err()
        .expect("a wrong key is refused");
    assert!(e.to_string().contains("401"), "{e}");

    let e = Account::connect(&ConnectionSettings::new(
        "http://127.0.0.1:9/",
        gateway::EMULATOR_KEY,
    ))
    .await
    .err()
    .expect("nothing listens on port 9");
    assert!(e.to_string().contains("127.0.0.1:9"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_container_with_another_partition_key_is_refused() {
    let gw = TestGateway::start();
    let account = connect(&gw).await;
    let db = account.create_database_if_not_exists("d").await.unwrap();
    db.create_container_if_not_exists(ContainerProperties::new("c", "/a"))
        .await
        .unwrap();
    let e = db
        .create_container_if_not_exists(ContainerProperties::new("c", "/b"))
        .await
        .err()
        .expect("another partition key");
    let text = e.to_string();
    assert!(text.contains("/a") && text.contains("/b"), "{text}");
}

/// Unique keys are fixed at creation: a container that exists without the unique keys the app
/// declares is refused on both backends, naming both (the blog counts on one to allow one like
/// per user); the same keys in another order are the same policy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_container_without_the_declared_unique_keys_is_refused() {
    let gw = TestGateway::start();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    for account in [connect(&gw).await, Account::embedded(engine)] {
        let db = account.create_database_if_not_exists("d").await.unwrap();
        db.create_container_if_not_exists(ContainerProperties::new("plain", "/pk"))
            .await
            .unwrap();
        let e = db
            .create_container_if_not_exists(
                ContainerProperties::new("plain", "/pk").with_unique_key(&["/type", "/userId"]),
            )
            .await
            .err()
            .expect("a container without the unique key");
        let text = e.to_string();
        assert!(
            text.contains("unique keys []") && text.contains("/userId") && text.contains("[]"),
            "{text}"
        );
        let keyed = |keys: &[&[&str]]| {
            keys.iter()
                .fold(ContainerProperties::new("keyed", "/pk"), |p, k| {
                    p.with_unique_key(k)
                })
        };
        db.create_container_if_not_exists(keyed(&[&["/a"], &["/b", "/c"]]))
            .await
            .unwrap();
        db.create_container_if_not_exists(keyed(&[&["/b", "/c"], &["/a"]]))
            .await
            .expect("the same keys in another order");
        assert!(db
            .create_container_if_not_exists(keyed(&[&["/a"]]))
            .await
            .is_err());
    }
}

#[test]
fn connection_strings_parse_as_the_portal_writes_them() {
    let s = ConnectionSettings::from_connection_string(
        "AccountEndpoint=https://acct.documents.azure.com:443/;AccountKey=abc+/def==;",
    )
    .unwrap();
    assert_eq!(s.endpoint, "https://acct.documents.azure.com:443/");
    assert_eq!(s.key, "abc+/def==");
    assert!(!s.is_loopback());
    assert!(ConnectionSettings::new("https://localhost:8081/", "k").is_loopback());
    assert!(ConnectionSettings::from_connection_string("AccountKey=x").is_err());
}

/// A hierarchical key on both backends: created from the app's properties (MultiHash on the
/// account), items written without naming the key, read by the full key, queried by a prefix.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hierarchical_container_answers_alike_on_both_backends() {
    async fn run(account: Account) -> Vec<Value> {
        let db = account.create_database_if_not_exists("mt").await.unwrap();
        let props = ContainerProperties::hierarchical("orders", &["/tenantId", "/customerId"]);
        let c = db
            .create_container_if_not_exists(props.clone())
            .await
            .unwrap();
        // Again: the stored key (two paths) is the declared one.
        db.create_container_if_not_exists(props).await.unwrap();
        for i in 0..12 {
            let doc = json!({"id": format!("o{i}"), "tenantId": format!("t{}", i % 3), "customerId": format!("c{}", i % 2)});
            c.create_item(&doc, None, None).await.unwrap();
        }
        let key = |v: &[&str]| {
            let v: Vec<Value> = v.iter().map(|s| json!(s)).collect();
            cosmos::PartitionKey::from_json_values(&v, "pk").unwrap()
        };
        let read = c
            .read_item::<Value>("o4", key(&["t1", "c0"]), None)
            .await
            .unwrap();
        let mut answers = vec![read.resource.unwrap()];
        for prefix in [key(&["t2"]), key(&["t2", "c1"])] {
            let r = c
                .query_all::<Value>(
                    "SELECT VALUE c.id FROM c ORDER BY c.id",
                    NO_PARAMS,
                    QueryOptions {
                        partition_key: Some(prefix),
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
            answers.push(Value::Array(r.items));
        }
        answers
    }
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let embedded = run(Account::embedded(engine)).await;
    let gw = TestGateway::start();
    let account = connect(&gw).await;
    let remote = run(account).await;
    assert_eq!(embedded[0]["id"], "o4");
    assert_eq!(embedded[1], json!(["o11", "o2", "o5", "o8"]));
    assert_eq!(embedded[2], json!(["o11", "o5"]));
    let strip = |v: &Value| json!({"id": v["id"], "tenantId": v["tenantId"], "customerId": v["customerId"]});
    assert_eq!(strip(&embedded[0]), strip(&remote[0]));
    assert_eq!(embedded[1..], remote[1..]);
}

/// A partition key that is not the item's is Cosmos DB's `PartitionKeyMismatch` (400, sub-status
/// 1001) on both backends: the engine's error embedded, the gateway's 400/1001 mapped back to
/// it remote, so an access pattern matches one error whatever the backend.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_that_is_not_the_items_is_the_same_error_on_both_backends() {
    async fn run(account: Account) -> cosmos::Error {
        let db = account.create_database_if_not_exists("pk").await.unwrap();
        let c = db
            .create_container_if_not_exists(ContainerProperties::new("items", "/pk"))
            .await
            .unwrap();
        c.create_item(&json!({"id": "a", "pk": "x"}), Some("y".into()), None)
            .await
            .unwrap_err()
    }
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let gw = TestGateway::start();
    for e in [
        run(Account::embedded(engine)).await,
        run(connect(&gw).await).await,
    ] {
        assert!(matches!(e, cosmos::Error::PartitionKeyMismatch(_)), "{e}");
        assert_eq!((e.status_code(), e.sub_status()), (400, Some(1001)), "{e}");
    }
}

/// Computed properties declared by the app reach both backends (the remote one sends them in
/// the container's REST body) and answer the same queries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn computed_properties_answer_alike_on_both_backends() {
    async fn run(account: Account) -> Vec<Value> {
        let db = account.create_database_if_not_exists("cp").await.unwrap();
        let props = ContainerProperties::new("people", "/pk")
            .with_computed_property("cp_lower", "SELECT VALUE LOWER(c.name) FROM c");
        let c = db.create_container_if_not_exists(props).await.unwrap();
        for (id, name) in [("a", "ADA"), ("b", "Bob"), ("c", "ada")] {
            c.create_item(&json!({"id": id, "pk": "p", "name": name}), None, None)
                .await
                .unwrap();
        }
        c.query_all::<Value>(
            "SELECT c.id, c.cp_lower FROM c WHERE c.cp_lower = 'ada' ORDER BY c.id",
            NO_PARAMS,
            QueryOptions {
                partition_key: Some("p".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .items
    }
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let embedded = run(Account::embedded(engine)).await;
    let gw = TestGateway::start();
    let remote = run(connect(&gw).await).await;
    let want = json!([{"id": "a", "cp_lower": "ada"}, {"id": "c", "cp_lower": "ada"}]);
    assert_eq!(Value::Array(embedded), want);
    assert_eq!(Value::Array(remote), want);
}

/// Embedded, the computed properties an app declares are the container's: declared anew on an
/// existing container, they replace the old ones (as a changed indexing policy is applied).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_computed_properties_replace_the_stored_ones_embedded() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let account = Account::embedded(engine);
    let db = account.create_database_if_not_exists("cp").await.unwrap();
    let declare =
        |query: &str| ContainerProperties::new("people", "/pk").with_computed_property("cp", query);
    let c = db
        .create_container_if_not_exists(declare("SELECT VALUE LOWER(c.name) FROM c"))
        .await
        .unwrap();
    c.create_item(&json!({"id": "a", "pk": "p", "name": "Ada"}), None, None)
        .await
        .unwrap();
    let c = db
        .create_container_if_not_exists(declare("SELECT VALUE UPPER(c.name) FROM c"))
        .await
        .unwrap();
    let rows = c
        .query_all::<Value>(
            "SELECT VALUE c.cp FROM c",
            NO_PARAMS,
            QueryOptions::default(),
        )
        .await
        .unwrap()
        .items;
    assert_eq!(rows, vec![json!("ADA")]);
}
