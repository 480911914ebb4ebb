//! The Azure Cosmos DB REST API (NoSQL) over the embedded engine, so the official SDKs and tools
//! connect to it with an endpoint and a key. The engine stays a library that knows no HTTP: this
//! crate only translates requests into its calls and its answers and errors into Cosmos DB's.
//!
//! ```no_run
//! # async fn demo(engine: engine::Engine) -> Result<(), Box<dyn std::error::Error>> {
//! let options = gateway::GatewayOptions::new("127.0.0.1:8083".parse()?);
//! let (server, addr) = gateway::Gateway::start(&engine, options)?;
//! println!("AccountEndpoint=http://{addr}/;AccountKey={};", gateway::EMULATOR_KEY);
//! server.await?;
//! # Ok(()) }
//! ```
//!
//! `PROTOCOL.md` lists every operation the SDKs send and what the gateway does with it.

pub mod auth;
mod autoscale;
mod client_keys;
mod common_headers;
pub mod error;
pub mod headers;
mod hosts;
mod index_utilization;
mod json_file;
pub mod limits;
mod paths;
mod request;
mod resource_token;
mod resources;
mod routes;
mod script_store;
mod server;
mod session;
mod state;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tls;

use std::net::SocketAddr;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::web;

pub use auth::{MasterKey, EMULATOR_KEY};
pub use error::GatewayError;
pub use limits::Limits;
/// A name for `GatewayOptions::allowed_hosts` (`--gateway-host`): its host part, lower case.
pub use netguard::hosts::parse_host_name;

/// How to start a gateway.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    pub addr: SocketAddr,
    /// The account key (base64), as Cosmos DB shows it; `None`: the emulator's well-known key.
    pub key: Option<String>,
    pub limits: Limits,
    /// Worker threads (default: actix's, one per core).
    pub workers: Option<usize>,
    /// Serve https with the self-signed certificate kept in the data directory (`tls`).
    pub tls: bool,
    /// Host names answered besides loopback (`localhost`, `127.0.0.1`, `[::1]`) and the address
    /// bound (`--gateway-host`), as [`parse_host_name`] gives them. Any other `Host`, and any
    /// `Origin` not naming one of them, is a 403: a web page that rebinds its own name to this
    /// address cannot use the account's key from the browser.
    pub allowed_hosts: Vec<String>,
}

impl GatewayOptions {
    pub fn new(addr: SocketAddr) -> Self {
        GatewayOptions {
            addr,
            key: None,
            limits: Limits::default(),
            workers: None,
            tls: false,
            allowed_hosts: Vec::new(),
        }
    }
}

/// Why a gateway did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "the gateway address {0} is not a loopback address and the key is the emulator's \
         well-known one, which anyone can read: pass a key of your own (--gateway-key / --key)"
    )]
    WellKnownKeyOnNetwork(SocketAddr),
    #[error("the gateway key: {0}")]
    BadKey(masterkey::KeyError),
    #[error("https: {0}")]
    Tls(String),
    #[error("the scripts created over the REST API could not be loaded: {0}")]
    Scripts(String),
    #[error("the autoscale settings could not be loaded: {0}")]
    Autoscale(String),
    #[error("the client encryption keys could not be loaded: {0}")]
    ClientKeys(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

pub struct Gateway;

impl Gateway {
    /// Binds `options.addr` and returns the server (a future to await or spawn) and the address
    /// it listens on (the port chosen when `addr` has port 0).
    pub fn start(
        engine: &engine::Engine,
        options: GatewayOptions,
    ) -> Result<(Server, SocketAddr), StartError> {
        let key = match &options.key {
            Some(k) => MasterKey::from_base64(k).map_err(StartError::BadKey)?,
            None => MasterKey::emulator(),
        };
        if key.is_well_known() && !options.addr.ip().is_loopback() {
            return Err(StartError::WellKnownKeyOnNetwork(options.addr));
        }
        let listener =
            std::net::TcpListener::bind(options.addr).map_err(|source| StartError::Bind {
                addr: options.addr,
                source,
            })?;
        let bound = listener.local_addr().map_err(|source| StartError::Bind {
            addr: options.addr,
            source,
        })?;
        let scripts = script_store::ScriptStore::open(engine).map_err(StartError::Scripts)?;
        let autoscale = autoscale::AutoscaleStore::open(engine).map_err(StartError::Autoscale)?;
        let client_keys =
            client_keys::ClientKeyStore::open(engine).map_err(StartError::ClientKeys)?;
        let state = web::Data::new(Arc::new(state::State {
            engine: engine.clone(),
            key,
            limits: options.limits.clone(),
            addr: bound,
            scheme: if options.tls { "https" } else { "http" },
            scripts,
            autoscale,
            client_keys,
            hosts: netguard::AllowedHosts::new(&options.allowed_hosts).and_bound(bound),
        }));
        let tls = if options.tls {
            Some(tls::server_config(engine.path()).map_err(StartError::Tls)?)
        } else {
            None
        };
        let server = server::serve(listener, state, options.workers, tls).map_err(|source| {
            StartError::Bind {
                addr: options.addr,
                source,
            }
        })?;
        Ok((server, bound))
    }
}
