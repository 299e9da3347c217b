//! The HTTP-facing error type and the one place that turns errors into
//! `application/problem+json` documents (spec §2 Problem, §7).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use crate::http::context;

pub const PROBLEM_JSON: &str = "application/problem+json";

/// The 403 of a key whose account has a disputed payment (docs/billing.md).
pub const FROZEN: &str = "This account's keys are frozen while a payment of the account is disputed with its bank; they work again when the dispute closes in the account's favour. Nothing was charged.";

/// Every failure an endpoint can answer with. Domain errors convert into this
/// with `From`; handlers return `Result<_, ApiError>`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: `param` names the offending parameter (spec §7).
    #[error("{param}: {message}")]
    BadRequest { param: String, message: String },
    #[error("{0}")]
    Unauthorized(String),
    #[error("insufficient credits: balance {balance}, required {required}")]
    PaymentRequired { balance: i64, required: i64 },
    /// 402: the account owes credits after a refunded payment (docs/billing.md).
    #[error("the account owes {owed} credits")]
    AccountHeld { owed: i64 },
    #[error("this key lacks the {0} scope")]
    MissingScope(&'static str),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{0}")]
    Gone(String),
    /// 409: the request conflicts with an earlier one (an Idempotency-Key
    /// reused with another body).
    #[error("{0}")]
    Conflict(String),
    #[error("request body is larger than this endpoint's limit of {limit_bytes} bytes")]
    PayloadTooLarge { limit_bytes: usize },
    /// 408: the request body stalled past the body-read timeout.
    #[error("the request body was not received in time; send it without pausing")]
    RequestTimeout,
    /// 429; `reason` says which limit, when it is not the key's or the
    /// address's plain request rate.
    #[error("rate limit exceeded")]
    TooManyRequests {
        retry_after_secs: u64,
        reason: Option<&'static str>,
    },
    /// 500: the cause is logged, never shown.
    #[error("internal error: {0}")]
    Internal(String),
    #[error("{0}")]
    BadGateway(String),
    #[error("{message}")]
    Unavailable {
        message: String,
        retry_after_secs: Option<u64>,
    },
    /// Extra problem members (`index`, `makes`, …) on top of another error.
    #[error("{inner}")]
    WithFields {
        inner: Box<ApiError>,
        fields: Map<String, Value>,
    },
}

impl ApiError {
    pub fn bad_request(param: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError::BadRequest {
            param: param.into(),
            message: message.into(),
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ApiError::Internal(cause.to_string())
    }

    /// Adds a problem member, e.g. `index` for the failing item of a batch.
    pub fn with_field(self, key: &str, value: impl Into<Value>) -> Self {
        match self {
            ApiError::WithFields { inner, mut fields } => {
                fields.insert(key.to_owned(), value.into());
                ApiError::WithFields { inner, fields }
            }
            other => {
                let mut fields = Map::new();
                fields.insert(key.to_owned(), value.into());
                ApiError::WithFields {
                    inner: Box::new(other),
                    fields,
                }
            }
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::PaymentRequired { .. } | ApiError::AccountHeld { .. } => {
                StatusCode::PAYMENT_REQUIRED
            }
            ApiError::MissingScope(_) | ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Gone(_) => StatusCode::GONE,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::BadGateway(_) => StatusCode::BAD_GATEWAY,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::WithFields { inner, .. } => inner.status(),
        }
    }

    fn detail(&self) -> String {
        match self {
            ApiError::Internal(_) => {
                "The server failed unexpectedly. Nothing was charged; retry once after a pause."
                    .into()
            }
            ApiError::PaymentRequired { balance, required } => format!(
                "This request needs {required} credit(s) and the account has {balance}. Buy credits, then retry."
            ),
            ApiError::AccountHeld { owed } => format!(
                "This account owes {owed} credit(s): a payment was refunded or lost in a dispute after its credits were spent. \
                 It buys no images or URLs until a purchase settles the debt; the next pack pays it first."
            ),
            ApiError::TooManyRequests {
                retry_after_secs,
                reason,
            } => format!(
                "{}; retry after {retry_after_secs} s. Nothing was charged.",
                reason.unwrap_or("Rate limit exceeded")
            ),
            ApiError::WithFields { inner, .. } => inner.detail(),
            other => other.to_string(),
        }
    }
}

/// One stable title per status (spec §7).
pub fn title_for(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => status.canonical_reason().unwrap_or("Error"),
    }
}

/// A problem document (RFC 9457; spec §2 Problem). Members beyond the five
/// every problem carries depend on the status; additional members are
/// allowed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// `{base_url}/docs/errors#<status>`.
    #[serde(rename = "type")]
    #[schema(format = "uri")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// What went wrong; on a 400 it names the parameter.
    pub detail: String,
    pub request_id: String,
    /// 400: the offending parameter, in the API's words (`images[2].year`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// 403: the scope the key lacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// 402: the current balance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance: Option<i64>,
    /// 402: the credits the request needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_credits: Option<i64>,
    /// 402: the current balance (as `balance`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credits_remaining: Option<i64>,
    /// 402: where to buy credits (`billing`) and read more (`docs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<std::collections::BTreeMap<String, String>>,
    /// Batch requests: the index of the failing item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Members that belong to one error (`makes`, `candidates`,
    /// `available_years`, `limit_bytes`, `checks`, …).
    #[serde(flatten)]
    #[schema(ignore)]
    pub extra: Map<String, Value>,
}

/// Builds a problem document for `status` with `detail`, plus `extra` members.
pub fn problem_response(status: StatusCode, detail: &str, extra: Map<String, Value>) -> Response {
    let ctx = context::current();
    let mut body = Problem {
        kind: format!("{}/docs/errors#{}", ctx.base_url, status.as_u16()),
        title: title_for(status).to_owned(),
        status: status.as_u16(),
        detail: detail.to_owned(),
        request_id: ctx.request_id,
        param: None,
        scope: None,
        balance: None,
        required_credits: None,
        credits_remaining: None,
        links: None,
        index: None,
        extra: Map::new(),
    };
    for (key, value) in extra {
        match key.as_str() {
            "param" => body.param = value.as_str().map(str::to_owned),
            "scope" => body.scope = value.as_str().map(str::to_owned),
            "balance" => body.balance = value.as_i64(),
            "required_credits" => body.required_credits = value.as_i64(),
            "credits_remaining" => body.credits_remaining = value.as_i64(),
            "index" => body.index = value.as_u64().map(|i| i as usize),
            "links" => body.links = serde_json::from_value(value).ok(),
            _ => {
                body.extra.insert(key, value);
            }
        }
    }
    let text = serde_json::to_string(&body).unwrap_or_default();
    let mut response = (status, text).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut extra = Map::new();
        let mut headers: Vec<(header::HeaderName, HeaderValue)> = Vec::new();
        collect(&self, &mut extra, &mut headers);
        if let ApiError::Internal(cause) = &self {
            tracing::error!(error.cause = %cause, "internal error");
        }
        let mut response = problem_response(status, &self.detail(), extra);
        for (name, value) in headers {
            response.headers_mut().insert(name, value);
        }
        response
    }
}

fn collect(
    err: &ApiError,
    extra: &mut Map<String, Value>,
    headers: &mut Vec<(header::HeaderName, HeaderValue)>,
) {
    match err {
        ApiError::BadRequest { param, .. } => {
            extra.insert("param".into(), param.clone().into());
        }
        ApiError::Unauthorized(_) => {
            headers.push((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
        }
        ApiError::PaymentRequired { balance, required } => {
            extra.insert("balance".into(), (*balance).into());
            extra.insert("required_credits".into(), (*required).into());
            extra.insert("credits_remaining".into(), (*balance).into());
            let ctx = context::current();
            extra.insert(
                "links".into(),
                json!({ "billing": format!("{}/pricing", ctx.base_url), "docs": format!("{}/docs/errors#402", ctx.base_url) }),
            );
            headers.push((
                header::LINK,
                HeaderValue::from_static("</pricing>; rel=payment"),
            ));
        }
        ApiError::AccountHeld { owed } => {
            extra.insert("owed_credits".into(), (*owed).into());
            let ctx = context::current();
            extra.insert(
                "links".into(),
                json!({ "billing": format!("{}/pricing", ctx.base_url), "docs": format!("{}/docs/errors#402", ctx.base_url) }),
            );
            headers.push((
                header::LINK,
                HeaderValue::from_static("</pricing>; rel=payment"),
            ));
        }
        ApiError::MissingScope(scope) => {
            extra.insert("scope".into(), (*scope).into());
        }
        ApiError::PayloadTooLarge { limit_bytes } => {
            extra.insert("limit_bytes".into(), (*limit_bytes).into());
        }
        ApiError::TooManyRequests {
            retry_after_secs, ..
        } => {
            headers.push((header::RETRY_AFTER, HeaderValue::from(*retry_after_secs)));
        }
        ApiError::Unavailable {
            retry_after_secs: Some(secs),
            ..
        } => {
            headers.push((header::RETRY_AFTER, HeaderValue::from(*secs)));
        }
        ApiError::WithFields { inner, fields } => {
            collect(inner, extra, headers);
            extra.extend(fields.clone());
        }
        _ => {}
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        use crate::store::StoreError;
        match e {
            StoreError::Unavailable(cause) => {
                tracing::error!(error.cause = %cause, "database unavailable");
                ApiError::Unavailable {
                    message: "The database is unavailable. Nothing was charged; retry shortly."
                        .into(),
                    retry_after_secs: Some(5),
                }
            }
            // A charge re-checks its key: revocation found there is a 401
            // wherever it surfaces.
            StoreError::KeyRevoked => {
                ApiError::Unauthorized("The API key has been revoked.".into())
            }
            StoreError::AccountHeld { owed } => ApiError::AccountHeld { owed },
            StoreError::AccountFrozen => ApiError::Forbidden(FROZEN.into()),
            other => ApiError::internal(other),
        }
    }
}
