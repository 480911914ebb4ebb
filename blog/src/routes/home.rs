//! The home feed (Q6) and a user's page (Q1 + Q3).

use actix_web::{web, HttpResponse};
use askama::Template;

use super::Paging;
use crate::model::{PostShort, User};
use crate::requests::Requests;
use crate::versions::Version;
use sitekit::layout::html;
use sitekit::paging::next_page_link;
use sitekit::{Ctx, Page, WebError};

#[derive(Template)]
#[template(path = "blog/home.html")]
struct FeedPage {
    page: Page,
    posts: Vec<PostShort>,
}

pub async fn feed<M: Version>(ctx: Ctx, blog: Requests<M>) -> Result<HttpResponse, WebError> {
    let posts = blog.q6_feed().await?;
    html(&FeedPage {
        page: ctx.page("Recent posts"),
        posts,
    })
}

#[derive(Template)]
#[template(path = "blog/user.html")]
struct UserPage {
    page: Page,
    user: User,
    posts: Vec<PostShort>,
    next: Option<String>,
}

pub async fn user<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
    paging: web::Query<Paging>,
) -> Result<HttpResponse, WebError> {
    let user_id = path.into_inner();
    let user = blog.q1_user(&user_id).await?;
    let posts = blog.q3_user_posts(&user_id, paging.page.clone()).await?;
    html(&UserPage {
        page: ctx.page(user.username.clone()),
        next: next_page_link(&format!("{}/users/{user_id}", M::BASE), &posts.continuation),
        user,
        posts: posts.items,
    })
}
