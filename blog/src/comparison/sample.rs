//! The `/models` page's own measurement: the read requests (Q1–Q6) on the same generated users
//! and posts in every model, so the table fills without a load test. Writes (C1–C4) are measured
//! from real traffic only: a sample run must not change the data it compares.

use actix_web::web;

use super::Measurements;
use crate::requests::Requests;
use crate::seed;
use crate::versions::{Version, V1, V2, V3};

/// Generated users read by one sample run (their first posts too).
pub const SAMPLE_USERS: u64 = 5;

async fn run_model<M: Version>(
    containers: web::Data<M::Containers>,
    measurements: web::Data<Measurements>,
    users: u64,
) -> crate::access::Result<()> {
    let r = Requests::<M>::new(containers, measurements);
    for n in 1..=SAMPLE_USERS.min(users) {
        let user_id = seed::user_id(n);
        let post_id = seed::post_id(n, 0);
        r.q1_user(&user_id).await?;
        r.q3_user_posts(&user_id, None).await?;
        r.q2_post(&post_id).await?;
        r.q4_comments(&post_id, None).await?;
        r.q5_likes(&post_id, None).await?;
    }
    r.q6_feed().await?;
    Ok(())
}

fn containers<M: Version>(
    req: &actix_web::HttpRequest,
) -> crate::access::Result<web::Data<M::Containers>> {
    req.app_data::<web::Data<M::Containers>>()
        .cloned()
        .ok_or_else(|| {
            crate::access::BlogError::Invalid(format!("the {} model is not mounted", M::NAME))
        })
}

/// Runs the sample on the three models, V1 first (the slowest); what it spent, per call.
pub async fn run(
    req: &actix_web::HttpRequest,
    users: u64,
) -> crate::access::Result<cosmos::RequestCharge> {
    let measurements = req
        .app_data::<web::Data<Measurements>>()
        .cloned()
        .unwrap_or_default();
    let (v1, v2, v3) = (
        containers::<V1>(req)?,
        containers::<V2>(req)?,
        containers::<V3>(req)?,
    );
    // On a ledger of its own: the sample's calls are measurements, each kept in the table, and
    // far more than a form post's note can carry in the session cookie; the page that asked is
    // given their sum ([`summary`]).
    let spent = cosmos::RequestCharge::default();
    cosmos::ledger::scope(spent.clone(), async move {
        run_model::<V1>(v1, measurements.clone(), users).await?;
        run_model::<V2>(v2, measurements.clone(), users).await?;
        run_model::<V3>(v3, measurements, users).await
    })
    .await?;
    Ok(spent)
}

/// The sample's calls added up per routing (at most four rows, each naming its count and the
/// containers): what the form post that ran it shows as its cost, where one row per call would
/// not fit and none would say 1 RU for a run of dozens of queries (issue 37).
pub fn summary(sample: &cosmos::RequestCharge) -> Vec<cosmos::EngineCall> {
    let mut rows: Vec<(cosmos::EngineCall, usize)> = Vec::new();
    for call in sample.calls() {
        match rows.iter_mut().find(|(r, _)| r.routing == call.routing) {
            Some((row, n)) => {
                *n += 1;
                row.request_charge += call.request_charge;
                row.partitions += call.partitions;
                if !row.container.split(", ").any(|c| c == call.container) {
                    row.container = format!("{}, {}", row.container, call.container);
                }
            }
            None => rows.push((call, 1)),
        }
    }
    rows.into_iter()
        .map(|(mut row, n)| {
            row.operation = format!(
                "Q1–Q6 sample on V1, V2 and V3: {n} {} call{}",
                row.routing.label(),
                if n == 1 { "" } else { "s" }
            );
            row.request_charge = (row.request_charge * 100.0).round() / 100.0;
            row.error_status = None;
            row.query = None;
            row
        })
        .collect()
}
