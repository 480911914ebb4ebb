//! A query's rows as the caller's type `T`, built on the storage thread: a stored item passed
//! through is deserialized into `T` straight from the mapped page ([`decode_stored`]), a value
//! the engine computed goes `Value` → `T` ([`into_items`]). The caller's async thread receives
//! the `Vec<T>` and does no JSON work (issue 36).

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::sql::run::Row;

/// `T` from a stored item's JSON, on the storage thread (a `sql::run::DecodeRow`). `None`
/// leaves the item to [`stored_row`], whose error says why it did not fit.
pub(crate) fn decode_stored<T: DeserializeOwned + Send + 'static>(text: &str) -> Option<Row> {
    let row: T = serde_json::from_str(text).ok()?;
    Some(Row::Typed(Box::new(row)))
}

/// The page's rows as `T`, in order: what [`decode_stored`] built, the engine's values
/// converted, the items it could not decode reported (damage 500, a misfit 400).
pub(crate) fn into_items<T: DeserializeOwned + 'static>(rows: Vec<Row>) -> Result<Vec<T>> {
    rows.into_iter()
        .map(|row| match row {
            Row::Typed(any) => Ok(*any
                .downcast::<T>()
                .expect("rows are decoded as the type of the query that asked for them")),
            Row::Value(v) => typed::<T>(v),
            Row::Json(bytes) => stored_row::<T>(&bytes),
        })
        .collect()
}

/// A result row as `T`; a `Value` is handed over as it is, without a copy.
fn typed<T: DeserializeOwned + 'static>(v: Value) -> Result<T> {
    let mut slot = Some(v);
    let any: &mut dyn std::any::Any = &mut slot;
    if let Some(t) = any.downcast_mut::<Option<T>>() {
        return Ok(t.take().expect("just filled"));
    }
    let v = slot.expect("not taken");
    serde_json::from_value(v).map_err(|e| {
        Error::bad(
            "query",
            format!("a result does not fit the requested type: {e}"),
        )
    })
}

/// A stored item passed through as a result row that [`decode_stored`] could not build: bytes
/// that are not JSON are damage (500), JSON that does not fit `T` is the caller's type (400).
fn stored_row<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let damaged = |why: String| {
        Error::Corrupt(format!(
            "a stored item {why}: the data file is damaged; run `engine check`, restore from a backup"
        ))
    };
    // Validated once as a whole, then parsed as text (cheaper than per string).
    let text = std::str::from_utf8(bytes).map_err(|e| damaged(format!("is not UTF-8 ({e})")))?;
    serde_json::from_str(text).map_err(|e| {
        if e.is_syntax() || e.is_eof() {
            damaged(format!("does not parse as JSON ({e})"))
        } else {
            Error::bad(
                "query",
                format!("a result does not fit the requested type: {e}"),
            )
        }
    })
}
