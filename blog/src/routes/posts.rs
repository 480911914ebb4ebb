//! Posts: write (C2), read with comments (Q2 + Q4), comment (C3), like and unlike (C4), likes (Q5).

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::Paging;
use crate::model::{Comment, Like, Post};
use crate::requests::Requests;
use crate::versions::Version;
use sitekit::accounts::csrf::{CsrfForm, Empty};
use sitekit::accounts::throttle::WriteLimit;
use sitekit::pages::form::FieldErrors;
use sitekit::pages::layout::{html, html_status, see_other};
use sitekit::pages::paging::Pager;
use sitekit::{Ctx, Page, WebError};

/// Largest post body (the engine's item limit is 2 MB; a blog post is far smaller).
const MAX_CONTENT: usize = 50_000;

#[derive(Debug, Default, Deserialize)]
pub struct PostForm {
    title: String,
    content: String,
}

#[derive(Template)]
#[template(path = "blog/post_form.html")]
struct PostFormPage {
    page: Page,
    action: String,
    form: PostForm,
    errors: FieldErrors,
}

fn check(form: &PostForm) -> (String, String, FieldErrors) {
    let mut errors = FieldErrors::default();
    let title = errors.text("title", &form.title, 200);
    let content = errors.text("content", &form.content, MAX_CONTENT);
    if let Err(m) = crate::markdown::check_nesting(&content) {
        errors.add("content", m);
    }
    (title, content, errors)
}

pub async fn new_form<M: Version>(ctx: Ctx) -> Result<HttpResponse, WebError> {
    ctx.require_user()?;
    html(&PostFormPage {
        page: ctx.page("New post"),
        action: format!("{}/posts/new", M::BASE),
        form: PostForm::default(),
        errors: FieldErrors::default(),
    })
}

pub async fn create<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    limit: web::Data<WriteLimit>,
    form: CsrfForm<PostForm>,
) -> Result<HttpResponse, WebError> {
    let me = ctx.require_user()?.clone();
    limit.0.take(&me.id)?;
    let form = form.into_inner();
    let (title, content, errors) = check(&form);
    if !errors.is_empty() {
        return html_status(
            StatusCode::BAD_REQUEST,
            &PostFormPage {
                page: ctx.page("New post"),
                action: format!("{}/posts/new", M::BASE),
                form,
                errors,
            },
        );
    }
    let id = format!("post-{:016x}", rand::random::<u64>());
    let html = crate::markdown::render(content.clone()).await?;
    let post = Post {
        id: id.clone(),
        kind: "post".into(),
        post_id: id.clone(),
        user_id: me.id,
        user_username: me.name,
        title,
        content,
        html,
        comment_count: 0,
        like_count: 0,
        creation_date: sitekit::pages::time::now(),
    };
    blog.c2_create_post(post).await?;
    ctx.flash("Published.");
    Ok(see_other(&format!("{}/posts/{id}", M::BASE)))
}

/// The post, if the signed-in user wrote it; 403 for anyone else.
async fn own_post<M: Version>(
    ctx: &Ctx,
    blog: &Requests<M>,
    post_id: &str,
) -> Result<Post, WebError> {
    let me = ctx.require_user()?;
    let post = blog.q2_post(post_id).await?;
    if post.user_id != me.id {
        return Err(WebError::Forbidden);
    }
    Ok(post)
}

pub async fn edit_form<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let post = own_post(&ctx, &blog, &path).await?;
    html(&PostFormPage {
        page: ctx.page("Edit post"),
        action: format!("{}/posts/{}/edit", M::BASE, post.post_id),
        form: PostForm {
            title: post.title,
            content: post.content,
        },
        errors: FieldErrors::default(),
    })
}

pub async fn edit<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
    limit: web::Data<WriteLimit>,
    form: CsrfForm<PostForm>,
) -> Result<HttpResponse, WebError> {
    let post_id = path.into_inner();
    let post = own_post(&ctx, &blog, &post_id).await?;
    limit.0.take(&post.user_id)?;
    let form = form.into_inner();
    let (title, content, errors) = check(&form);
    if !errors.is_empty() {
        return html_status(
            StatusCode::BAD_REQUEST,
            &PostFormPage {
                page: ctx.page("Edit post"),
                action: format!("{}/posts/{post_id}/edit", M::BASE),
                form,
                errors,
            },
        );
    }
    let html = crate::markdown::render(content.clone()).await?;
    blog.c2_edit_post(&post_id, &title, &content, &html).await?;
    ctx.flash("Saved.");
    Ok(see_other(&format!("{}/posts/{post_id}", M::BASE)))
}

#[derive(Template)]
#[template(path = "blog/post.html")]
struct PostPage {
    page: Page,
    post: Post,
    body: String,
    comments: Vec<Comment>,
    /// Each comment's Markdown as sanitized HTML, in order.
    comment_html: Vec<String>,
    pager: Pager,
    mine: bool,
    liked: bool,
    errors: FieldErrors,
}

async fn post_page<M: Version>(
    ctx: &Ctx,
    blog: &Requests<M>,
    post_id: &str,
    paging: &Paging,
    errors: FieldErrors,
) -> Result<HttpResponse, WebError> {
    let post = blog.q2_post(post_id).await?;
    let comments = blog.q4_comments(post_id, paging.page.clone()).await?;
    // "Do I like this?" is a query (the like's id does not name its user): a post nobody likes
    // needs none.
    let liked = match &ctx.user {
        Some(me) if post.like_count > 0 => blog.likes_post(post_id, &me.id).await?,
        _ => false,
    };
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    html_status(
        status,
        &PostPage {
            page: ctx.page(post.title.clone()),
            body: if post.html.is_empty() {
                crate::markdown::render(post.content.clone()).await?
            } else {
                post.html.clone()
            },
            pager: paging.pager(
                &format!("{}/posts/{post_id}", M::BASE),
                &comments.continuation,
            ),
            mine: ctx.user.as_ref().is_some_and(|u| u.id == post.user_id),
            comment_html: crate::markdown::render_comments(
                comments.items.iter().map(|c| c.content.clone()).collect(),
            )
            .await?,
            comments: comments.items,
            post,
            liked,
            errors,
        },
    )
}

pub async fn show<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
    paging: web::Query<Paging>,
) -> Result<HttpResponse, WebError> {
    post_page(&ctx, &blog, &path, &paging, FieldErrors::default()).await
}

#[derive(Deserialize)]
pub struct CommentForm {
    content: String,
}

pub async fn comment<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
    limit: web::Data<WriteLimit>,
    form: CsrfForm<CommentForm>,
) -> Result<HttpResponse, WebError> {
    let me = ctx.require_user()?.clone();
    limit.0.take(&me.id)?;
    let post_id = path.into_inner();
    let mut errors = FieldErrors::default();
    let content = errors.text("content", &form.content, 5_000);
    // Comments are Markdown too, bounded as posts are.
    if let Err(m) = crate::markdown::check_nesting(&content) {
        errors.add("content", m);
    }
    if !errors.is_empty() {
        // The form answers with the first page of comments.
        return post_page(&ctx, &blog, &post_id, &Paging::default(), errors).await;
    }
    let id = Comment::new_id();
    let comment = Comment {
        comment_id: id.clone(),
        id,
        kind: "comment".into(),
        post_id: post_id.clone(),
        user_id: me.id,
        user_username: me.name,
        content,
        creation_date: sitekit::pages::time::now(),
    };
    blog.c3_create_comment(&comment).await?;
    Ok(see_other(&format!("{}/posts/{post_id}#comments", M::BASE)))
}

pub async fn like<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
    _form: CsrfForm<Empty>,
) -> Result<HttpResponse, WebError> {
    let me = ctx.require_user()?.clone();
    let post_id = path.into_inner();
    let like = Like {
        id: Like::new_id(),
        kind: "like".into(),
        post_id: post_id.clone(),
        user_id: me.id,
        user_username: me.name,
        creation_date: sitekit::pages::time::now(),
    };
    if !blog.c4_like(&like).await? {
        ctx.flash("You already like this post.");
    }
    Ok(see_other(&format!("{}/posts/{post_id}", M::BASE)))
}

pub async fn unlike<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
    _form: CsrfForm<Empty>,
) -> Result<HttpResponse, WebError> {
    let me = ctx.require_user()?.clone();
    let post_id = path.into_inner();
    // Make a missing post a 404 rather than "you did not like it".
    blog.q2_post(&post_id).await?;
    if !blog.c4_unlike(&post_id, &me.id).await? {
        ctx.flash("You did not like this post.");
    }
    Ok(see_other(&format!("{}/posts/{post_id}", M::BASE)))
}

#[derive(Template)]
#[template(path = "blog/likes.html")]
struct LikesPage {
    page: Page,
    post_id: String,
    likes: Vec<Like>,
    pager: Pager,
}

pub async fn likes<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    path: web::Path<String>,
    paging: web::Query<Paging>,
) -> Result<HttpResponse, WebError> {
    let post_id = path.into_inner();
    let likes = blog.q5_likes(&post_id, paging.page.clone()).await?;
    html(&LikesPage {
        page: ctx.page("Likes"),
        pager: paging.pager(
            &format!("{}/posts/{post_id}/likes", M::BASE),
            &likes.continuation,
        ),
        post_id,
        likes: likes.items,
    })
}
