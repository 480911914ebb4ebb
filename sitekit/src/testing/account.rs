//! Where a test app keeps its data: the embedded engine in a temporary directory, or the same
//! engine behind the gateway, reached through the official Rust SDK — the remote backend the
//! apps use on Azure Cosmos DB. The apps' API suites run once on each (`tests/api` and
//! `tests/api_remote`), with the same assertions.

use engine::{Engine, EngineOptions};
use gateway::testing::TestGateway;

pub struct TestAccount {
    pub account: cosmos::Account,
    /// The engine holding the data (behind the gateway when remote): what the tests read to
    /// check what an app stored.
    pub engine: Engine,
    /// Last: the gateway stops, then the files go.
    gateway: Option<TestGateway>,
    _dir: Option<tempfile::TempDir>,
}

impl TestAccount {
    /// Embedded, on an engine opened with `options`.
    pub fn embedded(options: EngineOptions) -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let engine = Engine::open(dir.path(), options).expect("the engine opens");
        TestAccount {
            account: cosmos::Account::embedded(engine.clone()),
            engine,
            gateway: None,
            _dir: Some(dir),
        }
    }

    /// Remote: a gateway on a free port, connected to with the emulator's key.
    pub async fn remote() -> Self {
        let gateway = TestGateway::start();
        let settings = cosmos::ConnectionSettings::new(gateway.endpoint(), gateway::EMULATOR_KEY);
        let account = cosmos::Account::connect(&settings)
            .await
            .expect("the SDK connects to the gateway");
        TestAccount {
            account,
            engine: gateway.engine.clone(),
            gateway: Some(gateway),
            _dir: None,
        }
    }

    /// [`Self::remote`] when `remote`, else [`Self::embedded`] with the default options.
    pub async fn new(remote: bool) -> Self {
        if remote {
            Self::remote().await
        } else {
            Self::embedded(EngineOptions::default())
        }
    }

    pub fn is_remote(&self) -> bool {
        self.gateway.is_some()
    }
}
