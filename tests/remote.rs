//! The launcher on a Cosmos DB account (`--cosmos-endpoint`, here our gateway on a free port):
//! a bad account is one clear line and a non-zero exit; two app processes on one account both
//! serve, share the change-feed leases so each change is handled once, and when one is killed
//! (-9) the other takes its leases over and finishes the work.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gateway::testing::TestGateway;
use serde_json::Value;
use sitekit::testing::Visitor;

/// One launcher process on a remote account, with what it has logged so far.
struct App {
    child: Child,
    webstore: String,
    blog: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl App {
    /// Starts the launcher on `endpoint`, keeping its session key in `dir` (two processes on
    /// one `dir` accept each other's cookies, as replicas behind a load balancer must).
    fn start(endpoint: &str, dir: &std::path::Path) -> App {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"))
            .args(["--data", dir.to_str().unwrap()])
            .args(["--customers", "8", "--users", "4", "--workers", "1"])
            .args([
                "--webstore-addr",
                "127.0.0.1:0",
                "--blog-addr",
                "127.0.0.1:0",
            ])
            .args(["--cosmos-endpoint", endpoint])
            .args(["--cosmos-key", gateway::EMULATOR_KEY])
            .env("RUST_LOG", "warn,workers=info")
            .env_remove("COSMOS_CONNECTION_STRING")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (mut webstore, mut blog) = (None, None);
        let url = |rest: &str| Some(rest.split_whitespace().next().unwrap().to_owned());
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                out.read_line(&mut line).unwrap() > 0,
                "the launcher exited before serving"
            );
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("WebStore") {
                webstore = url(rest);
            } else if let Some(rest) = line.strip_prefix("Blog") {
                blog = url(rest);
            } else if line.starts_with("Ctrl-C stops") {
                break;
            }
        }
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        App {
            child,
            webstore: webstore.expect("WebStore is announced"),
            blog: blog.expect("the blog is announced"),
            log,
        }
    }

    /// Log lines containing `text`.
    fn logged(&self, text: &str) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(text))
            .count()
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The launcher's whole run with `flags` on an account that cannot serve the sites.
fn refused(dir: &std::path::Path, flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"))
        .args(["--data", dir.to_str().unwrap()])
        .args([
            "--webstore-addr",
            "127.0.0.1:0",
            "--blog-addr",
            "127.0.0.1:0",
        ])
        .args(flags)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// One line on stderr saying `what`, no panic or backtrace, exit 1.
fn assert_one_clear_line(out: &Output, what: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line, got: {stderr}");
    assert!(lines[0].starts_with("cannot start: "), "{stderr}");
    for w in what {
        assert!(lines[0].contains(w), "{w:?} in {stderr}");
    }
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"));
}

#[test]
fn a_wrong_key_an_unreachable_endpoint_or_another_partition_key_is_one_clear_line() {
    let gw = TestGateway::start();
    let dir = tempfile::tempdir().unwrap();
    let endpoint = gw.endpoint();
    let wrong = "bm90IHRoZSBrZXkgb2YgdGhpcyBhY2NvdW50IGF0IGFsbA==";
    let out = refused(
        dir.path(),
        &["--cosmos-endpoint", &endpoint, "--cosmos-key", wrong],
    );
    assert_one_clear_line(&out, &["401", &endpoint]);

    // Port 9 (discard): nothing listens there.
    let out = refused(
        dir.path(),
        &[
            "--cosmos-connection-string",
            &format!(
                "AccountEndpoint=http://127.0.0.1:9/;AccountKey={};",
                gateway::EMULATOR_KEY
            ),
        ],
    );
    assert_one_clear_line(&out, &["127.0.0.1:9"]);

    // The shop's `customer` container made earlier with another partition key.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let db = gw
            .engine
            .create_database_if_not_exists("webstore")
            .await
            .unwrap();
        db.create_container_if_not_exists(engine::ContainerProperties::new("customer", "/email"))
            .await
            .unwrap();
    });
    let out = refused(
        dir.path(),
        &[
            "--cosmos-endpoint",
            &endpoint,
            "--cosmos-key",
            gateway::EMULATOR_KEY,
        ],
    );
    assert_one_clear_line(&out, &["customer", "/email", "/customerId"]);
}

/// Items of `container` in `database` matching `sql`, read from the engine behind the gateway.
async fn items(gw: &TestGateway, database: &str, container: &str, sql: &str) -> Vec<Value> {
    gw.engine
        .database(database)
        .container(container)
        .query_all::<Value>(sql, engine::NO_PARAMS, engine::QueryOptions::default())
        .await
        .unwrap()
        .items
}

/// The pid holding the lease of `processor` (`{name}.{database}.{container}`) in `database`'s
/// leases container.
async fn lease_owner_pid(gw: &TestGateway, database: &str, processor: &str) -> Option<u32> {
    let sql = format!("SELECT * FROM l WHERE l.processor = '{processor}'");
    let leases = items(gw, database, "leases", &sql).await;
    leases.iter().find_map(|l| {
        // `{HOSTNAME}-{pid}-{started}-{n}`: the pid is the third field from the end.
        let owner = l["owner"].as_str()?;
        let mut fields = owner.rsplit('-');
        fields.nth(2)?.parse().ok()
    })
}

/// A visitor of the site at `base`, signed in through its form with `fields`.
async fn signed_in(base: &str, fields: &[(&str, &str)]) -> Visitor {
    let v = Visitor::new(base.to_owned(), None);
    let r = v.submit("/signin", "/signin", fields).await;
    assert_eq!(r.status, 303, "sign-in at {base}: {}", r.body);
    v
}

async fn poll_until(what: &str, limit: Duration, mut check: impl AsyncFnMut() -> bool) {
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

const DEMO_USER: &str = "user-000001";
/// The V3 username worker's leases: its processor on the `users` container of `blog`.
const USERNAMES_LEASE: &str = "propagateUsernames.blog.users";

/// Every post, comment and like of the demo user, and their copies in `users` and `feed`,
/// carry `name`.
async fn demo_items_named(gw: &TestGateway, name: &str) -> bool {
    let mine = items(
        gw,
        "blog",
        "posts",
        &format!("SELECT * FROM p WHERE p.userId = '{DEMO_USER}'"),
    )
    .await;
    let copies = items(
        gw,
        "blog",
        "users",
        &format!("SELECT * FROM u WHERE u.userId = '{DEMO_USER}' AND u.type = 'post'"),
    )
    .await;
    let feed = items(
        gw,
        "blog",
        "feed",
        &format!("SELECT * FROM f WHERE f.userId = '{DEMO_USER}'"),
    )
    .await;
    !mine.is_empty()
        && mine
            .iter()
            .chain(&copies)
            .chain(&feed)
            .all(|d| d["userUsername"] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_app_processes_share_one_account_and_survive_one_killed() {
    let gw = TestGateway::start();
    let dir = tempfile::tempdir().unwrap();
    let endpoint = gw.endpoint();
    // The first seeds the account; the second finds the data there and seeds nothing.
    let a = App::start(&endpoint, dir.path());
    let b = App::start(&endpoint, dir.path());
    for base in [&a.webstore, &a.blog, &b.webstore, &b.blog] {
        let r = Visitor::new(base.clone(), None).get("/").await;
        assert_eq!(r.status, 200, "{base}");
        assert!(r.request_charge() > 0.0, "{base}: RU from the account");
    }

    // A category renamed on A is carried to its products once, by whichever process holds
    // the cascade's lease.
    let admin = signed_in(
        &a.webstore,
        &[
            ("email", webstore::seed::ADMIN_EMAIL),
            ("password", webstore::seed::ADMIN_PASSWORD),
        ],
    )
    .await;
    let category = items(
        &gw,
        "webstore",
        "productMeta",
        "SELECT * FROM m WHERE m.type = 'category'",
    )
    .await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = admin
        .submit(
            "/admin/categories",
            &format!("/admin/categories/{category}/rename"),
            &[("name", "Renamed Across Processes")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    poll_until(
        "the rename reaches every product",
        Duration::from_secs(30),
        async || {
            let stale = items(
                &gw,
                "webstore",
                "product",
                &format!(
                    "SELECT p.id FROM p WHERE p.categoryId = '{category}' \
                 AND p.categoryName != 'Renamed Across Processes'"
                ),
            )
            .await;
            stale.is_empty()
        },
    )
    .await;
    let carried = format!("renameCascade: carried {category} ");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(a.logged(&carried) + b.logged(&carried), 1, "handled once");

    // A username changed on B is carried to every post, comment and like once.
    let writer = signed_in(
        &b.blog,
        &[
            ("username", blog::seed::DEMO_USERNAME),
            ("password", blog::seed::DEMO_PASSWORD),
        ],
    )
    .await;
    let r = writer
        .submit("/account", "/account", &[("username", "first_rename")])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    poll_until(
        "the first rename everywhere",
        Duration::from_secs(30),
        async || demo_items_named(&gw, "first_rename").await,
    )
    .await;
    let propagated = format!("propagateUsernames: {DEMO_USER} is \"first_rename\"");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(a.logged(&propagated) + b.logged(&propagated), 1);

    // Kill -9 the process holding the username lease right after the next rename (before or
    // while it carries it): the other takes the lease over once it expires and finishes.
    let holder = lease_owner_pid(&gw, "blog", USERNAMES_LEASE)
        .await
        .expect("someone holds the lease");
    let (mut victim, survivor) = if holder == a.child.id() {
        (a, b)
    } else {
        assert_eq!(holder, b.child.id());
        (b, a)
    };
    let writer = Visitor::new(victim.blog.clone(), Some(&writer.cookies()));
    let r = writer
        .submit("/account", "/account", &[("username", "second_rename")])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    victim.child.kill().unwrap(); // SIGKILL
    victim.child.wait().unwrap();
    // The lease expires 60 s after its last renewal (the SDKs' default, renewed every 17 s) and
    // the survivor looks for expired leases every 13 s: up to ~75 s, then the rename's work.
    poll_until(
        "the survivor finishes the second rename",
        Duration::from_secs(150),
        async || demo_items_named(&gw, "second_rename").await,
    )
    .await;
    assert_eq!(
        lease_owner_pid(&gw, "blog", USERNAMES_LEASE).await,
        Some(survivor.child.id()),
        "the survivor holds the lease now"
    );
    let second = format!("propagateUsernames: {DEMO_USER} is \"second_rename\"");
    assert_eq!(survivor.logged(&second), 1);
    // The survivor still serves, on the same sessions (one key in the shared data dir).
    let r = Visitor::new(survivor.blog.clone(), Some(&writer.cookies()))
        .get("/account")
        .await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("second_rename"));
}
