//! The cart (in the session) and checkout (the `createOrder` stored procedure).

use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use askama::Template;
use serde::Deserialize;

use crate::access::{self, Db, StoreError};
use crate::cart::{self, CartLine};
use crate::model::{OrderLine, Product, SalesOrder};
use sitekit::accounts::csrf::CsrfForm;
use sitekit::pages::form::FieldErrors;
use sitekit::pages::layout::{html, see_other};
use sitekit::pages::time::iso;
use sitekit::{Ctx, Page, WebError};

/// A cart line with its product as stored now.
struct Line {
    product: Product,
    quantity: u32,
}

impl Line {
    fn subtotal(&self) -> f64 {
        self.product.price * self.quantity as f64
    }
}

/// Reads the cart's products (a point read each); lines whose product is gone are dropped.
async fn priced(db: &Db, lines: &[CartLine]) -> Result<Vec<Line>, WebError> {
    let mut out = Vec::new();
    for l in lines {
        match access::product_by_id::product_by_id(db, &l.category_id, &l.product_id).await {
            Ok(product) => out.push(Line {
                product,
                quantity: l.quantity,
            }),
            Err(access::StoreError::Engine(cosmos::Error::NotFound { .. })) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}

#[derive(Template)]
#[template(path = "webstore/cart.html")]
struct CartPage {
    page: Page,
    lines: Vec<Line>,
    total: f64,
    /// The order this cart becomes (the checkout form carries it).
    order_id: String,
}

pub async fn cart(ctx: Ctx, db: Db) -> Result<HttpResponse, WebError> {
    let lines = priced(&db, &cart::lines(&ctx.session)).await?;
    let total = lines.iter().map(Line::subtotal).sum();
    html(&CartPage {
        page: ctx.page("Your cart"),
        lines,
        total,
        order_id: cart::order_id(&ctx.session).unwrap_or_default(),
    })
}

#[derive(Deserialize)]
pub struct AddForm {
    category_id: String,
    product_id: String,
    /// As typed: the form's `min`/`max` stop a browser, but a hand-made post ("0", "many",
    /// "1e9") is answered with the product page and a message beside the field, not a bare 400.
    #[serde(default = "one")]
    quantity: String,
}

fn one() -> String {
    "1".into()
}

/// A quantity the cart takes (1 to [`cart::MAX_QUANTITY`]), or the message shown beside the
/// field.
fn quantity(typed: &str) -> Result<u32, String> {
    match typed.trim().parse::<u32>() {
        Ok(n) if (1..=cart::MAX_QUANTITY).contains(&n) => Ok(n),
        _ => Err(format!(
            "must be a whole number from 1 to {}",
            cart::MAX_QUANTITY
        )),
    }
}

pub async fn add(ctx: Ctx, db: Db, form: CsrfForm<AddForm>) -> Result<HttpResponse, WebError> {
    // Only real products go into a cart (and this is where a bad id becomes a 404).
    let product =
        access::product_by_id::product_by_id(&db, &form.category_id, &form.product_id).await?;
    let mut errors = FieldErrors::default();
    let added = match quantity(&form.quantity) {
        Ok(n) => cart::add(&ctx.session, &product.category_id, &product.id, n),
        Err(m) => {
            errors.add("quantity", m);
            Ok(())
        }
    };
    match added {
        // A full cart is the form's problem too: said above the form.
        Err(WebError::BadRequest(m)) => errors.add("cart", m),
        Err(e) => return Err(e),
        Ok(()) if errors.is_empty() => {
            ctx.flash(format!("Added {} to your cart.", product.name));
            return Ok(see_other("/cart"));
        }
        Ok(()) => {}
    }
    // The product page again, with what was typed and why it was refused: 400, as a refused
    // sign-up form is.
    super::shop::product_page(
        &ctx,
        StatusCode::BAD_REQUEST,
        product,
        form.into_inner().quantity,
        errors,
    )
}

#[derive(Deserialize)]
pub struct RemoveForm {
    product_id: String,
}

pub async fn remove(ctx: Ctx, form: CsrfForm<RemoveForm>) -> Result<HttpResponse, WebError> {
    cart::remove(&ctx.session, &form.product_id)?;
    Ok(see_other("/cart"))
}

#[derive(Deserialize)]
pub struct CheckoutForm {
    /// The order id the cart page showed: a form from before the cart changed is refused.
    order_id: Option<String>,
}

pub async fn checkout(
    ctx: Ctx,
    db: Db,
    form: CsrfForm<CheckoutForm>,
) -> Result<HttpResponse, WebError> {
    let user = ctx.require_user()?.clone();
    let lines = priced(&db, &cart::lines(&ctx.session)).await?;
    let Some(order_id) = cart::order_id(&ctx.session).filter(|_| !lines.is_empty()) else {
        return Err(WebError::BadRequest("Your cart is empty.".into()));
    };
    if form.order_id.as_ref().is_some_and(|id| *id != order_id) {
        return Err(WebError::BadRequest(
            "Your cart changed since this page was shown: review it and place the order again."
                .into(),
        ));
    }
    let now = chrono::Utc::now().naive_utc();
    let order = SalesOrder {
        id: order_id.clone(),
        kind: "salesOrder".into(),
        customer_id: user.id.clone(),
        order_date: iso(now),
        ship_date: iso(now + chrono::Duration::days(3)),
        details: lines
            .iter()
            .map(|l| OrderLine {
                sku: l.product.sku.clone(),
                name: l.product.name.clone(),
                price: l.product.price,
                quantity: l.quantity,
            })
            .collect(),
    };
    match access::place_order::place_order(&db, &order).await {
        Ok(placed) => {
            cart::clear(&ctx.session);
            ctx.flash("Thank you! Your order is placed.");
            Ok(see_other(&format!("/orders/{}", placed.id)))
        }
        // This cart's order exists: placed by an earlier click (or an earlier copy of this
        // cookie). Show it; never a second one.
        Err(StoreError::Engine(cosmos::Error::Conflict { .. })) => {
            cart::clear(&ctx.session);
            ctx.flash("This cart's order was already placed.");
            Ok(see_other(&format!("/orders/{order_id}")))
        }
        Err(e) => Err(e.into()),
    }
}
