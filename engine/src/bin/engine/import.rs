//! `engine import`: streams a JSON array or JSON lines file into a container with many requests
//! in flight. Every input line is either imported or reported (`line N: reason` on stderr, and
//! the line itself in the `--rejects` file, ready to fix and re-import); a bad line never stops
//! the good ones, unless `--stop-on-error` asks for it.

use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, Engine, Error};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use tokio::task::JoinSet;

pub struct ImportOptions<'a> {
    pub db: &'a str,
    pub container: &'a str,
    pub partition_key: Option<&'a str>,
    pub partitions: u32,
    pub upsert: bool,
    pub concurrency: usize,
    pub file: &'a Path,
    pub rejects: Option<PathBuf>,
    pub stop_on_error: bool,
}

/// One unit of input: where it came from (a line, or an element of an array) and its text.
struct Unit {
    label: String,
    text: String,
    /// Bytes of the file consumed up to and including this unit (for progress).
    offset: u64,
}

/// Counts and the reject file, updated as results arrive.
struct Outcome {
    imported: u64,
    failed: u64,
    charge: f64,
    rejects: Option<std::fs::File>,
}

impl Outcome {
    fn reject(&mut self, unit: &Unit, reason: &str) -> Result<(), Error> {
        self.failed += 1;
        eprintln!("{}: {reason}", unit.label);
        if let Some(f) = &mut self.rejects {
            writeln!(f, "{}", unit.text.trim_end())
                .map_err(|e| Error::bad("--rejects", e.to_string()))?;
        }
        Ok(())
    }
}

async fn container(engine: &Engine, o: &ImportOptions<'_>) -> Result<ContainerClient, Error> {
    let database = engine.create_database_if_not_exists(o.db).await?;
    if database.container(o.container).read_container().is_ok() {
        return Ok(database.container(o.container));
    }
    let pk = o.partition_key.ok_or_else(|| Error::BadRequest {
        field: Some("--partition-key".into()),
        message: format!(
            "container '{}' does not exist: pass --partition-key to create it",
            o.container
        ),
    })?;
    database
        .create_container(
            ContainerProperties::new(o.container, pk).with_initial_partitions(o.partitions),
        )
        .await
}

type Units = Box<dyn Iterator<Item = Result<Unit, Error>>>;

/// The file's units (JSON lines, or the elements of one JSON array) and its size.
fn units(file: &Path) -> Result<(Units, u64), Error> {
    let io = |e: std::io::Error| Error::bad("FILE", format!("{}: {e}", file.display()));
    let size = std::fs::metadata(file).map_err(io)?.len();
    let mut reader = BufReader::new(std::fs::File::open(file).map_err(io)?);
    if starts_with_bracket(&mut reader).map_err(io)? {
        let mut text = String::new();
        reader.read_to_string(&mut text).map_err(io)?;
        // An array is one JSON value: if it does not parse, no element can be trusted.
        let array: Vec<Value> = serde_json::from_str(&text)
            .map_err(|e| Error::bad("FILE", format!("not a JSON array: {e}")))?;
        let n = array.len().max(1) as u64;
        return Ok((
            Box::new(array.into_iter().enumerate().map(move |(i, v)| {
                Ok(Unit {
                    label: format!("item {}", i + 1),
                    text: v.to_string(),
                    offset: size * (i as u64 + 1) / n,
                })
            })),
            size,
        ));
    }
    let mut offset = 0u64;
    let mut n = 0usize;
    let lines = std::iter::from_fn(move || {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => None,
            Ok(read) => {
                n += 1;
                offset += read as u64;
                Some(Ok(Unit {
                    label: format!("line {n}"),
                    text: line,
                    offset,
                }))
            }
            Err(e) => Some(Err(Error::bad("FILE", format!("line {}: {e}", n + 1)))),
        }
    })
    .filter(|u| !matches!(u, Ok(u) if u.text.trim().is_empty()));
    Ok((Box::new(lines), size))
}

fn progress_bar(size: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(size);
    bar.set_style(
        ProgressStyle::with_template(
            "importing [{bar:40}] {bytes}/{total_bytes} {msg} (eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

pub async fn run(engine: &Engine, o: ImportOptions<'_>) -> Result<(), Error> {
    let c = container(engine, &o).await?;
    let (units, size) = units(o.file)?;
    let rejects = match &o.rejects {
        Some(p) => Some(
            std::fs::File::create(p)
                .map_err(|e| Error::bad("--rejects", format!("{}: {e}", p.display())))?,
        ),
        None => None,
    };
    let mut out = Outcome {
        imported: 0,
        failed: 0,
        charge: 0.0,
        rejects,
    };
    let bar = progress_bar(size);
    let started = Instant::now();
    let mut last_line = Instant::now();
    let mut in_flight: JoinSet<(Unit, Result<f64, Error>)> = JoinSet::new();
    let mut stopped_at: Option<String> = None;

    let settle = |r: Result<(Unit, Result<f64, Error>), tokio::task::JoinError>,
                  out: &mut Outcome|
     -> Result<bool, Error> {
        match r {
            Ok((_, Ok(ru))) => {
                out.imported += 1;
                out.charge += ru;
                Ok(true)
            }
            Ok((unit, Err(e))) => {
                out.reject(&unit, &format!("{} ({})", e, e.status_code()))?;
                Ok(false)
            }
            Err(e) => Err(Error::Unavailable(format!("an import task failed: {e}"))),
        }
    };

    for unit in units {
        let unit = unit?;
        if stopped_at.is_some() {
            break;
        }
        let item = match serde_json::from_str::<Value>(&unit.text) {
            Ok(v) => v,
            Err(e) => {
                out.reject(&unit, &format!("invalid JSON: {e}"))?;
                if o.stop_on_error {
                    stopped_at = Some(unit.label.clone());
                }
                continue;
            }
        };
        while in_flight.len() >= o.concurrency.max(1) {
            if let Some(r) = in_flight.join_next().await {
                if !settle(r, &mut out)? && o.stop_on_error {
                    stopped_at.get_or_insert_with(|| "a failed write".into());
                }
            }
        }
        if stopped_at.is_some() {
            break;
        }
        bar.set_position(unit.offset);
        if !bar.is_hidden() && last_line.elapsed() >= Duration::from_millis(500) {
            last_line = Instant::now();
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!(
                "{} items ({:.0}/s), {} failed",
                out.imported,
                out.imported as f64 / secs,
                out.failed
            ));
        }
        let c = c.clone();
        let upsert = o.upsert;
        in_flight.spawn(async move {
            let r = if upsert {
                c.upsert_item(&item, None, None).await
            } else {
                c.create_item(&item, None, None).await
            };
            (unit, r.map(|r| r.request_charge))
        });
        if bar.is_hidden() && last_line.elapsed() >= Duration::from_secs(1) {
            last_line = Instant::now();
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            eprintln!(
                "imported {} items ({:.0}/s), {} failed",
                out.imported,
                out.imported as f64 / secs,
                out.failed
            );
        }
    }
    // Everything sent is awaited: what was acknowledged is committed, whatever comes next.
    while let Some(r) = in_flight.join_next().await {
        settle(r, &mut out)?;
    }
    bar.finish_and_clear();
    if let Some(at) = &stopped_at {
        eprintln!(
            "stopped at {at} (--stop-on-error): the {} items reported imported are committed; nothing after it was sent",
            out.imported
        );
    }
    eprintln!(
        "{}",
        json!({
            "imported": out.imported,
            "failed": out.failed,
            "requestCharge": (out.charge * 100.0).round() / 100.0,
            "seconds": started.elapsed().as_secs_f64(),
            "stoppedAt": stopped_at,
            "rejects": o.rejects.as_ref().map(|p| p.display().to_string()),
        })
    );
    if out.failed > 0 {
        return Err(Error::BadRequest {
            field: None,
            message: format!(
                "{} of {} items failed (each is listed above{})",
                out.failed,
                out.imported + out.failed,
                if o.rejects.is_some() {
                    " and written to the rejects file"
                } else {
                    "; --rejects FILE keeps them"
                }
            ),
        });
    }
    Ok(())
}

fn starts_with_bracket(r: &mut impl BufRead) -> std::io::Result<bool> {
    loop {
        let buf = r.fill_buf()?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let bracket = buf[i] == b'[';
                r.consume(i);
                return Ok(bracket);
            }
            None if buf.is_empty() => return Ok(false),
            None => {
                let n = buf.len();
                r.consume(n);
            }
        }
    }
}
