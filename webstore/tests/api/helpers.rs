//! Shared by the `api` (embedded) and `api_remote` (gateway) binaries: each uses some helpers only.
#![allow(dead_code)]

use engine::Engine;
use sitekit::testing::account::TestAccount;
pub use sitekit::testing::eventually;
use sitekit::testing::{Reply, TestApp as Server, Visitor};
use webstore::seed::{ADMIN_EMAIL, ADMIN_PASSWORD, DEMO_EMAIL, DEMO_PASSWORD};
use webstore::{WebStore, WebStoreOptions};

/// Customers seeded for a test app: enough to page and sort, quick to seed.
pub const CUSTOMERS: u64 = 40;

pub struct TestApp {
    pub server: Server,
    pub store: WebStore,
    /// The engine holding the data (behind the gateway in the remote suite).
    pub engine: Engine,
    /// Last: the account (the gateway and the files) outlives the app.
    pub backend: TestAccount,
}

impl TestApp {
    pub fn visitor(&self) -> Visitor {
        self.server.visitor()
    }

    /// A visitor signed in with `email` / `password`.
    pub async fn signed_in(&self, email: &str, password: &str) -> Visitor {
        let v = self.visitor();
        let r = v
            .submit(
                "/signin",
                "/signin",
                &[("email", email), ("password", password)],
            )
            .await;
        assert_eq!(r.status, 303, "sign-in failed: {}", r.body);
        v
    }

    pub async fn demo(&self) -> Visitor {
        self.signed_in(DEMO_EMAIL, DEMO_PASSWORD).await
    }

    pub async fn admin(&self) -> Visitor {
        self.signed_in(ADMIN_EMAIL, ADMIN_PASSWORD).await
    }

    /// Signs up a new customer and returns the visitor, signed in.
    pub async fn new_customer(&self, email: &str) -> Visitor {
        let v = self.visitor();
        let r = v
            .submit(
                "/signup",
                "/signup",
                &[
                    ("first_name", "Test"),
                    ("last_name", "Customer"),
                    ("email", email),
                    ("password", "a long password"),
                ],
            )
            .await;
        assert_eq!(r.status, 303, "sign-up failed: {}", r.body);
        v
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_in(TestAccount::new(crate::REMOTE).await).await
}

/// A test app whose server options (limits, proxy) `tune` changes from the tests' defaults.
pub async fn spawn_app_with(
    tune: impl FnOnce(&mut sitekit::http::server::ServeOptions),
) -> TestApp {
    let mut app = spawn_app().await;
    let mut options = sitekit::http::server::ServeOptions::new(
        webstore::SITE,
        actix_web::cookie::Key::generate(),
    );
    options.workers = Some(1);
    tune(&mut options);
    app.server = Server::serve_with(options, app.store.configure());
    app
}

pub async fn spawn_app_in(backend: TestAccount) -> TestApp {
    let store = WebStore::start(
        &backend.account,
        &WebStoreOptions {
            customers: CUSTOMERS,
        },
    )
    .await
    .expect("WebStore starts");
    let server = Server::serve(webstore::SITE, store.configure(), 1);
    TestApp {
        server,
        store,
        engine: backend.engine.clone(),
        backend,
    }
}

/// The footer's engine calls must add up to the header's charge.
pub fn assert_charge_adds_up(r: &Reply) {
    let calls = r.engine_calls();
    let sum: f64 = calls.iter().map(|c| c.3).sum();
    assert!(
        (sum - r.request_charge()).abs() < 0.02 * calls.len().max(1) as f64,
        "footer {sum} vs header {}: {calls:?}",
        r.request_charge()
    );
}

/// The routing column of the page's own footer rows (see `Reply::routings`).
pub fn routings(r: &Reply) -> Vec<String> {
    r.routings()
}

/// Session checks in the footer (see `Reply::session_checks`).
pub fn session_checks(r: &Reply) -> usize {
    r.session_checks()
}
