//! Per-key rate limiting at the HTTP edge: the check, the `RateLimit-*`
//! headers (spec §2) and the 429. Every keyed endpoint with a limit uses this.

use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;

use super::auth::Principal;
use crate::app::AppState;
use crate::http::error::ApiError;
use crate::ratelimit::{Decision, now_secs};

/// Counts one request against the key's per-minute limit. `Err` is the 429
/// to answer (nothing was billed); either way the decision's headers go on
/// the response with [`with_headers`].
pub async fn check_key(
    state: &AppState,
    principal: &Principal,
) -> (Decision, Result<(), ApiError>) {
    let limit = u64::try_from(principal.key.rate_limit_per_minute).unwrap_or(0);
    check(state, &format!("key:{}", principal.key.id), limit).await
}

/// Counts one request by `subject` against `per_minute`; `Err` is the 429.
async fn check(
    state: &AppState,
    subject: &str,
    per_minute: u64,
) -> (Decision, Result<(), ApiError>) {
    let decision = state.limiter.check(subject, per_minute, now_secs()).await;
    if decision.allowed {
        return (decision, Ok(()));
    }
    state.metrics.rate_limited.inc();
    let refused = ApiError::TooManyRequests {
        retry_after_secs: decision.reset_secs,
        reason: None,
    };
    (decision, Err(refused))
}

/// Counts one request from `ip` against a public endpoint's per-IP limit
/// (`scope` keeps each endpoint's window apart). The peer address is the
/// one the connection came from.
pub async fn check_ip(
    state: &AppState,
    scope: &str,
    ip: &str,
    per_minute: u64,
) -> (Decision, Result<(), ApiError>) {
    check(state, &format!("ip:{scope}:{ip}"), per_minute).await
}

/// Counts one request against a limit all clients share (`scope`), across
/// replicas.
pub async fn check_shared(
    state: &AppState,
    scope: &str,
    per_minute: u64,
) -> (Decision, Result<(), ApiError>) {
    check(state, &format!("all:{scope}"), per_minute).await
}

/// Counts one attempt on `name` (an email address, say) against a web
/// form's per-minute limit; the name is stored hashed.
pub async fn check_named(
    state: &AppState,
    scope: &str,
    name: &str,
    per_minute: u64,
) -> (Decision, Result<(), ApiError>) {
    let digest = crate::people::token_hash(name);
    check(
        state,
        &format!("name:{scope}:{}", &digest[..32]),
        per_minute,
    )
    .await
}

/// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.
pub fn headers(d: &Decision) -> [(HeaderName, HeaderValue); 3] {
    [
        (
            HeaderName::from_static("ratelimit-limit"),
            HeaderValue::from(d.limit),
        ),
        (
            HeaderName::from_static("ratelimit-remaining"),
            HeaderValue::from(d.remaining),
        ),
        (
            HeaderName::from_static("ratelimit-reset"),
            HeaderValue::from(d.reset_secs),
        ),
    ]
}

pub fn with_headers(mut response: Response, d: &Decision) -> Response {
    for (k, v) in headers(d) {
        response.headers_mut().insert(k, v);
    }
    response
}
