//! Where the data lives: the embedded engine, or a Cosmos DB account named by endpoint and key.

use std::path::Path;

use crate::remote::RemoteAccount;
use crate::settings::ConnectionSettings;
use crate::{Error, Result};

/// An account: the embedded engine or a remote endpoint. Cheap to clone.
#[derive(Clone)]
pub struct Account(pub(crate) Backend);

#[derive(Clone)]
pub(crate) enum Backend {
    Embedded(engine::Engine),
    Remote(RemoteAccount),
}

impl Account {
    /// The engine in this process.
    pub fn embedded(engine: engine::Engine) -> Self {
        Account(Backend::Embedded(engine))
    }

    /// A Cosmos DB account: reads its database account first, so a wrong key or an
    /// unreachable endpoint is an error here.
    pub async fn connect(settings: &ConnectionSettings) -> Result<Self> {
        Ok(Account(Backend::Remote(
            RemoteAccount::connect(settings).await?,
        )))
    }

    /// The account the environment names (`COSMOS_*`), else an engine over `data_dir`.
    pub fn from_env_or_embedded(data_dir: impl AsRef<Path>) -> Result<Self> {
        match ConnectionSettings::from_env()? {
            Some(_) => Err(Error::bad(
                "COSMOS_ENDPOINT",
                "a remote account is connected with Account::connect (it is async)",
            )),
            None => Ok(Account(Backend::Embedded(engine::Engine::open(
                data_dir,
                engine::EngineOptions::default(),
            )?))),
        }
    }

    /// The embedded engine, for what only it has (the explorer, partition statistics).
    pub fn engine(&self) -> Option<&engine::Engine> {
        match &self.0 {
            Backend::Embedded(e) => Some(e),
            Backend::Remote(_) => None,
        }
    }

    pub fn is_remote(&self) -> bool {
        matches!(self.0, Backend::Remote(_))
    }
}
