//! `engine import`: streams a JSON array or JSON lines file into a container with many requests
//! in flight, printing progress to stderr once a second.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use engine::{ContainerProperties, Engine, Error};
use serde_json::{json, Value};
use tokio::task::JoinSet;

#[allow(clippy::too_many_arguments)]
pub async fn run(
    engine: &Engine,
    db: &str,
    container: &str,
    partition_key: Option<&str>,
    partitions: u32,
    mode: &str,
    concurrency: usize,
    file: &Path,
) -> Result<(), Error> {
    let database = engine.create_database_if_not_exists(db).await?;
    let c = match database.container(container).read_container() {
        Ok(_) => database.container(container),
        Err(_) => {
            let pk = partition_key.ok_or_else(|| Error::BadRequest {
                field: Some("--partition-key".into()),
                message: format!(
                    "container '{container}' does not exist: pass --partition-key to create it"
                ),
            })?;
            database
                .create_container(
                    ContainerProperties::new(container, pk).with_initial_partitions(partitions),
                )
                .await?
        }
    };
    let io = |e: std::io::Error| Error::bad("FILE", format!("{}: {e}", file.display()));
    let mut reader = BufReader::new(std::fs::File::open(file).map_err(io)?);
    let items: Box<dyn Iterator<Item = Result<Value, Error>>> =
        if starts_with_bracket(&mut reader).map_err(io)? {
            let mut text = String::new();
            reader.read_to_string(&mut text).map_err(io)?;
            let array: Vec<Value> = serde_json::from_str(&text)
                .map_err(|e| Error::bad("FILE", format!("not a JSON array: {e}")))?;
            Box::new(array.into_iter().map(Ok))
        } else {
            Box::new(reader.lines().enumerate().filter_map(|(n, line)| {
                match line {
                    Ok(l) if l.trim().is_empty() => None,
                    Ok(l) => Some(
                        serde_json::from_str(&l)
                            .map_err(|e| Error::bad("FILE", format!("line {}: {e}", n + 1))),
                    ),
                    Err(e) => Some(Err(Error::bad("FILE", format!("line {}: {e}", n + 1)))),
                }
            }))
        };

    let started = Instant::now();
    let mut last_report = Instant::now();
    let (mut done, mut failed, mut charge) = (0u64, 0u64, 0.0f64);
    let mut in_flight = JoinSet::new();
    let upsert = mode == "upsert";
    let mut first_error: Option<String> = None;
    let mut settle = |r: Result<Result<f64, Error>, tokio::task::JoinError>,
                      done: &mut u64,
                      failed: &mut u64,
                      charge: &mut f64| match r {
        Ok(Ok(ru)) => {
            *done += 1;
            *charge += ru;
        }
        Ok(Err(e)) => {
            *failed += 1;
            first_error.get_or_insert_with(|| e.to_string());
        }
        Err(e) => {
            *failed += 1;
            first_error.get_or_insert_with(|| e.to_string());
        }
    };
    for item in items {
        let item = item?;
        while in_flight.len() >= concurrency.max(1) {
            if let Some(r) = in_flight.join_next().await {
                settle(r, &mut done, &mut failed, &mut charge);
            }
        }
        let c = c.clone();
        in_flight.spawn(async move {
            let r = if upsert {
                c.upsert_item(&item, None, None).await
            } else {
                c.create_item(&item, None, None).await
            };
            r.map(|r| r.request_charge)
        });
        if last_report.elapsed() >= Duration::from_secs(1) {
            last_report = Instant::now();
            progress(done, failed, charge, started);
        }
    }
    while let Some(r) = in_flight.join_next().await {
        settle(r, &mut done, &mut failed, &mut charge);
    }
    progress(done, failed, charge, started);
    eprintln!(
        "{}",
        json!({"imported": done, "failed": failed, "requestCharge": (charge * 100.0).round() / 100.0, "seconds": started.elapsed().as_secs_f64()})
    );
    match first_error {
        Some(e) => Err(Error::BadRequest {
            field: None,
            message: format!("{failed} items failed; first error: {e}"),
        }),
        None => Ok(()),
    }
}

fn progress(done: u64, failed: u64, charge: f64, started: Instant) {
    let secs = started.elapsed().as_secs_f64().max(1e-3);
    eprintln!(
        "imported {done} items ({:.0}/s), {failed} failed, {charge:.0} RU",
        done as f64 / secs
    );
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
