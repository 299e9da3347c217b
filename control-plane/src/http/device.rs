//! Device login (spec §3, §4; RFC 8628): a command line gets an API key by
//! showing its person a short code to approve.
//!
//! - `POST /api/auth/device/code` (20 a minute per address): a device code
//!   (a secret the client keeps), a user code (`ABCD-EF12`) and where to
//!   approve it; lives 600 s; poll every 3 s.
//! - `POST /api/auth/device/token` (60 a minute per address): 400
//!   `authorization_pending` until approved, 429 `slow_down` when polled
//!   sooner than the interval, 400 `access_denied` when denied, 400
//!   `expired_token` after 600 s or once the key was returned, 400
//!   `invalid_request` for a missing or unknown code; 200 with the key,
//!   exactly once.
//! - `GET /device`: the verification page.
//!
//! Both endpoints take JSON or a form (what OAuth clients send) and ignore
//! `client_id`. Their errors use the spec's DeviceError body
//! (`{error, error_description, request_id}`, `application/json`), which
//! OAuth 2.0 clients read; everything else is a problem document.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::{context, rate};
use crate::auth::{ApiKey, Scopes, random_base62};
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::store::{DevicePoll, NewKey, now_millis};

/// Seconds a device code lives (spec §8).
pub const EXPIRES_IN: u64 = 600;
/// Seconds between polls (spec §8).
pub const INTERVAL: u64 = 3;
/// Requests a minute per client address.
pub const CODES_PER_MINUTE: u64 = 20;
pub const TOKENS_PER_MINUTE: u64 = 60;
/// Largest body either endpoint reads.
const BODY_LIMIT: usize = 4 * 1024;
/// The grant type of RFC 8628 §3.4.
pub const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:device_code";
/// Letters that cannot be mistaken for digits or each other (no I, L, O).
const LETTERS: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ";
/// The last four: those letters and digits without 0 and 1.
const CHARS: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// 201 of `POST /api/auth/device/code` (spec DeviceCodeResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeviceCodeResponse {
    /// The secret the client polls with; never show it.
    pub device_code: String,
    /// What the person types: four letters, a hyphen, four characters.
    pub user_code: String,
    #[schema(format = "uri")]
    pub verification_uri: String,
    #[schema(format = "uri")]
    pub verification_uri_complete: String,
    /// Always 600.
    pub expires_in: u64,
    /// Always 3.
    pub interval: u64,
}

/// 200 of `POST /api/auth/device/token` (spec DeviceTokenResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeviceTokenResponse {
    /// The API key, shown once.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Space-separated scopes: images:read account:read billing:write.
    pub scope: String,
}

/// The spec's DeviceError body (RFC 6749 §5.2 shape).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeviceError {
    /// authorization_pending, slow_down, access_denied, expired_token or invalid_request.
    pub error: &'static str,
    pub error_description: String,
    pub request_id: String,
}

fn device_error(status: StatusCode, error: &'static str, description: &str) -> Response {
    let body = DeviceError {
        error,
        error_description: description.to_owned(),
        request_id: context::current().request_id,
    };
    let mut r = (status, axum::Json(body)).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // The spec's body for these errors, not a problem document.
    r.extensions_mut().insert(super::middleware::KeepBody);
    r
}

/// A fresh user code, `ABCD-EF12`.
pub fn user_code() -> String {
    use rand::RngExt;
    let mut rng = rand::rng();
    let mut code = String::with_capacity(9);
    for _ in 0..4 {
        code.push(LETTERS[rng.random_range(0..LETTERS.len())] as char);
    }
    code.push('-');
    for _ in 0..4 {
        code.push(CHARS[rng.random_range(0..CHARS.len())] as char);
    }
    code
}

/// A user code as people type it: case and separators do not matter.
pub fn normalize_user_code(raw: &str) -> Option<String> {
    let chars: Vec<char> = raw
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if chars.len() != 8 {
        return None;
    }
    let (a, b): (String, String) = (chars[..4].iter().collect(), chars[4..].iter().collect());
    Some(format!("{a}-{b}"))
}

fn device_code_hash(device_code: &str) -> String {
    crate::auth::hash_hex(device_code.as_bytes())
}

/// The body's fields: JSON object or form, either may be empty.
async fn fields(req: Request) -> Result<Map<String, Value>, ApiError> {
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    let bytes = axum::body::to_bytes(req.into_body(), BODY_LIMIT)
        .await
        .map_err(|_| ApiError::PayloadTooLarge {
            limit_bytes: BODY_LIMIT,
        })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    if is_form {
        return Ok(form_urlencoded::parse(&bytes)
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect());
    }
    // Fields this endpoint does not read are ignored unchecked (OAuth
    // clients send their own); the ones it reads are checked one by one.
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(ApiError::bad_request(
            "body",
            "must be a JSON object or a form (application/x-www-form-urlencoded)",
        )),
    }
}

fn text_field(
    map: &Map<String, Value>,
    name: &str,
    max: usize,
) -> Result<Option<String>, ApiError> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.chars().count() > max {
                return Err(ApiError::bad_request(
                    name,
                    format!("must be at most {max} characters"),
                ));
            }
            super::extract::plain_text(name, s)?;
            Ok(Some(s.to_owned()).filter(|s| !s.is_empty()))
        }
        Some(_) => Err(ApiError::bad_request(name, "must be a string")),
    }
}

fn peer(req: &Request) -> String {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(a)| a.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// `POST /api/auth/device/code`.
pub async fn code(State(state): State<HttpState>, req: Request) -> Response {
    let ip = peer(&req);
    let (decision, admitted) = rate::check_ip(&state, "device-code", &ip, CODES_PER_MINUTE).await;
    let result = match admitted {
        Ok(()) => issue(&state, req).await,
        Err(refused) => Err(refused),
    };
    rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    )
}

async fn issue(state: &HttpState, req: Request) -> Result<Response, ApiError> {
    let map = fields(req).await?;
    let client_name = text_field(&map, "client_name", 80)?
        .or(text_field(&map, "client_id", 80).ok().flatten())
        .unwrap_or_else(|| "device login".to_owned());
    let device_code = format!("vdc_{}", random_base62(43));
    let expires_at = now_millis() + EXPIRES_IN as i64 * 1000;
    for _ in 0..5 {
        let code = user_code();
        if state
            .store
            .create_device_login(
                &device_code_hash(&device_code),
                &code,
                &client_name,
                expires_at,
            )
            .await?
        {
            let verification_uri = format!("{}/device", state.base_url);
            let body = DeviceCodeResponse {
                verification_uri_complete: format!("{verification_uri}?user_code={code}"),
                verification_uri,
                device_code,
                user_code: code,
                expires_in: EXPIRES_IN,
                interval: INTERVAL,
            };
            let mut r = (StatusCode::CREATED, axum::Json(body)).into_response();
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            return Ok(r);
        }
    }
    Err(ApiError::Unavailable {
        message: "Could not draw a free user code; retry.".into(),
        retry_after_secs: Some(1),
    })
}

/// `POST /api/auth/device/token`.
pub async fn token(State(state): State<HttpState>, req: Request) -> Response {
    let ip = peer(&req);
    let (decision, admitted) = rate::check_ip(&state, "device-token", &ip, TOKENS_PER_MINUTE).await;
    let response = match admitted {
        Ok(()) => match exchange(&state, req).await {
            Ok(r) => r,
            Err(e) => e.into_response(),
        },
        Err(_) => {
            let mut r = device_error(
                StatusCode::TOO_MANY_REQUESTS,
                "slow_down",
                "Too many polls from this address; wait Retry-After seconds.",
            );
            r.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(decision.reset_secs.max(1)),
            );
            r
        }
    };
    rate::with_headers(response, &decision)
}

async fn exchange(state: &HttpState, req: Request) -> Result<Response, ApiError> {
    let Ok(map) = fields(req).await else {
        return Ok(device_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "The body must be a form or a JSON object with device_code.",
        ));
    };
    if let Some(grant) = map.get("grant_type").and_then(Value::as_str)
        && grant != GRANT_TYPE
    {
        return Ok(device_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            &format!("grant_type must be {GRANT_TYPE}"),
        ));
    }
    let Some(device_code) = map
        .get("device_code")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
    else {
        return Ok(device_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "device_code is required: the device_code POST /api/auth/device/code returned.",
        ));
    };
    let poll = state
        .store
        .poll_device_login(&device_code_hash(device_code), INTERVAL as i64 * 1000)
        .await?;
    Ok(match poll {
        DevicePoll::Unknown => device_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "Unknown device_code: start over with POST /api/auth/device/code.",
        ),
        DevicePoll::Pending => device_error(
            StatusCode::BAD_REQUEST,
            "authorization_pending",
            "Not approved yet: keep polling every interval seconds.",
        ),
        DevicePoll::TooFast { wait_ms } => {
            let mut r = device_error(
                StatusCode::TOO_MANY_REQUESTS,
                "slow_down",
                "Polled sooner than the interval: wait Retry-After seconds, and poll 5 seconds less often.",
            );
            let secs = u64::try_from(wait_ms).unwrap_or(1).div_ceil(1000).max(1);
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
            r
        }
        DevicePoll::Denied => device_error(
            StatusCode::BAD_REQUEST,
            "access_denied",
            "The person denied this login.",
        ),
        DevicePoll::Expired => device_error(
            StatusCode::BAD_REQUEST,
            "expired_token",
            "This device code expired or its key was already returned: start over.",
        ),
        DevicePoll::Approved(login) => {
            let Some(account_id) = login.account_id.clone() else {
                return Err(ApiError::internal(
                    "an approved device login without an account",
                ));
            };
            let key = ApiKey::generate();
            let scopes = Scopes::new_key_default();
            let delivered = state
                .store
                .deliver_device_key(
                    &login.id,
                    NewKey {
                        account_id,
                        name: login.client_name.clone(),
                        display_prefix: key.display_prefix(),
                        key_hash: key.hash(),
                        scopes: scopes.to_string(),
                        rate_limit_per_minute: crate::limits::DEFAULT_RATE_LIMIT_PER_MINUTE,
                    },
                )
                .await?;
            match delivered {
                None => device_error(
                    StatusCode::BAD_REQUEST,
                    "expired_token",
                    "This device code's key was already returned: start over.",
                ),
                Some(_) => {
                    let body = DeviceTokenResponse {
                        access_token: key.expose().to_owned(),
                        token_type: "Bearer",
                        scope: scopes.names().join(" "),
                    };
                    let mut r = axum::Json(body).into_response();
                    r.headers_mut()
                        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                    r
                }
            }
        }
    })
}

#[derive(Debug, serde::Deserialize)]
pub struct VerifyQuery {
    user_code: Option<String>,
}

/// `GET /device`: the verification page. A signed-in person sees the
/// client's name and the code, and approves or denies; anyone else is
/// asked to sign in first.
pub async fn page(
    State(state): State<HttpState>,
    headers: axum::http::HeaderMap,
    Query(q): Query<VerifyQuery>,
) -> Response {
    let account = super::web::signed_in(&state, &headers).await;
    verification(
        &state,
        &headers,
        account.as_ref(),
        q.user_code.as_deref(),
        StatusCode::OK,
    )
    .await
}

async fn verification(
    state: &HttpState,
    headers: &axum::http::HeaderMap,
    account: Option<&crate::store::Account>,
    entered: Option<&str>,
    status_code: StatusCode,
) -> Response {
    let code = entered.and_then(normalize_user_code);
    let login = match &code {
        Some(c) => state
            .store
            .device_login_by_user_code(c)
            .await
            .ok()
            .flatten(),
        None => None,
    };
    let now = now_millis();
    let (status, client_name) = match &login {
        Some(l) if l.status == "pending" && l.expires_at > now => {
            ("pending", l.client_name.clone())
        }
        Some(l) if l.status == "pending" => ("expired", l.client_name.clone()),
        Some(l) => (
            if l.status == "denied" {
                "denied"
            } else {
                "approved"
            },
            l.client_name.clone(),
        ),
        None => ("unknown", String::new()),
    };
    let code = code.unwrap_or_default();
    let next = format!("/device?user_code={code}");
    let ctx = minijinja::context! {
        user_code => code,
        entered => entered.is_some(),
        status => status,
        client_name => client_name,
        signin_next => form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>(),
    };
    super::web::render(
        state,
        headers,
        status_code,
        "device.html",
        "account",
        account,
        ctx,
    )
}

/// `POST /device`: the signed-in person approves (`decision=approve`) or
/// denies a pending login; the device's next poll gets the key or
/// `access_denied`.
pub async fn decide(
    State(state): State<HttpState>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let form = match super::web::read_form(&state, &headers, &body) {
        Ok(f) => f,
        Err(why) => return super::web::refusal(&state, &headers, why),
    };
    let entered = form.get("user_code").unwrap_or_default().to_owned();
    let next = format!("/device?user_code={entered}");
    let account = match super::web::require_signed_in(&state, &headers, &next).await {
        Ok(a) => a,
        Err(redirect) => return redirect,
    };
    let approve = match form.get("decision") {
        Some("approve") => true,
        Some("deny") => false,
        _ => {
            return super::web::notice(
                &state,
                &headers,
                StatusCode::BAD_REQUEST,
                "Approve or deny",
                "Choose Approve or Deny.",
            );
        }
    };
    if let Some(code) = normalize_user_code(&entered) {
        let owner = approve.then_some(account.id.as_str());
        match state.store.decide_device_login(&code, owner).await {
            Ok(Some(login)) => tracing::info!(
                account.id = %account.id, login.id = %login.id, approved = approve,
                "device login decided on the web"
            ),
            Ok(None) => {}
            Err(e) => return ApiError::from(e).into_response(),
        }
    }
    verification(
        &state,
        &headers,
        Some(&account),
        Some(&entered),
        StatusCode::OK,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_codes_have_the_form_and_no_look_alikes() {
        for _ in 0..200 {
            let c = user_code();
            assert_eq!(c.len(), 9);
            assert_eq!(&c[4..5], "-");
            assert!(c[..4].bytes().all(|b| LETTERS.contains(&b)), "{c}");
            assert!(c[5..].bytes().all(|b| CHARS.contains(&b)), "{c}");
            assert!(!c.contains(['I', 'L', 'O', '0', '1']), "{c}");
        }
        assert_eq!(
            normalize_user_code("abcd-ef23").as_deref(),
            Some("ABCD-EF23")
        );
        assert_eq!(
            normalize_user_code(" ABCD EF23 ").as_deref(),
            Some("ABCD-EF23")
        );
        assert_eq!(normalize_user_code("ABC-EF23"), None);
    }
}
