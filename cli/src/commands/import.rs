//! `engine import`: streams a JSON array or JSON lines file into a container with many requests
//! in flight. Every input line is either imported or reported (`line N: reason` on stderr, and
//! the line itself in the `--rejects` file, ready to fix and re-import); a bad line never stops
//! the good ones, unless `--stop-on-error` asks for it (a full disk, 507, always stops it).
//!
//! Writes run in parallel lanes, and every line goes to the lane of its id: two lines with the
//! same id are applied in file order (with upsert, the later line wins, as in the file), while
//! different ids run concurrently. A JSON array is streamed element by element like JSON lines.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, Engine, Error};

use crate::error::CliError;
use crate::output::Target;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// Partition key path of the container, if it has to be created (e.g. /customerId), or up
    /// to three for a hierarchical key (/tenantId,/userId,/sessionId).
    #[arg(long)]
    partition_key: Option<String>,
    /// Physical partitions of a new container (default 4); given for an existing container,
    /// it must be the count the container has.
    #[arg(long)]
    partitions: Option<u32>,
    /// A unique key of a new container: its paths, comma separated (/email, or
    /// /type,/userId); repeat for several. No two items of one logical partition may share
    /// a key's values (a missing path counts as null); fixed once the container exists.
    #[arg(long = "unique-key", value_name = "PATHS")]
    unique_keys: Vec<String>,
    /// `create` fails on existing ids; `upsert` overwrites them.
    #[arg(long, default_value = "upsert", value_parser = ["create", "upsert"])]
    mode: String,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Write every line that failed here (as it was), to fix and import again.
    #[arg(long)]
    rejects: Option<PathBuf>,
    /// Stop at the first failure (everything sent before it is still awaited and reported).
    #[arg(long)]
    stop_on_error: bool,
    /// The file to load: JSON lines, or one JSON array (streamed either way).
    pub file: PathBuf,
}

/// `engine import` with its arguments; `input` is the file, opened before the engine was.
pub async fn command(engine: &Engine, args: Args, input: (Units, u64)) -> Result<(), CliError> {
    let options = ImportOptions {
        db: &args.target.db,
        container: &args.target.container,
        partition_key: args.partition_key.as_deref(),
        partitions: args.partitions,
        unique_keys: args
            .unique_keys
            .iter()
            .map(|k| k.split(',').map(|p| p.trim().to_owned()).collect())
            .collect(),
        upsert: args.mode == "upsert",
        concurrency: args.concurrency,
        rejects: args.rejects,
        stop_on_error: args.stop_on_error,
    };
    run(engine, options, input).await
}

pub struct ImportOptions<'a> {
    pub db: &'a str,
    pub container: &'a str,
    pub partition_key: Option<&'a str>,
    /// Physical partitions of a new container; `None` is the default (4). Given for an existing
    /// container, it must be the count it has.
    pub partitions: Option<u32>,
    /// Unique keys of a new container (each a list of paths); an existing one must have these,
    /// when given.
    pub unique_keys: Vec<Vec<String>>,
    pub upsert: bool,
    pub concurrency: usize,
    pub rejects: Option<PathBuf>,
    pub stop_on_error: bool,
}

/// One unit of input: where it came from (a line, or an element of an array) and its text.
pub struct Unit {
    label: String,
    /// The file line the unit starts on.
    line: usize,
    text: String,
    /// Bytes of the file consumed up to and including this unit (for progress).
    offset: u64,
}

/// Counts and the reject file, updated as results arrive.
struct Outcome {
    imported: u64,
    failed: u64,
    /// Failures per status code (a malformed line counts as 400).
    by_status: BTreeMap<u16, u64>,
    charge: f64,
    /// The rejects file and its path.
    rejects: Option<(std::fs::File, PathBuf)>,
}

impl Outcome {
    fn reject(&mut self, unit: &Unit, status: u16, reason: &str) -> Result<(), Error> {
        self.failed += 1;
        *self.by_status.entry(status).or_default() += 1;
        eprintln!("{}: {reason}", unit.label);
        if let Some((f, path)) = &mut self.rejects {
            writeln!(f, "{}", unit.text.trim_end()).map_err(|e| rejects_error(path, e))?;
        }
        Ok(())
    }
}

/// A write to the rejects file failed: the disk's error, said as such (a full disk is a 507,
/// as for the engine's own writes), not a bad request.
fn rejects_error(path: &Path, e: std::io::Error) -> Error {
    let what = format!("cannot write the rejects file {}: {e}", path.display());
    match e.raw_os_error() {
        Some(libc::ENOSPC | libc::EDQUOT) => Error::StorageFull(what),
        _ => Error::Unavailable(what),
    }
}

/// The container to import into, created when missing — unless the file is `empty`.
async fn container(
    engine: &Engine,
    o: &ImportOptions<'_>,
    empty: bool,
) -> Result<ContainerClient, Error> {
    let database = engine.create_database_if_not_exists(o.db).await?;
    if let Ok(def) = database.container(o.container).read_container() {
        let existing = def.partition_key().paths.join(",");
        if let Some(wanted) = o.partition_key {
            // `/a, /b` and `/a,/b` are one hierarchical key.
            let same = engine::PartitionKeyDefinition::new(wanted)
                .is_ok_and(|w| w.paths == def.partition_key().paths);
            if !same {
                return Err(Error::BadRequest {
                    field: Some("--partition-key".into()),
                    message: format!(
                        "container '{}' exists with partition key {existing}, not {wanted}: \
                         drop --partition-key or import into another container",
                        o.container
                    ),
                });
            }
        }
        let has = def.totals().0;
        if let Some(wanted) = o.partitions.filter(|n| *n as usize != has) {
            return Err(Error::BadRequest {
                field: Some("--partitions".into()),
                message: format!(
                    "container '{}' exists with {has} physical partitions, not {wanted}: a \
                     container's partitions are set when it is created and split as it grows; \
                     drop --partitions or import into another container",
                    o.container
                ),
            });
        }
        if !o.unique_keys.is_empty() && def.unique_keys() != o.unique_keys.as_slice() {
            return Err(Error::BadRequest {
                field: Some("--unique-key".into()),
                message: format!(
                    "container '{}' exists with unique keys {:?}, not {:?}: unique keys are \
                     fixed when a container is created; drop --unique-key or import into another \
                     container",
                    o.container,
                    def.unique_keys(),
                    o.unique_keys
                ),
            });
        }
        return Ok(database.container(o.container));
    }
    if empty {
        return Err(Error::BadRequest {
            field: Some("FILE".into()),
            message: format!(
                "the file holds no items: container '{}' was not created",
                o.container
            ),
        });
    }
    let pk = o.partition_key.ok_or_else(|| Error::BadRequest {
        field: Some("--partition-key".into()),
        message: format!(
            "container '{}' does not exist: pass --partition-key to create it",
            o.container
        ),
    })?;
    let props = o.unique_keys.iter().fold(
        ContainerProperties::new(o.container, pk)
            .with_initial_partitions(o.partitions.unwrap_or(4)),
        |props, key| props.with_unique_key(&key.iter().map(String::as_str).collect::<Vec<_>>()),
    );
    database.create_container(props).await
}

pub type Units = Box<dyn Iterator<Item = Result<Unit, Error>>>;

/// The file's units (JSON lines, or the elements of one JSON array, streamed) and its size. A
/// UTF-8 byte order mark at the start is skipped.
fn units(file: &Path) -> Result<(Units, u64), Error> {
    let io = |e: std::io::Error| Error::bad("FILE", format!("{}: {e}", file.display()));
    let size = std::fs::metadata(file).map_err(io)?.len();
    let mut reader = BufReader::new(std::fs::File::open(file).map_err(io)?);
    let bom = skip_bom(&mut reader).map_err(io)?;
    let mut offset = bom;
    if starts_with_bracket(&mut reader).map_err(io)? {
        reader.consume(1); // the '['
        return Ok((Box::new(ArrayElements::new(reader)), size));
    }
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
                    line: n,
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

/// Bytes of a UTF-8 byte order mark skipped at the start (0 or 3).
fn skip_bom(r: &mut impl BufRead) -> std::io::Result<u64> {
    let buf = r.fill_buf()?;
    if buf.starts_with(&[0xEF, 0xBB, 0xBF]) {
        r.consume(3);
        return Ok(3);
    }
    Ok(0)
}

/// The elements of a JSON array read one at a time (after its `[`): each element's text is cut
/// out by tracking strings and nesting, so memory holds one element, not the file.
struct ArrayElements<R> {
    reader: R,
    offset: u64,
    line: usize,
    index: usize,
    done: bool,
}

impl<R: BufRead> ArrayElements<R> {
    fn new(reader: R) -> Self {
        ArrayElements {
            reader,
            offset: 0,
            line: 1,
            index: 0,
            done: false,
        }
    }

    fn byte(&mut self) -> std::io::Result<Option<u8>> {
        let buf = self.reader.fill_buf()?;
        let Some(&b) = buf.first() else {
            return Ok(None);
        };
        self.reader.consume(1);
        self.offset += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Ok(Some(b))
    }

    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        Ok(self.reader.fill_buf()?.first().copied())
    }

    fn next_element(&mut self) -> Result<Option<Unit>, String> {
        let io = |e: std::io::Error| e.to_string();
        // Skip whitespace and one separating comma.
        loop {
            match self.peek().map_err(io)? {
                None => return Err("the array is not closed with ']'".into()),
                Some(b']') => {
                    self.done = true;
                    return Ok(None);
                }
                Some(b',') if self.index > 0 => {
                    self.byte().map_err(io)?;
                }
                Some(b) if b.is_ascii_whitespace() => {
                    self.byte().map_err(io)?;
                }
                Some(_) => break,
            }
        }
        let start_line = self.line;
        let mut text = Vec::new();
        let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
        loop {
            let Some(b) = self.peek().map_err(io)? else {
                return Err(format!(
                    "element {} (line {start_line}) is cut short by the end of the file",
                    self.index + 1
                ));
            };
            if !in_string && depth == 0 && (b == b',' || b == b']') && !text.is_empty() {
                break;
            }
            self.byte().map_err(io)?;
            text.push(b);
            if in_string {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => depth -= 1,
                    _ => {}
                }
            }
        }
        self.index += 1;
        Ok(Some(Unit {
            label: format!("item {} (line {start_line})", self.index),
            line: start_line,
            text: String::from_utf8_lossy(&text).into_owned(),
            offset: self.offset,
        }))
    }
}

impl<R: BufRead> Iterator for ArrayElements<R> {
    type Item = Result<Unit, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_element() {
            Ok(Some(u)) => Some(Ok(u)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(Error::bad("FILE", format!("not a JSON array: {e}"))))
            }
        }
    }
}

/// A JSON error at its place in the file (serde counts from the start of the unit).
fn json_error(unit: &Unit, e: &serde_json::Error) -> String {
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m);
    format!(
        "invalid JSON at line {} column {}: {message}",
        unit.line + e.line().saturating_sub(1),
        e.column()
    )
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

/// The input file's units, opened before anything is created: a missing file must not leave an
/// empty database and container behind.
pub fn open(file: &Path) -> Result<(Units, u64), Error> {
    units(file)
}

/// The lane of a unit: lines with the same id share a lane, so they are applied in file order.
fn lane_of(item: &Value, lanes: usize) -> usize {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    item["id"].to_string().hash(&mut h);
    (h.finish() % lanes as u64) as usize
}

pub async fn run(
    engine: &Engine,
    o: ImportOptions<'_>,
    (units, size): (Units, u64),
) -> Result<(), CliError> {
    let mut units = units.peekable();
    let c = container(engine, &o, units.peek().is_none()).await?;
    let rejects = match &o.rejects {
        Some(p) => Some((
            std::fs::File::create(p)
                .map_err(|e| Error::bad("--rejects", format!("{}: {e}", p.display())))?,
            p.clone(),
        )),
        None => None,
    };
    let mut out = Outcome {
        imported: 0,
        failed: 0,
        by_status: BTreeMap::new(),
        charge: 0.0,
        rejects,
    };
    let bar = progress_bar(size);
    let started = Instant::now();
    let mut last_line = Instant::now();
    let mut stopped_at: Option<String> = None;

    // One task per lane writes its units in the order received; results come back on `done`.
    let lanes = o.concurrency.max(1);
    let (done_tx, mut done) = mpsc::unbounded_channel::<(Unit, Result<f64, engine::Failed>)>();
    let mut senders = Vec::with_capacity(lanes);
    let mut workers = JoinSet::new();
    for _ in 0..lanes {
        let (tx, mut rx) = mpsc::channel::<(Unit, Value)>(2);
        let (c, done_tx, upsert) = (c.charged(), done_tx.clone(), o.upsert);
        workers.spawn(async move {
            while let Some((unit, item)) = rx.recv().await {
                let r = if upsert {
                    c.upsert_item(&item, None, None).await
                } else {
                    c.create_item(&item, None, None).await
                };
                if done_tx.send((unit, r.map(|r| r.request_charge))).is_err() {
                    break;
                }
            }
        });
        senders.push(tx);
    }
    drop(done_tx);

    let settle = |(unit, r): (Unit, Result<f64, engine::Failed>),
                  out: &mut Outcome,
                  stopped_at: &mut Option<String>|
     -> Result<(), Error> {
        match r {
            Ok(ru) => {
                out.imported += 1;
                out.charge += ru;
            }
            Err(e) => {
                // A refused line is charged what it did (a 409 its read or its write).
                out.charge += e.request_charge();
                out.reject(
                    &unit,
                    e.status_code(),
                    &format!(
                        "{e} ({}); request charge: {} RU",
                        e.status_code(),
                        e.request_charge()
                    ),
                )?;
                // A full disk fails every later write too: stop and say so.
                if e.status_code() == 507 {
                    stopped_at
                        .get_or_insert_with(|| format!("{} (insufficient storage)", unit.label));
                } else if o.stop_on_error {
                    stopped_at.get_or_insert_with(|| unit.label.clone());
                }
            }
        }
        Ok(())
    };

    for unit in units {
        while let Ok(r) = done.try_recv() {
            settle(r, &mut out, &mut stopped_at)?;
        }
        if stopped_at.is_some() {
            break;
        }
        let unit = unit?;
        let item = match serde_json::from_str::<Value>(unit.text.trim_end()) {
            Ok(v) => v,
            Err(e) => {
                out.reject(&unit, 400, &json_error(&unit, &e))?;
                if o.stop_on_error {
                    stopped_at = Some(unit.label.clone());
                }
                continue;
            }
        };
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
        let lane = lane_of(&item, lanes);
        if senders[lane].send((unit, item)).await.is_err() {
            return Err(Error::Unavailable("an import lane stopped".into()).into());
        }
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
    drop(senders);
    while let Some(r) = done.recv().await {
        settle(r, &mut out, &mut stopped_at)?;
    }
    while let Some(r) = workers.join_next().await {
        r.map_err(|e| Error::Unavailable(format!("an import task failed: {e}")))?;
    }
    bar.finish_and_clear();
    if let Some(at) = &stopped_at {
        eprintln!(
            "stopped at {at}: the {} items reported imported are committed; nothing after it was sent",
            out.imported
        );
    }
    let by_status: BTreeMap<String, u64> = out
        .by_status
        .iter()
        .map(|(s, n)| (s.to_string(), *n))
        .collect();
    eprintln!(
        "{}",
        json!({
            "imported": out.imported,
            "failed": out.failed,
            "failedByStatus": by_status,
            "requestCharge": (out.charge * 100.0).round() / 100.0,
            "seconds": started.elapsed().as_secs_f64(),
            "stoppedAt": stopped_at,
            "rejects": o.rejects.as_ref().map(|p| p.display().to_string()),
        })
    );
    if out.failed > 0 {
        let counts: Vec<String> = out
            .by_status
            .iter()
            .map(|(status, n)| format!("{n} × {status} {}", reason(*status)))
            .collect();
        return Err(CliError::Failed(format!(
            "{} of {} items failed: {} (each is listed above{})",
            out.failed,
            out.imported + out.failed,
            counts.join(", "),
            if o.rejects.is_some() {
                " and written to the rejects file"
            } else {
                "; --rejects FILE keeps them"
            }
        )));
    }
    Ok(())
}

/// The name of a status an import line can fail with.
fn reason(status: u16) -> &'static str {
    match status {
        400 => "bad request",
        403 => "forbidden (partition full)",
        409 => "conflict",
        412 => "precondition failed",
        413 => "too large",
        429 => "too many requests",
        503 => "unavailable",
        507 => "insufficient storage",
        _ => "error",
    }
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
