//! Sign-up (C1), sign-in, sign-out and the account page (C1: edit the username).

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::access::BlogError;
use crate::model::User;
use crate::requests::Requests;
use crate::versions::{Version, Workers};
use sitekit::accounts::auth;
use sitekit::accounts::csrf::{CsrfForm, Empty};
use sitekit::accounts::next::{self, NextQuery};
use sitekit::accounts::signin::{self, Account};
use sitekit::accounts::throttle::{SignInThrottle, SignUpLimit};
use sitekit::background::propagation::{self, Progress, Propagations};
use sitekit::pages::form::FieldErrors;
use sitekit::pages::layout::{html, html_status, see_other};
use sitekit::{Ctx, Page, WebError};

#[derive(Debug, Default, Deserialize)]
pub struct SignUpForm {
    username: String,
    password: String,
}

#[derive(Template)]
#[template(path = "blog/signup.html")]
struct SignUpPage {
    page: Page,
    username: String,
    errors: FieldErrors,
}

pub async fn signup_form(ctx: Ctx) -> Result<HttpResponse, WebError> {
    html(&SignUpPage {
        page: ctx.page("Join"),
        username: String::new(),
        errors: FieldErrors::default(),
    })
}

pub async fn signup<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    req: HttpRequest,
    limit: web::Data<SignUpLimit>,
    form: CsrfForm<SignUpForm>,
) -> Result<HttpResponse, WebError> {
    limit.0.take(&auth::client_address(&req))?;
    let form = form.into_inner();
    let mut errors = FieldErrors::default();
    let username = errors.username("username", &form.username);
    errors.new_password("password", &form.password);
    if !errors.is_empty() {
        return html_status(
            StatusCode::BAD_REQUEST,
            &SignUpPage {
                page: ctx.page("Join"),
                username,
                errors,
            },
        );
    }
    let id = format!("user-{:016x}", rand::random::<u64>());
    let user = User {
        id: id.clone(),
        kind: "user".into(),
        user_id: id,
        username: username.clone(),
        password: auth::hash_password(form.password).await?,
        creation_date: sitekit::pages::time::now(),
        username_version: 0,
        propagated_version: 0,
        propagated_at: None,
        renaming: None,
    };
    match blog.c1_create_user(user).await {
        Ok(u) => {
            ctx.sign_in(&u.user_id).await?;
            ctx.flash("Welcome! Write your first post.");
            Ok(see_other(&format!("{}/posts/new", M::BASE)))
        }
        Err(BlogError::Taken(_)) => {
            errors.add("username", "is taken");
            html_status(
                StatusCode::CONFLICT,
                &SignUpPage {
                    page: ctx.page("Join"),
                    username,
                    errors,
                },
            )
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, Deserialize)]
pub struct SignInForm {
    username: String,
    password: String,
    /// Where to return (sitekit::accounts::next): the page that sent the visitor here.
    #[serde(default)]
    next: Option<String>,
}

#[derive(Template)]
#[template(path = "blog/signin.html")]
struct SignInPage {
    page: Page,
    username: String,
    error: String,
    /// A local path to return to, or "".
    next: String,
}

/// The form; someone already signed in goes on to where it would have led.
pub async fn signin_form(ctx: Ctx, query: web::Query<NextQuery>) -> Result<HttpResponse, WebError> {
    if ctx.user.is_some() {
        return Ok(see_other(next::or(
            query.next.as_deref(),
            &format!("{}/", ctx.base()),
        )));
    }
    html(&SignInPage {
        page: ctx.page("Sign in"),
        username: String::new(),
        error: String::new(),
        next: query.local(),
    })
}

pub async fn signin<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    req: HttpRequest,
    throttle: web::Data<SignInThrottle>,
    form: CsrfForm<SignInForm>,
) -> Result<HttpResponse, WebError> {
    let form = form.into_inner();
    let name = form.username.trim().to_owned();
    let lookup = || async {
        // The sign-up rule: a name it refuses has no account.
        if sitekit::accounts::names::check_username(&name).is_err() {
            return Ok(None);
        }
        let user = blog.user_by_username(&name).await?;
        Ok(user.map(|u| Account {
            id: u.user_id.clone(),
            password_hash: u.password.clone(),
            record: (),
        }))
    };
    let key = sitekit::accounts::names::fold(&name);
    match signin::sign_in(&ctx, &req, &throttle, &key, form.password, lookup).await? {
        Some(()) => Ok(see_other(next::or(
            form.next.as_deref(),
            &format!("{}/", M::BASE),
        ))),
        None => html_status(
            StatusCode::UNAUTHORIZED,
            &SignInPage {
                page: ctx.page("Sign in"),
                username: name,
                error: "Wrong username or password.".into(),
                next: NextQuery { next: form.next }.local(),
            },
        ),
    }
}

pub async fn signout<M: Version>(
    ctx: Ctx,
    _form: CsrfForm<Empty>,
) -> Result<HttpResponse, WebError> {
    ctx.sign_out().await?;
    Ok(see_other(&format!("{}/", M::BASE)))
}

/// Ends every session of the account, on every browser.
pub async fn signout_everywhere<M: Version>(
    ctx: Ctx,
    _form: CsrfForm<Empty>,
) -> Result<HttpResponse, WebError> {
    ctx.sign_out_everywhere().await?;
    Ok(see_other(&format!("{}/signin", M::BASE)))
}

#[derive(Template)]
#[template(path = "blog/account.html")]
struct AccountPage {
    page: Page,
    user: User,
    propagated: bool,
    /// What the username worker rewrote and spent for the current name, once it reported.
    progress: Option<Progress>,
    username: String,
    errors: FieldErrors,
}

async fn account_page<M: Version>(
    ctx: &Ctx,
    blog: &Requests<M>,
    workers: &Workers,
    progress: &Propagations,
    username: Option<String>,
    errors: FieldErrors,
) -> Result<HttpResponse, WebError> {
    let me = ctx.require_user()?;
    let user = blog.q1_user(&me.id).await?;
    // After the username worker is done, the copies of the posts (`users`, `feed`) follow
    // through the posts' change feed moments later.
    let propagated = user.propagated_version >= user.username_version
        && workers.pending_after(user.propagated_at).await? == 0;
    // What the worker reported for the current name (none before a first change).
    let progress = match user.username_version > 0 {
        true => {
            progress
                .load(&propagation::key("username", &user.user_id, &user.username))
                .await?
        }
        false => None,
    };
    let status = if errors.is_empty() {
        StatusCode::OK
    } else if errors.get("username") == "is taken" {
        StatusCode::CONFLICT
    } else {
        StatusCode::BAD_REQUEST
    };
    html_status(
        status,
        &AccountPage {
            page: ctx.page("Your account"),
            username: username.unwrap_or_else(|| user.username.clone()),
            propagated,
            progress,
            user,
            errors,
        },
    )
}

pub async fn account<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    workers: web::Data<Workers>,
    progress: web::Data<Propagations>,
) -> Result<HttpResponse, WebError> {
    account_page(
        &ctx,
        &blog,
        &workers,
        &progress,
        None,
        FieldErrors::default(),
    )
    .await
}

#[derive(Deserialize)]
pub struct RenameForm {
    username: String,
}

pub async fn rename<M: Version>(
    ctx: Ctx,
    blog: Requests<M>,
    workers: web::Data<Workers>,
    progress: web::Data<Propagations>,
    form: CsrfForm<RenameForm>,
) -> Result<HttpResponse, WebError> {
    let me = ctx.require_user()?.clone();
    let mut errors = FieldErrors::default();
    let username = errors.username("username", &form.username);
    if errors.is_empty() && username != me.name {
        match blog.c1_change_username(&me.id, &username).await {
            Ok(_) => {
                ctx.flash("Username changed. Your posts, comments and likes are being updated.");
                return Ok(see_other(&format!("{}/account", M::BASE)));
            }
            Err(BlogError::Taken(_)) => errors.add("username", "is taken"),
            Err(BlogError::Invalid(m)) => errors.add("username", m),
            Err(e) => return Err(e.into()),
        }
    }
    if errors.is_empty() {
        return Ok(see_other(&format!("{}/account", M::BASE)));
    }
    account_page(&ctx, &blog, &workers, &progress, Some(username), errors).await
}
