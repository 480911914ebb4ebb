//! What every command shares: results on stdout, charges on stderr, `--db/--container/--pk`.

use engine::PartitionKey;
use serde_json::json;

/// `--db` and `--container`: the container a command works on.
#[derive(clap::Args)]
pub struct Target {
    /// The database (e.g. `webstore`, `blog` in the demo's data).
    #[arg(long)]
    pub db: String,
    /// The container in that database (e.g. `customer`, `posts`).
    #[arg(long)]
    pub container: String,
}

impl Target {
    pub fn client(&self, engine: &engine::Engine) -> engine::ContainerClient {
        engine.database(&self.db).container(&self.container)
    }
}

/// `--pk` values: JSON when they parse as JSON (`5`, `true`, `null`, `"5"`, `["a","b"]` for a
/// hierarchical key), else a string.
pub fn parse_pk(raw: &str) -> Result<PartitionKey, engine::Error> {
    PartitionKey::from_text(raw, "--pk")
}

/// Writes a result line to stdout; a closed pipe (`engine export | head`) ends the process quietly.
pub fn out(line: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

/// One request's charge and diagnostics, on stderr.
pub fn charge_line(charge: f64, diagnostics: &engine::Diagnostics) {
    eprintln!(
        "{}",
        json!({"requestCharge": charge, "diagnostics": diagnostics})
    );
}

/// A total charge as the CLI prints it: to the hundredth.
pub fn rounded(charge: f64) -> f64 {
    (charge * 100.0).round() / 100.0
}
