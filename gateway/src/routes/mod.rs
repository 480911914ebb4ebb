//! One handler for every path: Cosmos DB's paths nest ids that may hold any character the SDKs
//! percent-encode, and the signature covers the decoded path, so the gateway parses the path
//! itself, checks the signature, reads the body within the limits, then dispatches.

mod account;
mod batch;
mod batch_ops;
mod bulk;
mod changefeed;
mod client_keys;
mod conflicts;
mod containers;
mod databases;
mod items;
mod links;
mod offers;
mod owner;
mod pages;
mod permissions;
mod pkranges;
mod queries;
mod query_plan;
mod query_ranges;
mod resource_query;
mod scope;
mod scripts;
mod throughput;
mod users;

use std::sync::Arc;

use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse};

use crate::error::{GatewayError, Result};
use crate::headers;
use crate::request::Ctx;
use crate::state::State;
use crate::{auth, hosts, limits, paths, resource_token};

pub(crate) async fn dispatch(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<Arc<State>>,
) -> Result<HttpResponse> {
    hosts::check(&state.hosts, &req)?;
    let h = req.headers();
    headers::check_values(h)?;
    let target = paths::parse(req.uri().path())?;
    let authorization = headers::get(h, "authorization");
    // A resource token (a permission's `_token`) grants what its permission does, checked once
    // the path is of names (below); anything else is a master-key signature.
    let grant = match authorization {
        Some(token) if resource_token::is_resource_token(authorization) => {
            Some(resource_token::verify(&state.engine, &state.key, token)?)
        }
        _ => {
            auth::verify(
                &state.key,
                &auth::Signed {
                    verb: req.method().as_str(),
                    resource_type: &target.resource_type,
                    link: &target.link,
                    authorization,
                    x_ms_date: headers::get(h, "x-ms-date"),
                    date: headers::get(h, "date"),
                },
                std::time::SystemTime::now(),
            )?;
            None
        }
    };
    let declared = headers::get(h, "content-length").and_then(|v| v.parse::<usize>().ok());
    let method = req.method().clone();
    let body = if matches!(method, Method::POST | Method::PUT | Method::PATCH) {
        limits::read_body(payload, declared, &state.limits).await?
    } else {
        Vec::new()
    };
    let ctx = Ctx {
        req: &req,
        state: &state,
        body,
    };
    let named = links::to_names(&ctx, target.segments).await?;
    let segs: Vec<&str> = named.iter().map(String::as_str).collect();
    if let Some(grant) = &grant {
        resource_token::authorize(grant, method.as_str(), &segs, is_query(&ctx), ctx.headers())?;
    }
    links::check_intended_container(&ctx, &segs)?;
    if let ["dbs", _, "colls", _, "docs", ..] = segs.as_slice() {
        crate::session::check(&ctx)?;
    }
    let mut response = route(&ctx, &method, &segs).await?;
    if method == Method::DELETE {
        crate::autoscale::after_delete(&state.autoscale, &state.engine, &segs);
        crate::client_keys::after_delete(&state.client_keys, &state.engine, &segs);
    }
    crate::session::content_location(&ctx, &mut response);
    if let ["dbs", db, "colls", c, _, ..] = segs.as_slice() {
        crate::session::stamp(&ctx, db, c, &mut response);
        pkranges::name_the_range(&ctx, db, c, &mut response);
        owner::name_the_owner(db, c, &mut response);
    }
    Ok(response)
}

async fn route(ctx: &Ctx<'_>, method: &Method, segs: &[&str]) -> Result<HttpResponse> {
    let m = method.as_str();
    match (m, segs) {
        ("GET", []) => account::read(ctx),
        ("GET", ["dbs"]) => databases::list(ctx),
        ("POST", ["dbs"]) if is_query(ctx) => databases::query(ctx),
        ("POST", ["dbs"]) => databases::create(ctx).await,
        ("GET", ["dbs", db]) => databases::read(ctx, db),
        ("DELETE", ["dbs", db]) => databases::delete(ctx, db).await,
        ("GET", ["dbs", db, "colls"]) => containers::list(ctx, db),
        ("POST", ["dbs", db, "colls"]) if is_query(ctx) => containers::query(ctx, db),
        ("POST", ["dbs", db, "colls"]) => containers::create(ctx, db).await,
        ("GET", ["dbs", db, "colls", c]) => containers::read(ctx, db, c),
        ("PUT", ["dbs", db, "colls", c]) => containers::replace(ctx, db, c).await,
        ("DELETE", ["dbs", db, "colls", c]) => containers::delete(ctx, db, c).await,
        ("GET", ["dbs", db, "colls", c, "pkranges"]) => pkranges::list(ctx, db, c),
        ("POST", ["dbs", db, "colls", c, "operations", "partitionkeydelete"]) => {
            items::delete_partition(ctx, db, c).await
        }
        ("GET", ["dbs", db, "colls", c, "docs"]) if changefeed::is_change_feed(ctx) => {
            changefeed::read(ctx, db, c).await
        }
        ("GET", ["dbs", db, "colls", c, "docs"]) => items::read_feed(ctx, db, c).await,
        ("POST", ["dbs", db, "colls", c, "docs"]) if is_query(ctx) => {
            queries::query(ctx, db, c).await
        }
        ("POST", ["dbs", db, "colls", c, "docs"]) if batch::is_batch(ctx) && bulk::is_bulk(ctx) => {
            bulk::execute(ctx, db, c).await
        }
        ("POST", ["dbs", db, "colls", c, "docs"]) if batch::is_batch(ctx) => {
            batch::execute(ctx, db, c).await
        }
        ("POST", ["dbs", db, "colls", c, "docs"]) => items::create(ctx, db, c).await,
        ("GET", ["dbs", db, "colls", c, "docs", id]) => items::read(ctx, db, c, id).await,
        ("PUT", ["dbs", db, "colls", c, "docs", id]) => items::replace(ctx, db, c, id).await,
        ("DELETE", ["dbs", db, "colls", c, "docs", id]) => items::delete(ctx, db, c, id).await,
        ("PATCH", ["dbs", db, "colls", c, "docs", id]) => items::patch(ctx, db, c, id).await,
        ("GET", ["offers"]) => offers::list(ctx),
        ("POST", ["offers"]) => offers::query(ctx),
        ("GET", ["offers", id]) => offers::read(ctx, id),
        ("PUT", ["offers", id]) => offers::replace(ctx, id).await,
        ("GET", ["dbs", db, "colls", c, kind]) if is_script(kind) => {
            scripts::list(ctx, db, c, kind)
        }
        ("POST", ["dbs", db, "colls", c, kind]) if is_script(kind) && is_query(ctx) => {
            scripts::query(ctx, db, c, kind)
        }
        ("POST", ["dbs", db, "colls", c, kind]) if is_script(kind) => {
            scripts::write(ctx, db, c, kind, None).await
        }
        ("GET", ["dbs", db, "colls", c, kind, id]) if is_script(kind) => {
            scripts::read(ctx, db, c, kind, id)
        }
        ("PUT", ["dbs", db, "colls", c, kind, id]) if is_script(kind) => {
            scripts::write(ctx, db, c, kind, Some(id)).await
        }
        ("DELETE", ["dbs", db, "colls", c, kind, id]) if is_script(kind) => {
            scripts::delete(ctx, db, c, kind, id)
        }
        ("POST", ["dbs", db, "colls", c, "sprocs", id]) => scripts::execute(ctx, db, c, id).await,
        ("GET", ["dbs", db, "colls", c, "conflicts"]) => conflicts::list(ctx, db, c),
        ("POST", ["dbs", db, "colls", c, "conflicts"]) if is_query(ctx) => {
            conflicts::query(ctx, db, c)
        }
        ("GET" | "DELETE", ["dbs", db, "colls", c, "conflicts", id]) => {
            conflicts::one(ctx, db, c, id)
        }
        ("GET", ["dbs", db, "users"]) => users::list(ctx, db),
        ("POST", ["dbs", db, "users"]) if is_query(ctx) => users::query(ctx, db),
        ("POST", ["dbs", db, "users"]) => users::create(ctx, db).await,
        ("GET", ["dbs", db, "users", u]) => users::read(ctx, db, u),
        ("PUT", ["dbs", db, "users", u]) => users::replace(ctx, db, u).await,
        ("DELETE", ["dbs", db, "users", u]) => users::delete(ctx, db, u).await,
        ("GET", ["dbs", db, "users", u, "permissions"]) => permissions::list(ctx, db, u),
        ("POST", ["dbs", db, "users", u, "permissions"]) if is_query(ctx) => {
            permissions::query(ctx, db, u)
        }
        ("POST", ["dbs", db, "users", u, "permissions"]) => permissions::create(ctx, db, u).await,
        ("GET", ["dbs", db, "users", u, "permissions", p]) => permissions::read(ctx, db, u, p),
        ("PUT", ["dbs", db, "users", u, "permissions", p]) => {
            permissions::replace(ctx, db, u, p).await
        }
        ("DELETE", ["dbs", db, "users", u, "permissions", p]) => {
            permissions::delete(ctx, db, u, p).await
        }
        ("GET", ["dbs", db, "clientencryptionkeys"]) => client_keys::list(ctx, db),
        ("POST", ["dbs", db, "clientencryptionkeys"]) if is_query(ctx) => {
            client_keys::query(ctx, db)
        }
        ("POST", ["dbs", db, "clientencryptionkeys"]) => client_keys::create(ctx, db),
        ("GET", ["dbs", db, "clientencryptionkeys", k]) => client_keys::read(ctx, db, k),
        ("PUT", ["dbs", db, "clientencryptionkeys", k]) => client_keys::replace(ctx, db, k),
        (_, ["dbs", _, "colls", _, "docs", _, "attachments", ..]) => {
            Err(unsupported("attachments"))
        }
        _ if known_path(segs) => Err(GatewayError::MethodNotAllowed(format!(
            "{m} is not an operation on /{}",
            segs.join("/")
        ))),
        _ => Err(GatewayError::NotFound(format!(
            "Resource Not Found: /{} is no resource path of the Cosmos DB REST API.",
            segs.join("/")
        ))),
    }
}

fn known_path(segs: &[&str]) -> bool {
    matches!(
        segs,
        [] | ["dbs"]
            | ["dbs", _]
            | ["dbs", _, "colls"]
            | ["dbs", _, "colls", _]
            | ["dbs", _, "colls", _, "docs"]
            | ["dbs", _, "colls", _, "docs", _]
            | ["dbs", _, "colls", _, "pkranges"]
            | ["dbs", _, "colls", _, "conflicts"]
            | ["dbs", _, "colls", _, "conflicts", _]
            | ["dbs", _, "colls", _, "sprocs" | "triggers" | "udfs"]
            | ["dbs", _, "colls", _, "sprocs" | "triggers" | "udfs", _]
            | ["offers"]
            | ["offers", _]
            | ["dbs", _, "users"]
            | ["dbs", _, "users", _]
            | ["dbs", _, "users", _, "permissions"]
            | ["dbs", _, "users", _, "permissions", _]
            | ["dbs", _, "clientencryptionkeys"]
            | ["dbs", _, "clientencryptionkeys", _]
    )
}

fn is_script(kind: &str) -> bool {
    matches!(kind, "sprocs" | "triggers" | "udfs")
}

fn is_query(ctx: &Ctx) -> bool {
    headers::flag(ctx.headers(), headers::IS_QUERY)
        || headers::flag(ctx.headers(), headers::IS_QUERY_PLAN)
        || headers::get(ctx.headers(), "content-type").is_some_and(|t| {
            t.starts_with("application/query+json") || t.starts_with("application/sql")
        })
}

pub(crate) fn unsupported(what: &str) -> GatewayError {
    GatewayError::NotSupported(format!(
        "This gateway does not serve {what} yet (see gateway/PROTOCOL.md)."
    ))
}
