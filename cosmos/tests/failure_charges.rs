//! A failed call is on the ledger with what it cost, on both backends (the embedded engine, and
//! the gateway through the official Rust SDK, whose errors carry `x-ms-request-charge`): a 404
//! point read, a unique-key 409, a stale etag, a query the evaluator refuses mid-way. The app
//! still gets the plain `cosmos::Error` it matches on.

mod common;

use cosmos::{
    ledger, Account, ContainerProperties, EngineCall, Error, ItemOptions, Labelled, QueryOptions,
    RequestCharge, NO_PARAMS,
};
use gateway::testing::TestGateway;
use serde_json::{json, Value};

async fn failures(account: Account) -> Vec<EngineCall> {
    let db = account.create_database_if_not_exists("fc").await.unwrap();
    let c = db
        .create_container_if_not_exists(
            ContainerProperties::new("users", "/pk").with_unique_key(&["/email"]),
        )
        .await
        .unwrap();
    let ru = RequestCharge::default();
    ledger::scope(ru.clone(), async {
        let ann = json!({"id": "a", "pk": "t", "email": "a@x.org", "name": "Ann"});
        c.create_item(&ann, None, None)
            .labelled("create")
            .await
            .unwrap();
        let e = c
            .read_item::<Value>("missing", "t", None)
            .labelled("read missing")
            .await
            .unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{e}");
        let bob = json!({"id": "b", "pk": "t", "email": "a@x.org", "name": "Bob"});
        let e = c
            .create_item(&bob, None, None)
            .labelled("unique clash")
            .await
            .unwrap_err();
        assert!(matches!(e, Error::UniqueKey { .. }), "{e}");
        let stale = ItemOptions {
            if_match_etag: Some("\"stale\"".into()),
            ..Default::default()
        };
        let e = c
            .replace_item(&ann, "a", None, Some(stale))
            .labelled("stale etag")
            .await
            .unwrap_err();
        assert!(matches!(e, Error::PreconditionFailed { .. }), "{e}");
        let options = QueryOptions {
            partition_key: Some("t".into()),
            ..Default::default()
        };
        let e = c
            .query_items::<Value>(
                "SELECT * FROM c WHERE RegexMatch(c.email, 'a(?=b)')",
                NO_PARAMS,
                options,
            )
            .labelled("refused regex")
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
    })
    .await;
    ru.calls()
}

fn call<'a>(calls: &'a [EngineCall], name: &str) -> &'a EngineCall {
    calls
        .iter()
        .find(|c| c.operation == name)
        .unwrap_or_else(|| panic!("no '{name}' on the ledger: {calls:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_calls_are_on_the_ledger_with_their_charge_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let embedded = failures(Account::embedded(engine)).await;
    let gw = TestGateway::start();
    let remote = failures(common::connect(&gw).await).await;

    for calls in [&embedded, &remote] {
        for c in calls {
            println!(
                "{:<14} {:>6} RU  {:?}",
                c.operation, c.request_charge, c.error_status
            );
        }
        let write = call(calls, "create").request_charge;
        assert_eq!(call(calls, "create").error_status, None);
        let missing = call(calls, "read missing");
        assert_eq!(
            (missing.error_status, missing.request_charge),
            (Some(404), 1.0)
        );
        let clash = call(calls, "unique clash");
        assert_eq!(clash.error_status, Some(409));
        assert!(
            (clash.request_charge - write).abs() <= write * 0.1,
            "{clash:?} vs {write}"
        );
        let stale = call(calls, "stale etag");
        assert_eq!((stale.error_status, stale.request_charge), (Some(412), 1.0));
        let regex = call(calls, "refused regex");
        assert_eq!(regex.error_status, Some(400));
        assert!(regex.request_charge > 0.0, "{regex:?}");
    }
    // The gateway answers what the engine charges, failures included.
    let charges =
        |calls: &[EngineCall]| -> Vec<f64> { calls.iter().map(|c| c.request_charge).collect() };
    assert_eq!(charges(&embedded), charges(&remote));
}
