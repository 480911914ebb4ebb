use crate::helpers::{eventually, spawn_app};

#[tokio::test]
async fn metrics_are_in_the_prometheus_text_format() {
    let app = spawn_app(false).await;
    // Something for the latency histogram.
    assert_eq!(app.get("/dbs/shop/colls/products").await.status, 200);
    let names = app.names.clone();
    eventually("the processor copies the products", || {
        let names = names.clone();
        async move {
            names
                .read_item::<serde_json::Value>("helmet-2", "helmet-2", None)
                .await
                .is_ok()
        }
    })
    .await;
    let r = app.get("/metrics").await;
    assert_eq!(r.status, 200);
    assert!(r.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let m = &r.body;
    let products = r#"{database="shop",container="products",partition="0"}"#;
    for name in [
        "engine_request_units_total",
        "engine_requests_total",
        "engine_throttled_requests_total",
        "engine_storage_bytes",
        "engine_items",
        "engine_request_units_per_second",
        "engine_partition_budget_request_units_per_second",
    ] {
        assert!(m.contains(&format!("{name}{products} ")), "{name} in\n{m}");
    }
    assert!(m.contains("# TYPE engine_request_units_total counter"));
    assert!(m.contains("# TYPE engine_storage_bytes gauge"));
    assert!(
        m.contains(
            r#"engine_change_feed_lag{processor="copyNames",database="shop",container="products"}"#
        ),
        "{m}"
    );
    assert!(
        m.contains("# TYPE http_request_duration_seconds histogram"),
        "{m}"
    );
    assert!(m.contains(r#"http_request_duration_seconds_bucket{site="Data Explorer",route="/dbs/{db}/colls/{coll}",le="0.005"}"#), "{m}");
    assert!(m.contains(r#"http_requests_total{site="Data Explorer",route="/dbs/{db}/colls/{coll}",method="GET",status="200"}"#), "{m}");
    // Items: 25 bikes and 3 helmets over the two partitions.
    let items: f64 = m
        .lines()
        .filter(|l| l.starts_with("engine_items{database=\"shop\",container=\"products\""))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(items, 28.0);
}
