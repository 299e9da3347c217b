//! GET and HEAD /api/v1/delivery/{token} (spec §4; public, free): signed
//! delivery URLs. The token is never logged (the request log names the
//! route template only).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::images::{delivery_error, vary_if_auto};
use crate::app::AppState;
use crate::delivery::DeliveryError;
use crate::delivery::signed::{LoadError, OpenError, Opened, Refused};
use crate::http::error::ApiError;
use crate::renders::DispatchError;
use crate::store::{Millis, now_millis};

/// Browser and shared cache lifetimes of unlimited-use URLs (spec §8).
const BROWSER_MAX_AGE_SECS: u64 = 300;
const SHARED_MAX_AGE_SECS: u64 = 3600;

pub async fn get(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Response {
    serve(&state, &token, &headers)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

/// Validates only: no render, no use consumed (spec §3). Registered
/// explicitly, because axum would otherwise answer HEAD by running GET.
pub async fn head(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Response {
    let now = now_millis();
    match open(&state, &token, now, &headers).await {
        Ok(opened) => {
            let mut r = StatusCode::OK.into_response();
            representation_headers(&mut r, &opened, &opened.resolved.etag(), now);
            r
        }
        Err(e) => e.into_response(),
    }
}

/// Opens the URL for this request: its variant's current revision, and
/// with `format=auto` the format the loader's `Accept` names.
async fn open(
    state: &AppState,
    token: &str,
    now: Millis,
    headers: &HeaderMap,
) -> Result<Opened, ApiError> {
    let revisions = &state.deliverer.revisions;
    let mut opened = state
        .urls
        .open(token, revisions.base(), now)
        .await
        .map_err(|e| match e {
            OpenError::Refused(r) => refused(state, r),
            OpenError::Store(e) => e.into(),
        })?;
    // A URL serves its variant's current render (a re-render replaces it).
    opened.resolved.revision = revisions.of(&opened.resolved.variant);
    let accept = super::accept::Accept::of(headers);
    opened.resolved.negotiate(|f| accept.q(f));
    Ok(opened)
}

async fn serve(state: &AppState, token: &str, headers: &HeaderMap) -> Result<Response, ApiError> {
    let now = now_millis();
    let opened = open(state, token, now, headers).await?;
    // Conditional loads are answered after the validity checks and consume
    // nothing: the client already holds these bytes.
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    let etag = opened.resolved.etag();
    if inm.is_some_and(|v| super::extract::if_none_match(v, &etag)) {
        state.metrics.not_modified.inc();
        let mut r = StatusCode::NOT_MODIFIED.into_response();
        let h = r.headers_mut();
        h.insert(header::ETAG, value(&etag));
        h.insert(header::CACHE_CONTROL, cache_control(&opened, now));
        vary_if_auto(h, &opened.resolved);
        return Ok(r);
    }
    let (output, source) = match state.urls.load(&state.deliverer, &opened).await {
        Ok(loaded) => loaded,
        Err(LoadError::Refused(r)) => return Err(refused(state, r)),
        Err(LoadError::FirstLoadFailed { refunded_here }) => {
            if refunded_here {
                state.metrics.delivery_url_refunds.inc();
            }
            return Err(ApiError::BadGateway(
                "The render failed on this URL's first load. The URL is consumed and its credit was refunded; mint a new URL."
                    .into(),
            ));
        }
        Err(LoadError::Delivery(e)) => return Err(load_error(state, e)),
    };
    state.metrics.delivery_url_loads.inc();
    let mut r = (StatusCode::OK, output.bytes).into_response();
    representation_headers(&mut r, &opened, &etag, now);
    let h = r.headers_mut();
    h.insert("x-image-source", HeaderValue::from_static(source.as_str()));
    h.insert("x-image-width", HeaderValue::from(output.width));
    h.insert("x-image-height", HeaderValue::from(output.height));
    Ok(r)
}

/// Content-Type, ETag and Cache-Control, shared by GET and HEAD.
fn representation_headers(r: &mut Response, opened: &Opened, etag: &str, now: Millis) {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(opened.resolved.format.mime()),
    );
    h.insert(header::ETAG, value(etag));
    h.insert(header::CACHE_CONTROL, cache_control(opened, now));
    h.insert("x-image-width", HeaderValue::from(opened.resolved.width));
    h.insert("x-image-height", HeaderValue::from(opened.resolved.height));
    h.insert(
        "x-color-match",
        value(&opened.resolved.color_match().header()),
    );
    vary_if_auto(h, &opened.resolved);
}

/// Unlimited URLs are publicly cacheable within their remaining lifetime;
/// use-capped URLs are `private, no-store` so every redemption reaches us.
fn cache_control(opened: &Opened, now: Millis) -> HeaderValue {
    if opened.capped() {
        return HeaderValue::from_static("private, no-store");
    }
    let left = opened.remaining_secs(now);
    value(&format!(
        "public, max-age={}, s-maxage={}",
        left.min(BROWSER_MAX_AGE_SECS),
        left.min(SHARED_MAX_AGE_SECS)
    ))
}

fn refused(state: &AppState, r: Refused) -> ApiError {
    state.metrics.delivery_url_refusals.inc();
    match r {
        Refused::Invalid => ApiError::Forbidden(
            "The delivery URL is malformed or not valid. Mint a new URL with POST /api/v1/image-urls."
                .into(),
        ),
        Refused::Expired => {
            ApiError::Forbidden("The delivery URL has expired. Mint a new URL.".into())
        }
        Refused::Revoked => ApiError::Forbidden(
            "The API key that minted this delivery URL has been revoked. Mint a new URL with a live key."
                .into(),
        ),
        Refused::Exhausted => ApiError::Gone(
            "This delivery URL has used all of its max_uses redemptions. Mint a new URL.".into(),
        ),
        Refused::Consumed => ApiError::Gone(
            "This delivery URL's first load failed, so it was consumed and its credit refunded. Mint a new URL."
                .into(),
        ),
    }
}

/// A later load that failed: nothing was consumed, nothing is billed.
fn load_error(state: &AppState, e: DeliveryError) -> ApiError {
    match e {
        DeliveryError::Dispatch(DispatchError::RenderFailed(cause)) => {
            tracing::warn!(error.cause = %cause, "render for a delivery URL failed");
            ApiError::BadGateway(
                "The render failed. This URL was not consumed; retry after a pause.".into(),
            )
        }
        other => delivery_error(other, &state.metrics),
    }
}

fn value(s: &str) -> HeaderValue {
    HeaderValue::from_str(s).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}
