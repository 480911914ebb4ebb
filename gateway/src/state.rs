//! What every request handler shares: the engine, the account key, the limits, the stores kept
//! beside the engine's data, and the names answered. Built by `Gateway::start`, below every
//! module that reads it.

use std::net::SocketAddr;

use crate::auth::MasterKey;
use crate::autoscale::AutoscaleStore;
use crate::client_keys::ClientKeyStore;
use crate::limits::Limits;
use crate::script_store::ScriptStore;

/// What every request handler shares.
pub(crate) struct State {
    pub engine: engine::Engine,
    pub key: MasterKey,
    pub limits: Limits,
    /// The address the gateway listens on (the database account names it as its endpoint).
    pub addr: SocketAddr,
    /// `http` or `https`.
    pub scheme: &'static str,
    /// JavaScript scripts created over the REST API (kept in the data directory).
    pub scripts: ScriptStore,
    /// Autoscale settings of offers (kept in the data directory; `autoscale`).
    pub autoscale: AutoscaleStore,
    /// Client encryption keys of databases (kept in the data directory; `client_keys`).
    pub client_keys: ClientKeyStore,
    /// The names answered (`GatewayOptions::allowed_hosts`, loopback, the address bound).
    pub hosts: netguard::AllowedHosts,
}
