//! The request middleware: request ids, the task-local context, one log line
//! per request, and the safety net that turns any bare error response (a
//! layer's 413, a caught panic, a timeout) into a problem document.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use super::context::{self, RequestContext};
use crate::http::error::{ApiError, PROBLEM_JSON, problem_response};
use crate::http::state::HttpState;

pub const X_REQUEST_ID: &str = "x-request-id";

/// The one path on which a client may choose its request id (spec §2).
const CLIENT_ID_PATH: &str = "/api/v1/images/car";

pub async fn request_context(State(state): State<HttpState>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let on_client_id_path = (req.method() == Method::GET || req.method() == Method::HEAD)
        && req.uri().path() == CLIENT_ID_PATH;
    let presented = on_client_id_path
        .then(|| req.headers().get(X_REQUEST_ID))
        .flatten();
    let client_id = presented
        .and_then(|v| v.to_str().ok())
        .filter(|id| context::valid_client_request_id(id))
        .map(str::to_owned);
    // A client-chosen id that breaks the rule is refused, not silently
    // replaced: the client would otherwise look up feedback by an id the
    // server never stored.
    let internal_id = req
        .extensions()
        .get::<context::InternalRequestId>()
        .map(|id| id.as_str().to_owned());
    let bad_client_id = internal_id.is_none() && presented.is_some() && client_id.is_none();
    let request_id = internal_id
        .or(client_id)
        .unwrap_or_else(context::new_request_id);
    let ctx = RequestContext {
        request_id: request_id.clone(),
        base_url: Arc::clone(&state.base_url),
    };
    // Log the route template, never the raw path or query: delivery tokens
    // live in paths and legacy keys in queries.
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let method = req.method().clone();
    // A browser's navigation gets the site's HTML page for an unknown
    // address or a wrong method; API clients get problem documents.
    let browser = super::pages::prefers_html(req.headers());
    let span = tracing::info_span!("request", request_id = %request_id, http.method = %method, http.route = %route);

    let response = if bad_client_id {
        context::scope(ctx.clone(), async {
            ApiError::bad_request(
                "X-Request-Id",
                "must be 1 to 128 characters of A-Z a-z 0-9 . _ : -",
            )
            .into_response()
        })
        .await
    } else {
        context::scope(ctx.clone(), next.run(req))
            .instrument(span.clone())
            .await
    };
    let response = if browser {
        context::scope(ctx.clone(), async { for_browser(&state, response) }).await
    } else {
        response
    };
    let mut response = context::scope(ctx, async { ensure_problem(response) }).await;
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(X_REQUEST_ID, value);
    }
    let status = response.status().as_u16();
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    span.in_scope(|| tracing::info!(http.status = status, duration_ms, "request finished"));
    response
}

/// A bare or problem 404 of an address nothing is routed at (the router's
/// fallback) or a 405, answered to a browser as the site's HTML page; the
/// headers set on purpose (`Allow`) stay.
fn for_browser(state: &HttpState, response: Response) -> Response {
    let status = response.status();
    let unrouted = response.extensions().get::<Unrouted>().is_some();
    let wanted =
        (status == StatusCode::NOT_FOUND && unrouted) || status == StatusCode::METHOD_NOT_ALLOWED;
    if !wanted || response.extensions().get::<KeepBody>().is_some() {
        return response;
    }
    let (parts, _) = response.into_parts();
    let mut page = super::pages::error_page(state, status);
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            page.headers_mut().entry(name).or_insert(value.clone());
        }
    }
    page
}

/// Marks the router's fallback answer: no route has this address.
#[derive(Debug, Clone, Copy)]
pub struct Unrouted;

/// Marks an error response whose body the spec defines otherwise (the
/// device-login endpoints' DeviceError, spec §7 rule 4), or an HTML page
/// for people that shows a form's errors (`web.rs`): it leaves as is.
#[derive(Debug, Clone, Copy)]
pub struct KeepBody;

/// Every error status leaves as problem+json, whoever produced it (but a
/// [`KeepBody`] response).
fn ensure_problem(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error())
        || response.extensions().get::<KeepBody>().is_some()
    {
        return response;
    }
    let is_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(PROBLEM_JSON.as_bytes()));
    if is_problem {
        return response;
    }
    let (parts, _) = response.into_parts();
    let mut rebuilt = match status {
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed.into_response(),
        StatusCode::PAYLOAD_TOO_LARGE => problem_response(
            status,
            "The request body is larger than this endpoint accepts.",
            Default::default(),
        ),
        StatusCode::INTERNAL_SERVER_ERROR => {
            ApiError::internal("a handler panicked or failed without a problem document")
                .into_response()
        }
        _ => problem_response(
            status,
            status.canonical_reason().unwrap_or("Error"),
            Default::default(),
        ),
    };
    // Keep headers the original response set on purpose (Allow, Retry-After, …).
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rebuilt.headers_mut().entry(name).or_insert(value.clone());
        }
    }
    rebuilt
}

/// The response to a caught panic: a bare 500 that [`ensure_problem`] turns
/// into a problem document. The panic message is logged, never sent.
pub fn panic_response(err: Box<dyn std::any::Any + Send + 'static>) -> Response<Body> {
    let message = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    tracing::error!(panic.message = message, "handler panicked");
    StatusCode::INTERNAL_SERVER_ERROR.into_response()
}
