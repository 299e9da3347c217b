//! GET /api/v1/images/options (spec §2 Options document; public, free,
//! cacheable for one hour). The document is built once at start-up.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};
use vis_protocol::{Color, Format, SOURCE_PX, SizePreset, View};

use super::context;
use crate::app::AppState;
use crate::billing::{CREDITS_PER_DOLLAR, CREDITS_PER_IMAGE, FREE_CREDITS, PACKS};
use crate::delivery::signed::TtlBounds;
use crate::limits;

/// What the options document says about the loaded catalog.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogSummary {
    pub makes: usize,
    pub models: usize,
    pub years: YearRange,
    pub sources: Vec<CatalogSource>,
}

#[derive(Debug, Clone, Serialize)]
pub struct YearRange {
    pub from: u16,
    pub to: u16,
}

#[derive(Debug, Clone, Serialize)]
pub struct CatalogSource {
    pub id: String,
    pub name: String,
    pub region: String,
    pub license: String,
}

/// The `data` member of the options document. `ttl` is the deployment's
/// delivery-URL lifetime bounds.
pub fn document(base_url: &str, catalog: &CatalogSummary, ttl: &TtlBounds) -> Value {
    let views: Vec<Value> = View::ALL
        .iter()
        .map(|v| {
            json!({
                "id": v,
                "label": v.label(),
                "yaw_degrees": v.yaw_degrees(),
                "description": v.description(),
                "aliases": v.aliases(),
            })
        })
        .collect();
    let colors: Vec<Value> = Color::ALL
        .iter()
        .map(|c| json!({ "name": c, "hex": c.hex() }))
        .collect();
    let presets: serde_json::Map<String, Value> = SizePreset::ALL
        .iter()
        .map(|s| (s.id().to_owned(), Value::from(s.px())))
        .collect();
    let formats: Vec<Value> = Format::ALL
        .iter()
        .map(|f| json!({ "id": f, "mime": f.mime(), "transparent": f.transparent() }))
        .collect();
    json!({
        "views": views,
        "colors": colors,
        "sizes": { "presets": presets, "max": SOURCE_PX, "source": SOURCE_PX },
        "formats": formats,
        "pricing": {
            "credits_per_image": CREDITS_PER_IMAGE,
            "credits_per_dollar": CREDITS_PER_DOLLAR,
            "free_credits": FREE_CREDITS,
            "packs": PACKS,
        },
        "catalog": catalog,
        "limits": {
            "rate_limit_per_minute_default": limits::DEFAULT_RATE_LIMIT_PER_MINUTE,
            "max_batch_urls": limits::MAX_BATCH_URLS,
            "delivery_ttl": {
                "default": ttl.default_secs,
                "min": ttl.min_secs,
                "max": ttl.max_secs,
            },
        },
        "links": {
            "docs": format!("{base_url}/docs"),
            "errors": format!("{base_url}/docs/errors"),
            "openapi": format!("{base_url}/api/v1/openapi.json"),
            "image": format!("{base_url}/api/v1/images/car"),
            "vehicles": format!("{base_url}/api/v1/vehicles"),
            "resolve": format!("{base_url}/api/v1/images/resolve"),
            "image_urls": format!("{base_url}/api/v1/image-urls"),
            "account": format!("{base_url}/api/v1/account"),
            "pricing": format!("{base_url}/pricing"),
        },
    })
}

pub async fn get(State(state): State<AppState>) -> Response {
    let body = json!({ "data": &*state.options, "request_id": context::current().request_id });
    let mut response = axum::Json(body).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}
