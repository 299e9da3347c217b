//! The OpenAPI document (the guides, `/docs/errors` among them, are
//! `guides.rs`).

use axum::extract::RawQuery;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

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
