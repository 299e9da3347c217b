//! Human documentation pages and the OpenAPI document.

use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::http::state::HttpState;

/// The interface description, generated from the code (`http::openapi`):
/// the public API, or with `?scope=all` every route (the site's pages,
/// forms and operator routes too; what schemathesis checks).
pub async fn openapi(RawQuery(query): RawQuery) -> Response {
    let document = if query.as_deref() == Some("scope=all") {
        super::openapi::full_document_json()
    } else {
        super::openapi::document_json()
    };
    let mut response = document.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

/// (status, meaning, what a client should do) — spec §7, plus 405.
pub const ERRORS: [(u16, &str, &str); 13] = [
    (
        400,
        "A parameter is missing, out of range or not an allowed value, or the JSON body does not parse. `detail` and `param` name the parameter.",
        "Fix the request, then retry. Never retry it unchanged.",
    ),
    (
        401,
        "The API key is missing, invalid or revoked. The response carries `WWW-Authenticate: Bearer`.",
        "Fix the key, then retry.",
    ),
    (
        402,
        "The account has fewer credits than the request needs (a single image needs at least 1). The body carries `balance` and `required_credits`; the `Link` header points at pricing.",
        "Do not retry automatically; ask the human to buy credits.",
    ),
    (
        403,
        "The key lacks the scope the endpoint needs (the body's `scope` names it), or a delivery token or partner signature is malformed, invalid, expired or from a revoked key.",
        "Use a key with the scope, or mint a new URL.",
    ),
    (
        404,
        "The make, model or year is not in the catalog for that year, or the endpoint, catalog entry or rendered image does not exist.",
        "Fix the request; use /api/v1/vehicles or /api/v1/images/resolve to find exact parameters.",
    ),
    (
        405,
        "The endpoint exists but not for this HTTP method. The `Allow` header lists the methods it accepts.",
        "Use one of the allowed methods.",
    ),
    (
        410,
        "A use-capped delivery URL has reached its max_uses.",
        "Mint a new URL.",
    ),
    (
        413,
        "The request body is larger than the endpoint's limit (image-urls 64 KiB, events 32 KiB, feedback 8 KiB, resolve 4 KiB, checkout 1 KiB).",
        "Split the request, then retry.",
    ),
    (
        429,
        "A rate limit was exceeded: per key (default 120 per minute) or per IP. `Retry-After` gives integer seconds; `RateLimit-*` describe the window. Nothing was billed.",
        "Wait Retry-After seconds, then back off with jitter.",
    ),
    (
        500,
        "An unexpected failure. Nothing was charged.",
        "Retry once after a pause; report the request_id if it persists.",
    ),
    (
        502,
        "The render failed; any credit was refunded. A signed URL whose first load failed is consumed.",
        "Keyed request: retry after a pause. Signed URL: mint a new one.",
    ),
    (
        503,
        "A dependency is down or overloaded, or the daily generation budget is spent. Nothing was charged. `Retry-After` is set when a short retry makes sense.",
        "Retry later, honouring Retry-After.",
    ),
    (
        504,
        "The request took longer than the server allows.",
        "Retry later.",
    ),
];

fn md_code(text: &str) -> String {
    // Backticks in the table become <code>; the texts contain no HTML.
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

pub async fn errors(State(state): State<HttpState>) -> Response {
    let mut body = String::from(
        "<h1>Errors</h1><p>Every failure is an <code>application/problem+json</code> document (RFC 9457) \
         with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code> and \
         <code>request_id</code>. Keep the <code>request_id</code> for support.</p>",
    );
    for (status, meaning, action) in ERRORS {
        body.push_str(&format!(
            "<section id=\"{status}\"><h2><a href=\"#{status}\">{status}</a></h2>\
             <p>{}</p><p><strong>What to do:</strong> {}</p></section>",
            md_code(meaning),
            md_code(action)
        ));
    }
    super::pages::article(&state, "Errors", body)
}
