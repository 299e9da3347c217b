//! Accounts for people (docs/accounts.md): `/signup` (the free credits land
//! on `/verify`, the link mailed to the address), `/signin`, `/signout` and
//! `/reset` (a password-reset link sent by mail). Forms are
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
use crate::store::{NewVerificationLink, StoreError, Verification, now_millis};

/// Sign-up attempts per minute per client address.
const SIGNUPS_PER_MINUTE: u64 = 10;
/// Verification mails (re)sent per minute per account, and per address.
const RESENDS_PER_MINUTE_ACCOUNT: u64 = 1;
const RESENDS_PER_MINUTE_IP: u64 = 5;
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

/// `POST /signup`: email and password; signed in at once, with no credits
/// until the email is verified (the mailed link, `GET /verify`). Limited
/// per client address a minute and a day, and per email domain a day.
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
    let taken = || {
        page(
            StatusCode::BAD_REQUEST,
            (
                "email",
                "An account with this email exists. Sign in, or reset its password if you have none yet.",
            ),
        )
    };
    // A known address is refused before it counts against the day's limits.
    match state.store.account_by_email(&email).await {
        Ok(Some(_)) => return taken(),
        Ok(None) => {}
        Err(e) => return crate::http::error::ApiError::from(e).into_response(),
    }
    let (by_address, by_domain) = people::signup_subjects(&ip, &email);
    let limits = [
        (by_address, state.signup.per_address_per_day),
        (by_domain, state.signup.per_domain_per_day),
    ];
    let day = now_millis().div_euclid(86_400_000);
    match state.store.count_signup(&limits, day).await {
        Ok(None) => {}
        Ok(Some(0)) => {
            return page(
                StatusCode::TOO_MANY_REQUESTS,
                (
                    "email",
                    "Too many sign-ups from your network today. Try again tomorrow.",
                ),
            );
        }
        Ok(Some(_)) => {
            let domain = email.rsplit_once('@').map_or("", |(_, d)| d);
            let message =
                format!("Too many sign-ups with addresses at {domain} today. Try again tomorrow.");
            return page(StatusCode::TOO_MANY_REQUESTS, ("email", &message));
        }
        Err(e) => return crate::http::error::ApiError::from(e).into_response(),
    }
    let Ok(hash) = people::hash_password(password.to_owned()).await else {
        return crate::http::error::ApiError::internal("password hashing failed").into_response();
    };
    let token = people::new_token();
    let token_hash = people::token_hash(&token);
    let link = NewVerificationLink {
        token_hash: &token_hash,
        expires_at: now_millis() + state.signup.verify_link_secs * 1000,
    };
    match state
        .store
        .create_unverified_person(&email, &hash, &link)
        .await
    {
        Ok(account) => {
            tracing::info!(account.id = %account.id, "account created on the web");
            // A mail that fails is said on the dashboard, which offers to
            // send it again; the account stands.
            let _ = send_verification(&state, &account.id, &email, &token).await;
            start_session(&state, &account.id, &next).await
        }
        Err(StoreError::Conflict(_)) => taken(),
        Err(e) => crate::http::error::ApiError::from(e).into_response(),
    }
}

/// Mails the verification link of `token` to `email`. The link never
/// reaches a log.
async fn send_verification(
    state: &HttpState,
    account_id: &str,
    email: &str,
    token: &str,
) -> Result<(), ()> {
    let link = format!("{}/verify?token={token}", state.base_url);
    let body = format!(
        "Welcome to the Vehicle Image Service.\n\n\
         To verify {email} and receive your {FREE_CREDITS} free credits, open this link within {}:\n\n\
         {link}\n\n\
         If you did not sign up, ignore this message: nothing happens without the link.\n",
        people::lifetime_words(state.signup.verify_link_secs)
    );
    match state
        .mailer
        .send(
            email,
            "Verify your email for the Vehicle Image Service",
            body,
        )
        .await
    {
        Ok(()) => {
            tracing::info!(account.id = %account_id, "verification mail sent");
            Ok(())
        }
        Err(e) => {
            tracing::error!(account.id = %account_id, error = %e, "verification mail failed");
            Err(())
        }
    }
}

/// `GET /verify?token=…`: the mailed link. The first live link of an
/// unverified account verifies it and its free credits land (once per
/// account, decided in the database); opening it again changes nothing.
pub async fn verify(
    State(state): State<HttpState>,
    method: axum::http::Method,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Response {
    if method == axum::http::Method::HEAD {
        // A link checker's HEAD verifies nothing; only a GET does.
        return web::notice(
            &state,
            &headers,
            StatusCode::OK,
            "Verify your email",
            "Open this link in a browser.",
        );
    }
    let token = q.token.unwrap_or_default();
    if token.is_empty() || token.len() > 128 {
        return web::notice(
            &state,
            &headers,
            StatusCode::GONE,
            "This link does not work",
            "Open the whole link from the verification mail, or sign in and send a new one from the dashboard.",
        );
    }
    match state
        .deliverer
        .ledger
        .verify_email(&people::token_hash(&token), FREE_CREDITS)
        .await
    {
        Ok(Verification::Granted { account_id, .. }) => {
            tracing::info!(account.id = %account_id, "email verified: free credits granted");
            web::notice(
                &state,
                &headers,
                StatusCode::OK,
                "Your email is verified",
                &format!("{FREE_CREDITS} free credits were added to your account."),
            )
        }
        Ok(Verification::AlreadyVerified { .. }) => web::notice(
            &state,
            &headers,
            StatusCode::OK,
            "Your email is verified already",
            "Nothing more to do: the free credits were added when it was first verified.",
        ),
        Ok(Verification::Expired) => web::notice(
            &state,
            &headers,
            StatusCode::GONE,
            "This link has expired",
            &format!(
                "Verification links work for {}. Sign in and send a new one from the dashboard.",
                people::lifetime_words(state.signup.verify_link_secs)
            ),
        ),
        Ok(Verification::Unknown) => web::notice(
            &state,
            &headers,
            StatusCode::GONE,
            "This link does not work",
            "Open the whole link from the verification mail, or sign in and send a new one from the dashboard.",
        ),
        Err(e) => crate::http::error::ApiError::from(e).into_response(),
    }
}

/// `POST /verify/resend`: a new verification link for the signed-in,
/// unverified account (1 a minute per account and 5 per address; at most
/// `VERIFY_MAILS_PER_DAY` in 24 hours).
pub async fn resend_verification(
    State(state): State<HttpState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(why) = web::read_form(&state, &headers, &body) {
        return web::refusal(&state, &headers, why);
    }
    let account = match web::require_signed_in(&state, &headers, "/dashboard").await {
        Ok(a) => a,
        Err(redirect) => return redirect,
    };
    let (_, by_account) = rate::check_named(
        &state,
        "verify-resend",
        &account.id,
        RESENDS_PER_MINUTE_ACCOUNT,
    )
    .await;
    let (_, by_ip) = rate::check_ip(&state, "verify-resend", &ip, RESENDS_PER_MINUTE_IP).await;
    let wait = |what: &str| {
        web::notice(
            &state,
            &headers,
            StatusCode::TOO_MANY_REQUESTS,
            "Please wait",
            what,
        )
    };
    if by_account.is_err() || by_ip.is_err() {
        return wait("A verification mail was sent a moment ago. Wait a minute and try again.");
    }
    match state.store.is_unverified(&account.id).await {
        Ok(true) => {}
        Ok(false) => return web::see_other("/dashboard"),
        Err(e) => return crate::http::error::ApiError::from(e).into_response(),
    }
    let token = people::new_token();
    let token_hash = people::token_hash(&token);
    let link = NewVerificationLink {
        token_hash: &token_hash,
        expires_at: now_millis() + state.signup.verify_link_secs * 1000,
    };
    match state
        .store
        .create_verification_link(&account.id, &link, people::VERIFY_MAILS_PER_DAY)
        .await
    {
        Ok(true) => {}
        Ok(false) => {
            return wait(&format!(
                "{} verification mails were sent in the last 24 hours. Look for them (and in the spam folder), or try again tomorrow.",
                people::VERIFY_MAILS_PER_DAY
            ));
        }
        Err(e) => return crate::http::error::ApiError::from(e).into_response(),
    }
    if send_verification(&state, &account.id, &account.email, &token)
        .await
        .is_err()
    {
        return web::notice(
            &state,
            &headers,
            StatusCode::SERVICE_UNAVAILABLE,
            "Mail could not be sent",
            "The service could not send mail just now. Try again in a few minutes.",
        );
    }
    web::notice(
        &state,
        &headers,
        StatusCode::OK,
        "Check your email",
        &format!(
            "A new link is on its way to {}. It works for {}.",
            account.email,
            people::lifetime_words(state.signup.verify_link_secs)
        ),
    )
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
