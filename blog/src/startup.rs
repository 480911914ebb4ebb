//! Starting the blog on an engine: containers, scripts, demo data, the change-feed workers, and
//! the routes to serve.

use std::sync::Arc;

use actix_web::web;
use engine::{ChangeFeedProcessor, ChangeFeedStart, ContainerClient, Engine};
use serde_json::Value;

use crate::containers::{Containers, DATABASE};
use crate::workers::{copy_posts, propagate_usernames};
use crate::{routes, scripts, seed};

pub const SITE: sitekit::Site = sitekit::Site {
    name: "Blog",
    tagline: "the blogging platform of the Cosmos DB partitioning article (V3 model)",
    cookie_name: "blog_session",
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

/// The workers, for the account page's "is my new name everywhere yet?".
pub struct Workers {
    pub copy_posts: Arc<ChangeFeedProcessor>,
    pub propagate_usernames: Arc<ChangeFeedProcessor>,
}

impl Workers {
    /// Changes not yet handled by either worker.
    pub async fn pending(&self) -> engine::Result<u64> {
        let mut n = 0;
        for p in [&self.copy_posts, &self.propagate_usernames] {
            n += p
                .estimate_lag()
                .await?
                .iter()
                .map(|l| l.pending)
                .sum::<u64>();
        }
        Ok(n)
    }
}

pub struct Blog {
    pub containers: Containers,
    pub workers: Arc<Workers>,
    pub users: u64,
    throttle: Arc<sitekit::auth::Throttle>,
}

impl Blog {
    pub async fn start(engine: &Engine, options: &BlogOptions) -> engine::Result<Blog> {
        let db = engine.create_database_if_not_exists(DATABASE).await?;
        let containers = Containers::create_if_not_exists(&db).await?;
        scripts::register(&containers)?;
        let users = seed::seed_if_needed(&containers, options.users).await?;
        let c = containers.clone();
        let copy = processor(
            &containers.posts,
            &containers.leases,
            copy_posts::PROCESSOR,
            move |changes| {
                let c = c.clone();
                async move { copy_posts::copy_posts(&c, changes).await }
            },
        )?;
        let c = containers.clone();
        let propagate = processor(
            &containers.users,
            &containers.leases,
            propagate_usernames::PROCESSOR,
            move |changes| {
                let c = c.clone();
                async move { propagate_usernames::propagate_usernames(&c, changes).await }
            },
        )?;
        copy.start().await?;
        propagate.start().await?;
        Ok(Blog {
            containers,
            workers: Arc::new(Workers {
                copy_posts: Arc::new(copy),
                propagate_usernames: Arc::new(propagate),
            }),
            users,
            throttle: Arc::new(sitekit::auth::Throttle::default()),
        })
    }

    pub fn configure(&self) -> impl Fn(&mut web::ServiceConfig) + Send + Clone + 'static {
        let containers = web::Data::new(self.containers.clone());
        let throttle = web::Data::from(self.throttle.clone());
        let workers = web::Data::from(self.workers.clone());
        move |cfg: &mut web::ServiceConfig| {
            cfg.app_data(containers.clone())
                .app_data(throttle.clone())
                .app_data(workers.clone())
                .configure(routes::configure);
        }
    }

    /// Stops the workers after their current batches are checkpointed.
    pub async fn stop(&self) {
        self.workers.copy_posts.stop().await;
        self.workers.propagate_usernames.stop().await;
    }
}

fn processor<F, Fut>(
    source: &ContainerClient,
    leases: &ContainerClient,
    name: &str,
    handler: F,
) -> engine::Result<ChangeFeedProcessor>
where
    F: Fn(Vec<Value>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = engine::Result<()>> + Send + 'static,
{
    source
        .change_feed_processor(name)
        .lease_container(leases.clone())
        // Applies when the leases are first created: the seed wrote consistent copies.
        .start_from(ChangeFeedStart::Now)
        .handler(handler)
        .on_error(|f| tracing::warn!(error = ?f, "blog worker failed; retrying"))
        .build()
}
