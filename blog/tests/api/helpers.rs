//! Shared by the `api` (embedded) and `api_remote` (gateway) binaries: each uses some helpers only.
#![allow(dead_code)]

use blog::{Blog, BlogOptions};
use engine::{Engine, EngineOptions};
use sitekit::testing::account::TestAccount;
pub use sitekit::testing::eventually;
use sitekit::testing::{Reply, TestApp as Server, Visitor};

/// Users seeded for a test app: a full feed (more than 100 posts), quick to seed.
pub const USERS: u64 = 8;

pub struct TestApp {
    pub server: Server,
    pub blog: Blog,
    /// The engine holding the data (behind the gateway in the remote suite).
    pub engine: Engine,
    /// Last: the account (the gateway and the files) outlives the app.
    pub backend: TestAccount,
}

impl TestApp {
    pub fn visitor(&self) -> Visitor {
        self.server.visitor()
    }

    pub async fn signed_in(&self, username: &str, password: &str) -> Visitor {
        self.signed_in_at("", username, password).await
    }

    /// Signs in to the model mounted at `base` ("" for the site, "/v1", "/v2").
    pub async fn signed_in_at(&self, base: &str, username: &str, password: &str) -> Visitor {
        let v = self.visitor();
        let r = v
            .submit(
                &format!("{base}/signin"),
                &format!("{base}/signin"),
                &[("username", username), ("password", password)],
            )
            .await;
        assert_eq!(r.status, 303, "sign-in failed: {}", r.body);
        v
    }

    pub async fn demo(&self) -> Visitor {
        self.signed_in(blog::seed::DEMO_USERNAME, blog::seed::DEMO_PASSWORD)
            .await
    }

    /// Signs up `username` and returns the visitor, signed in, with their user id.
    pub async fn new_user(&self, username: &str) -> (Visitor, String) {
        let v = self.visitor();
        let r = v
            .submit(
                "/signup",
                "/signup",
                &[("username", username), ("password", "a long password")],
            )
            .await;
        assert_eq!(r.status, 303, "sign-up failed: {}", r.body);
        let page = v.get("/account").await;
        let at = page
            .body
            .find("href=\"/users/")
            .expect("a link to the user's page")
            + "href=\"/users/".len();
        let id = page.body[at..at + page.body[at..].find('"').unwrap()].to_owned();
        (v, id)
    }

    /// Publishes a post as `v` and returns its id.
    pub async fn publish(&self, v: &Visitor, title: &str, content: &str) -> String {
        let r = v
            .submit(
                "/posts/new",
                "/posts/new",
                &[("title", title), ("content", content)],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        r.location().trim_start_matches("/posts/").to_owned()
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_on(TestAccount::new(crate::REMOTE).await).await
}

/// A test app on an embedded engine opened with `options` (e.g. no retries on 429).
pub async fn spawn_app_with(options: EngineOptions) -> TestApp {
    spawn_app_on(TestAccount::embedded(options)).await
}

/// A test app on the suite's backend, served with `tune`d server options (its limits).
pub async fn spawn_app_tuned(
    tune: impl FnOnce(&mut sitekit::http::server::ServeOptions),
) -> TestApp {
    let mut app = spawn_app().await;
    let mut options =
        sitekit::http::server::ServeOptions::new(blog::SITE, actix_web::cookie::Key::generate());
    options.workers = Some(1);
    tune(&mut options);
    app.server = Server::serve_with(options, app.blog.configure());
    app
}

async fn spawn_app_on(backend: TestAccount) -> TestApp {
    let blog = Blog::start(&backend.account, &BlogOptions { users: USERS })
        .await
        .expect("the blog starts");
    let server = Server::serve(blog::SITE, blog.configure(), 1);
    TestApp {
        server,
        blog,
        engine: backend.engine.clone(),
        backend,
    }
}

/// The routing column of the page's own footer rows (see `Reply::routings`).
pub fn routings(r: &Reply) -> Vec<String> {
    r.routings()
}

/// Session checks in the footer (see `Reply::session_checks`).
pub fn session_checks(r: &Reply) -> usize {
    r.session_checks()
}
