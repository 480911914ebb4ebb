//! The demo: both sites and the Data Explorer in one process on one engine. `cargo run --release`
//! seeds `./data` on first start (with a progress bar), reuses it afterwards, and stops cleanly
//! on Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;

use blog::{Blog, BlogOptions};
use clap::Parser;
use engine::{Engine, EngineOptions};
use explorer::{Explorer, ExplorerOptions};
use sitekit::http::server::{serve, ServeOptions};
use webstore::{WebStore, WebStoreOptions};

/// mimalloc rather than glibc's malloc: argon2id takes 19 MiB per hash on whichever blocking
/// thread runs it, and glibc keeps such blocks in per-thread arenas, so the heap of a 10-minute
/// soak wandered between 450 and 950 MiB; mimalloc returns them (see BENCHMARKS.md, the soak).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Every flag has an environment variable of the same name in upper case (e.g. `DATA`).
#[derive(Debug, Parser)]
#[command(
    version,
    about = "WebStore (127.0.0.1:8080), the blog (:8081), the Data Explorer (:8082) and the \
             Cosmos DB REST API gateway for the official SDKs (:8083) on one embedded \
             Cosmos-DB-style engine under ./data"
)]
struct Args {
    /// The engine's data directory (LMDB files, the session key).
    #[arg(long, env = "DATA", default_value = "data")]
    data: PathBuf,
    /// Where WebStore listens.
    #[arg(long, env = "WEBSTORE_ADDR", default_value = "127.0.0.1:8080")]
    webstore_addr: SocketAddr,
    /// Customers generated on first start (with their orders).
    #[arg(long, env = "CUSTOMERS", default_value_t = 2_000)]
    customers: u64,
    /// Where the blog listens.
    #[arg(long, env = "BLOG_ADDR", default_value = "127.0.0.1:8081")]
    blog_addr: SocketAddr,
    /// Blog users generated on first start (with their posts, comments and likes).
    #[arg(long, env = "USERS", default_value_t = 1_000)]
    users: u64,
    /// Mark session cookies Secure (serve behind TLS).
    #[arg(long, env = "SECURE_COOKIES")]
    secure_cookies: bool,
    /// Worker threads per site (default: one per core).
    #[arg(long, env = "WORKERS")]
    workers: Option<usize>,
    /// Sign-ups per minute from one client address (each is an argon2id hash); 0: no limit
    /// (for load tests, which sign many users up from one address).
    #[arg(long, env = "SIGNUPS_PER_MINUTE", default_value_t = 10)]
    signups_per_minute: u32,
    /// Anonymous requests per minute from one address to pages that cost hundreds of RU (the
    /// blog's V1/V2 feeds); 0: no limit.
    #[arg(long, env = "EXPENSIVE_PER_MINUTE", default_value_t = 30)]
    expensive_per_minute: u32,
    /// Posts, edits and comments per minute from one signed-in account (each renders Markdown
    /// and writes); 0: no limit (for load tests, whose members write faster than people).
    #[arg(long, env = "WRITES_PER_MINUTE", default_value_t = 20)]
    writes_per_minute: u32,
    /// The reverse proxy (its IP address) whose X-Forwarded-For/-Host/-Proto headers are
    /// believed; without it they are ignored.
    #[arg(long, env = "TRUSTED_PROXY")]
    trusted_proxy: Option<std::net::IpAddr>,
    /// Provisioned RU/s for a container, `DATABASE/CONTAINER=RU` (`=none` removes it), split
    /// evenly over its physical partitions; repeat or separate with commas. E.g.
    /// `--throughput blog/posts=3500` for the hot-partition load test.
    #[arg(long = "throughput", env = "THROUGHPUT", value_delimiter = ',', value_parser = parse_throughput)]
    throughput: Vec<Throughput>,
    /// Where the Data Explorer (and `/metrics`) listens; keep it on loopback unless you mean it
    /// (another address needs --explorer-token).
    #[arg(long, env = "EXPLORER_ADDR", default_value = "127.0.0.1:8082")]
    explorer_addr: SocketAddr,
    /// A host name the explorer answers to besides localhost, 127.0.0.1 and [::1] (any other
    /// `Host` is refused: DNS rebinding); repeat or separate with commas.
    #[arg(long = "explorer-host", env = "EXPLORER_HOST", value_delimiter = ',', value_parser = explorer::guard::parse_host_name)]
    explorer_hosts: Vec<String>,
    /// The explorer's access token (default: a new random one per start, printed in its URL).
    /// Browsers open `/?token=TOKEN` once; scripts send `Authorization: Bearer TOKEN`.
    #[arg(long, env = "EXPLORER_TOKEN", value_parser = parse_token)]
    explorer_token: Option<String>,
    /// Do not serve the Data Explorer.
    #[arg(long, env = "NO_EXPLORER")]
    no_explorer: bool,
    /// Let the explorer edit and delete items and run stored procedures (read-only otherwise).
    #[arg(long, env = "EXPLORER_WRITES")]
    explorer_writes: bool,
    /// Where the gateway listens: the Cosmos DB REST API on the same engine, for the official
    /// SDKs and tools (`AccountEndpoint=http://ADDR/`).
    #[arg(long, env = "GATEWAY_ADDR", default_value = "127.0.0.1:8083")]
    gateway_addr: SocketAddr,
    /// The gateway's account key, base64 (default: the Cosmos DB emulator's well-known key,
    /// which is refused on a non-loopback address).
    #[arg(long, env = "GATEWAY_KEY", hide_env_values = true)]
    gateway_key: Option<String>,
    /// Serve the gateway over https, with a self-signed certificate for localhost and
    /// 127.0.0.1 made on the first start and kept in the data directory (its path is printed).
    #[arg(long, env = "GATEWAY_TLS")]
    gateway_tls: bool,
    /// A host name the gateway answers to besides localhost, 127.0.0.1, [::1] and its own
    /// address (any other `Host`, and any other web page's `Origin`, is refused: DNS
    /// rebinding); repeat or separate with commas.
    #[arg(long = "gateway-host", env = "GATEWAY_HOST", value_delimiter = ',', value_parser = gateway::parse_host_name)]
    gateway_hosts: Vec<String>,
    /// Do not serve the gateway.
    #[arg(long, env = "NO_GATEWAY")]
    no_gateway: bool,
    /// Run both sites on this Cosmos DB account instead of the embedded engine: Azure Cosmos
    /// DB (`https://ACCOUNT.documents.azure.com:443/`), the emulator, or another process's
    /// gateway. Containers, scripts and demo data are created when missing; the explorer and
    /// the gateway (which serve the embedded engine) are off.
    #[arg(long, env = "COSMOS_ENDPOINT", requires = "cosmos_key")]
    cosmos_endpoint: Option<String>,
    /// The account's key (with --cosmos-endpoint).
    #[arg(long, env = "COSMOS_KEY", hide_env_values = true)]
    cosmos_key: Option<String>,
    /// Which sites to start: `webstore`, `blog` or `both`. A fork keeping one app starts only
    /// it (nor seeds the other's data: the blog's 1 000 users take minutes and gigabytes).
    #[arg(long, env = "SITES", value_enum, default_value_t = Sites::Both)]
    sites: Sites,
    /// The portal's `AccountEndpoint=…;AccountKey=…;`, instead of the two above.
    #[arg(
        long,
        env = "COSMOS_CONNECTION_STRING",
        hide_env_values = true,
        conflicts_with = "cosmos_endpoint"
    )]
    cosmos_connection_string: Option<String>,
    /// The Azure region nearest the app, for the SDK's routing (e.g. "West Europe").
    #[arg(long, env = "COSMOS_REGION")]
    cosmos_region: Option<String>,
}

/// The sites `--sites` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Sites {
    Webstore,
    Blog,
    Both,
}

impl Sites {
    fn webstore(self) -> bool {
        self != Sites::Blog
    }

    fn blog(self) -> bool {
        self != Sites::Webstore
    }
}

/// The Cosmos DB account the flags name, if any (else the embedded engine runs the sites).
fn cosmos_settings(args: &Args) -> Result<Option<cosmos::ConnectionSettings>, String> {
    let mut settings = match (
        &args.cosmos_connection_string,
        &args.cosmos_endpoint,
        &args.cosmos_key,
    ) {
        (Some(cs), _, _) => cosmos::ConnectionSettings::from_connection_string(cs)
            .map_err(|e| format!("--cosmos-connection-string: {e}"))?,
        (None, Some(endpoint), Some(key)) => cosmos::ConnectionSettings::new(endpoint, key),
        _ => return Ok(None),
    };
    if !args.throughput.is_empty() {
        return Err(
            "--throughput sets the embedded engine's budgets; on a Cosmos DB account \
                    set throughput in the portal or with `az cosmosdb sql container throughput`"
                .into(),
        );
    }
    settings.region = args.cosmos_region.clone();
    Ok(Some(settings))
}

#[derive(Debug, Clone)]
struct Throughput {
    database: String,
    container: String,
    ru_per_s: Option<u32>,
}

fn parse_throughput(s: &str) -> Result<Throughput, String> {
    let bad = || format!("expected DATABASE/CONTAINER=RU (or =none), got {s:?}");
    let (path, ru) = s.split_once('=').ok_or_else(bad)?;
    let (database, container) = path.split_once('/').ok_or_else(bad)?;
    let ru_per_s = match ru {
        "none" => None,
        n => Some(n.parse::<u32>().map_err(|_| bad())?),
    };
    Ok(Throughput {
        database: database.to_owned(),
        container: container.to_owned(),
        ru_per_s,
    })
}

fn parse_token(s: &str) -> Result<String, String> {
    explorer::guard::check_token(s).map(|()| s.to_owned())
}

/// The explorer's options from the flags. A non-loopback address needs a token chosen on
/// purpose (a random one printed on a console is easy to leak to the whole network); a specific
/// address is answered under its own IP (an IP literal cannot be rebound).
fn explorer_options(args: &Args) -> Result<ExplorerOptions, String> {
    let ip = args.explorer_addr.ip();
    if !ip.is_loopback() && args.explorer_token.is_none() {
        return Err(format!(
            "--explorer-addr {} is not a loopback address: the explorer shows and edits every \
             document, so set --explorer-token TOKEN (EXPLORER_TOKEN) too, or use --no-explorer",
            args.explorer_addr
        ));
    }
    let mut allowed_hosts = args.explorer_hosts.clone();
    allowed_hosts.extend(explorer::guard::bound_name(ip));
    Ok(ExplorerOptions {
        writes: args.explorer_writes,
        allowed_hosts,
        token: args
            .explorer_token
            .clone()
            .unwrap_or_else(explorer::guard::new_token),
    })
}

/// The gateway's options from the flags. The emulator's key is public: on a non-loopback
/// address it would open every document to the network, so a key of one's own is required there
/// (checked here too, before anything is opened or seeded).
fn gateway_options(args: &Args) -> Result<gateway::GatewayOptions, String> {
    if args.gateway_key.is_none() && !args.gateway_addr.ip().is_loopback() {
        return Err(format!(
            "--gateway-addr {} is not a loopback address: the default key is the emulator's \
             well-known one, so set --gateway-key KEY (GATEWAY_KEY) too, or use --no-gateway",
            args.gateway_addr
        ));
    }
    let mut options = gateway::GatewayOptions::new(args.gateway_addr);
    options.key = args.gateway_key.clone();
    options.workers = args.workers;
    options.tls = args.gateway_tls;
    options.allowed_hosts = args.gateway_hosts.clone();
    if let Some(k) = &options.key {
        gateway::MasterKey::from_base64(k).map_err(|e| format!("--gateway-key: {e}"))?;
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // The message, not the Debug form: "cannot start: seeding ... needs about 270 GB",
            // on one line whatever a remote service put in it.
            let message = e.to_string();
            eprintln!(
                "cannot start: {}",
                message.split_whitespace().collect::<Vec<_>>().join(" ")
            );
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    // Colour codes only on a terminal (CI logs and `> file` get plain text); actix's start and
    // stop lines are debug-level noise beside our own "Ready" lines.
    tracing_subscriber::fmt()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,access=off,actix_server=warn,actix_web=warn".into()),
        )
        .init();
    let args = Args::parse();
    let remote = cosmos_settings(&args)?;
    // The explorer and the gateway serve the embedded engine: not there on a remote account.
    let explorer_options = (!args.no_explorer && remote.is_none())
        .then(|| explorer_options(&args))
        .transpose()?;
    let gateway_options = (!args.no_gateway && remote.is_none())
        .then(|| gateway_options(&args))
        .transpose()?;
    let started = std::time::Instant::now();
    let (account, engine) = match &remote {
        Some(settings) => {
            println!(
                "Connecting to the Cosmos DB account at {}",
                settings.endpoint
            );
            (cosmos::Account::connect(settings).await?, None)
        }
        None => {
            let engine = Engine::open(&args.data, EngineOptions::default())?;
            (cosmos::Account::embedded(engine.clone()), Some(engine))
        }
    };
    std::fs::create_dir_all(&args.data)?;
    let session_key = sitekit::accounts::cookie::load_or_create_key(&args.data)?;
    // First, so that its metrics recorder sees every request of the sites.
    let explorer = match (&explorer_options, &engine) {
        (Some(options), Some(engine)) => Some(Explorer::new(engine, options.clone())),
        _ => None,
    };

    let options = |site| {
        let mut o = ServeOptions::new(site, session_key.clone());
        o.secure_cookies = args.secure_cookies;
        o.workers = args.workers;
        o.signups_per_minute = args.signups_per_minute;
        o.expensive_per_minute = args.expensive_per_minute;
        o.writes_per_minute = args.writes_per_minute;
        o.trusted_proxy = args.trusted_proxy;
        o
    };
    let mut servers = Vec::new();
    let store = if args.sites.webstore() {
        let store = WebStore::start(
            &account,
            &WebStoreOptions {
                customers: args.customers,
            },
        )
        .await?;
        let (server, addr) = serve(
            args.webstore_addr,
            options(webstore::SITE),
            store.configure(),
        )?;
        servers.push(server);
        Some((store, addr))
    } else {
        None
    };
    let blog = if args.sites.blog() {
        let blog = Blog::start(&account, &BlogOptions { users: args.users }).await?;
        let (server, addr) = serve(args.blog_addr, options(blog::SITE), blog.configure())?;
        servers.push(server);
        Some((blog, addr))
    } else {
        None
    };
    // (A remote account was refused --throughput in cosmos_settings.)
    if let Some(engine) = &engine {
        for t in &args.throughput {
            engine
                .database(&t.database)
                .replace_throughput(&t.container, t.ru_per_s)
                .await
                .map_err(|e| format!("--throughput {}/{}: {e}", t.database, t.container))?;
            match t.ru_per_s {
                Some(ru) => println!("  {}/{}: {ru} RU/s provisioned", t.database, t.container),
                None => println!("  {}/{}: throughput unlimited", t.database, t.container),
            }
        }
    }
    let explorer_server = match &explorer {
        Some(x) => Some(serve(
            args.explorer_addr,
            options(explorer::SITE),
            x.configure(),
        )?),
        None => None,
    };
    let gateway_server = match (gateway_options, &engine) {
        (Some(options), Some(engine)) => Some(gateway::Gateway::start(engine, options)?),
        _ => None,
    };
    match &remote {
        Some(settings) => println!(
            "Ready in {:.2} s (data on the Cosmos DB account at {}; the explorer and the gateway \
             serve the embedded engine, so they are off)",
            started.elapsed().as_secs_f64(),
            settings.endpoint
        ),
        None => println!(
            "Ready in {:.2} s (data in {})",
            started.elapsed().as_secs_f64(),
            args.data.display()
        ),
    }
    if let Some((store, addr)) = &store {
        println!("  WebStore  http://{addr}  ({} customers)", store.customers);
        println!(
            "    customer: {} / {}",
            webstore::seed::DEMO_EMAIL,
            webstore::seed::DEMO_PASSWORD
        );
        println!(
            "    admin:    {} / {}",
            webstore::seed::ADMIN_EMAIL,
            webstore::seed::ADMIN_PASSWORD
        );
    }
    if let Some((blog, addr)) = &blog {
        println!("  Blog      http://{addr}  ({} users)", blog.users);
        println!(
            "    user:     {} / {}",
            blog::seed::DEMO_USERNAME,
            blog::seed::DEMO_PASSWORD
        );
    }
    if let (Some((_, addr)), Some(options)) = (&explorer_server, &explorer_options) {
        let mode = if args.explorer_writes {
            "writes allowed"
        } else {
            "read-only; --explorer-writes to edit"
        };
        // 0.0.0.0 is no address to open (nor an allowed Host): the loopback one is.
        let mut shown = *addr;
        if addr.ip().is_unspecified() {
            shown.set_ip(match addr {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        println!(
            "  Explorer  http://{shown}/?token={}  ({mode}; Prometheus metrics at /metrics with \
             Authorization: Bearer TOKEN)",
            options.token
        );
    }
    if let Some((_, addr)) = &gateway_server {
        let key = match &args.gateway_key {
            Some(_) => "AccountKey=<your --gateway-key>".to_owned(),
            None => format!("AccountKey={} (the emulator's key)", gateway::EMULATOR_KEY),
        };
        let scheme = if args.gateway_tls { "https" } else { "http" };
        println!("  Gateway   {scheme}://{addr}/  (Cosmos DB REST API for the SDKs: {key})");
        if args.gateway_tls {
            println!(
                "    certificate (self-signed; have clients trust it): {}",
                gateway::tls::cert_path(&args.data).display()
            );
        }
    }
    // Listen before saying so: a Ctrl-C (SIGINT) that came between the line and the first poll of
    // a lazily registered handler would kill the process instead of stopping it cleanly.
    let interrupted = interrupt_listener()?;
    println!("Ctrl-C stops.");

    let mut handles: Vec<_> = servers.iter().map(|s| s.handle()).collect();
    let mut servers: Vec<_> = servers.into_iter().map(tokio::spawn).collect();
    if let Some((server, _)) = explorer_server {
        handles.push(server.handle());
        servers.push(tokio::spawn(server));
    }
    if let Some((server, _)) = gateway_server {
        handles.push(server.handle());
        servers.push(tokio::spawn(server));
    }
    interrupted.await;
    println!("Stopping: finishing requests, checkpointing the change feed, closing the engine.");
    for h in &handles {
        h.stop(true).await;
    }
    for s in servers {
        let _ = s.await;
    }
    if let Some((store, _)) = &store {
        store.stop().await;
    }
    if let Some((blog, _)) = &blog {
        blog.stop().await;
    }
    drop((store, blog, explorer));
    drop(engine);
    Ok(())
}

/// A future that completes at the first Ctrl-C, registered now (tokio's `ctrl_c()` registers
/// only when first polled).
fn interrupt_listener() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut sigint = signal(SignalKind::interrupt())?;
        Ok(async move {
            sigint.recv().await;
        })
    }
    #[cfg(not(unix))]
    {
        let ctrl_c = tokio::signal::ctrl_c();
        Ok(async move {
            let _ = ctrl_c.await;
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{explorer_options, parse_throughput, Args};

    fn args(flags: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("cosmos-lmdb").chain(flags.iter().copied()))
    }

    #[test]
    fn explorer_flags_give_the_hosts_and_the_token() {
        let o = explorer_options(
            &args(&[
                "--explorer-host",
                "Box.lan:8082,b.lan",
                "--explorer-host",
                "[::2]",
                "--explorer-addr",
                "192.168.1.5:8082",
                "--explorer-token",
                "tok",
            ])
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            o.allowed_hosts,
            ["box.lan", "b.lan", "[::2]", "192.168.1.5"]
        );
        assert_eq!(o.token, "tok");
        // (Unless the environment gives a token: flags override the environment, not absent ones.)
        if std::env::var_os("EXPLORER_TOKEN").is_none() {
            let e =
                explorer_options(&args(&["--explorer-addr", "[::]:8082"]).unwrap()).unwrap_err();
            assert!(e.contains("--explorer-token"), "{e}");
        }
        assert!(args(&["--explorer-token", ""]).is_err());
        assert!(args(&["--explorer-token", "a/b"]).is_err());
        assert!(args(&["--explorer-host", "http://x/"]).is_err());
    }

    #[test]
    fn throughput_flags_parse_or_say_what_is_expected() {
        let t = parse_throughput("blog/posts=3500").unwrap();
        assert_eq!(
            (t.database.as_str(), t.container.as_str(), t.ru_per_s),
            ("blog", "posts", Some(3500))
        );
        assert_eq!(
            parse_throughput("shop/product=none").unwrap().ru_per_s,
            None
        );
        for bad in ["posts=10", "blog/posts", "blog/posts=lots"] {
            assert!(
                parse_throughput(bad)
                    .unwrap_err()
                    .contains("DATABASE/CONTAINER=RU"),
                "{bad}"
            );
        }
    }
}
