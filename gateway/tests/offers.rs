//! Offers (issue 39): a query selects exactly the offers it names, however it names them — the
//! Python SDK with a parameter, the JavaScript SDK with the link in the query text — so no SDK
//! can take, or change, another container's throughput for its own.

mod common;

use std::time::SystemTime;

use common::TestGateway;
use gateway::MasterKey;
use serde_json::{json, Value};

async fn query_offers(addr: std::net::SocketAddr, body: Value) -> (u16, Value) {
    let date = httpdate::fmt_http_date(SystemTime::now());
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/offers"))
        .header("x-ms-date", &date)
        .header("x-ms-version", "2020-07-15")
        .header("x-ms-documentdb-isquery", "true")
        .header("content-type", "application/query+json")
        .header(
            "authorization",
            MasterKey::emulator().authorization("POST", "offers", "", &date),
        )
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn an_offer_query_selects_only_the_offers_it_names() {
    let gw = TestGateway::start();
    let addr = gw.addr;
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let mut selfs = Vec::new();
        for (db, throughput) in [("a", 400), ("b", 25_100)] {
            let d = gw.engine.create_database_if_not_exists(db).await.unwrap();
            d.create_container(
                engine::ContainerProperties::new("c", "/pk").with_throughput(throughput),
            )
            .await
            .unwrap();
        }
        let (_, all) = query_offers(addr, json!({"query": "SELECT * FROM root r"})).await;
        let offers = all["Offers"].as_array().unwrap().clone();
        assert_eq!(offers.len(), 2, "{all}");
        for o in &offers {
            selfs.push((
                o["resource"].as_str().unwrap().to_owned(),
                o["content"]["offerThroughput"].clone(),
            ));
        }
        for (link, throughput) in &selfs {
            // The JavaScript SDK's readOffer: the link in the text.
            let text = format!("SELECT * from root where root.resource = \"{link}\"");
            let (status, page) = query_offers(addr, json!({"query": text})).await;
            assert_eq!(status, 200, "{page}");
            let got = page["Offers"].as_array().unwrap();
            assert_eq!(got.len(), 1, "{text}: {page}");
            assert_eq!(&got[0]["content"]["offerThroughput"], throughput);
            // The Python SDK's: a parameter.
            let (_, page) = query_offers(
                addr,
                json!({"query": "SELECT * FROM root r WHERE r.resource=@link",
                       "parameters": [{"name": "@link", "value": link}]}),
            )
            .await;
            assert_eq!(page["Offers"].as_array().unwrap().len(), 1, "{page}");
        }
        // A link that names nothing selects nothing (it listed every offer before).
        let (_, none) = query_offers(
            addr,
            json!({"query": "SELECT * from root where root.resource = \"dbs/nope/colls/nope/\""}),
        )
        .await;
        assert_eq!(none["Offers"], json!([]), "{none}");
        // A query that does not parse is a 400, not every offer.
        let (status, _) = query_offers(addr, json!({"query": "SELECT * FROM"})).await;
        assert_eq!(status, 400);
    });
}
