//! A gateway on a free port over a real engine in a temporary directory, for the tests.

#![allow(dead_code)]

use std::net::SocketAddr;

use actix_web::dev::ServerHandle;
use gateway::{Gateway, GatewayOptions, Limits};

pub struct TestGateway {
    pub addr: SocketAddr,
    /// The data directory (a temporary one, unless the test gave its own).
    pub dir: std::path::PathBuf,
    /// The engine the gateway serves, for checking what the SDK stored and what it cost.
    pub engine: engine::Engine,
    handle: ServerHandle,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Last: removed after the engine closed.
    _temp: Option<tempfile::TempDir>,
}

impl TestGateway {
    pub fn start() -> Self {
        Self::with_limits(Limits::default())
    }

    pub fn with_limits(limits: Limits) -> Self {
        let temp = tempfile::tempdir().expect("temp dir");
        let mut gw = Self::at(temp.path(), limits);
        gw._temp = Some(temp);
        gw
    }

    /// A gateway over `dir` (to start another on the same data after this one is dropped).
    pub fn at(dir: &std::path::Path, limits: Limits) -> Self {
        let path = dir.to_owned();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let engine = engine::Engine::open(&path, engine::EngineOptions::default())
                    .expect("engine opens");
                let mut options = GatewayOptions::new("127.0.0.1:0".parse().unwrap());
                options.limits = limits;
                options.workers = Some(2);
                let (server, addr) = Gateway::start(&engine, options).expect("gateway starts");
                tx.send((addr, server.handle(), engine.clone())).unwrap();
                let _ = server.await;
                drop(engine);
            });
        });
        let (addr, handle, engine) = rx.recv().expect("the gateway started");
        TestGateway {
            addr,
            dir: dir.to_owned(),
            _temp: None,
            engine,
            handle,
            thread: Some(thread),
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for TestGateway {
    fn drop(&mut self) {
        // On a thread of its own: the test may be dropping this inside its own runtime.
        let handle = self.handle.clone();
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(handle.stop(false));
        })
        .join();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
