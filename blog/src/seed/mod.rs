//! Demo data on first start, the same in every model: `--users N` users generated from per-user
//! seeds (`generate.rs`), written into V3, V2 and V1 (`write.rs`) with a progress bar, and a
//! marker per model written last, so an interrupted seed starts again and a model added to an
//! existing data directory is seeded from the same users.

mod generate;
mod text;
mod write;

use futures_util::{stream, TryStreamExt};
use serde_json::{json, Value};

use crate::access::{v1, v2};
use crate::containers::Containers;
use crate::model::PostShort;

pub use generate::{post_id, user_id};

/// How many users the generated data holds (the `/models` page states it).
pub struct SeededUsers(pub u64);

pub const DEMO_USERNAME: &str = "demo";
pub const DEMO_PASSWORD: &str = "demo-password";
const MARKER_ID: &str = "seed";
/// Users written concurrently: the engine's writer puts every write queued at once into one
/// commit (one fsync), so the more in flight, the fewer commits per item.
const IN_FLIGHT: usize = 256;

/// Disk one generated user takes in one model (items, change feed, indexes): 2.6 GB for 1 000
/// users in the three models, measured.
const BYTES_PER_USER_PER_MODEL: u64 = 900_000;

/// Free bytes on the filesystem of `dir` (None when it cannot be told).
fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `st` is written by statvfs before it is read.
    let ok = unsafe { libc::statvfs(path.as_ptr(), st.as_mut_ptr()) } == 0;
    ok.then(|| {
        // SAFETY: statvfs succeeded, so it filled `st`.
        let st = unsafe { st.assume_init() };
        #[allow(clippy::unnecessary_cast)] // fsblkcnt_t and c_ulong are not u64 everywhere
        let free = st.f_bavail as u64 * st.f_frsize as u64;
        free
    })
}

/// Refuses, before writing anything, a seed the disk cannot hold.
fn check_disk(dir: &std::path::Path, users: u64, models: u64) -> cosmos::Result<()> {
    let need = users * models * BYTES_PER_USER_PER_MODEL;
    match free_bytes(dir) {
        Some(free) if free < need => Err(cosmos::Error::bad_request(format!(
            "seeding {users} blog users into {models} models needs about {:.1} GB; {:.1} GB are free in {}: ask for fewer with --users, or use --data on a larger disk",
            need as f64 / 1e9,
            free as f64 / 1e9,
            dir.display()
        ))),
        _ => Ok(()),
    }
}

/// The containers of the three models.
pub struct Models<'a> {
    pub v3: &'a Containers,
    pub v2: &'a v2::Containers,
    pub v1: &'a v1::Containers,
}

/// The V3 marker lives in `feed` (its partition `seed`); V1's and V2's in `users`.
async fn marker(c: &cosmos::Container) -> Option<u64> {
    c.read_item::<Value>(MARKER_ID, MARKER_ID, None)
        .await
        .ok()
        .and_then(|r| r.resource)
        .and_then(|m| m["users"].as_u64())
}

async fn write_marker(c: &cosmos::Container, users: u64) -> cosmos::Result<()> {
    // `type` for `feed` (pk /type), `userId` for `users` (pk /userId).
    c.upsert_item(
        &json!({"id": MARKER_ID, "type": MARKER_ID, "userId": MARKER_ID, "users": users}),
        None,
        None,
    )
    .await
    .map(drop)
}

/// Seeds every model whose marker is missing; returns the number of users the data holds.
pub async fn seed_if_needed(
    m: &Models<'_>,
    data_dir: Option<&std::path::Path>,
    users: u64,
) -> cosmos::Result<u64> {
    let (have3, have2, have1) = (
        marker(&m.v3.feed).await,
        marker(&m.v2.users).await,
        marker(&m.v1.users).await,
    );
    // A data directory seeded before V1/V2 existed keeps its size: the models hold the same users.
    let users = have3.or(have2).or(have1).unwrap_or(users).max(1);
    let (need3, need2, need1) = (have3.is_none(), have2.is_none(), have1.is_none());
    if !(need3 || need2 || need1) {
        return Ok(users);
    }
    // Embedded, the data goes to this machine's disk: check it has room first.
    if let Some(dir) = data_dir {
        check_disk(
            dir,
            users,
            [need1, need2, need3].iter().filter(|n| **n).count() as u64,
        )?;
    }
    let started = std::time::Instant::now();
    let models = [(need1, "V1"), (need2, "V2"), (need3, "V3")]
        .iter()
        .filter(|(n, _)| *n)
        .map(|(_, v)| *v)
        .collect::<Vec<_>>()
        .join("+");
    let bar = sitekit::background::progress::bar(users, &format!("blog users {models}"));
    let map_err = |e: sitekit::WebError| cosmos::Error::bad_request(e.to_string());
    let demo = sitekit::accounts::auth::hash_password(DEMO_PASSWORD.to_owned())
        .await
        .map_err(map_err)?;
    // Nobody knows this one: generated users exist to be read and measured, not signed into.
    let unknown = sitekit::accounts::auth::hash_password(format!("{:x}", rand::random::<u128>()))
        .await
        .map_err(map_err)?;
    let shorts: Vec<Vec<PostShort>> = stream::iter((1..=users).map(Ok))
        .map_ok(|n| {
            let bar = bar.clone();
            let password = if n == 1 { &demo } else { &unknown };
            async move {
                let g = generate::generate(n, users, password);
                let (mut newest, (), ()) = futures_util::try_join!(
                    async {
                        if need3 {
                            write::v3(m.v3, &g).await
                        } else {
                            Ok(Vec::new())
                        }
                    },
                    async {
                        if need2 {
                            write::v2(m.v2, &g).await?;
                        }
                        Ok(())
                    },
                    async {
                        if need1 {
                            write::v1(m.v1, &g).await?;
                        }
                        Ok(())
                    },
                )?;
                // Keep only what could be among the newest 100.
                newest.sort_by(|a, b| b.creation_date.cmp(&a.creation_date));
                newest.truncate(crate::deploy::FEED_SIZE);
                bar.inc(1);
                Ok::<_, cosmos::Error>(newest)
            }
        })
        .try_buffer_unordered(IN_FLIGHT)
        .try_collect()
        .await?;
    if need3 {
        let mut newest: Vec<PostShort> = shorts.into_iter().flatten().collect();
        newest.sort_by(|a, b| {
            b.creation_date
                .cmp(&a.creation_date)
                .then_with(|| a.id.cmp(&b.id))
        });
        newest.truncate(crate::deploy::FEED_SIZE);
        for s in &newest {
            m.v3.feed.upsert_item(s, None, None).await?;
        }
        // The generated users hold their look-alike claims: nothing to backfill.
        crate::backfill::mark_done(&m.v3.users).await?;
        write_marker(&m.v3.feed, users).await?;
    }
    if need2 {
        crate::backfill::mark_done(&m.v2.users).await?;
        write_marker(&m.v2.users, users).await?;
    }
    if need1 {
        crate::backfill::mark_done(&m.v1.users).await?;
        write_marker(&m.v1.users, users).await?;
    }
    bar.finish_with_message(format!(
        "seeded in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(users)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_larger_than_the_disk_is_refused_before_writing() {
        let dir = std::env::temp_dir();
        assert!(free_bytes(&dir).is_some_and(|b| b > 0));
        // A billion users would need ~2.7 PB.
        let e = check_disk(&dir, 1_000_000_000, 3).unwrap_err().to_string();
        assert!(e.contains("--users") && e.contains("GB"), "{e}");
        assert!(check_disk(&dir, 1, 3).is_ok());
    }
}
