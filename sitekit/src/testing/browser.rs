//! A real browser for the apps' end-to-end tests: Debian's Chromium driven over WebDriver by
//! chromedriver, one of each per test on a free loopback port.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

pub type BrowserError = Box<dyn std::error::Error + Send + Sync>;

/// Flags Chromium needs here: root (no sandbox), a small /dev/shm, and no network but loopback
/// (background requests to the outside only fail, many at a time, and slow everything down).
const CHROMIUM_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1600",
];

/// How long chromedriver may take to answer `/status`.
const DRIVER_READY: Duration = Duration::from_secs(15);
/// How long Chromium may take to open a session; far more than it needs, but never forever.
const SESSION_READY: Duration = Duration::from_secs(60);
/// How long a submitted form may take to load the next page.
const NAVIGATION: Duration = Duration::from_secs(15);

/// A headless Chromium session. Dropping it (a failed test) ends the session and chromedriver
/// too; [`Browser::close`] does the same and reports errors.
pub struct Browser {
    client: Client,
    driver: Driver,
    // Last, so it is removed only after Chromium has stopped writing into it.
    profile: tempfile::TempDir,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session. Without Chromium installed, a local
    /// run is skipped with a message on stderr (`Ok(None)`); under CI (`CI` set) it is an error,
    /// so CI can never pass by skipping.
    pub async fn start() -> Result<Option<Browser>, BrowserError> {
        let binaries = (
            locate("CHROMEDRIVER", &["chromedriver"], "/usr/bin/chromedriver")?,
            locate(
                "CHROME_BIN",
                &["chromium", "chromium-browser"],
                "/usr/bin/chromium",
            )?,
        );
        let (Some(driver_bin), Some(chrome_bin)) = binaries else {
            let message = "chromium and chromedriver are not installed \
                           (apt-get install -y chromium chromium-driver)";
            if in_ci() {
                return Err(format!("{message}, and CI must not skip the browser tests").into());
            }
            eprintln!("skipping the browser test: {message}");
            return Ok(None);
        };

        let profile = tempfile::Builder::new().prefix("browser-").tempdir()?;
        let driver = Driver::start(&driver_bin, &profile.path().join("chromedriver.log")).await?;

        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
        args.push(format!(
            "--user-data-dir={}",
            profile.path().join("chromium").display()
        ));
        let mut caps = Capabilities::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({ "binary": chrome_bin, "args": args }),
        );
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(caps);
        let url = format!("http://{}", driver.addr);
        let client = match tokio::time::timeout(SESSION_READY, builder.connect(&url)).await {
            Ok(Ok(client)) => client,
            Ok(Err(e)) => return Err(driver.failure(&format!("Chromium did not start: {e}"))),
            Err(_) => return Err(driver.failure("Chromium did not start in time")),
        };
        let mut browser = Browser {
            client,
            driver,
            profile,
        };
        // Remembered so that Drop, which cannot await, can still end the session.
        browser.driver.session = browser.client.session_id().await?;
        Ok(Some(browser))
    }

    /// For whatever the helpers below do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        self.client
            .goto(url)
            .await
            .map_err(|e| format!("going to {url}: {e}"))?;
        Ok(())
    }

    /// Fills the form that is, or contains, the element matched by `form_css` (inputs by name),
    /// clicks its submit button as a person would, and returns once the next page has loaded.
    pub async fn submit_form(
        &self,
        form_css: &str,
        fields: &[(&str, &str)],
    ) -> Result<(), BrowserError> {
        let target = self
            .client
            .find(Locator::Css(form_css))
            .await
            .map_err(|e| format!("no element matches {form_css:?}: {e}"))?;
        let form = if target.tag_name().await?.eq_ignore_ascii_case("form") {
            target
        } else {
            target
                .find(Locator::XPath("ancestor::form[1]"))
                .await
                .map_err(|e| format!("{form_css:?} is not in a form: {e}"))?
        };
        for (name, value) in fields {
            self.fill(&form, name, value)
                .await
                .map_err(|e| format!("filling {name:?} in {form_css:?}: {e}"))?;
        }
        let button = form
            .find(Locator::Css(
                "button[type=submit], input[type=submit], button:not([type])",
            ))
            .await
            .map_err(|e| format!("{form_css:?} has no submit button: {e}"))?;

        self.click_and_wait(&button, form_css).await
    }

    /// Clicks the link (or button) matched by `css` as a person would and returns once the
    /// next page has loaded.
    pub async fn click_link(&self, css: &str) -> Result<(), BrowserError> {
        let link = self
            .client
            .find(Locator::Css(css))
            .await
            .map_err(|e| format!("no element matches {css:?}: {e}"))?;
        self.click_and_wait(&link, css).await
    }

    async fn click_and_wait(&self, target: &Element, what: &str) -> Result<(), BrowserError> {
        // A mark on the current page's window: once it is gone, the browser shows another page,
        // even when that page has the same URL (a form shown again with its errors).
        self.client
            .execute("window.__before_submit = true; return null;", vec![])
            .await?;
        target
            .click()
            .await
            .map_err(|e| format!("clicking {what:?}: {e}"))?;
        let started = Instant::now();
        loop {
            // Errors are expected while the old page goes away.
            let loaded = self
                .client
                .execute(
                    "return window.__before_submit === undefined \
                     && document.readyState === 'complete';",
                    vec![],
                )
                .await;
            match loaded {
                Ok(serde_json::Value::Bool(true)) => return Ok(()),
                _ if started.elapsed() > NAVIGATION => {
                    let url = self.current_url().await.unwrap_or_default();
                    return Err(format!(
                        "clicking {what:?} did not load a new page within {NAVIGATION:?} \
                         (still at {url}; last check: {loaded:?})"
                    )
                    .into());
                }
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    /// Sets one field the way a person would: typing, choosing, ticking. Hidden inputs have no
    /// way in for a person, so a script sets them (tests tampering with a form).
    async fn fill(&self, form: &Element, name: &str, value: &str) -> Result<(), BrowserError> {
        let by_name = format!("[name=\"{}\"]", css_string(name));
        let field = form.find(Locator::Css(&by_name)).await?;
        let tag = field.tag_name().await?.to_ascii_lowercase();
        let kind = field.attr("type").await?.unwrap_or_default();
        match (tag.as_str(), kind.to_ascii_lowercase().as_str()) {
            ("select", _) => field.select_by_value(value).await?,
            ("input", "radio") => {
                let choice = format!("{by_name}[value=\"{}\"]", css_string(value));
                form.find(Locator::Css(&choice)).await?.click().await?;
            }
            ("input", "checkbox") => {
                let on = matches!(value, "on" | "true" | "1")
                    || field.attr("value").await?.as_deref() == Some(value);
                if field.is_selected().await? != on {
                    field.click().await?;
                }
            }
            ("input", "hidden") => {
                self.client
                    .execute(
                        "arguments[0].value = arguments[1]; return null;",
                        vec![serde_json::to_value(&field)?, json!(value)],
                    )
                    .await?;
            }
            _ => {
                field.clear().await?;
                field.send_keys(value).await?;
            }
        }
        Ok(())
    }

    /// Emulates a screen of `width` × `height` CSS pixels (a phone is 390 × 844) through the
    /// DevTools protocol: a window cannot be made narrower than 500 px. It holds for the rest of
    /// the session, across navigations.
    pub async fn set_viewport(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        let session = self.driver.session.clone().ok_or("no session")?;
        let body = json!({
            "cmd": "Emulation.setDeviceMetricsOverride",
            "params": { "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false },
        })
        .to_string();
        let addr = self.driver.addr;
        let path = format!("/session/{session}/goog/cdp/execute");
        let answer = tokio::task::spawn_blocking(move || {
            http_with_body(addr, "POST", &path, &body, Duration::from_secs(10))
        })
        .await??;
        let got = self
            .client
            .execute("return window.innerWidth;", vec![])
            .await?;
        if got.as_u64() != Some(u64::from(width)) {
            return Err(format!("the viewport is {got} px wide, not {width} ({answer})").into());
        }
        Ok(())
    }

    /// Elements under `css` that stick out of the viewport sideways, described (tag, class,
    /// bounds, text), and the page's own horizontal overflow. An element inside a box that
    /// scrolls or clips sideways and fits the viewport does not count: it scrolls there.
    pub async fn overflowing(&self, css: &str) -> Result<Vec<String>, BrowserError> {
        const SCRIPT: &str = r#"
            const vw = document.documentElement.clientWidth;
            const fits = r => r.left >= -0.5 && r.right <= vw + 0.5;
            const bad = [];
            const page = document.documentElement.scrollWidth;
            if (page > vw) bad.push(`the page scrolls sideways: ${page} px in a ${vw} px viewport`);
            for (const root of document.querySelectorAll(arguments[0])) {
              for (const el of [root, ...root.querySelectorAll('*')]) {
                const r = el.getBoundingClientRect();
                if ((r.width === 0 && r.height === 0) || fits(r)) continue;
                let box = el.parentElement, scrolls = false;
                for (; box && box !== document.body; box = box.parentElement) {
                  const o = getComputedStyle(box).overflowX;
                  // An <svg> clips its own drawing; what matters is a box around it that fits.
                  if ((o === 'auto' || o === 'scroll' || o === 'hidden')
                      && fits(box.getBoundingClientRect())) {
                    scrolls = true;
                    break;
                  }
                }
                if (!scrolls) bad.push(`${el.tagName.toLowerCase()}.${el.getAttribute('class') || ''} `
                  + `${Math.round(r.left)}..${Math.round(r.right)} of ${vw}: `
                  + (el.textContent || '').trim().slice(0, 60));
              }
            }
            return bad.slice(0, 20);
        "#;
        let found = self.client.execute(SCRIPT, vec![json!(css)]).await?;
        Ok(serde_json::from_value(found)?)
    }

    /// Whether the first element matching `css` is shown, whole, in the window as the page
    /// opens (no scrolling).
    pub async fn in_first_viewport(&self, css: &str) -> Result<bool, BrowserError> {
        let script = "window.scrollTo(0, 0); \
            const el = document.querySelector(arguments[0]); \
            if (!el) return false; \
            const r = el.getBoundingClientRect(); \
            return r.width > 0 && r.top >= 0 && r.left >= 0 \
              && r.bottom <= window.innerHeight && r.right <= window.innerWidth;";
        let shown = self.client.execute(script, vec![json!(css)]).await?;
        Ok(shown == serde_json::Value::Bool(true))
    }

    /// The text of the first element matching `css`.
    pub async fn text_of(&self, css: &str) -> Result<String, BrowserError> {
        let el = self
            .client
            .find(Locator::Css(css))
            .await
            .map_err(|e| format!("no element matches {css:?}: {e}"))?;
        Ok(el.text().await?)
    }

    /// The page's text as shown (`innerText` of the body).
    pub async fn body_text(&self) -> Result<String, BrowserError> {
        Ok(self.client.find(Locator::Css("body")).await?.text().await?)
    }

    pub async fn current_url(&self) -> Result<String, BrowserError> {
        Ok(self.client.current_url().await?.to_string())
    }

    /// Saves a PNG of the window to `<target>/browser-screenshots/<name>.png`, where CI keeps
    /// it as an artifact, and returns its path.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf, BrowserError> {
        let png = self.client.screenshot().await?;
        let dir = target_dir().join("browser-screenshots");
        std::fs::create_dir_all(&dir)?;
        let file: String = name
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
                _ => '_',
            })
            .collect();
        let path = dir.join(format!("{file}.png"));
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// Ends the session (Chromium quits) and chromedriver, reporting what went wrong.
    pub async fn close(self) -> Result<(), BrowserError> {
        let Browser {
            client,
            mut driver,
            profile,
        } = self;
        let closed = client.close().await;
        if closed.is_ok() {
            driver.session = None;
        }
        // Dropping the driver kills it; on a failed close it first retries ending the session.
        drop(driver);
        drop(profile);
        closed.map_err(Into::into)
    }
}

/// What a browser test's steps return: `?` on any browser call, `assert!` for the checks.
pub type Steps = Result<(), BrowserError>;

/// The setup every site's browser test shares: a started browser and a fresh embedded engine
/// (its directory removed when the test ends) to start the site on, and the ending: a
/// screenshot when a step failed, then the browser closed.
pub struct BrowserTest {
    pub browser: Browser,
    /// The fresh engine's account, to start the site on (`WebStore::start(&t.account, ..)`).
    pub account: cosmos::Account,
    pub engine: engine::Engine,
    _dir: tempfile::TempDir,
}

impl BrowserTest {
    /// The browser and a fresh engine; `None` (the test skips, having said why) when Chromium
    /// cannot be started here. CI installs it, so there the test runs.
    pub async fn start() -> Option<BrowserTest> {
        let browser = Browser::start().await.expect("the browser starts")?;
        let dir = tempfile::tempdir().expect("a temp dir");
        let engine = engine::Engine::open(dir.path(), engine::EngineOptions::default())
            .expect("the engine opens");
        Some(BrowserTest {
            browser,
            account: cosmos::Account::embedded(engine.clone()),
            engine,
            _dir: dir,
        })
    }

    /// Ends the test with the steps' result: on an error a screenshot named `failure` (in
    /// `target/browser-screenshots/`) and a panic; the browser is closed either way.
    pub async fn finish(self, failure: &str, result: Steps) {
        if let Err(e) = &result {
            let _ = self.browser.screenshot(failure).await;
            panic!("browser test failed: {e} (see {failure}.png)");
        }
        self.browser.close().await.expect("the browser closes");
    }
}

/// The chromedriver process. Its Drop ends the session before killing chromedriver, because
/// Chromium outlives a killed chromedriver: it would keep running, hold on to the profile
/// directory and pile up with every failed test.
struct Driver {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
    session: Option<String>,
}

impl Driver {
    /// Starts chromedriver on a free port and waits until it is ready for a session. Another
    /// process may take the port between our probe and chromedriver's bind, so that is retried.
    async fn start(bin: &Path, log: &Path) -> Result<Driver, BrowserError> {
        let mut last = String::new();
        for _ in 0..3 {
            let addr = TcpListener::bind("127.0.0.1:0")?.local_addr()?;
            let out = std::fs::File::create(log)?;
            let child = Command::new(bin)
                .arg(format!("--port={}", addr.port()))
                .stdin(Stdio::null())
                .stdout(out.try_clone()?)
                .stderr(out)
                .spawn()
                .map_err(|e| format!("starting {}: {e}", bin.display()))?;
            let mut driver = Driver {
                child,
                addr,
                log: log.to_path_buf(),
                session: None,
            };
            let started = Instant::now();
            loop {
                if let Some(status) = driver.child.try_wait()? {
                    last = format!("chromedriver exited ({status})");
                    break;
                }
                let ready = http(addr, "GET", "/status", Duration::from_secs(2))
                    .map(|body| {
                        body.replace(char::is_whitespace, "")
                            .contains("\"ready\":true")
                    })
                    .unwrap_or(false);
                if ready {
                    return Ok(driver);
                }
                if started.elapsed() > DRIVER_READY {
                    return Err(driver.failure("chromedriver was not ready in time"));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let log = std::fs::read_to_string(log).unwrap_or_default();
        Err(format!("{last}\n--- chromedriver log ---\n{log}").into())
    }

    /// An error carrying the end of chromedriver's log, which says why Chromium failed.
    fn failure(&self, what: &str) -> BrowserError {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        format!("{what}\n--- end of chromedriver log ---\n{tail}").into()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            let _ = http(
                self.addr,
                "DELETE",
                &format!("/session/{session}"),
                Duration::from_secs(10),
            );
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A blocking HTTP/1.1 request to chromedriver, for the two places that cannot use the async
/// client: before a session exists, and in Drop. Returns the body.
fn http(addr: SocketAddr, method: &str, path: &str, timeout: Duration) -> std::io::Result<String> {
    http_with_body(addr, method, path, "", timeout)
}

/// [`http`] with a JSON body.
fn http_with_body(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    timeout: Duration,
) -> std::io::Result<String> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        response.extend_from_slice(&chunk[..n]);
        // Stop at the declared length rather than wait for the server to hang up.
        if let Some(end) = response.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&response[..end]);
            let length = head.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                k.trim()
                    .eq_ignore_ascii_case("content-length")
                    .then_some(v.trim())
            });
            if let Some(Ok(length)) = length.map(str::parse::<usize>) {
                if response.len() >= end + 4 + length {
                    break;
                }
            }
        }
    }
    let text = String::from_utf8_lossy(&response);
    Ok(text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default())
}

/// The binary named by `env`, else the first of `names` on PATH, else `fallback` if present.
/// A set but wrong `env` is an error: someone meant that binary.
fn locate(env: &str, names: &[&str], fallback: &str) -> Result<Option<PathBuf>, BrowserError> {
    if let Some(p) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(Some(p));
        }
        return Err(format!("{env}={} is not a file", p.display()).into());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = names
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .chain(std::iter::once(PathBuf::from(fallback)))
        .find(|p| p.is_file());
    Ok(found)
}

fn in_ci() -> bool {
    std::env::var("CI")
        .map(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
        .unwrap_or(false)
}

/// Escapes a value for a double-quoted CSS attribute selector.
fn css_string(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `CARGO_TARGET_DIR` (relative to the workspace, as cargo is usually run there), else the
/// `target/` beside the workspace's `Cargo.lock` found above the crate being tested.
fn target_dir() -> PathBuf {
    let crate_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let workspace = crate_dir
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(&crate_dir)
        .to_path_buf();
    match std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty()) {
        Some(t) => workspace.join(t),
        None => workspace.join("target"),
    }
}
