//! `engine serve`: the gateway over a directory of its own, for the official SDKs and tools.
//! A 429 goes back to the client at once (the SDKs wait `x-ms-retry-after-ms` and retry
//! themselves), so the engine's own client does not retry on top of them.

use std::net::SocketAddr;
use std::path::Path;

use engine::{Engine, EngineOptions};

use crate::error::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:8083")]
    addr: SocketAddr,
    /// The account key, base64 (default: the Cosmos DB emulator's well-known key, refused
    /// on a non-loopback address).
    #[arg(long, env = "GATEWAY_KEY", hide_env_values = true)]
    key: Option<String>,
    /// Serve https with a self-signed certificate for localhost and 127.0.0.1, made on the
    /// first start and kept in the data directory (its path is printed).
    #[arg(long)]
    tls: bool,
    /// A host name answered besides localhost, 127.0.0.1, [::1] and the address served
    /// (any other `Host`, and any other web page's `Origin`, is refused: DNS rebinding);
    /// repeat or separate with commas.
    #[arg(long = "host", env = "GATEWAY_HOST", value_delimiter = ',', value_parser = gateway::parse_host_name)]
    hosts: Vec<String>,
}

pub async fn run(data: &Path, no_lock: bool, args: Args) -> Result<(), CliError> {
    let failed = |e: &dyn std::fmt::Display| CliError::Failed(e.to_string());
    if no_lock {
        return Err(engine::Error::bad(
            "--no-lock",
            "--no-lock is for reading: serve writes, which needs LMDB's lock",
        )
        .into());
    }
    if args.key.is_none() && !args.addr.ip().is_loopback() {
        return Err(failed(&format!(
            "--addr {} is not a loopback address: the default key is the emulator's \
             well-known one, so pass --key KEY (GATEWAY_KEY)",
            args.addr
        )));
    }
    // A damaged file can stop LMDB on an assertion mid-request: the process then ends with a
    // line naming the file (exit 3), as every other command does (issue 34).
    let data_file = data.join("data.mdb");
    crate::crash::install(&data_file);
    let engine = Engine::open(
        data,
        EngineOptions {
            retry: engine::RetryOptions {
                max_retry_attempts_on_throttled: 0,
                ..Default::default()
            },
            ..Default::default()
        },
    )?;
    crate::crash::watch_map(&data_file);
    let mut options = gateway::GatewayOptions::new(args.addr);
    options.key = args.key.clone();
    options.tls = args.tls;
    options.allowed_hosts = args.hosts;
    let (server, bound) = gateway::Gateway::start(&engine, options).map_err(|e| failed(&e))?;
    let shown = match args.key {
        Some(_) => "AccountKey=<your --key>".to_owned(),
        None => format!("AccountKey={} (the emulator's key)", gateway::EMULATOR_KEY),
    };
    let scheme = if args.tls { "https" } else { "http" };
    println!("Serving {} over the Cosmos DB REST API", data.display());
    println!("  AccountEndpoint={scheme}://{bound}/;{shown}");
    if args.tls {
        println!(
            "  certificate (self-signed; have clients trust it): {}",
            gateway::tls::cert_path(engine.path()).display()
        );
    }
    println!("Ctrl-C stops.");
    let handle = server.handle();
    let running = tokio::spawn(server);
    tokio::signal::ctrl_c().await.map_err(|e| failed(&e))?;
    handle.stop(true).await;
    let _ = running.await;
    drop(engine);
    Ok(())
}
