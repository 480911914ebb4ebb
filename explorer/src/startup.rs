//! The explorer over an engine: its options and the routes to serve.

use actix_web::web;
use engine::Engine;
use metrics_exporter_prometheus::PrometheusHandle;

use sitekit::http::gate::Gate;

use crate::guard::Guard;
use crate::routes;

pub const SITE: sitekit::Site = sitekit::Site {
    name: "Data Explorer",
    tagline: "the engine as the Cosmos DB portal's Data Explorer shows it",
    cookie_name: "explorer_session",
    base: "",
    patterns: false,
};

#[derive(Clone)]
pub struct ExplorerOptions {
    /// Allow editing and deleting items and running stored procedures (off: read-only).
    pub writes: bool,
    /// Host names answered besides loopback (`--explorer-host`), lower case, without port.
    pub allowed_hosts: Vec<String>,
    /// The secret every request must carry ([`crate::guard`]); the default is a fresh one.
    pub token: String,
}

impl Default for ExplorerOptions {
    fn default() -> Self {
        ExplorerOptions {
            writes: false,
            allowed_hosts: Vec::new(),
            token: crate::guard::new_token(),
        }
    }
}

/// Without the token: options end up in logs and panics.
impl std::fmt::Debug for ExplorerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExplorerOptions")
            .field("writes", &self.writes)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("token", &"…")
            .finish()
    }
}

/// What every handler reads: the engine, the options and the Prometheus recorder's handle.
#[derive(Clone)]
pub struct Explorer {
    pub engine: Engine,
    pub options: ExplorerOptions,
    pub(crate) prometheus: PrometheusHandle,
}

impl Explorer {
    /// An explorer over `engine`. Installs the process's metrics recorder on first use, so the
    /// sites served afterwards (or before: the facade is global) record their requests into it.
    pub fn new(engine: &Engine, options: ExplorerOptions) -> Explorer {
        Explorer {
            engine: engine.clone(),
            options,
            prometheus: crate::prometheus::install(),
        }
    }

    pub fn configure(&self) -> impl Fn(&mut web::ServiceConfig) + Send + Clone + 'static {
        let explorer = web::Data::new(self.clone());
        let guard = Guard::new(&self.options.allowed_hosts, &self.options.token);
        let gate = Gate::new(move |req| guard.check(req));
        move |cfg: &mut web::ServiceConfig| {
            cfg.app_data(explorer.clone())
                .app_data(gate.clone())
                .configure(routes::configure);
        }
    }
}
