//! `x-ms-alt-content-path` on a container's answers: the owner's path by name
//! (`dbs/{db}/colls/{container}`). The SDKs' session containers key their session tokens by it
//! (the Python SDK's `_session.py` keeps no token for a response without it, and so sends none
//! back), as the service's answers carry it.

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::HttpResponse;

/// Sets the header on the answer to a request below container `c` of database `db` (names as
/// the request gave them; a name a header cannot carry leaves it out).
pub(crate) fn name_the_owner(db: &str, c: &str, response: &mut HttpResponse) {
    if let Ok(v) = HeaderValue::from_str(&format!("dbs/{db}/colls/{c}")) {
        response
            .headers_mut()
            .insert(HeaderName::from_static("x-ms-alt-content-path"), v);
    }
}
