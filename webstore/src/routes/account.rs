//! Accounts: sign-up, sign-in (by email, throttled, no user enumeration), sign-out, the profile
//! and its embedded addresses.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::access::{self, Db, StoreError};
use crate::model::{Address, Customer};
use sitekit::accounts::auth;
use sitekit::accounts::csrf::{CsrfForm, Empty};
use sitekit::accounts::next::{self, NextQuery};
use sitekit::accounts::signin::{self, Account};
use sitekit::accounts::throttle::{SignInThrottle, SignUpLimit};
use sitekit::pages::form::FieldErrors;
use sitekit::pages::layout::{html, html_status, see_other};
use sitekit::{Ctx, Page, WebError};

#[derive(Debug, Default, Deserialize)]
pub struct SignUpForm {
    #[serde(default)]
    title: String,
    first_name: String,
    last_name: String,
    email: String,
    #[serde(default)]
    phone: String,
    password: String,
}

#[derive(Template)]
#[template(path = "webstore/signup.html")]
struct SignUpPage {
    page: Page,
    form: SignUpForm,
    errors: FieldErrors,
}

pub async fn signup_form(ctx: Ctx) -> Result<HttpResponse, WebError> {
    html(&SignUpPage {
        page: ctx.page("Create an account"),
        form: SignUpForm::default(),
        errors: FieldErrors::default(),
    })
}

pub async fn signup(
    ctx: Ctx,
    db: Db,
    req: HttpRequest,
    limit: web::Data<SignUpLimit>,
    form: CsrfForm<SignUpForm>,
) -> Result<HttpResponse, WebError> {
    limit.0.take(&auth::client_address(&req))?;
    let mut form = form.into_inner();
    let mut errors = FieldErrors::default();
    let title = errors.optional("title", &form.title, 10);
    let first_name = errors.text("first_name", &form.first_name, 60);
    let last_name = errors.text("last_name", &form.last_name, 60);
    let email = errors.email("email", &form.email);
    let phone = errors.optional("phone", &form.phone, 30);
    errors.new_password("password", &form.password);
    let password = std::mem::take(&mut form.password);
    let show = |ctx: &Ctx, form: SignUpForm, errors: FieldErrors, status| {
        html_status(
            status,
            &SignUpPage {
                page: ctx.page("Create an account"),
                form,
                errors,
            },
        )
    };
    if !errors.is_empty() {
        return show(&ctx, form, errors, StatusCode::BAD_REQUEST);
    }
    let id = format!("cust-{:016x}", rand::random::<u64>());
    let customer = Customer {
        id: id.clone(),
        kind: "customer".into(),
        customer_id: id.clone(),
        title,
        first_name,
        last_name,
        email_address: email,
        phone_number: phone,
        creation_date: sitekit::pages::time::now(),
        addresses: Vec::new(),
        password: auth::hash_password(password).await?,
        sales_order_count: 0,
        admin: false,
    };
    match access::create_customer::create_customer(&db, customer).await {
        Ok(c) => {
            ctx.sign_in(&c.customer_id).await?;
            ctx.flash("Welcome! Your account is ready.");
            Ok(see_other("/account"))
        }
        Err(StoreError::Taken(_)) => {
            errors.add("email", "already has an account: sign in instead");
            show(&ctx, form, errors, StatusCode::CONFLICT)
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct SignInForm {
    email: String,
    password: String,
    /// Where to return (sitekit::accounts::next): the page that sent the visitor here.
    #[serde(default)]
    next: Option<String>,
}

#[derive(Template)]
#[template(path = "webstore/signin.html")]
struct SignInPage {
    page: Page,
    email: String,
    error: String,
    /// A local path to return to, or "".
    next: String,
}

/// The form; someone already signed in goes on to where it would have led.
pub async fn signin_form(ctx: Ctx, query: web::Query<NextQuery>) -> Result<HttpResponse, WebError> {
    if ctx.user.is_some() {
        return Ok(see_other(next::or(query.next.as_deref(), "/")));
    }
    html(&SignInPage {
        page: ctx.page("Sign in"),
        email: String::new(),
        error: String::new(),
        next: query.local(),
    })
}

pub async fn signin(
    ctx: Ctx,
    db: Db,
    req: HttpRequest,
    throttle: web::Data<SignInThrottle>,
    form: CsrfForm<SignInForm>,
) -> Result<HttpResponse, WebError> {
    let form = form.into_inner();
    let email = form.email.trim().to_lowercase();
    let lookup = || async {
        // The sign-up rule: an address it refuses has no account.
        if sitekit::accounts::names::check_email(&email).is_err() {
            return Ok(None);
        }
        let customer = access::customer_by_email::customer_by_email(&db, &email).await?;
        Ok(customer.map(|c| Account {
            id: c.customer_id.clone(),
            password_hash: c.password.clone(),
            record: c,
        }))
    };
    match signin::sign_in(&ctx, &req, &throttle, &email, form.password, lookup).await? {
        Some(customer) => Ok(see_other(next::or(
            form.next.as_deref(),
            if customer.admin {
                "/admin/customers/top"
            } else {
                "/"
            },
        ))),
        // The same answer whether the address or the password was wrong.
        None => html_status(
            StatusCode::UNAUTHORIZED,
            &SignInPage {
                page: ctx.page("Sign in"),
                email,
                error: "Wrong email or password.".into(),
                next: NextQuery { next: form.next }.local(),
            },
        ),
    }
}

pub async fn signout(ctx: Ctx, _form: CsrfForm<Empty>) -> Result<HttpResponse, WebError> {
    ctx.sign_out().await?;
    Ok(see_other("/"))
}

/// Ends every session of the account, on every browser (a lost phone, a shared computer).
pub async fn signout_everywhere(
    ctx: Ctx,
    _form: CsrfForm<Empty>,
) -> Result<HttpResponse, WebError> {
    ctx.sign_out_everywhere().await?;
    Ok(see_other("/signin"))
}

#[derive(Debug, Default, Deserialize)]
pub struct AddressForm {
    address_line1: String,
    #[serde(default)]
    address_line2: String,
    city: String,
    #[serde(default)]
    state: String,
    country: String,
    zip_code: String,
}

#[derive(Template)]
#[template(path = "webstore/account.html")]
struct AccountPage {
    page: Page,
    customer: Customer,
    form: AddressForm,
    errors: FieldErrors,
    max_addresses: usize,
}

pub async fn account(ctx: Ctx, db: Db) -> Result<HttpResponse, WebError> {
    let user = ctx.require_user()?;
    let customer = access::customer_by_id::customer_by_id(&db, &user.id).await?;
    html(&AccountPage {
        page: ctx.page("Your account"),
        customer,
        form: AddressForm::default(),
        errors: FieldErrors::default(),
        max_addresses: access::add_address::MAX_ADDRESSES,
    })
}

pub async fn add_address(
    ctx: Ctx,
    db: Db,
    form: CsrfForm<AddressForm>,
) -> Result<HttpResponse, WebError> {
    let user = ctx.require_user()?.clone();
    let form = form.into_inner();
    let mut errors = FieldErrors::default();
    let address = Address {
        address_line1: errors.text("address_line1", &form.address_line1, 100),
        address_line2: errors.optional("address_line2", &form.address_line2, 100),
        city: errors.text("city", &form.city, 60),
        state: errors.optional("state", &form.state, 60),
        country: errors.text("country", &form.country, 60),
        zip_code: errors.text("zip_code", &form.zip_code, 20),
    };
    if errors.is_empty() {
        match access::add_address::add_address(&db, &user.id, address).await {
            Ok(_) => {
                ctx.flash("Address added.");
                return Ok(see_other("/account"));
            }
            Err(StoreError::Invalid(m)) => errors.add("addresses", m),
            Err(e) => return Err(e.into()),
        }
    }
    let customer = access::customer_by_id::customer_by_id(&db, &user.id).await?;
    html_status(
        StatusCode::BAD_REQUEST,
        &AccountPage {
            page: ctx.page("Your account"),
            customer,
            form,
            errors,
            max_addresses: access::add_address::MAX_ADDRESSES,
        },
    )
}
