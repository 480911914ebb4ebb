//! Autoscale throughput (issue 35): a database or container created with
//! `x-ms-cosmos-offer-autopilot-settings` has an autoscale offer, the engine's budget its max; a
//! max below 1000 is refused in the service's words; replacing the offer changes the settings
//! and the budget, back to manual too; the settings outlive a restart.

mod common;

use common::signed::{request, send};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

const AUTOPILOT: &str = "x-ms-cosmos-offer-autopilot-settings";

async fn offer_of(gw: &TestGateway, link: &str) -> Value {
    let a = send(
        gw,
        Method::POST,
        "/offers",
        ("offers", ""),
        json!({"query": "SELECT * FROM root r WHERE r.resource=@link",
               "parameters": [{"name": "@link", "value": link}]}),
        &[
            ("x-ms-documentdb-isquery", "true"),
            ("content-type", "application/query+json"),
        ],
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["Offers"].as_array().unwrap().len(), 1, "{}", a.body);
    a.body["Offers"][0].clone()
}

fn container_throughput(gw: &TestGateway, db: &str, id: &str) -> Option<u32> {
    let c = gw.engine.database(db).containers();
    c.iter().find(|c| c.id() == id).unwrap().throughput()
}

#[test]
fn autoscale_offers_are_created_replaced_and_kept() {
    let data = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let container_link;
    {
        let gw = TestGateway::at(data.path(), gateway::Limits::default());
        container_link = rt.block_on(async {
            // A database with shared autoscale throughput.
            let settings = r#"{"maxThroughput": 5000, "autoUpgradePolicy": {"throughputPolicy": {"incrementPercent": 2}}}"#;
            let d = send(&gw, Method::POST, "/dbs", ("dbs", ""), json!({"id": "d"}), &[(AUTOPILOT, settings)]).await;
            assert_eq!(d.status, 201, "{}", d.body);
            let db = gw.engine.databases().into_iter().find(|d| d.id == "d").unwrap();
            assert_eq!(db.throughput, Some(5000), "the engine's budget is the max");
            let offer = offer_of(&gw, d.body["_self"].as_str().unwrap()).await;
            assert_eq!(offer["content"]["offerAutopilotSettings"]["maxThroughput"], 5000);
            assert_eq!(
                offer["content"]["offerAutopilotSettings"]["autoUpgradePolicy"]["throughputPolicy"]["incrementPercent"],
                2
            );

            // A container of its own in a database without throughput; no policy reads as 0%.
            let e = send(&gw, Method::POST, "/dbs", ("dbs", ""), json!({"id": "e"}), &[]).await;
            assert_eq!(e.status, 201);
            let body = json!({"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}});
            let path = ("colls", "dbs/e");
            let low = send(&gw, Method::POST, "/dbs/e/colls", path, body.clone(), &[(AUTOPILOT, r#"{"maxThroughput": -200}"#)]).await;
            assert_eq!(low.status, 400);
            assert!(
                low.body.to_string().contains("Requested throughput -200 is less than required minimum throughput 1000"),
                "{}",
                low.body
            );
            let c = send(&gw, Method::POST, "/dbs/e/colls", path, body, &[(AUTOPILOT, r#"{"maxThroughput": 7000}"#)]).await;
            assert_eq!(c.status, 201, "{}", c.body);
            assert_eq!(container_throughput(&gw, "e", "c"), Some(7000));
            let link = c.body["_self"].as_str().unwrap().to_owned();
            let mut offer = offer_of(&gw, &link).await;
            assert_eq!(offer["content"]["offerThroughput"], 700, "scales down to 10% of max");
            assert_eq!(
                offer["content"]["offerAutopilotSettings"]["autoUpgradePolicy"]["throughputPolicy"]["incrementPercent"],
                0
            );

            // Replaced as the Python SDK does: the offer read, its settings changed.
            offer["content"]["offerAutopilotSettings"]["maxThroughput"] = json!(9000);
            offer["content"]["offerAutopilotSettings"]["autoUpgradePolicy"]["throughputPolicy"]["incrementPercent"] = json!(20);
            let id = offer["id"].as_str().unwrap().to_owned();
            let r = send(&gw, Method::PUT, &format!("/offers/{id}"), ("offers", &id.to_lowercase()), offer.clone(), &[]).await;
            assert_eq!(r.status, 200, "{}", r.body);
            assert_eq!(r.body["content"]["offerAutopilotSettings"]["maxThroughput"], 9000);
            assert_eq!(container_throughput(&gw, "e", "c"), Some(9000));
            link
        });
    }
    // After a restart the container is still autoscale, then replaced back to manual.
    let gw = TestGateway::at(data.path(), gateway::Limits::default());
    rt.block_on(async {
        let offer = offer_of(&gw, &container_link).await;
        let settings = &offer["content"]["offerAutopilotSettings"];
        assert_eq!(settings["maxThroughput"], 9000, "{offer}");
        assert_eq!(
            settings["autoUpgradePolicy"]["throughputPolicy"]["incrementPercent"],
            20
        );
        let id = offer["id"].as_str().unwrap().to_owned();
        let manual = json!({"content": {"offerThroughput": 400}});
        let r = send(
            &gw,
            Method::PUT,
            &format!("/offers/{id}"),
            ("offers", &id.to_lowercase()),
            manual,
            &[],
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(
            r.body["content"].get("offerAutopilotSettings").is_none(),
            "{}",
            r.body
        );
        assert_eq!(container_throughput(&gw, "e", "c"), Some(400));
    });
}

/// The offer ids `DATA/gateway-autoscale.json` keeps settings for.
fn kept(data: &std::path::Path) -> Vec<String> {
    let bytes = std::fs::read(data.join("gateway-autoscale.json")).unwrap_or_default();
    let all: Value = serde_json::from_slice(&bytes).unwrap_or(json!({}));
    all.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn a_deleted_resources_autoscale_entry_goes_with_it() {
    let data = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let max = |n: u32| format!(r#"{{"maxThroughput": {n}}}"#);
    {
        let gw = TestGateway::at(data.path(), gateway::Limits::default());
        rt.block_on(async {
            // Database d (autoscale, shared) with container c (its own autoscale); database e
            // with containers x and y (autoscale each).
            for (db, settings) in [("d", Some(max(4000))), ("e", None)] {
                let h: Vec<(&str, &str)> =
                    settings.iter().map(|s| (AUTOPILOT, s.as_str())).collect();
                let r = send(
                    &gw,
                    Method::POST,
                    "/dbs",
                    ("dbs", ""),
                    json!({"id": db}),
                    &h,
                )
                .await;
                assert_eq!(r.status, 201, "{}", r.body);
            }
            let mut offers = Vec::new();
            for (db, c) in [("d", "c"), ("e", "x"), ("e", "y")] {
                let body = json!({"id": c, "partitionKey": {"paths": ["/pk"], "kind": "Hash"}});
                let parent = format!("dbs/{db}");
                let r = send(
                    &gw,
                    Method::POST,
                    &format!("/{parent}/colls"),
                    ("colls", &parent),
                    body,
                    &[(AUTOPILOT, &max(2000))],
                )
                .await;
                assert_eq!(r.status, 201, "{}", r.body);
                offers.push(offer_of(&gw, r.body["_self"].as_str().unwrap()).await["id"].clone());
            }
            let db_d = gw
                .engine
                .databases()
                .into_iter()
                .find(|d| d.id == "d")
                .unwrap();
            let db_offer = offer_of(&gw, &db_d.self_link()).await["id"].clone();
            assert_eq!(kept(data.path()).len(), 4);

            // Deleting container x drops its entry only.
            let r = request(
                &gw,
                Method::DELETE,
                "/dbs/e/colls/x",
                ("colls", "dbs/e/colls/x"),
                None,
                &[],
            )
            .await;
            assert_eq!(r.status, 204, "{}", r.body);
            let left = kept(data.path());
            assert_eq!(left.len(), 3, "{left:?}");
            assert!(
                !left.contains(&offers[1].as_str().unwrap().to_owned()),
                "{left:?}"
            );

            // Deleting database d drops its own entry and its container's.
            let r = request(&gw, Method::DELETE, "/dbs/d", ("dbs", "dbs/d"), None, &[]).await;
            assert_eq!(r.status, 204, "{}", r.body);
            let left = kept(data.path());
            assert_eq!(
                left,
                [offers[2].as_str().unwrap()],
                "database offer {db_offer}"
            );

            // A delete made without the gateway (the embedded engine, the CLI): the entry is
            // dropped when the gateway opens next.
            gw.engine.database("e").delete_container("y").await.unwrap();
        });
    }
    assert_eq!(kept(data.path()).len(), 1);
    let _gw = TestGateway::at(data.path(), gateway::Limits::default());
    assert_eq!(kept(data.path()), Vec::<String>::new());
}
