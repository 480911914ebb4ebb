//! The shop's expensive pages (search and tag pages, each a fan-out over every category
//! partition) are metered per signed-in account, as the anonymous ones are per address: an
//! account is not a way around the limit (issue 33: ten threads on one account made 432 live
//! pages in 10 s on the blog, and the shop's search went from 2 to 145 ms meanwhile).

use crate::helpers::spawn_app_with;

/// A tag the seed gives some products (every catalog has tags).
fn a_tag() -> String {
    webstore::seed::catalog::catalog().tags[0].id.clone()
}

/// The 31st search or tag page of one account within a minute is a 429 with a Retry-After;
/// the shop's other pages, another account and the address's anonymous meter are not held up.
#[tokio::test(flavor = "multi_thread")]
async fn a_signed_in_account_gets_429_on_its_31st_fan_out_page_in_a_minute() {
    let app = spawn_app_with(|o| {
        o.expensive_per_minute = 30;
        // One address signs two accounts in; sign-ups have their own test.
        o.signups_per_minute = 100;
    })
    .await;
    let tag = format!("/tags/{}", a_tag());
    let v = app.demo().await;
    for i in 0..30 {
        let page = if i % 2 == 0 { "/search?q=bike" } else { &tag };
        let r = v.get(page).await;
        assert_eq!(r.status, 200, "page {}: {}", i + 1, r.body);
    }
    for page in ["/search?q=lamp", tag.as_str()] {
        let r = v.get(page).await;
        assert_eq!(r.status, 429, "{page}: {}", r.body);
        assert!(r.headers.contains_key("retry-after"), "{page}");
    }
    // Point reads and single-partition pages are not metered.
    assert_eq!(v.get("/").await.status, 200);
    // The meter is the account's: another account, and the same address signed out, go on.
    let other = app.new_customer("metered-neighbour@example.com").await;
    assert_eq!(other.get("/search?q=bike").await.status, 200);
    assert_eq!(app.visitor().get(&tag).await.status, 200);
}
