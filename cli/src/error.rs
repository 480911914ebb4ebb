//! Why a command did not do everything, as the CLI prints it (and exits non-zero).

/// A command's failure: the engine's error, a refusal with what it cost, or a summary of lines
/// that failed (each reported on its own line before).
#[derive(Debug)]
pub enum CliError {
    Engine(engine::Error),
    /// A request the engine refused after doing work, with what it cost.
    Refused(engine::Failed),
    Failed(String),
}

impl From<engine::Failed> for CliError {
    fn from(f: engine::Failed) -> Self {
        CliError::Refused(f)
    }
}

impl From<engine::Error> for CliError {
    fn from(e: engine::Error) -> Self {
        CliError::Engine(e)
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Engine(e) => write!(f, "error ({}): {e}", e.status_code()),
            // Charged as Cosmos DB charges a failed request (engine/RU.md, "Failed requests").
            CliError::Refused(e) => write!(
                f,
                "error ({}): {e}\nrequest charge: {} RU",
                e.status_code(),
                e.request_charge()
            ),
            CliError::Failed(m) => write!(f, "error: {m}"),
        }
    }
}

/// A scan whose pages go back over what they read: a damaged B-tree leading it round for ever.
pub fn not_advancing(what: &str) -> engine::Error {
    engine::Error::Corrupt(format!(
        "the {what} stopped: its pages went back over items already read, so the data file is damaged; run `engine check`, restore from a backup"
    ))
}
