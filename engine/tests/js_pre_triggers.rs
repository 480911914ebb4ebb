//! A JavaScript pre-trigger's CPU is charged to its write (issue 32), as a procedure's and a
//! post-trigger's are: a pre-trigger has no collection to call, so nothing else of it is priced,
//! and before this it ran free — a trigger spinning on the single writer cost its write nothing,
//! and a failing one cost nothing at all.

mod common;

use std::time::Duration;

use engine::{ContainerProperties, EngineOptions, ItemOptions, JavaScript, TriggerOperation};
use serde_json::{json, Value};

/// A million additions: ~200 interrupt ticks, ~100 RU (RU.md, "Stored procedures and triggers").
const SPIN: &str = "var x = 0; for (var i = 0; i < 1000000; i++) x += i % 7;";

#[test]
fn a_pre_trigger_is_charged_its_cpu_whether_it_succeeds_or_fails() {
    let rt = common::rt();
    // Room for a million additions on a busy debug build (the writer's default is 50 ms).
    let t = common::open(EngineOptions {
        script_budget: engine::ScriptBudget {
            max_javascript: Duration::from_secs(4),
            ..Default::default()
        },
        ..Default::default()
    });
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let s = c.scripts();
        let trigger = |body: String| JavaScript::new(&body).unwrap().pre_trigger(TriggerOperation::All);
        s.upsert_trigger("stamp", trigger(
            "function stamp() { var r = getContext().getRequest(); var b = r.getBody(); b.stamped = true; r.setBody(b); }".into(),
        ))
        .unwrap();
        s.upsert_trigger("spin", trigger(format!(
            "function spin() {{ {SPIN} var r = getContext().getRequest(); var b = r.getBody(); b.x = x; r.setBody(b); }}"
        )))
        .unwrap();
        s.upsert_trigger("spinThenThrow", trigger(format!(
            "function spinThenThrow() {{ {SPIN} throw new Error('gave up after ' + x); }}"
        )))
        .unwrap();
        let with = |name: &str| ItemOptions {
            pre_triggers: vec![name.into()],
            ..Default::default()
        };
        let c = c.charged();
        let plain = c
            .create_item(&json!({"id": "plain00", "pk": "p", "stamped": true}), None, None)
            .await
            .unwrap();
        let stamped = c
            .create_item(&json!({"id": "stamped", "pk": "p"}), None, Some(with("stamp")))
            .await
            .unwrap();
        let spun = c
            .create_item(&json!({"id": "spun", "pk": "p"}), None, Some(with("spin")))
            .await
            .unwrap();
        let failed = c
            .create_item(&json!({"id": "failed", "pk": "p"}), None, Some(with("spinThenThrow")))
            .await
            .unwrap_err();
        let read: Value = c.read_item("spun", "p", None).await.unwrap().resource.unwrap();
        eprintln!(
            "plain {} RU, stamp {} RU, spin {} RU, spin then throw {} RU ({})",
            plain.request_charge,
            stamped.request_charge,
            spun.request_charge,
            failed.request_charge(),
            failed.error
        );
        assert_eq!(read["x"], json!(2999997), "the trigger ran and changed the item");
        // A trivial trigger's code costs nothing beyond its first tick (the same item written
        // without it costs the same).
        assert_eq!(stamped.request_charge, plain.request_charge);
        // A million additions are charged (~100 RU at 0.5 RU a tick), and the same on failure.
        assert!(
            spun.request_charge > plain.request_charge + 50.0,
            "{} vs {}",
            spun.request_charge,
            plain.request_charge
        );
        assert_eq!(failed.error.status_code(), 400, "{}", failed.error);
        assert!(failed.request_charge() > 50.0, "{}", failed.request_charge());
        assert!(c.read_item::<Value>("failed", "p", None).await.is_err());
    });
}
