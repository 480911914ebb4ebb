//! The cart lives in the session cookie (small, signed and encrypted), so it works before sign-in
//! and survives it; it holds references only — prices are read from the products at checkout.
//! Each cart has an id, chosen when its first line is added: the order placed from it takes that
//! id, so one cart makes at most one order — a double-clicked "Place order", twenty concurrent
//! checkouts or a cookie replayed after checkout all meet the engine's 409 on the second create.

use actix_session::Session;
use serde::{Deserialize, Serialize};

use sitekit::WebError;

/// Lines in a cart; keeps the cookie well under 4 KB.
pub const MAX_LINES: usize = 20;
pub const MAX_QUANTITY: u32 = 99;
const KEY: &str = "cart";
const ID_KEY: &str = "cart_id";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CartLine {
    pub category_id: String,
    pub product_id: String,
    pub quantity: u32,
}

pub fn lines(session: &Session) -> Vec<CartLine> {
    session
        .get::<Vec<CartLine>>(KEY)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Saves the lines under a new cart id: a changed cart is a new order-to-be, so a checkout form
/// shown before the change no longer matches it.
fn save(session: &Session, lines: &[CartLine]) -> Result<(), WebError> {
    let id = format!("{:016x}", rand::random::<u64>());
    session
        .insert(KEY, lines)
        .and_then(|_| session.insert(ID_KEY, id))
        .map_err(|e| WebError::Internal(format!("session: {e}")))
}

pub fn add(
    session: &Session,
    category_id: &str,
    product_id: &str,
    quantity: u32,
) -> Result<(), WebError> {
    if !(1..=MAX_QUANTITY).contains(&quantity) {
        return Err(WebError::BadRequest(format!(
            "The quantity must be between 1 and {MAX_QUANTITY}."
        )));
    }
    let mut cart = lines(session);
    let full = cart.len() >= MAX_LINES;
    match cart
        .iter_mut()
        .find(|l| l.product_id == product_id && l.category_id == category_id)
    {
        Some(line) => line.quantity = (line.quantity + quantity).min(MAX_QUANTITY),
        None if full => {
            return Err(WebError::BadRequest(format!(
                "A cart holds at most {MAX_LINES} different products."
            )))
        }
        None => cart.push(CartLine {
            category_id: category_id.to_owned(),
            product_id: product_id.to_owned(),
            quantity,
        }),
    }
    save(session, &cart)
}

/// The cart's id (none until something is added; new after every change).
pub fn id(session: &Session) -> Option<String> {
    session.get::<String>(ID_KEY).ok().flatten()
}

/// The id of the order this cart becomes.
pub fn order_id(session: &Session) -> Option<String> {
    id(session).map(|id| format!("order-{id}"))
}

pub fn remove(session: &Session, product_id: &str) -> Result<(), WebError> {
    let mut cart = lines(session);
    cart.retain(|l| l.product_id != product_id);
    save(session, &cart)
}

pub fn clear(session: &Session) {
    session.remove(KEY);
    session.remove(ID_KEY);
}
