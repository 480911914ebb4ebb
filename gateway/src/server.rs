//! The transport: actix's HTTP service (HTTP/1.1 and h2c, or https) behind a door of the
//! gateway's own for every accepted connection, before any HTTP is read:
//!
//! - **a cap per client address** ([`crate::Limits::connections_per_address`], the sites' counter
//!   [`netguard::PerAddress`]): past it a new connection from that address is closed at once;
//! - **a first byte within the header timeout**: actix's own header timeout starts only once
//!   the connection has sent something, and its HTTP/2 detection waits for the first bytes
//!   without any limit, so a connection that sent nothing was kept forever (2 100 of them took
//!   every connection slot: each new request then timed out).
//!
//! Then actix closes a connection whose request line and headers are not in within the header
//! timeout (408), and one idle between requests past [`crate::Limits::keep_alive`].

use std::net::TcpListener;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use actix_http::HttpService;
use actix_service::{map_config, IntoServiceFactory, ServiceFactoryExt};
use actix_web::dev::{fn_factory, fn_service, AppConfig, Server, Service, ServiceFactory};
use actix_web::rt::net::TcpStream;
use actix_web::{web, App};
use netguard::PerAddress;

use crate::routes;
use crate::state::State;

/// Serves the gateway's routes on `listener` (plain HTTP/1.1 and h2c, or https with `tls`).
pub(crate) fn serve(
    listener: TcpListener,
    state: web::Data<Arc<State>>,
    workers: Option<usize>,
    tls: Option<rustls::ServerConfig>,
) -> std::io::Result<Server> {
    let addr = listener.local_addr()?;
    let conns = Arc::new(PerAddress::default());
    let limits = state.limits.clone();
    let mut builder = Server::build()
        .disable_signals()
        .shutdown_timeout(5)
        .max_concurrent_connections(limits.max_connections_per_worker);
    if let Some(n) = workers {
        builder = builder.workers(n);
    }
    let secure = tls.is_some();
    // A macro, not a closure: the service's type differs with the stream (TCP or TLS).
    macro_rules! http {
        () => {{
            let mut svc = HttpService::build()
                .client_request_timeout(limits.header_timeout)
                .client_disconnect_timeout(Duration::from_secs(2))
                .keep_alive(limits.keep_alive)
                // TCP_NODELAY on every accepted connection (actix leaves the OS default, Nagle
                // on). Over HTTP/2 actix writes a response's HEADERS and DATA, then its
                // END_STREAM in an empty DATA frame of its own: with Nagle that last small write
                // waits for the client's ACK of the first, which the client delays (40 ms on
                // Linux) since it has nothing to send until the response ends: about 40 ms added
                // to a good share of the SDK's calls.
                .tcp_nodelay(true)
                .local_addr(addr);
            if secure {
                svc = svc.secure();
            }
            // The app's config is actix's default: the gateway takes its host and scheme from
            // its own state, never from `ConnectionInfo` or `url_for`.
            let app = App::new()
                .app_data(state.clone())
                .default_service(web::to(routes::dispatch))
                .into_factory()
                .map_err(|e: actix_web::Error| e.error_response());
            svc.finish(map_config(app, |_| AppConfig::default()))
        }};
    }
    let door = Door {
        conns,
        per_address: limits.connections_per_address,
        first_byte: limits.header_timeout,
    };
    // Without TLS: HTTP/1.1, and HTTP/2 by prior knowledge (no TLS to negotiate it): the Rust
    // SDK speaks HTTP/2 first. With TLS, ALPN chooses.
    let builder = match tls {
        Some(config) => builder.listen("gateway", listener, move || {
            door.clone().guard(http!().rustls_0_23(config.clone()))
        })?,
        None => builder.listen("gateway", listener, move || {
            door.clone().guard(http!().tcp_auto_h2c())
        })?,
    };
    Ok(builder.run())
}

/// What every connection passes before HTTP.
#[derive(Clone)]
struct Door {
    conns: Arc<PerAddress>,
    per_address: usize,
    first_byte: Duration,
}

impl Door {
    /// `inner` (actix's HTTP service for a TCP stream) behind the door.
    fn guard<S>(
        self,
        inner: S,
    ) -> impl ServiceFactory<TcpStream, Config = (), Response = (), Error = (), InitError = ()>
    where
        S: ServiceFactory<TcpStream, Config = (), Response = (), InitError = ()> + 'static,
        S::Service: 'static,
    {
        fn_factory(move || {
            let made = inner.new_service(());
            let door = self.clone();
            async move {
                let inner = Rc::new(made.await?);
                Ok::<_, ()>(fn_service(move |io: TcpStream| {
                    let inner = inner.clone();
                    let door = door.clone();
                    async move {
                        let Some(ip) = io.peer_addr().ok().map(|a| a.ip()) else {
                            return Ok(());
                        };
                        let Some(_slot) = door.conns.take(ip, door.per_address) else {
                            tracing::debug!(target: "gateway", "{ip} holds {} connections: one more closed", door.per_address);
                            return Ok(());
                        };
                        let mut first = [0u8; 1];
                        match tokio::time::timeout(door.first_byte, io.peek(&mut first)).await {
                            Ok(Ok(n)) if n > 0 => {}
                            // Nothing in time, or closed: dropping the stream closes it.
                            _ => return Ok(()),
                        }
                        // Its errors (a bad request line, a failed handshake) are the client's;
                        // actix has answered what can be answered.
                        let _ = inner.call(io).await;
                        Ok(())
                    }
                }))
            }
        })
    }
}
