//! The names the gateway answers to. The default key is the emulator's published one, so a web
//! page that rebinds its own name to 127.0.0.1 (DNS rebinding) could sign its own requests: they
//! carry that name in `Host`, and any cross-origin call an `Origin`. Both are checked before
//! the signature, against loopback, the address bound and `GatewayOptions::allowed_hosts`. No
//! answer carries `Access-Control-Allow-*`, so no browser lets a page of another origin read one.

use actix_web::HttpRequest;
use netguard::hosts::Refused;
use netguard::AllowedHosts;

use crate::error::GatewayError;
use crate::headers;

const GIVE_NAMES: &str = "To use the gateway under another name, start it with --gateway-host \
                          NAME (GATEWAY_HOST; `engine serve --host NAME`).";

pub(crate) fn check(hosts: &AllowedHosts, req: &HttpRequest) -> Result<(), GatewayError> {
    let host = headers::get(req.headers(), "host");
    // HTTP/2 names the host in `:authority` (the target's authority), HTTP/1.1 in `Host`.
    match hosts.check(host, req.uri().authority().map(|a| a.as_str())) {
        Ok(()) => {}
        Err(Refused::Foreign(name)) => {
            return Err(GatewayError::Forbidden(format!(
                "This gateway does not answer to the host {name:?}: it answers to localhost, \
                 127.0.0.1, [::1] and the names it was given, so that a web page under another \
                 name (DNS rebinding) cannot use the account. {GIVE_NAMES}"
            )))
        }
        Err(Refused::Missing) => {
            return Err(GatewayError::Forbidden(format!(
                "The request names no host (Host header): the gateway answers to localhost, \
                 127.0.0.1, [::1] and the names it was given. {GIVE_NAMES}"
            )))
        }
    }
    match req.headers().get("origin") {
        None => Ok(()),
        Some(origin) if origin.to_str().is_ok_and(|o| hosts.allows_origin(o)) => Ok(()),
        Some(origin) => Err(GatewayError::Forbidden(format!(
            "Requests from web pages of other origins are refused (Origin {origin:?}): the \
             gateway allows no cross-origin (CORS) use but from pages under the names it \
             answers to. {GIVE_NAMES}"
        ))),
    }
}
