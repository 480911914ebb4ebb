//! Signed REST requests for what the official Rust SDK (`azure_data_cosmos` 1.0) has no call
//! for: registering and executing stored procedures, registering triggers, writes that run
//! triggers, and patch (the SDK's is behind its `unstable_patch` feature and adds a tracking
//! property to every patched item). Each is the documented request of the Cosmos DB REST API,
//! signed with the account key as the SDKs sign theirs (`masterkey`, shared with the gateway).

use std::time::{Duration, SystemTime};

use masterkey::MasterKey;
use serde_json::{json, Value};

use super::errors;
use crate::{Error, Failed, PartitionKey, PatchOperation, Result};

/// The REST API version these requests speak (the SDKs' current one).
const API_VERSION: &str = "2020-07-15";

pub(crate) struct Rest {
    http: reqwest::Client,
    endpoint: String,
    key: MasterKey,
}

/// What a request answered.
pub(crate) struct Answer {
    pub body: Value,
    pub charge: f64,
    pub etag: Option<String>,
    pub status: u16,
}

/// The item writes that can run triggers.
pub(crate) enum Write<'a> {
    Create(&'a Value),
    Upsert(&'a Value),
    Replace { id: &'a str, doc: &'a Value },
    Delete { id: &'a str },
}

impl Rest {
    /// `accept_invalid_certs`: the emulator and the gateway's `--tls` use self-signed
    /// certificates; only for loopback endpoints (the caller decides).
    pub fn new(endpoint: &str, key_base64: &str, accept_invalid_certs: bool) -> Result<Self> {
        let key =
            MasterKey::from_base64(key_base64).map_err(|e| Error::bad("key", e.to_string()))?;
        let http = reqwest::Client::builder()
            .tls_danger_accept_invalid_certs(accept_invalid_certs)
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(65))
            .build()
            .map_err(|e| Error::Unavailable(format!("no HTTP client: {e}")))?;
        Ok(Rest {
            http,
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            key,
        })
    }

    /// Sends one request to `path` (signed for `resource_type` and `link`) and maps a failure
    /// status to the engine's error, with the charge the endpoint reported for it.
    async fn send(
        &self,
        method: reqwest::Method,
        resource_type: &str,
        link: &str,
        path: &str,
        headers: &[(&str, String)],
        body: Option<Vec<u8>>,
    ) -> Result<Answer, Failed> {
        let date = httpdate::fmt_http_date(SystemTime::now());
        let mut req = self
            .http
            .request(method.clone(), format!("{}/{path}", self.endpoint))
            .header(
                "authorization",
                self.key
                    .authorization(method.as_str(), resource_type, link, &date),
            )
            .header("x-ms-date", &date)
            .header("x-ms-version", API_VERSION)
            .header("accept", "application/json");
        for (name, value) in headers {
            req = req.header(*name, value);
        }
        if let Some(body) = body {
            req = req.body(body);
        }
        let res = req.send().await.map_err(|e| {
            Error::Unavailable(format!("the Cosmos DB endpoint did not answer: {e}"))
        })?;
        let status = res.status().as_u16();
        let header = |name: &str| {
            res.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let charge = header("x-ms-request-charge")
            .and_then(|c| c.parse().ok())
            .unwrap_or(0.0);
        let etag = header("etag");
        let sub_status = header("x-ms-substatus").and_then(|s| s.parse().ok());
        let retry_after = header("x-ms-retry-after-ms")
            .and_then(|s| s.parse().ok())
            .map(Duration::from_millis);
        let bytes = res.bytes().await.map_err(|e| {
            Error::Unavailable(format!("the Cosmos DB endpoint's answer was cut: {e}"))
        })?;
        let body: Value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        if status >= 300 {
            let message = body
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| body.to_string());
            let error = errors::from_status(status, sub_status, message, retry_after);
            return Err(Failed::reported(error, charge));
        }
        Ok(Answer {
            body,
            charge,
            etag,
            status,
        })
    }

    /// Creates or replaces stored procedure `id` of collection `coll` (`dbs/d/colls/c`).
    pub async fn upsert_stored_procedure(&self, coll: &str, id: &str, body: &str) -> Result<()> {
        self.upsert_script(coll, "sprocs", id, json!({"id": id, "body": body}))
            .await
    }

    /// Creates or replaces trigger `id` (`trigger_type` "Pre"/"Post", `operation` "All", …).
    pub async fn upsert_trigger(
        &self,
        coll: &str,
        id: &str,
        body: &str,
        trigger_type: &str,
        operation: &str,
    ) -> Result<()> {
        let resource = json!({
            "id": id, "body": body, "triggerType": trigger_type, "triggerOperation": operation
        });
        self.upsert_script(coll, "triggers", id, resource).await
    }

    /// Replace (PUT on the script), else create (POST on the collection's scripts): the REST
    /// API has no upsert for scripts.
    async fn upsert_script(&self, coll: &str, kind: &str, id: &str, resource: Value) -> Result<()> {
        let bytes = serde_json::to_vec(&resource)?;
        let json_body = [("content-type", "application/json".to_owned())];
        let link = format!("{coll}/{kind}/{id}");
        let replaced = self
            .send(
                reqwest::Method::PUT,
                kind,
                &link,
                &link,
                &json_body,
                Some(bytes.clone()),
            )
            .await
            .map_err(Error::from);
        match replaced {
            Err(Error::NotFound { .. }) => Ok(self
                .send(
                    reqwest::Method::POST,
                    kind,
                    coll,
                    &format!("{coll}/{kind}"),
                    &json_body,
                    Some(bytes),
                )
                .await
                .map(|_| ())?),
            other => other.map(|_| ()),
        }
    }

    /// Runs stored procedure `id` in logical partition `pk` with `args`.
    pub async fn execute_stored_procedure(
        &self,
        coll: &str,
        id: &str,
        pk: &PartitionKey,
        args: &[Value],
    ) -> Result<Answer, Failed> {
        let link = format!("{coll}/sprocs/{id}");
        let headers = [
            ("content-type", "application/json".to_owned()),
            ("x-ms-documentdb-partitionkey", pk_header(pk)),
        ];
        self.send(
            reqwest::Method::POST,
            "sprocs",
            &link,
            &link,
            &headers,
            Some(serde_json::to_vec(args)?),
        )
        .await
    }

    /// An item write with pre- and post-triggers (and `if-match`).
    pub async fn write_item(
        &self,
        coll: &str,
        write: Write<'_>,
        pk: &PartitionKey,
        options: &crate::ItemOptions,
    ) -> Result<Answer, Failed> {
        let mut headers = vec![
            ("content-type", "application/json".to_owned()),
            ("x-ms-documentdb-partitionkey", pk_header(pk)),
        ];
        if !options.pre_triggers.is_empty() {
            headers.push((
                "x-ms-documentdb-pre-trigger-include",
                options.pre_triggers.join(","),
            ));
        }
        if !options.post_triggers.is_empty() {
            headers.push((
                "x-ms-documentdb-post-trigger-include",
                options.post_triggers.join(","),
            ));
        }
        if let Some(etag) = &options.if_match_etag {
            headers.push(("if-match", etag.clone()));
        }
        let docs = format!("{coll}/docs");
        let (method, link, path, body) = match write {
            Write::Create(doc) => (reqwest::Method::POST, coll.to_owned(), docs, Some(doc)),
            Write::Upsert(doc) => {
                headers.push(("x-ms-documentdb-is-upsert", "True".to_owned()));
                (reqwest::Method::POST, coll.to_owned(), docs, Some(doc))
            }
            // The signature covers the id as it is; the URL carries it escaped.
            Write::Replace { id, doc } => (
                reqwest::Method::PUT,
                format!("{docs}/{id}"),
                format!("{docs}/{}", encode(id)),
                Some(doc),
            ),
            Write::Delete { id } => (
                reqwest::Method::DELETE,
                format!("{docs}/{id}"),
                format!("{docs}/{}", encode(id)),
                None,
            ),
        };
        let body = body.map(serde_json::to_vec).transpose()?;
        self.send(method, "docs", &link, &path, &headers, body)
            .await
    }

    /// Applies patch operations to item `id` (the REST API's `PATCH` with `{"operations"}`).
    pub async fn patch_item(
        &self,
        coll: &str,
        id: &str,
        pk: &PartitionKey,
        operations: &[PatchOperation],
        condition: Option<&str>,
        options: &crate::ItemOptions,
    ) -> Result<Answer, Failed> {
        let link = format!("{coll}/docs/{id}");
        let path = format!("{coll}/docs/{}", encode(id));
        let mut headers = vec![
            ("content-type", "application/json_patch+json".to_owned()),
            ("x-ms-documentdb-partitionkey", pk_header(pk)),
        ];
        if let Some(etag) = &options.if_match_etag {
            headers.push(("if-match", etag.clone()));
        }
        let mut body = json!({ "operations": operations });
        if let Some(condition) = condition {
            body["condition"] = json!(condition);
        }
        let body = serde_json::to_vec(&body)?;
        self.send(
            reqwest::Method::PATCH,
            "docs",
            &link,
            &path,
            &headers,
            Some(body),
        )
        .await
    }
}

impl super::rest::Rest {
    /// `POST …/operations/partitionkeydelete` (signed as the container): every item of a
    /// logical partition; the Rust SDK has no call for it.
    pub async fn delete_all_items_by_partition_key(
        &self,
        coll: &str,
        pk: &PartitionKey,
    ) -> Result<Answer, Failed> {
        let path = format!("{coll}/operations/partitionkeydelete");
        let headers = [("x-ms-documentdb-partitionkey", pk_header(pk))];
        self.send(reqwest::Method::POST, "colls", coll, &path, &headers, None)
            .await
    }
}

/// `x-ms-documentdb-partitionkey`: the key's values as a JSON array (`[{}]` for an item
/// without the property).
pub(crate) fn pk_header(pk: &PartitionKey) -> String {
    match pk.to_json() {
        Some(Value::Array(values)) => Value::Array(values).to_string(),
        Some(v) => Value::Array(vec![v]).to_string(),
        None => "[{}]".to_owned(),
    }
}

/// An id as one path segment (ids may hold spaces and other characters a URL escapes).
fn encode(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, percent_encoding::NON_ALPHANUMERIC).to_string()
}
