//! Order history and one order, always in the signed-in customer's own partition.

use actix_web::{web, HttpResponse};
use askama::Template;

use crate::access::{self, Db};
use crate::model::{Customer, SalesOrder};
use sitekit::pages::layout::html;
use sitekit::{Ctx, Page, WebError};

#[derive(Template)]
#[template(path = "webstore/orders.html")]
struct OrdersPage {
    page: Page,
    customer: Customer,
    orders: Vec<SalesOrder>,
}

pub async fn orders(ctx: Ctx, db: Db) -> Result<HttpResponse, WebError> {
    let user = ctx.require_user()?;
    let (customer, orders) =
        access::customer_with_orders::customer_with_orders(&db, &user.id).await?;
    html(&OrdersPage {
        page: ctx.page("Your orders"),
        customer,
        orders,
    })
}

#[derive(Template)]
#[template(path = "webstore/order.html")]
struct OrderPage {
    page: Page,
    order: SalesOrder,
}

pub async fn order(ctx: Ctx, db: Db, path: web::Path<String>) -> Result<HttpResponse, WebError> {
    let user = ctx.require_user()?;
    let order = access::order_by_id::order_by_id(&db, &user.id, &path).await?;
    html(&OrderPage {
        page: ctx.page(format!("Order {}", order.id)),
        order,
    })
}
