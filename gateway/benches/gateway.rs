//! 1 KB point reads and creates through the gateway against the same sizes served as static
//! responses by an actix server of the same setup, from concurrent HTTP clients, side by side in
//! one run (BENCHMARKS.md). Also checks that a point read's RU is the embedded call's.
//!
//! `cargo bench -p gateway --bench gateway` (`SECONDS=5 CLIENTS=16` by default).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use actix_web::{web, App, HttpResponse, HttpServer};
use gateway::{Gateway, GatewayOptions, MasterKey};
use serde_json::json;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A 1 KB item (989 bytes of JSON before system properties, as the engine benches use).
fn item(id: &str) -> serde_json::Value {
    json!({"id": id, "pk": id, "name": "x".repeat(900), "n": 1})
}

struct Run {
    requests: u64,
    seconds: f64,
}

impl Run {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.seconds
    }
}

/// `clients` tasks send `request(i)` as fast as they can for `seconds`.
async fn load<F, Fut>(clients: u64, seconds: u64, request: F) -> Run
where
    F: Fn(u64) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = u16> + Send,
{
    let request = Arc::new(request);
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let (request, done) = (request.clone(), done.clone());
            tokio::spawn(async move {
                let mut i = c * 1_000_000;
                while Instant::now() < until {
                    let status = request(i).await;
                    assert!(status < 300, "status {status}");
                    done.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    Run {
        requests: done.load(Ordering::Relaxed),
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// A static server with the gateway's HTTP setup: 1 KB answers to GET and POST.
fn static_server(body: String) -> (actix_web::dev::Server, std::net::SocketAddr) {
    let body = web::Data::new(body);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(body.clone())
            .route(
                "/static",
                web::get().to(|b: web::Data<String>| async move {
                    HttpResponse::Ok()
                        .content_type("application/json")
                        .body(b.get_ref().clone())
                }),
            )
            .route(
                "/static",
                web::post().to(|b: web::Data<String>, _in: web::Bytes| async move {
                    HttpResponse::Created()
                        .content_type("application/json")
                        .body(b.get_ref().clone())
                }),
            )
    })
    .workers(2)
    .disable_signals()
    .bind("127.0.0.1:0")
    .unwrap();
    let addr = server.addrs()[0];
    (server.run(), addr)
}

fn main() {
    let seconds = env("SECONDS", 5);
    let clients = env("CLIENTS", 16);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine::Engine::open(dir.path(), engine::EngineOptions::default()).unwrap();
        let db = engine.create_database("bench").await.unwrap();
        let c = db
            .create_container(engine::ContainerProperties::new("items", "/pk"))
            .await
            .unwrap();
        const ITEMS: u64 = 1000;
        for i in 0..ITEMS {
            c.create_item(&item(&format!("i{i}")), None, None)
                .await
                .unwrap();
        }
        let stored = c.read_item_raw("i0", &"i0".into()).unwrap();
        let body = String::from_utf8(stored.resource.clone().unwrap()).unwrap();
        let mut options = GatewayOptions::new("127.0.0.1:0".parse().unwrap());
        options.workers = Some(2);
        let (gw, gw_addr) = Gateway::start(&engine, options).unwrap();
        let gw_handle = gw.handle();
        tokio::spawn(gw);
        let (st, st_addr) = static_server(body.clone());
        let st_handle = st.handle();
        tokio::spawn(st);
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(clients as usize)
            .build()
            .unwrap();
        let key = Arc::new(MasterKey::emulator());

        // The RU of a point read through the gateway is the embedded call's.
        let date = httpdate::fmt_http_date(SystemTime::now());
        let r = http
            .get(format!("http://{gw_addr}/dbs/bench/colls/items/docs/i0"))
            .header("x-ms-date", &date)
            .header(
                "authorization",
                key.authorization("GET", "docs", "dbs/bench/colls/items/docs/i0", &date),
            )
            .header("x-ms-documentdb-partitionkey", r#"["i0"]"#)
            .send()
            .await
            .unwrap();
        let ru: f64 = r.headers()["x-ms-request-charge"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(ru, stored.request_charge);
        println!(
            "point read of {} bytes: {ru} RU through the gateway, {} RU embedded",
            body.len(),
            stored.request_charge
        );

        let reads = {
            let (http, key) = (http.clone(), key.clone());
            load(clients, seconds, move |i| {
                let (http, key) = (http.clone(), key.clone());
                async move {
                    let id = format!("i{}", i % ITEMS);
                    let date = httpdate::fmt_http_date(SystemTime::now());
                    let link = format!("dbs/bench/colls/items/docs/{id}");
                    let r = http
                        .get(format!("http://{gw_addr}/{link}"))
                        .header("x-ms-date", &date)
                        .header(
                            "authorization",
                            key.authorization("GET", "docs", &link, &date),
                        )
                        .header("x-ms-documentdb-partitionkey", format!("[\"{id}\"]"))
                        .send()
                        .await
                        .unwrap();
                    let s = r.status().as_u16();
                    let _ = r.bytes().await;
                    s
                }
            })
            .await
        };
        let static_reads = {
            let http = http.clone();
            load(clients, seconds, move |_| {
                let http = http.clone();
                async move {
                    let r = http
                        .get(format!("http://{st_addr}/static"))
                        .send()
                        .await
                        .unwrap();
                    let s = r.status().as_u16();
                    let _ = r.bytes().await;
                    s
                }
            })
            .await
        };
        let creates = {
            let (http, key) = (http.clone(), key.clone());
            load(clients, seconds, move |i| {
                let (http, key) = (http.clone(), key.clone());
                async move {
                    let id = format!("c{i}");
                    let date = httpdate::fmt_http_date(SystemTime::now());
                    let r = http
                        .post(format!("http://{gw_addr}/dbs/bench/colls/items/docs"))
                        .header("x-ms-date", &date)
                        .header(
                            "authorization",
                            key.authorization("POST", "docs", "dbs/bench/colls/items", &date),
                        )
                        .header("x-ms-documentdb-partitionkey", format!("[\"{id}\"]"))
                        .body(item(&id).to_string())
                        .send()
                        .await
                        .unwrap();
                    let s = r.status().as_u16();
                    let _ = r.bytes().await;
                    s
                }
            })
            .await
        };
        let static_creates = {
            let http = http.clone();
            load(clients, seconds, move |i| {
                let http = http.clone();
                async move {
                    let r = http
                        .post(format!("http://{st_addr}/static"))
                        .body(item(&format!("c{i}")).to_string())
                        .send()
                        .await
                        .unwrap();
                    let s = r.status().as_u16();
                    let _ = r.bytes().await;
                    s
                }
            })
            .await
        };
        println!("{clients} clients, {seconds} s each, 2 server workers");
        println!("| | gateway req/s | static req/s | ratio |");
        println!("|---|---:|---:|---:|");
        for (name, g, s) in [
            ("1 KB point read", &reads, &static_reads),
            ("1 KB create (durable)", &creates, &static_creates),
        ] {
            println!(
                "| {name} | {:.0} | {:.0} | {:.0}% |",
                g.per_second(),
                s.per_second(),
                100.0 * g.per_second() / s.per_second()
            );
        }
        gw_handle.stop(true).await;
        st_handle.stop(true).await;
        drop(engine);
    });
}
