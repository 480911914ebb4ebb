//! One site's HTTP server: the shared middleware (RU header, request metrics, session, security
//! headers, logging), error handling for malformed requests and the app's own routes.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use actix_web::cookie::Key;
use actix_web::dev::Server;
use actix_web::middleware::{
    from_fn, Compress, DefaultHeaders, Logger, NormalizePath, TrailingSlash,
};
use actix_web::{web, App, HttpServer};

use crate::accounts::cookie;
use crate::accounts::throttle::{
    ExpensiveLimit, RateLimit, SignInPolicy, SignInThrottle, SignUpLimit, WindowLimit, WriteLimit,
};
use crate::data::ru;
use crate::http::limits::{InFlight, Limits};
use crate::http::proxy::TrustedProxy;
use crate::http::{assets, gate, telemetry};
use crate::pages::layout::Site;
use crate::WebError;

/// How to serve a site.
#[derive(Clone)]
pub struct ServeOptions {
    pub site: Site,
    pub session_key: Key,
    /// HTTPS-only cookies: turn on behind TLS.
    pub secure_cookies: bool,
    /// Worker threads (default: one per core).
    pub workers: Option<usize>,
    /// Who may hold on how long (body deadline, requests in flight per address).
    pub limits: Limits,
    /// Sign-ups per minute per client address (also the burst).
    pub signups_per_minute: u32,
    /// Requests per minute to pages that cost hundreds of RU, per signed-in account and per
    /// anonymous visitor's address.
    pub expensive_per_minute: u32,
    /// Posts, edits and comments per minute per signed-in account (a burst of up to 10).
    pub writes_per_minute: u32,
    /// The reverse proxy whose `X-Forwarded-*` headers are believed (none: believe none).
    pub trusted_proxy: Option<IpAddr>,
    /// Free sign-in failures and the waits after them.
    pub sign_in: SignInPolicy,
}

impl ServeOptions {
    /// The defaults: 10 sign-ups per minute per address, 30 expensive pages per minute per
    /// account or address, 20 writes per minute per account, a 10 s body
    /// deadline, 256 requests in flight per address, no trusted proxy.
    pub fn new(site: Site, session_key: Key) -> ServeOptions {
        ServeOptions {
            site,
            session_key,
            secure_cookies: false,
            workers: None,
            limits: Limits::default(),
            signups_per_minute: 10,
            expensive_per_minute: 30,
            writes_per_minute: 20,
            trusted_proxy: None,
            sign_in: SignInPolicy::default(),
        }
    }
}

/// Binds `addr` and returns the running server (await it, or stop it through its handle) with
/// the address it got (port 0 picks a free one).
pub fn serve<F>(
    addr: SocketAddr,
    options: ServeOptions,
    configure: F,
) -> std::io::Result<(Server, SocketAddr)>
where
    F: Fn(&mut web::ServiceConfig) + Send + Clone + 'static,
{
    let opts = options.clone();
    // Shared by every worker: one count per address, whichever worker serves it.
    let in_flight = web::Data::new(Arc::new(InFlight::default()));
    let limits = web::Data::new(options.limits.clone());
    let throttle = web::Data::new(SignInThrottle::with_policy(&options.sign_in));
    let signups = web::Data::new(SignUpLimit(RateLimit::per_minute(
        options.signups_per_minute,
        options.signups_per_minute,
    )));
    let expensive = web::Data::new(ExpensiveLimit(WindowLimit::per_minute(
        options.expensive_per_minute,
    )));
    let writes = web::Data::new(WriteLimit(RateLimit::per_minute(
        options.writes_per_minute,
        options.writes_per_minute.min(10),
    )));
    let proxy = web::Data::new(TrustedProxy(options.trusted_proxy));
    let device_key = web::Data::new(crate::accounts::device::DeviceKey {
        key: options.session_key.clone(),
        secure: options.secure_cookies,
    });
    let mut server = HttpServer::new(move || {
        let opts = opts.clone();
        App::new()
            .app_data(web::Data::new(opts.site.clone()))
            .app_data(in_flight.clone())
            .app_data(limits.clone())
            .app_data(throttle.clone())
            .app_data(signups.clone())
            .app_data(expensive.clone())
            .app_data(writes.clone())
            .app_data(proxy.clone())
            .app_data(device_key.clone())
            .app_data(web::QueryConfig::default().error_handler(|e, _| {
                WebError::BadRequest(format!("invalid query string: {e}")).into()
            }))
            .app_data(web::PathConfig::default().error_handler(|_, _| WebError::NotFound.into()))
            .app_data(web::PayloadConfig::new(crate::accounts::csrf::MAX_FORM_BYTES))
            .configure(assets::configure)
            .configure(crate::http::ceiling::configure)
            .configure(configure.clone())
            .default_service(web::to(|| async { Err::<&str, _>(WebError::NotFound) }))
            .wrap(from_fn(crate::accounts::device::set_cookie))
            .wrap(from_fn(crate::http::error::in_site_layout))
            .wrap(from_fn(ru::track_request_charge))
            .wrap(from_fn(crate::http::limits::limit_clients))
            .wrap(from_fn(telemetry::record_request))
            .wrap(cookie::middleware(
                opts.session_key.clone(),
                opts.site.cookie_name,
                opts.secure_cookies,
            ))
            // Outside the session and the routes, inside the security headers and the log.
            .wrap(from_fn(gate::run))
            .wrap(
                DefaultHeaders::new()
                    .add(("X-Content-Type-Options", "nosniff"))
                    .add(("X-Frame-Options", "DENY"))
                    .add(("Referrer-Policy", "same-origin"))
                    .add((
                        "Content-Security-Policy",
                        "default-src 'self'; img-src 'self' data:; style-src 'self'; form-action 'self'; frame-ancestors 'none'",
                    )),
            )
            .wrap(NormalizePath::new(TrailingSlash::Trim))
            // gzip when asked (`Accept-Encoding`): pages repeat their markup (the explorer's
            // partition map is 1.7 MB of SVG). Headers, x-ms-request-charge included, pass
            // through; inside the log, which then counts the bytes sent.
            .wrap(Compress::default())
            .wrap(Logger::new("%a \"%r\" %s %b %{x-ms-request-charge}o RU %T s").log_target("access"))
    })
    .disable_signals()
    // A client that closes its side is gone: end the connection and drop the request's future
    // (actix's default keeps running it for a half-closed peer, so a hung-up Markdown render or
    // fan-out ran to its budget for nobody). Browsers and the load tests never half-close.
    .h1_allow_half_closed(false)
    .shutdown_timeout(5);
    if let Some(n) = options.workers {
        server = server.workers(n);
    }
    let server = server.bind(addr)?;
    let bound = server.addrs()[0];
    Ok((server.run(), bound))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use tokio::io::AsyncWriteExt;

    /// Counts drops of the handler's future.
    struct Dropped(Arc<AtomicUsize>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A request whose client hangs up while the handler works has its future dropped: work
    /// that watches for that (a Markdown render) stops instead of finishing for nobody.
    #[actix_web::test]
    async fn a_hung_up_requests_handler_is_dropped() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let (started, mut started_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
        let (d, s) = (dropped.clone(), started.clone());
        let configure = move |cfg: &mut actix_web::web::ServiceConfig| {
            let (d, s) = (d.clone(), s.clone());
            cfg.route(
                "/slow",
                actix_web::web::get().to(move || {
                    let guard = Dropped(d.clone());
                    let s = s.clone();
                    async move {
                        let _guard = guard;
                        let _ = s.send(());
                        std::future::pending::<()>().await;
                        "never"
                    }
                }),
            );
        };
        let mut options = super::ServeOptions::new(
            crate::Site {
                name: "t",
                tagline: "t",
                cookie_name: "t",
                base: "",
                patterns: false,
            },
            actix_web::cookie::Key::generate(),
        );
        options.workers = Some(1);
        let (server, addr) =
            super::serve("127.0.0.1:0".parse().unwrap(), options, configure).expect("binds");
        let handle = server.handle();
        actix_web::rt::spawn(server);
        let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
        c.write_all(b"GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .await
            .unwrap();
        started_rx.recv().await.unwrap();
        assert_eq!(dropped.load(Ordering::SeqCst), 0);
        drop(c);
        for _ in 0..200 {
            if dropped.load(Ordering::SeqCst) == 1 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "the handler still runs");
        handle.stop(false).await;
    }
}
