//! Provisioned throughput on `posts` (001_*: a container's RU/s is split evenly over its physical
//! partitions): one hot post's page is throttled with 429 and Retry-After, while about as many
//! requests spread over many posts are not.

use engine::{EngineOptions, RetryOptions};

use crate::helpers::spawn_app_with;

#[tokio::test(flavor = "multi_thread")]
async fn a_hot_logical_partition_is_throttled_and_a_spread_load_is_not() {
    // No retries on 429 (the SDKs retry 9 times by default: a throttled page is then slow, not
    // refused, unless the load outlasts the retries, as in loadtest/hot-partition.js).
    let app = spawn_app_with(EngineOptions {
        retry: RetryOptions {
            max_retry_attempts_on_throttled: 0,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    // 35 physical partitions × 20 RU/s: a post page (~6 RU) fits 3 times a second per partition.
    app.engine
        .database(blog::containers::DATABASE)
        .replace_throughput("posts", Some(35 * 20))
        .await
        .expect("throughput set");
    let v = app.visitor();
    let mut hot = Vec::new();
    for _ in 0..20 {
        hot.push(v.get("/posts/post-000001-00").await);
    }
    let throttled: Vec<_> = hot.iter().filter(|r| r.status == 429).collect();
    assert!(
        !throttled.is_empty(),
        "no 429 on one hot partition: {:?}",
        hot.iter()
            .map(|r| (r.status, r.request_charge()))
            .collect::<Vec<_>>()
    );
    assert!(throttled
        .iter()
        .all(|r| r.headers.contains_key("retry-after")));
    assert!(hot.iter().all(|r| r.status == 200 || r.status == 429));

    // Let the buckets refill, then about as many requests over the posts of 8 users, at most
    // three (what a partition's 20 RU/s pays for) in any one physical partition.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let posts = app
        .engine
        .database(blog::containers::DATABASE)
        .container("posts");
    let mut per_partition = std::collections::HashMap::<u32, u32>::new();
    let mut spread = 0;
    for n in 1..=crate::helpers::USERS {
        for k in 0..3 {
            let id = format!("post-{n:06}-{k:02}");
            let pp = posts.partitions_of(&id.as_str().into()).unwrap()[0];
            let count = per_partition.entry(pp).or_default();
            if *count == 3 {
                continue;
            }
            *count += 1;
            spread += 1;
            let r = v.get(&format!("/posts/{id}")).await;
            assert_eq!(r.status, 200, "a spread request was throttled");
        }
    }
    assert!(spread >= 20, "{spread} spread requests");
}
