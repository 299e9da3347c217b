//! What every page for people shares: the session cookie, CSRF protection
//! of forms, reading a form body, and rendering a page with a status.
//!
//! - **Session**: cookie `vis_session` (256 random bits; the database keeps
//!   its SHA-256), `HttpOnly; SameSite=Lax; Path=/`, `Secure` when the base
//!   URL is https. Any replica reads it from the database.
//! - **CSRF**: signed double submit. Cookie `vis_csrf` holds a random value;
//!   each form carries `csrf = HMAC(web secret, that value)`. A POST whose
//!   field does not match its cookie, or that a browser marks as
//!   cross-site (`Sec-Fetch-Site`, `Origin`), is refused with a 403 page.
//!   The web secret is generated once and shared through the database.

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use hmac::{KeyInit, Mac};
use minijinja::Value;
use subtle::ConstantTimeEq;

use crate::config::Secret;
use crate::http::state::HttpState;
use crate::people;
use crate::store::Account;

pub const SESSION_COOKIE: &str = "vis_session";
pub const CSRF_COOKIE: &str = "vis_csrf";
/// Not a secret: tells the pages' script to show "Dashboard" for "Sign in".
pub const HINT_COOKIE: &str = "vis_signed_in";
/// Form bodies larger than this are refused.
pub const FORM_LIMIT: usize = 8 * 1024;

/// The web pages' keys and settings.
#[derive(Debug)]
pub struct Web {
    secret: Secret<Vec<u8>>,
    secure: bool,
    /// When API keys were last used (the dashboard shows it).
    pub key_use: super::auth::KeyUse,
}

impl Web {
    pub fn new(secret: &[u8], base_url: &str) -> Web {
        Web {
            secret: Secret::new(secret.to_vec()),
            secure: base_url.starts_with("https://"),
            key_use: super::auth::KeyUse::default(),
        }
    }

    pub fn secret(&self) -> &[u8] {
        self.secret.expose()
    }

    fn csrf_for(&self, cookie: &str) -> String {
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(self.secret.expose())
            .expect("HMAC takes any key length");
        mac.update(b"csrf:");
        mac.update(cookie.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// A `Set-Cookie` value with the site's attributes.
    pub fn cookie(&self, name: &str, value: &str, max_age_secs: i64, http_only: bool) -> String {
        format!(
            "{name}={value}; Path=/; Max-Age={max_age_secs}; SameSite=Lax{}{}",
            if http_only { "; HttpOnly" } else { "" },
            if self.secure { "; Secure" } else { "" }
        )
    }

    /// An `HttpOnly` `Set-Cookie` value sent only to pages under `path`.
    pub fn cookie_at(&self, path: &str, name: &str, value: &str, max_age_secs: i64) -> String {
        format!(
            "{name}={value}; Path={path}; Max-Age={max_age_secs}; SameSite=Lax; HttpOnly{}",
            if self.secure { "; Secure" } else { "" }
        )
    }
}

/// The address the connection came from ("unknown" when the server was
/// not given it), for per-address limits.
#[derive(Debug, Clone)]
pub struct ClientIp(pub String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<ClientIp, Self::Rejection> {
        let ip = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|axum::extract::ConnectInfo(a)| a.ip().to_string())
            .unwrap_or_else(|| "unknown".into());
        Ok(ClientIp(ip))
    }
}

/// The value of cookie `name` in the request.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// The account the request's session cookie signs in, if any.
pub async fn signed_in(state: &HttpState, headers: &HeaderMap) -> Option<Account> {
    let token = cookie(headers, SESSION_COOKIE)?;
    if token.len() > 128 {
        return None;
    }
    match state.store.web_session(&people::token_hash(token)).await {
        Ok(account) => account,
        Err(e) => {
            tracing::warn!(error = %e, "session lookup failed");
            None
        }
    }
}

/// Either the signed-in account or the redirect to `/signin` that comes
/// back to `next`.
pub async fn require_signed_in(
    state: &HttpState,
    headers: &HeaderMap,
    next: &str,
) -> Result<Account, Response> {
    match signed_in(state, headers).await {
        Some(a) => Ok(a),
        None => Err(see_other(&format!(
            "/signin?next={}",
            form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>()
        ))),
    }
}

/// A 303 to `to`.
pub fn see_other(to: &str) -> Response {
    let mut r = Redirect::to(to).into_response();
    *r.status_mut() = StatusCode::SEE_OTHER;
    r
}

/// `next` when it is a path on this site, else the dashboard.
pub fn safe_next(next: Option<&str>) -> String {
    next.filter(|n| is_local_path(n))
        .map_or_else(|| "/dashboard".to_owned(), str::to_owned)
}

/// Whether a browser reads `n` as a path on this site. Browsers drop tabs
/// and newlines from a URL and read `\` as `/` (so `/\t/host` is `//host`,
/// another site), and a header cannot carry control characters: any control,
/// white-space or backslash character refuses it outright, and what is left
/// must start with one `/`, never two.
fn is_local_path(n: &str) -> bool {
    n.len() < 512
        && n.starts_with('/')
        && !n.starts_with("//")
        && !n
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
}

/// The CSRF state of a page being rendered: the token its forms carry and,
/// when the browser has no CSRF cookie yet, the cookie to set.
#[derive(Debug)]
pub struct CsrfToken {
    pub token: String,
    set_cookie: Option<String>,
}

pub fn csrf_token(state: &HttpState, headers: &HeaderMap) -> CsrfToken {
    match cookie(headers, CSRF_COOKIE).filter(|c| c.len() <= 128) {
        Some(c) => CsrfToken {
            token: state.web.csrf_for(c),
            set_cookie: None,
        },
        None => {
            let value = people::new_token();
            CsrfToken {
                token: state.web.csrf_for(&value),
                set_cookie: Some(
                    state
                        .web
                        .cookie(CSRF_COOKIE, &value, 60 * 60 * 24 * 365, true),
                ),
            }
        }
    }
}

/// A form's fields, read from an `application/x-www-form-urlencoded` body
/// of at most [`FORM_LIMIT`] bytes.
#[derive(Debug, Default)]
pub struct FormFields(Vec<(String, String)>);

impl FormFields {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a form POST is refused before its handler looks at it.
#[derive(Debug)]
pub enum FormRefusal {
    /// Missing or wrong CSRF token, or a cross-site request: 403.
    Forged,
    TooLarge,
    NotAForm,
}

/// Reads a form body and checks its CSRF token against the request's cookie.
pub fn read_form(
    state: &HttpState,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<FormFields, FormRefusal> {
    if body.len() > FORM_LIMIT {
        return Err(FormRefusal::TooLarge);
    }
    let cross_site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == "cross-site");
    let foreign_origin = headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|o| o != "null" && o != origin_of(&state.base_url) && !same_host(headers, o));
    if cross_site || foreign_origin {
        return Err(FormRefusal::Forged);
    }
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Err(FormRefusal::NotAForm);
    }
    let fields = FormFields(
        form_urlencoded::parse(body)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect(),
    );
    let expected = cookie(headers, CSRF_COOKIE).map(|c| state.web.csrf_for(c));
    let ok = match (expected, fields.get("csrf")) {
        (Some(e), Some(got)) => e.as_bytes().ct_eq(got.as_bytes()).into(),
        _ => false,
    };
    if ok {
        Ok(fields)
    } else {
        Err(FormRefusal::Forged)
    }
}

/// `scheme://host[:port]` of a URL.
fn origin_of(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => &url[..after_scheme + i],
        None => url,
    }
}

/// Whether `origin` names the host the request was sent to (a deployment
/// reached by another name than its base URL).
fn same_host(headers: &HeaderMap, origin: &str) -> bool {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, h)| h);
    matches!((host, origin_host), (Some(h), Some(o)) if h == o)
}

/// Renders `template` with `status`, the CSRF token in `ctx` as `csrf`,
/// and the signed-in account's email as `account_email`. Pages for people
/// are never stored by caches.
pub fn render(
    state: &HttpState,
    headers: &HeaderMap,
    status: StatusCode,
    template: &str,
    nav: &str,
    account: Option<&Account>,
    ctx: Value,
) -> Response {
    let csrf = csrf_token(state, headers);
    let ctx = minijinja::context! {
        csrf => &csrf.token,
        account_email => account.map(|a| a.email.as_str()),
        ..ctx
    };
    let mut r = super::pages::render_page(state, template, nav, ctx);
    if r.status() != StatusCode::OK {
        return r;
    }
    *r.status_mut() = status;
    // A person's form answered with its errors on the page, not a problem.
    r.extensions_mut().insert(super::middleware::KeepBody);
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(c) = csrf.set_cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        h.append(header::SET_COOKIE, c);
    }
    r
}

/// The page for a refused form.
pub fn refusal(state: &HttpState, headers: &HeaderMap, why: FormRefusal) -> Response {
    let (status, message) = match why {
        FormRefusal::Forged => (
            StatusCode::FORBIDDEN,
            "This form could not be accepted: it was sent from another site, or the page was open too long. Go back, reload the page and try again.",
        ),
        FormRefusal::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "This form is too large."),
        FormRefusal::NotAForm => (
            StatusCode::BAD_REQUEST,
            "This address takes a form (application/x-www-form-urlencoded).",
        ),
    };
    notice(state, headers, status, "Something went wrong", message)
}

/// A page with a title and a message, in the site's layout.
pub fn notice(
    state: &HttpState,
    headers: &HeaderMap,
    status: StatusCode,
    title: &str,
    message: &str,
) -> Response {
    let ctx = minijinja::context! { title => title, message => message };
    render(state, headers, status, "notice.html", "account", None, ctx)
}

/// Adds `Set-Cookie` values to a response.
pub fn with_cookies(mut r: Response, cookies: &[String]) -> Response {
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_stays_on_this_site() {
        assert_eq!(
            safe_next(Some("/device?user_code=ABCD-EF23")),
            "/device?user_code=ABCD-EF23"
        );
        assert_eq!(safe_next(Some("//evil.example/")), "/dashboard");
        assert_eq!(safe_next(Some("https://evil.example/")), "/dashboard");
        assert_eq!(safe_next(Some("/\\evil.example")), "/dashboard");
        // What browsers clean out of a URL cannot smuggle a second slash in.
        for sneaky in [
            "/\t/evil.example/landed.html",
            "/\n/evil.example",
            "/\r/evil.example",
            "/\u{0}/evil.example",
            "/ /evil.example",
            "/\u{3000}/evil.example",
            "/\u{7f}/evil.example",
            "\t//evil.example",
        ] {
            assert_eq!(safe_next(Some(sneaky)), "/dashboard", "{sneaky:?}");
        }
        assert_eq!(
            safe_next(Some("/dashboard/keys?x=1")),
            "/dashboard/keys?x=1"
        );
        assert_eq!(safe_next(None), "/dashboard");
    }

    #[test]
    fn origins_are_compared_whole() {
        assert_eq!(origin_of("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(
            origin_of("https://img.example.com/base"),
            "https://img.example.com"
        );
        assert_ne!(origin_of("http://127.0.0.1:8080"), "http://127.0.0.1:80");
    }

    #[test]
    fn cookies_are_read_by_name() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; vis_session=abc; b=2"),
        );
        assert_eq!(cookie(&h, "vis_session"), Some("abc"));
        assert_eq!(cookie(&h, "vis"), None);
    }
}
