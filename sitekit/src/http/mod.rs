//! The server and what every request passes through before an app sees it: the shared
//! middleware and error pages, limits on clients that hold on, the app's gate, who the client is
//! behind a proxy, static assets, the HTTP ceiling page and request metrics.

pub mod assets;
pub mod ceiling;
pub mod error;
pub mod gate;
pub mod limits;
pub mod proxy;
pub mod server;
pub mod telemetry;
