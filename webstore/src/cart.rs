//! The cart lives in the session cookie (small, signed and encrypted), so it works before sign-in
//! and survives it; it holds references only — prices are read from the products at checkout.

use actix_session::Session;
use serde::{Deserialize, Serialize};

use sitekit::WebError;

/// Lines in a cart; keeps the cookie well under 4 KB.
pub const MAX_LINES: usize = 20;
pub const MAX_QUANTITY: u32 = 99;
const KEY: &str = "cart";

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

fn save(session: &Session, lines: &[CartLine]) -> Result<(), WebError> {
    session
        .insert(KEY, lines)
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

pub fn remove(session: &Session, product_id: &str) -> Result<(), WebError> {
    let mut cart = lines(session);
    cart.retain(|l| l.product_id != product_id);
    save(session, &cart)
}

pub fn clear(session: &Session) {
    session.remove(KEY);
}
