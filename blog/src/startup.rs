//! Starting the blog on an engine: the three models' containers, scripts, demo data, the
//! change-feed workers, and the routes to serve (V3 at `/`, V2 at `/v2`, V1 at `/v1`, the
//! comparison at `/models`).

use std::sync::Arc;

use actix_web::web;
use cosmos::{Account, ChangeFeedProcessor, Container, StartFrom};
use serde_json::Value;

use crate::access::{v1, v2};
use crate::comparison::Measurements;
use crate::containers::{Containers, DATABASE};
use crate::versions::{Version, Workers, V1, V2, V3};
use crate::workers::propagate_usernames::Target;
use crate::workers::{copy_posts, propagate_usernames};
use crate::{deploy, routes, seed};
use sitekit::background::propagation::Propagations;

pub const SITE: sitekit::Site = sitekit::Site {
    name: "Blog",
    tagline: "the blogging platform of the Cosmos DB partitioning article (V3 model)",
    cookie_name: "blog_session",
    base: "",
    patterns: true,
};

/// The same pages on the article's earlier models, for measuring (the site links to V3).
pub const SITE_V2: sitekit::Site = sitekit::Site {
    name: "Blog · V2 model",
    tagline: "V2: usernames and counts denormalized, Q3 and Q6 fan out (compare at /models)",
    cookie_name: "blog_session",
    base: "/v2",
    patterns: true,
};

pub const SITE_V1: sitekit::Site = sitekit::Site {
    name: "Blog · V1 model",
    tagline: "V1: nothing denormalized, extra queries for names and counts (compare at /models)",
    cookie_name: "blog_session",
    base: "/v1",
    patterns: true,
};

#[derive(Debug, Clone)]
pub struct BlogOptions {
    /// Users generated on first start.
    pub users: u64,
}

impl Default for BlogOptions {
    fn default() -> Self {
        BlogOptions { users: 1_000 }
    }
}

pub struct Blog {
    pub containers: Containers,
    pub v2: v2::Containers,
    pub v1: v1::Containers,
    pub workers: Arc<Workers>,
    pub workers_v2: Arc<Workers>,
    /// What each username change's propagation rewrote and spent, V3's and V2's (the account
    /// page shows them).
    pub propagations: Propagations,
    pub propagations_v2: Propagations,
    pub users: u64,
    measurements: Arc<Measurements>,
}

impl Blog {
    pub async fn start(account: &Account, options: &BlogOptions) -> cosmos::Result<Blog> {
        let containers = Containers::create_if_not_exists(
            &account.create_database_if_not_exists(DATABASE).await?,
        )
        .await?;
        let v2 = v2::Containers::create_if_not_exists(
            &account.create_database_if_not_exists(v2::DATABASE).await?,
        )
        .await?;
        let v1 = v1::Containers::create_if_not_exists(
            &account.create_database_if_not_exists(v1::DATABASE).await?,
        )
        .await?;
        deploy::register(&containers.posts, Some(&containers.feed)).await?;
        deploy::register(&v2.posts, None).await?;
        let models = seed::Models {
            v3: &containers,
            v2: &v2,
            v1: &v1,
        };
        let users =
            seed::seed_if_needed(&models, account.engine().map(|e| e.path()), options.users)
                .await?;
        // Users from before the look-alike claims get theirs (once per data directory).
        for users in [&containers.users, &v2.users, &v1.users] {
            crate::backfill::look_alike_claims(users).await?;
        }
        // Kept beside each model's leases too: the account page may be served by another
        // process, or after a restart.
        let propagations =
            Propagations::kept_in(containers.leases.clone(), propagate_usernames::PROCESSOR);
        let propagations_v2 =
            Propagations::kept_in(v2.leases.clone(), propagate_usernames::PROCESSOR);
        let (c, progress) = (containers.clone(), propagations.clone());
        let copy = processor(
            &containers.posts,
            &containers.leases,
            copy_posts::PROCESSOR,
            move |changes| {
                let (c, progress) = (c.clone(), progress.clone());
                async move { copy_posts::copy_posts(&c, &progress, changes).await }
            },
        )?;
        let workers = Workers::new().with(copy_posts::PROCESSOR, copy).with(
            propagate_usernames::PROCESSOR,
            propagation(
                &containers.users,
                &containers.posts,
                &containers.leases,
                &propagations,
            )?,
        );
        let workers_v2 = Workers::new().with(
            propagate_usernames::PROCESSOR,
            propagation(&v2.users, &v2.posts, &v2.leases, &propagations_v2)?,
        );
        workers.start().await?;
        workers_v2.start().await?;
        Ok(Blog {
            containers,
            v2,
            v1,
            workers: Arc::new(workers),
            workers_v2: Arc::new(workers_v2),
            propagations,
            propagations_v2,
            users,
            measurements: Arc::new(Measurements::default()),
        })
    }

    pub fn configure(&self) -> impl Fn(&mut web::ServiceConfig) + Send + Clone + 'static {
        let containers = web::Data::new(self.containers.clone());
        let v2 = web::Data::new(self.v2.clone());
        let v1 = web::Data::new(self.v1.clone());
        let measurements = web::Data::from(self.measurements.clone());
        let users = web::Data::new(seed::SeededUsers(self.users));
        let feed_cache = web::Data::new(crate::feed_cache::FeedCache::default());
        let workers = web::Data::from(self.workers.clone());
        let workers_v2 = web::Data::from(self.workers_v2.clone());
        let propagations = web::Data::new(self.propagations.clone());
        let propagations_v2 = web::Data::new(self.propagations_v2.clone());
        // Each model has its own users (and so its own sessions, in their documents).
        let accounts_v3 = accounts(&self.containers.users);
        let accounts_v2 = accounts(&self.v2.users);
        let accounts_v1 = accounts(&self.v1.users);
        move |cfg: &mut web::ServiceConfig| {
            cfg.app_data(containers.clone())
                .app_data(web::Data::new(routes::ERROR_PAGE))
                .app_data(v2.clone())
                .app_data(v1.clone())
                .app_data(measurements.clone())
                .app_data(users.clone())
                .app_data(feed_cache.clone())
                .route(
                    sitekit::http::assets::PATTERNS_PATH,
                    sitekit::http::assets::patterns_route(include_str!("../ACCESS_PATTERNS.md")),
                )
                .route("/models", web::get().to(routes::models::models))
                .route("/models.json", web::get().to(routes::models::models_json))
                .route("/models/measure", web::post().to(routes::models::measure))
                .service(model_scope::<V2>(
                    SITE_V2,
                    (workers_v2.clone(), propagations_v2.clone()),
                    accounts_v2.clone(),
                ))
                .service(model_scope::<V1>(
                    SITE_V1,
                    (
                        web::Data::new(Workers::new()),
                        web::Data::new(Propagations::new()),
                    ),
                    accounts_v1.clone(),
                ))
                .app_data(workers.clone())
                .app_data(propagations.clone())
                .app_data(accounts_v3.clone())
                .configure(routes::configure::<V3>);
        }
    }

    /// What the pages measured so far (the `/models` table).
    pub fn measurements(&self) -> &Measurements {
        &self.measurements
    }

    /// Stops the workers after their current batches are checkpointed.
    pub async fn stop(&self) {
        self.workers.stop().await;
        self.workers_v2.stop().await;
    }
}

/// Model `M`'s pages under its base path, with its own site name (and so its own sign-in).
fn model_scope<M: Version>(
    site: sitekit::Site,
    (workers, propagations): (web::Data<Workers>, web::Data<Propagations>),
    accounts: web::Data<sitekit::accounts::sessions::Accounts>,
) -> actix_web::Scope {
    web::scope(M::BASE)
        .app_data(web::Data::new(site))
        .app_data(workers)
        .app_data(propagations)
        .app_data(accounts)
        .configure(routes::configure::<M>)
}

/// A model's accounts: its users, whose documents hold their sessions.
fn accounts(users: &Container) -> web::Data<sitekit::accounts::sessions::Accounts> {
    web::Data::new(sitekit::accounts::sessions::Accounts {
        container: users.clone(),
        name_property: "username",
        admin_property: None,
    })
}

fn propagation(
    users: &Container,
    posts: &Container,
    leases: &Container,
    progress: &Propagations,
) -> cosmos::Result<ChangeFeedProcessor> {
    let target = Arc::new(Target {
        users: users.clone(),
        posts: posts.clone(),
        progress: progress.clone(),
    });
    processor(
        users,
        leases,
        propagate_usernames::PROCESSOR,
        move |changes| {
            let t = target.clone();
            async move { propagate_usernames::propagate_usernames(&t, changes).await }
        },
    )
}

fn processor<F, Fut>(
    source: &Container,
    leases: &Container,
    name: &str,
    handler: F,
) -> cosmos::Result<ChangeFeedProcessor>
where
    F: Fn(Vec<Value>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = cosmos::Result<()>> + Send + 'static,
{
    source
        .change_feed_processor(name)
        .lease_container(leases.clone())
        // Applies when the leases are first created: the seed wrote consistent copies.
        .start_from(StartFrom::Now)
        .handler(handler)
        .on_error(|f| tracing::warn!(error = ?f, "blog worker failed; retrying"))
        .build()
}
