//! Errors at the HTTP edge, answered as Cosmos DB answers them: the status, `x-ms-substatus`,
//! and a `{code, message}` body the SDKs turn into their exceptions.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// Whatever the engine refused: its own status and sub-status.
    #[error("{0}")]
    Engine(#[from] engine::Error),
    /// The same, with the RU the attempt cost (Cosmos DB charges failed requests: a 404 point
    /// read 1 RU, a unique-key 409 the write; engine/RU.md, "Failed requests").
    #[error("{0}")]
    Charged(#[from] engine::Failed),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PreconditionFailed(String),
    #[error("Request size is too large: {0}")]
    TooLarge(String),
    #[error("{0}")]
    RequestTimeout(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    /// An operation of the REST API this gateway does not serve (see PROTOCOL.md).
    #[error("{0}")]
    NotSupported(String),
    /// 500: the gateway's own storage (its script file) failed.
    #[error("{0}")]
    Internal(String),
    /// 410 with a sub-status (1002: the partition key range is gone).
    #[error("{message}")]
    Gone { substatus: u16, message: String },
    /// 400 with a sub-status (1024: the container the client meant was deleted and re-created).
    #[error("{message}")]
    BadRequestSub { substatus: u16, message: String },
}

impl GatewayError {
    fn code(&self) -> &'static str {
        match self.status_code().as_u16() {
            400 => "BadRequest",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "NotFound",
            405 => "MethodNotAllowed",
            408 => "RequestTimeout",
            409 => "Conflict",
            410 => "Gone",
            412 => "PreconditionFailed",
            413 => "RequestEntityTooLarge",
            429 => "TooManyRequests",
            501 => "NotImplemented",
            503 => "ServiceUnavailable",
            507 => "InsufficientStorage",
            _ => "InternalServerError",
        }
    }

    /// The engine's error behind this one, charged or not.
    fn engine(&self) -> Option<&engine::Error> {
        match self {
            GatewayError::Engine(e) => Some(e),
            GatewayError::Charged(f) => Some(&f.error),
            _ => None,
        }
    }

    /// What the failed attempt cost: the engine's charge; 0 where the gateway refused it.
    fn request_charge(&self) -> f64 {
        match self {
            GatewayError::Charged(f) => f.request_charge(),
            _ => 0.0,
        }
    }

    fn substatus(&self) -> u16 {
        if let Some(e) = self.engine() {
            return e.sub_status().unwrap_or(0);
        }
        match self {
            GatewayError::Gone { substatus, .. }
            | GatewayError::BadRequestSub { substatus, .. } => *substatus,
            _ => 0,
        }
    }
}

impl ResponseError for GatewayError {
    fn status_code(&self) -> StatusCode {
        if let Some(e) = self.engine() {
            return StatusCode::from_u16(e.status_code())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        }
        let code = match self {
            GatewayError::Engine(_) | GatewayError::Charged(_) => 500,
            GatewayError::Unauthorized(_) => 401,
            GatewayError::BadRequest(_) | GatewayError::BadRequestSub { .. } => 400,
            GatewayError::Forbidden(_) => 403,
            GatewayError::NotFound(_) => 404,
            GatewayError::Conflict(_) => 409,
            GatewayError::PreconditionFailed(_) => 412,
            GatewayError::TooLarge(_) => 413,
            GatewayError::RequestTimeout(_) => 408,
            GatewayError::MethodNotAllowed(_) => 405,
            GatewayError::NotSupported(_) => 501,
            GatewayError::Gone { .. } => 410,
            GatewayError::Internal(_) => 500,
        };
        StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        if status.is_server_error() {
            tracing::warn!(target: "gateway", "{status}: {self}");
        }
        let mut res = HttpResponse::build(status);
        res.insert_header(("x-ms-substatus", self.substatus().to_string()))
            .insert_header(("x-ms-activity-id", crate::common_headers::activity_id()))
            .insert_header((
                "x-ms-request-charge",
                crate::common_headers::format_charge(self.request_charge()),
            ))
            .content_type("application/json");
        if let Some(e) = self.engine() {
            if let Some(wait) = e.retry_after() {
                res.insert_header(("x-ms-retry-after-ms", wait.as_millis().max(1).to_string()));
            }
        }
        // The SDKs show `message`; Cosmos DB prefixes it with "Message: " and a JSON-ish
        // "{"Errors":[...]}": the plain text is what a person needs.
        res.body(json!({"code": self.code(), "message": self.to_string()}).to_string())
    }
}

pub type Result<T, E = GatewayError> = std::result::Result<T, E>;
