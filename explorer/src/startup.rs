//! The explorer over an engine: its options and the routes to serve.

use actix_web::web;
use engine::Engine;
use metrics_exporter_prometheus::PrometheusHandle;

use crate::routes;

pub const SITE: sitekit::Site = sitekit::Site {
    name: "Data Explorer",
    tagline: "the engine as the Cosmos DB portal's Data Explorer shows it",
    cookie_name: "explorer_session",
    base: "",
};

#[derive(Debug, Clone, Default)]
pub struct ExplorerOptions {
    /// Allow editing and deleting items and running stored procedures (off: read-only).
    pub writes: bool,
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
        move |cfg: &mut web::ServiceConfig| {
            cfg.app_data(explorer.clone()).configure(routes::configure);
        }
    }
}
