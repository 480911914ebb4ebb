//! What the explorer reads from the engine and does to it, one file per concept. Every engine
//! call is recorded on the request's [`RequestCharge`](sitekit::RequestCharge), so each page's
//! footer lists what it cost.

pub mod catalog;
pub mod changefeed;
pub mod items;
pub mod partitions;
pub mod pk;
pub mod query;
pub mod scripts;

use std::sync::Arc;

use engine::{ContainerClient, ContainerDef, Engine};

/// Container `coll` of database `db` with its definition (404 when either does not exist).
pub fn container(
    engine: &Engine,
    db: &str,
    coll: &str,
) -> engine::Result<(ContainerClient, Arc<ContainerDef>)> {
    let c = engine.database(db).container(coll);
    let def = c.read_container()?;
    Ok((c, def))
}
