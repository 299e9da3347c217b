//! Accounts for people (docs/accounts.md): `/signup`, `/signin`,
//! `/signout` and `/reset` (a password-reset link sent by mail). Forms are
//! CSRF-protected and rate-limited (`web.rs`); errors are shown on the
//! form, in the words of its fields.

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use minijinja::context;

use super::rate;
use super::web::{self, ClientIp, FormFields};
use crate::billing::FREE_CREDITS;
use crate::http::state::HttpState;
use crate::people;
use crate::store::{StoreError, now_millis};

/// Sign-up attempts per minute per client address.
const SIGNUPS_PER_MINUTE: u64 = 10;
/// Sign-in attempts per minute per client address, and per email address.
const SIGNINS_PER_MINUTE_IP: u64 = 20;
const SIGNINS_PER_MINUTE_EMAIL: u64 = 5;
/// Reset mails per minute per client address, and per email address.
const RESETS_PER_MINUTE_IP: u64 = 5;
const RESETS_PER_MINUTE_EMAIL: u64 = 2;

#[derive(Debug, serde::Deserialize)]
pub struct NextQuery {
    next: Option<String>,
    token: Option<String>,
}

/// A form page again, with `error` on it.
#[allow(clippy::too_many_arguments)]
fn form_page(
    state: &HttpState,
    headers: &HeaderMap,
    status: StatusCode,
    template: &str,
    email: &str,
    next: &str,
    error: Option<(&str, &str)>,
) -> Response {
    let ctx = context! {
        email => email,
        next => next,
        error_field => error.map(|e| e.0),
        error => error.map(|e| e.1),
    };
    web::render(state, headers, status, template, "signin", None, ctx)
}

/// Signs the browser in as `account_id`: a new session and its cookies,
/// then a 303 to `next`.
async fn start_session(state: &HttpState, account_id: &str, next: &str) -> Response {
    let token = people::new_token();
    let max_age = people::SESSION_DAYS * 86_400;
    if let Err(e) = state
        .store
        .create_web_session(
            &people::token_hash(&token),
            account_id,
            now_millis() + max_age * 1000,
        )
        .await
    {
        return crate::http::error::ApiError::from(e).into_response();
    }
    web::with_cookies(
        web::see_other(next),
        &[
            state.web.cookie(web::SESSION_COOKIE, &token, max_age, true),
            state.web.cookie(web::HINT_COOKIE, "1", max_age, false),
        ],
    )
}

/// `GET /signup`.
pub async fn signup_page(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Response {
    let next = web::safe_next(q.next.as_deref());
    form_page(
        &state,
        &headers,
        StatusCode::OK,
        "signup.html",
        "",
        &next,
        None,
    )
}

/// `POST /signup`: email and password; 100 free credits; signed in at once.
pub async fn signup(
    State(state): State<HttpState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = match web::read_form(&state, &headers, &body) {
        Ok(f) => f,
        Err(why) => return web::refusal(&state, &headers, why),
    };
    let next = web::safe_next(form.get("next"));
    let raw_email = form.get("email").unwrap_or_default();
    let page = |status, error| {
        form_page(
            &state,
            &headers,
            status,
            "signup.html",
            raw_email,
            &next,
            Some(error),
        )
    };
    let (_, admitted) = rate::check_ip(&state, "signup", &ip, SIGNUPS_PER_MINUTE).await;
    if admitted.is_err() {
        return page(
            StatusCode::TOO_MANY_REQUESTS,
            (
                "email",
                "Too many sign-ups from your network. Wait a minute and try again.",
            ),
        );
    }
    let email = match people::normalize_email(raw_email) {
        Ok(e) => e,
        Err(why) => return page(StatusCode::BAD_REQUEST, ("email", &format!("Email {why}."))),
    };
    let password = form.get("password").unwrap_or_default();
    if let Err(why) = people::check_new_password(password) {
        return page(
            StatusCode::BAD_REQUEST,
            ("password", &format!("Password {why}.")),
        );
    }
    let Ok(hash) = people::hash_password(password.to_owned()).await else {
        return crate::http::error::ApiError::internal("password hashing failed").into_response();
    };
    match state
        .deliverer
        .ledger
        .open_person(&email, &hash, FREE_CREDITS)
        .await
    {
        Ok(account) => {
            tracing::info!(account.id = %account.id, "account created on the web");
            start_session(&state, &account.id, &next).await
        }
        Err(StoreError::Conflict(_)) => page(
            StatusCode::BAD_REQUEST,
            (
                "email",
                "An account with this email exists. Sign in, or reset its password if you have none yet.",
            ),
        ),
        Err(e) => crate::http::error::ApiError::from(e).into_response(),
    }
}

/// `GET /signin`.
pub async fn signin_page(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Response {
    let next = web::safe_next(q.next.as_deref());
    if web::signed_in(&state, &headers).await.is_some() {
        return web::see_other(&next);
    }
    form_page(
        &state,
        &headers,
        StatusCode::OK,
        "signin.html",
        "",
        &next,
        None,
    )
}

/// `POST /signin`.
pub async fn signin(
    State(state): State<HttpState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = match web::read_form(&state, &headers, &body) {
        Ok(f) => f,
        Err(why) => return web::refusal(&state, &headers, why),
    };
    let next = web::safe_next(form.get("next"));
    let raw_email = form.get("email").unwrap_or_default();
    let page = |status, error| {
        form_page(
            &state,
            &headers,
            status,
            "signin.html",
            raw_email,
            &next,
            Some(error),
        )
    };
    let email = people::normalize_email(raw_email).unwrap_or_default();
    let (_, by_ip) = rate::check_ip(&state, "signin", &ip, SIGNINS_PER_MINUTE_IP).await;
    let (_, by_email) = rate::check_named(&state, "signin", &email, SIGNINS_PER_MINUTE_EMAIL).await;
    if by_ip.is_err() || by_email.is_err() {
        return page(
            StatusCode::TOO_MANY_REQUESTS,
            ("email", "Too many attempts. Wait a minute and try again."),
        );
    }
    let password = form.get("password").unwrap_or_default().to_owned();
    let person = match state.store.person_by_email(&email).await {
        Ok(p) => p,
        Err(e) => return crate::http::error::ApiError::from(e).into_response(),
    };
    let hash = person.as_ref().and_then(|(_, h)| h.clone());
    // Checked whether or not the account exists, so timing tells nothing.
    let ok = people::verify_password(password, hash).await;
    match person {
        Some((account, _)) if ok => start_session(&state, &account.id, &next).await,
        _ => page(
            StatusCode::UNAUTHORIZED,
            ("password", "The email or the password is wrong."),
        ),
    }
}

/// `POST /signout`: ends this browser's session.
pub async fn signout(State(state): State<HttpState>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(why) = web::read_form(&state, &headers, &body) {
        return web::refusal(&state, &headers, why);
    }
    if let Some(token) = web::cookie(&headers, web::SESSION_COOKIE)
        && let Err(e) = state
            .store
            .end_web_session(&people::token_hash(token))
            .await
    {
        return crate::http::error::ApiError::from(e).into_response();
    }
    web::with_cookies(
        web::see_other("/"),
        &[
            state.web.cookie(web::SESSION_COOKIE, "", 0, true),
            state.web.cookie(web::HINT_COOKIE, "", 0, false),
        ],
    )
}

/// `GET /reset`: asks for an email; with `?token=` from a mail, asks for
/// the new password.
pub async fn reset_page(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Response {
    let Some(token) = q.token.filter(|t| !t.is_empty()) else {
        return reset_form(&state, &headers, StatusCode::OK, None, None, false);
    };
    match state
        .store
        .password_reset_live(&people::token_hash(&token))
        .await
    {
        Ok(true) => reset_form(&state, &headers, StatusCode::OK, Some(&token), None, false),
        Ok(false) => dead_link(&state, &headers),
        Err(e) => crate::http::error::ApiError::from(e).into_response(),
    }
}

fn dead_link(state: &HttpState, headers: &HeaderMap) -> Response {
    web::notice(
        state,
        headers,
        StatusCode::GONE,
        "This link no longer works",
        "Password-reset links work once, for an hour. Ask for a new one on the sign-in page.",
    )
}

fn reset_form(
    state: &HttpState,
    headers: &HeaderMap,
    status: StatusCode,
    token: Option<&str>,
    error: Option<(&str, &str)>,
    sent: bool,
) -> Response {
    let ctx = context! {
        token => token,
        sent => sent,
        error_field => error.map(|e| e.0),
        error => error.map(|e| e.1),
        minutes => people::RESET_MINUTES,
    };
    web::render(state, headers, status, "reset.html", "signin", None, ctx)
}

/// `POST /reset`: with `email`, mails a link (the answer is the same
/// whether or not an account has that address); with `token` and
/// `password`, sets the password, signs out every other browser and signs
/// this one in.
pub async fn reset(
    State(state): State<HttpState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = match web::read_form(&state, &headers, &body) {
        Ok(f) => f,
        Err(why) => return web::refusal(&state, &headers, why),
    };
    match form.get("token") {
        Some(token) => set_password(&state, &headers, token, &form).await,
        None => send_link(&state, &headers, &ip, &form).await,
    }
}

async fn set_password(
    state: &HttpState,
    headers: &HeaderMap,
    token: &str,
    form: &FormFields,
) -> Response {
    let password = form.get("password").unwrap_or_default();
    if let Err(why) = people::check_new_password(password) {
        let message = format!("Password {why}.");
        return reset_form(
            state,
            headers,
            StatusCode::BAD_REQUEST,
            Some(token),
            Some(("password", &message)),
            false,
        );
    }
    let Ok(hash) = people::hash_password(password.to_owned()).await else {
        return crate::http::error::ApiError::internal("password hashing failed").into_response();
    };
    match state
        .store
        .use_password_reset(&people::token_hash(token), &hash)
        .await
    {
        Ok(Some(account)) => start_session(state, &account.id, "/dashboard").await,
        Ok(None) => dead_link(state, headers),
        Err(e) => crate::http::error::ApiError::from(e).into_response(),
    }
}

async fn send_link(
    state: &HttpState,
    headers: &HeaderMap,
    ip: &str,
    form: &FormFields,
) -> Response {
    let email = match people::normalize_email(form.get("email").unwrap_or_default()) {
        Ok(e) => e,
        Err(why) => {
            let message = format!("Email {why}.");
            return reset_form(
                state,
                headers,
                StatusCode::BAD_REQUEST,
                None,
                Some(("email", &message)),
                false,
            );
        }
    };
    let (_, by_ip) = rate::check_ip(state, "reset", ip, RESETS_PER_MINUTE_IP).await;
    let (_, by_email) = rate::check_named(state, "reset", &email, RESETS_PER_MINUTE_EMAIL).await;
    if by_ip.is_err() || by_email.is_err() {
        return reset_form(
            state,
            headers,
            StatusCode::TOO_MANY_REQUESTS,
            None,
            Some(("email", "Too many requests. Wait a minute and try again.")),
            false,
        );
    }
    match state.store.account_by_email(&email).await {
        Ok(Some(account)) => {
            let token = people::new_token();
            let expires = now_millis() + people::RESET_MINUTES * 60_000;
            if let Err(e) = state
                .store
                .create_password_reset(&people::token_hash(&token), &account.id, expires)
                .await
            {
                return crate::http::error::ApiError::from(e).into_response();
            }
            let link = format!("{}/reset?token={token}", state.base_url);
            let body = format!(
                "Someone asked to set a new password for the Vehicle Image Service account {email}.\n\n\
                 To choose one, open this link within {} minutes:\n\n{link}\n\n\
                 If it was not you, ignore this message: your password stays as it is.\n",
                people::RESET_MINUTES
            );
            if let Err(e) = state
                .mailer
                .send(&email, "Set your Vehicle Image Service password", body)
                .await
            {
                // The address is the person's; the link never reaches a log.
                tracing::error!(account.id = %account.id, error = %e, "password-reset mail failed");
                return web::notice(
                    state,
                    headers,
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Mail could not be sent",
                    "The service could not send mail just now. Try again in a few minutes.",
                );
            }
        }
        Ok(None) => {}
        Err(e) => return crate::http::error::ApiError::from(e).into_response(),
    }
    reset_form(state, headers, StatusCode::OK, None, None, true)
}
