//! The home feed (Q6) and a user's page (Q1 + Q3).

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

use super::Paging;
use crate::feed_cache::{Cached, FeedCache};
use crate::model::{PostShort, User};
use crate::requests::Requests;
use crate::versions::Version;
use sitekit::accounts::throttle::ExpensiveLimit;
use sitekit::pages::layout::html;
use sitekit::pages::paging::Pager;
use sitekit::{Ctx, Page, WebError};

#[derive(Template)]
#[template(path = "blog/home.html")]
struct FeedPage {
    page: Page,
    posts: Vec<PostShort>,
    cached: Option<Cached>,
}

/// Q6. V1/V2 feeds for anonymous visitors come from a short cache (see `feed_cache`); every
/// live V1/V2 feed is metered (per account, or per address).
pub async fn feed<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    req: HttpRequest,
    cache: web::Data<FeedCache>,
    limit: web::Data<ExpensiveLimit>,
) -> Result<HttpResponse, WebError> {
    let expensive = !M::BASE.is_empty();
    let shared = expensive && ctx.user.is_none();
    let (posts, cached) = match shared.then(|| cache.get(M::NAME)).flatten() {
        Some((posts, cached)) => (posts, Some(cached)),
        None => {
            if expensive {
                limit.take_for(ctx.user.as_ref(), &req)?;
            }
            let before = ctx.ru.total();
            let posts = blog.q6_feed().await?;
            if shared {
                cache.put(M::NAME, posts.clone(), ctx.ru.total() - before);
            }
            (posts, None)
        }
    };
    html(&FeedPage {
        page: ctx.page("Recent posts"),
        posts,
        cached,
    })
}

#[derive(Template)]
#[template(path = "blog/user.html")]
struct UserPage {
    page: Page,
    user: User,
    posts: Vec<PostShort>,
    pager: Pager,
}

/// Q1 + Q3. V1's and V2's Q3 fan out: metered as their feeds are.
pub async fn user<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    req: HttpRequest,
    limit: web::Data<ExpensiveLimit>,
    path: web::Path<String>,
    paging: web::Query<Paging>,
) -> Result<HttpResponse, WebError> {
    if !M::BASE.is_empty() {
        limit.take_for(ctx.user.as_ref(), &req)?;
    }
    let user_id = path.into_inner();
    let user = blog.q1_user(&user_id).await?;
    let posts = blog.q3_user_posts(&user_id, paging.page.clone()).await?;
    html(&UserPage {
        page: ctx.page(user.username.clone()),
        pager: paging.pager(&format!("{}/users/{user_id}", M::BASE), &posts.continuation),
        user,
        posts: posts.items,
    })
}
