//! Starting WebStore on an engine: containers, the stored procedure, demo data, the rename
//! cascade's change-feed processor, and the routes to serve.

use std::sync::Arc;

use actix_web::web;
use cosmos::{Account, ChangeFeedProcessor, StartFrom};
use sitekit::background::propagation::Propagations;
use sitekit::background::workers::Workers;

use crate::access::{cascade_renames, place_order};
use crate::containers::{Containers, DATABASE};
use crate::{routes, seed};

pub const SITE: sitekit::Site = sitekit::Site {
    name: "WebStore",
    tagline: "the shop of the Cosmos DB modeling articles",
    cookie_name: "webstore_session",
    base: "",
    patterns: true,
};

#[derive(Debug, Clone)]
pub struct WebStoreOptions {
    /// Customers generated on first start.
    pub customers: u64,
}

impl Default for WebStoreOptions {
    fn default() -> Self {
        WebStoreOptions { customers: 2_000 }
    }
}

/// A started WebStore.
pub struct WebStore {
    pub containers: Containers,
    /// The rename cascade (the admin pages' "is propagation done?").
    pub workers: Arc<Workers>,
    /// What each rename's cascade rewrote and spent (the rename's status page).
    pub propagations: Propagations,
    pub customers: u64,
}

impl WebStore {
    /// Opens (and on first start, seeds) WebStore in `account`, and starts its change-feed
    /// worker.
    pub async fn start(account: &Account, options: &WebStoreOptions) -> cosmos::Result<WebStore> {
        let db = account.create_database_if_not_exists(DATABASE).await?;
        let containers = Containers::create_if_not_exists(&db).await?;
        place_order::register(&containers).await?;
        let customers = seed::seed_if_needed(&containers, options.customers).await?;
        // Kept beside the leases too: the page may be served by another process, or after a
        // restart.
        let propagations =
            Propagations::kept_in(containers.leases.clone(), cascade_renames::PROCESSOR);
        let workers = Workers::new().with(
            cascade_renames::PROCESSOR,
            rename_processor(&containers, &propagations)?,
        );
        workers.start().await?;
        Ok(WebStore {
            containers,
            workers: Arc::new(workers),
            propagations,
            customers,
        })
    }

    /// The routes and the state they use, for [`sitekit::http::server::serve`].
    pub fn configure(&self) -> impl Fn(&mut web::ServiceConfig) + Send + Clone + 'static {
        let containers = web::Data::new(self.containers.clone());
        // Sessions live in the customer document (see sitekit::accounts::sessions).
        let accounts = web::Data::new(sitekit::accounts::sessions::Accounts {
            container: self.containers.customer.clone(),
            name_property: "firstName",
            admin_property: Some("admin"),
        });
        let workers = web::Data::from(self.workers.clone());
        let propagations = web::Data::new(self.propagations.clone());
        move |cfg: &mut web::ServiceConfig| {
            cfg.app_data(containers.clone())
                .app_data(propagations.clone())
                .app_data(web::Data::new(routes::ERROR_PAGE))
                .app_data(accounts.clone())
                .app_data(workers.clone())
                .configure(routes::configure);
        }
    }

    /// Stops the worker after its current batch is checkpointed.
    pub async fn stop(&self) {
        self.workers.stop().await;
    }
}

fn rename_processor(
    c: &Containers,
    progress: &Propagations,
) -> cosmos::Result<ChangeFeedProcessor> {
    let containers = c.clone();
    let progress = progress.clone();
    c.product_meta
        .change_feed_processor(cascade_renames::PROCESSOR)
        .lease_container(c.leases.clone())
        // Applies only when the leases are created, at the first start: the seed wrote
        // consistent copies, so only later renames need carrying. After that, checkpoints rule.
        .start_from(StartFrom::Now)
        .handler(move |changes: Vec<serde_json::Value>| {
            let (containers, progress) = (containers.clone(), progress.clone());
            async move { cascade_renames::cascade_renames(&containers, &progress, changes).await }
        })
        .on_error(|f| tracing::warn!(error = ?f, "rename cascade failed; retrying"))
        .build()
}
