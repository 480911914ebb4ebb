//! A real browser for the apps' end-to-end tests: Debian's Chromium driven over WebDriver by
//! chromedriver, started on a free loopback port for each test and killed when it ends.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

pub type BrowserError = Box<dyn std::error::Error + Send + Sync>;

/// Flags Chromium needs here: root (no sandbox), small /dev/shm, and no network but loopback
/// (background requests to the outside would only fail, many at a time).
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

pub struct Browser {
    client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

fn find(env: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in candidates {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session. Without Chromium installed, a local
    /// run is skipped with a message (`Ok(None)`); under CI (`CI` set) it is an error, so CI can
    /// never pass by skipping.
    pub async fn start() -> Result<Option<Browser>, BrowserError> {
        let driver_bin = find("CHROMEDRIVER", &["chromedriver"]);
        let chrome_bin = find(
            "CHROME_BIN",
            &["chromium", "chromium-browser", "google-chrome"],
        );
        let (Some(driver_bin), Some(chrome_bin)) = (driver_bin, chrome_bin) else {
            let message = "chromium and chromedriver are not installed \
                           (apt-get install -y chromium chromium-driver)";
            if std::env::var_os("CI").is_some() {
                return Err(message.into());
            }
            eprintln!("skipping the browser test: {message}");
            return Ok(None);
        };
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let profile = tempfile::tempdir()?;
        let log = std::fs::File::create(profile.path().join("chromedriver.log"))?;
        let driver = Command::new(&driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::from(log.try_clone()?))
            .stderr(Stdio::from(log))
            .spawn()?;
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
        args.push(format!(
            "--user-data-dir={}",
            profile.path().join("chrome").display()
        ));
        let mut caps = Capabilities::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({"binary": chrome_bin, "args": args}),
        );
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let client = loop {
            match ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(c) => break c,
                Err(e) if started.elapsed() > Duration::from_secs(20) => {
                    let log = std::fs::read_to_string(profile.path().join("chromedriver.log"))
                        .unwrap_or_default();
                    return Err(format!("no WebDriver session: {e}\n{log}").into());
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        Ok(Some(Browser {
            client,
            driver,
            _profile: profile,
        }))
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        self.client.goto(url).await?;
        Ok(())
    }

    /// Fills the inputs of the form matched by `form_css` by name, submits it with its submit
    /// button and waits until the next page has loaded.
    pub async fn submit_form(
        &self,
        form_css: &str,
        fields: &[(&str, &str)],
    ) -> Result<(), BrowserError> {
        let form = self.client.form(Locator::Css(form_css)).await?;
        for (name, value) in fields {
            let input = self
                .client
                .find(Locator::Css(&format!("{form_css} [name='{name}']")))
                .await?;
            input.clear().await?;
            input.send_keys(value).await?;
        }
        // A marker on the old page's window: gone once the browser shows the next page.
        self.client
            .execute("window.__before_submit = true;", vec![])
            .await?;
        form.submit().await?;
        let started = Instant::now();
        loop {
            let done = self
                .client
                .execute(
                    "return window.__before_submit === undefined && document.readyState === 'complete';",
                    vec![],
                )
                .await
                .map(|v| v == json!(true))
                .unwrap_or(false);
            if done {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(15) {
                return Err(format!("submitting {form_css} did not load a new page").into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The page's visible text.
    pub async fn body_text(&self) -> Result<String, BrowserError> {
        Ok(self.client.find(Locator::Css("body")).await?.text().await?)
    }

    pub async fn current_url(&self) -> Result<String, BrowserError> {
        Ok(self.client.current_url().await?.to_string())
    }

    /// Saves a PNG of the page to `target/browser-screenshots/<name>.png`.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf, BrowserError> {
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, self.client.screenshot().await?)?;
        Ok(path)
    }

    pub async fn close(mut self) -> Result<(), BrowserError> {
        self.client.clone().close().await?;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        Ok(())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending chromedriver ends the browser it started.
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// `CARGO_TARGET_DIR`, or the `target/` beside the workspace's `Cargo.lock`.
fn screenshot_dir() -> PathBuf {
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t).join("browser-screenshots");
    }
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let mut dir: &Path = &start;
    loop {
        if dir.join("Cargo.lock").exists() {
            return dir.join("target").join("browser-screenshots");
        }
        match dir.parent() {
            Some(p) => dir = p,
            None => return start.join("target").join("browser-screenshots"),
        }
    }
}
