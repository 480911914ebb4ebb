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

/// Runs the sample on the three models, V1 first (the slowest).
pub async fn run(req: &actix_web::HttpRequest, users: u64) -> crate::access::Result<()> {
    let measurements = req
        .app_data::<web::Data<Measurements>>()
        .cloned()
        .unwrap_or_default();
    let (v1, v2, v3) = (
        containers::<V1>(req)?,
        containers::<V2>(req)?,
        containers::<V3>(req)?,
    );
    // On a ledger of its own: the sample's hundreds of calls are measurements, not the cost of
    // the page that asked for them (nor something to carry to the next page in the cookie).
    cosmos::ledger::scope(Default::default(), async move {
        run_model::<V1>(v1, measurements.clone(), users).await?;
        run_model::<V2>(v2, measurements.clone(), users).await?;
        run_model::<V3>(v3, measurements, users).await
    })
    .await
}
