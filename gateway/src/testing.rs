//! A gateway on a free port over a real engine, in a thread of its own: for the tests of
//! anything that talks to a Cosmos DB endpoint (the gateway's own, the `cosmos` client's, the apps').

use std::net::SocketAddr;

use crate::{Gateway, GatewayOptions, Limits};
use actix_web::dev::ServerHandle;

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
        Self::in_temp_dir(
            limits,
            engine::EngineOptions::default(),
            (false, Vec::new()),
        )
    }

    /// A gateway over https, with the self-signed certificate it makes in its data directory.
    pub fn tls() -> Self {
        Self::in_temp_dir(
            Limits::default(),
            engine::EngineOptions::default(),
            (true, Vec::new()),
        )
    }

    /// A gateway that answers to `hosts` too (`GatewayOptions::allowed_hosts`).
    pub fn answering(hosts: &[&str]) -> Self {
        let hosts = hosts.iter().map(|h| h.to_string()).collect();
        Self::in_temp_dir(
            Limits::default(),
            engine::EngineOptions::default(),
            (false, hosts),
        )
    }

    /// A gateway whose engine splits a physical partition once it stores `bytes`: splits
    /// happen while an SDK pages (the service splits at 50 GB).
    pub fn splitting_at(bytes: u64) -> Self {
        let options = engine::EngineOptions {
            split_threshold_bytes: bytes,
            ..Default::default()
        };
        Self::in_temp_dir(Limits::default(), options, (false, Vec::new()))
    }

    /// A gateway over a temporary directory removed when it is dropped.
    /// `transport`: https, and the host names answered besides loopback.
    fn in_temp_dir(
        limits: Limits,
        options: engine::EngineOptions,
        transport: (bool, Vec<String>),
    ) -> Self {
        let temp = tempfile::tempdir().expect("temp dir");
        let mut gw = Self::start_with(temp.path(), limits, options, transport);
        gw._temp = Some(temp);
        gw
    }

    /// A gateway over `dir` (to start another on the same data after this one is dropped).
    pub fn at(dir: &std::path::Path, limits: Limits) -> Self {
        Self::start_with(
            dir,
            limits,
            engine::EngineOptions::default(),
            (false, Vec::new()),
        )
    }

    fn start_with(
        dir: &std::path::Path,
        limits: Limits,
        engine_options: engine::EngineOptions,
        (tls, allowed_hosts): (bool, Vec<String>),
    ) -> Self {
        let path = dir.to_owned();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                // A gateway stopped just before on the same directory may still be dropping
                // its last engine handle on an actix worker thread: wait for it.
                let mut attempts = 0;
                let engine = loop {
                    match engine::Engine::open(&path, engine_options.clone()) {
                        Ok(e) => break e,
                        Err(e) if attempts < 100 => {
                            attempts += 1;
                            let _ = e;
                            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        }
                        Err(e) => panic!("engine opens: {e}"),
                    }
                };
                let mut options = GatewayOptions::new("127.0.0.1:0".parse().unwrap());
                options.limits = limits;
                options.workers = Some(2);
                options.tls = tls;
                options.allowed_hosts = allowed_hosts;
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
        let scheme = if self.dir.join(crate::tls::CERT_FILE).exists() {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}/", self.addr)
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
