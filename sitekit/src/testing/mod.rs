//! Test helpers for the apps: a real server on a free loopback port over a real engine in a
//! temporary directory, and a client that keeps cookies like a browser and reads CSRF tokens out
//! of forms like a person would fill them.

pub mod account;
pub mod browser;
pub mod crash;

use std::net::SocketAddr;

use actix_web::dev::ServerHandle;
use reqwest::header::HeaderMap;

/// Retries `check` every 50 ms for up to 15 s: for what the change-feed workers do after a
/// request has answered.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..300 {
        if check().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

/// A spawned site; the server stops when this is dropped.
pub struct TestApp {
    pub addr: SocketAddr,
    pub handle: ServerHandle,
}

impl TestApp {
    /// Serves a site on a free loopback port with a fresh session key, on the current runtime.
    pub fn serve<F>(site: crate::Site, configure: F, workers: usize) -> TestApp
    where
        F: Fn(&mut actix_web::web::ServiceConfig) + Send + Clone + 'static,
    {
        let mut options =
            crate::http::server::ServeOptions::new(site, actix_web::cookie::Key::generate());
        options.workers = Some(workers);
        // The apps' tests sign many users up from one address; the limit has its own test.
        options.signups_per_minute = 100_000;
        options.expensive_per_minute = 100_000;
        options.writes_per_minute = 100_000;
        TestApp::serve_with(options, configure)
    }

    /// As [`serve`](Self::serve), with the given options (limits, proxy).
    pub fn serve_with<F>(options: crate::http::server::ServeOptions, configure: F) -> TestApp
    where
        F: Fn(&mut actix_web::web::ServiceConfig) + Send + Clone + 'static,
    {
        let addr = "127.0.0.1:0".parse().expect("a loopback address");
        let (server, addr) =
            crate::http::server::serve(addr, options, configure).expect("the server binds");
        TestApp::spawn(server, addr)
    }

    /// Runs `server` (from [`crate::http::server::serve`]) on the current runtime.
    pub fn spawn(server: actix_web::dev::Server, addr: SocketAddr) -> TestApp {
        let handle = server.handle();
        tokio::spawn(server);
        TestApp { addr, handle }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// A new visitor: its own cookie jar, redirects not followed (tests look at them).
    pub fn visitor(&self) -> Visitor {
        Visitor::new(format!("http://{}", self.addr), None)
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        let handle = self.handle.clone();
        // Dropping without waiting: the runtime ends with the test.
        drop(handle.stop(false));
    }
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    /// `x-ms-request-charge` as a number.
    pub fn request_charge(&self) -> f64 {
        self.headers
            .get(crate::data::ru::REQUEST_CHARGE_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no request charge header: {:?}", self.headers))
    }

    pub fn location(&self) -> &str {
        self.headers
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The value of the first `<input name="csrf_token">` in the page.
    pub fn csrf_token(&self) -> String {
        input_value(&self.body, "csrf_token")
            .unwrap_or_else(|| panic!("no csrf_token in the page:\n{}", self.body))
    }

    /// Rows of the footer's engine-call table: (operation, container, routing, RU).
    pub fn engine_calls(&self) -> Vec<(String, String, String, f64)> {
        Self::rows(&self.body, "<table class=\"ru\">")
    }

    /// The routings of the page's own engine calls: the session check every signed-in page
    /// makes first (`read account (session)`, a point read; see
    /// [`session_checks`](Self::session_checks)) is left out, and so is a remote processor's
    /// lag estimate (free embedded, where the engine knows it in memory).
    pub fn routings(&self) -> Vec<String> {
        self.engine_calls()
            .into_iter()
            .filter(|c| {
                c.0 != crate::accounts::sessions::SESSION_READ && c.0 != cosmos::LAG_ESTIMATE
            })
            .map(|c| c.2)
            .collect()
    }

    /// How many session checks the footer lists (1 on a signed-in page, else 0).
    pub fn session_checks(&self) -> usize {
        self.engine_calls()
            .into_iter()
            .filter(|c| c.0 == crate::accounts::sessions::SESSION_READ)
            .count()
    }

    /// The rows of the footer's "your last action" table (what the form post that redirected
    /// here cost).
    pub fn last_action_calls(&self) -> Vec<(String, String, String, f64)> {
        Self::rows(&self.body, "<table class=\"ru last\">")
    }

    /// The query texts the footer shows under its rows' operations, unescaped, in order.
    pub fn queries(&self) -> Vec<String> {
        self.body
            .match_indices(SQL_OPENING)
            .map(|(at, _)| {
                let text = &self.body[at + SQL_OPENING.len()..];
                unescape(&text[..text.find("</code>").unwrap_or(text.len())])
            })
            .collect()
    }

    /// The rows of every table opening with `opening` (the footer folds long lists into a
    /// second table).
    fn rows(body: &str, opening: &str) -> Vec<(String, String, String, f64)> {
        body.match_indices(opening)
            .flat_map(|(start, _)| {
                let table = &body[start..];
                let table = &table[..table.find("</table>").unwrap_or(table.len())];
                table
                    .split("<tr>")
                    .skip(1)
                    .filter(|row| row.contains("<td"))
                    .map(|row| {
                        let cells: Vec<String> = row
                            .split("<td")
                            .skip(1)
                            .map(|c| {
                                let c = &c[c.find('>').map(|i| i + 1).unwrap_or(0)..];
                                // The operation without the query text under it (`queries`).
                                strip_tags(c.split(SQL_OPENING).next().unwrap_or_default())
                            })
                            .collect();
                        (
                            cells[0].clone(),
                            cells[1].clone(),
                            // The routing, without the note some rows carry.
                            cells[2].split(" (").next().unwrap_or_default().to_owned(),
                            cells[4].parse().unwrap_or(f64::NAN),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// Where the footer's query text starts, under a row's operation (templates/layout.html).
const SQL_OPENING: &str = "<div class=\"ru-sql\"><code>";

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in s.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out.trim().to_owned()
}

/// The `value` of the first input named `name` (attributes in the order the templates write).
pub fn input_value(html: &str, name: &str) -> Option<String> {
    let at = html.find(&format!("name=\"{name}\""))?;
    let tag_start = html[..at].rfind('<')?;
    let tag_end = at + html[at..].find('>')?;
    let tag = &html[tag_start..tag_end];
    let v = tag.find("value=\"")? + 7;
    let end = tag[v..].find('"')?;
    Some(unescape(&tag[v..v + end]))
}

/// Text as askama writes it into HTML (`&#60;` for `<` and so on), to look for it in a page.
pub fn escape(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// The inverse of [`escape`].
pub fn unescape(html: &str) -> String {
    html.replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#38;", "&")
}

/// One browser's worth of requests.
#[derive(Clone)]
pub struct Visitor {
    pub base: String,
    pub client: reqwest::Client,
    jar: std::sync::Arc<reqwest::cookie::Jar>,
}

impl Visitor {
    /// A browser at `base`, with the cookies of a `Cookie` header if given.
    pub fn new(base: String, cookies: Option<&str>) -> Visitor {
        Visitor::with_headers(base, cookies, HeaderMap::new())
    }

    /// As [`new`](Self::new), sending `headers` with every request (e.g. a bearer token).
    pub fn with_headers(base: String, cookies: Option<&str>, headers: HeaderMap) -> Visitor {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        if let Some(header) = cookies {
            let url = base.parse().expect("a base URL");
            for pair in header.split("; ") {
                jar.add_cookie_str(pair, &url);
            }
        }
        Visitor {
            client: reqwest::Client::builder()
                .cookie_provider(jar.clone())
                .default_headers(headers)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a client builds"),
            base,
            jar,
        }
    }

    /// The `Cookie` header this browser sends now (to replay it later, as an attacker who
    /// copied it would).
    pub fn cookies(&self) -> String {
        use reqwest::cookie::CookieStore;
        let url = self.base.parse().expect("a base URL");
        self.jar
            .cookies(&url)
            .and_then(|v| v.to_str().ok().map(str::to_owned))
            .unwrap_or_default()
    }

    /// Another browser holding a copy of these cookies.
    pub fn replay(&self, cookies: &str) -> Visitor {
        Visitor::new(self.base.clone(), Some(cookies))
    }

    pub async fn get(&self, path: &str) -> Reply {
        let r = self
            .client
            .get(format!("{}{}", self.base, path))
            .send()
            .await
            .expect("GET reaches the server");
        read(r).await
    }

    /// Posts a form as browsers do, without adding a CSRF token (tests add it, or leave it out).
    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> Reply {
        let r = self
            .client
            .post(format!("{}{}", self.base, path))
            .form(form)
            .send()
            .await
            .expect("POST reaches the server");
        read(r).await
    }

    /// Opens `form_page`, takes its CSRF token and posts `form` to `action` with it.
    pub async fn submit(&self, form_page: &str, action: &str, form: &[(&str, &str)]) -> Reply {
        let token = self.get(form_page).await.csrf_token();
        let mut fields = form.to_vec();
        fields.push(("csrf_token", &token));
        self.post(action, &fields).await
    }
}

async fn read(r: reqwest::Response) -> Reply {
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let body = r.text().await.expect("a body");
    Reply {
        status,
        headers,
        body,
    }
}
