//! The interface description (OpenAPI 3.1, info.version 2.0.0), generated
//! from the code: every response body's schema is derived from the typed
//! struct the handler serialises (`utoipa::ToSchema`), and the parameters
//! and request bodies are written here from the same constants the parsers
//! use. `docs/openapi.json` is this document, written by
//! `VIS_WRITE_OPENAPI=1 cargo test -p control-plane openapi` and checked
//! by the same test; the route-table test checks that every route is in it.
//!
//! Request schemas say exactly what the server accepts, so that a
//! schema-driven tester (schemathesis in CI) can hold the server to it:
//! `make` and `brand` are mutually exclusive (`oneOf`), the parameter
//! combinations of `/api/v1/vehicles` are its six shapes, text parameters
//! carry a pattern that excludes control, invisible and combining
//! characters (written for Latin text; other scripts are accepted unless
//! they carry such characters), and optional JSON fields may be `null`.

use std::sync::OnceLock;

#[path = "openapi_samples.rs"]
mod samples;

use serde_json::{Value, json};
use utoipa::OpenApi;
use utoipa::openapi::OpenApi as Document;

use super::images::{YEAR_MAX, YEAR_MIN};
use crate::limits;

/// Text the API accepts: at least one visible character; no control,
/// format or combining characters (JSON Schema pattern).
pub const TEXT_PATTERN: &str = "^[ -~\u{a0}-\u{ac}\u{ae}-\u{24f}]*[!-~\u{a1}-\u{ac}\u{ae}-\u{24f}][ -~\u{a0}-\u{ac}\u{ae}-\u{24f}]*$";
/// Like [`TEXT_PATTERN`] but blank is allowed (resolve's optional names).
pub const TEXT_OR_BLANK_PATTERN: &str = "^[ -~\u{a0}-\u{ac}\u{ae}-\u{24f}]*$";
/// X-Request-Id a client may choose (spec §2).
pub const REQUEST_ID_PATTERN: &str = "^[A-Za-z0-9._:-]{1,128}$";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Vehicle Image Service API",
        version = "2.0.0",
        description = "Studio-style renders of vehicles by make, model, year, colour and view, metered in credits. Every failure is an application/problem+json document.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    components(schemas(
        crate::http::error::Problem,
        super::health::Health,
        super::options::OptionsResponse,
        super::vehicles::VehiclesResponse,
        super::resolve::ResolveResponse,
        super::account::AccountResponse,
        super::images::ImageUrlResponse,
        super::spin::SpinManifestResponse,
        super::image_urls::ImageUrlsResponse,
        super::events::EventsAccepted,
        super::feedback::FeedbackResponse,
        super::device::DeviceCodeResponse,
        super::device::DeviceTokenResponse,
        super::device::DeviceError,
        super::billing::CheckoutResponse,
        super::billing::PortalResponse,
        super::billing::WebhookReceipt,
        vis_protocol::View,
        vis_protocol::Color,
        vis_protocol::Format,
        vis_protocol::FormatChoice,
        vis_protocol::SizePreset,
    ))
)]
struct Derived;

/// Tags of the public API, in the order readers meet them.
pub const API_TAGS: [&str; 5] = ["images", "delivery", "catalog", "account", "billing"];
/// Tags of the endpoints for agents, after the API.
pub const AGENT_TAGS: [&str; 3] = ["mcp", "feedback", "events"];
/// Tags of the routes that are not part of the API (pages, forms,
/// operators, the payment provider): in the full document only.
pub const SITE_TAGS: [&str; 4] = ["pages", "web", "operations", "provider"];

/// The public document (the API and the agents' endpoints), built once.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| public(full_document()))
}

/// Every route the service answers, the site's pages, forms and operator
/// routes included: what the route-table test and schemathesis check
/// (`/api/v1/openapi.json?scope=all`). Built once from utoipa's derived
/// components, then the paths and request schemas (kept as JSON: they use
/// JSON Schema 2020-12 keywords that utoipa's typed model does not carry).
pub fn full_document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(build)
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("the document serialises");
    text.push('\n');
    text
}

/// The public document as served and committed (pretty JSON, trailing newline).
pub fn document_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| pretty(document()))
}

/// The full document as served with `?scope=all`.
pub fn full_document_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| pretty(full_document()))
}

fn build() -> Value {
    let derived: Document = Derived::openapi();
    let mut value = serde_json::to_value(&derived).expect("the document serialises");
    value["servers"] = json!([{ "url": "/" }]);
    value["tags"] = json!([
        { "name": "images", "description": "Images by make, model, year, view, colour, size and format (1 credit each), free-text resolution to exact parameters, and the embeddable /images/car.png." },
        { "name": "delivery", "description": "Signed delivery URLs: minted with a key (1 credit each, once), loaded without one." },
        { "name": "catalog", "description": "The vehicle catalog and the options document (public, free)." },
        { "name": "account", "description": "Balance, pricing and usage (free), and the device login that gives a command line its key." },
        { "name": "billing", "description": "Credit packs: hosted payment pages and the customer portal." },
        { "name": "mcp", "description": "The remote MCP (Model Context Protocol) server for AI agents." },
        { "name": "feedback", "description": "Reports on renders, good or bad (free)." },
        { "name": "events", "description": "The telemetry sink (public, free)." },
        { "name": "pages", "description": "Not part of the API: the web pages and the guides." },
        { "name": "web", "description": "Not part of the API: pages for people (sign-up, sign-in, the dashboard, device approval, the sandbox payment pages). HTML forms, CSRF-protected, signed in by a session cookie." },
        { "name": "operations", "description": "Not part of the API: health, readiness, metrics and this document." },
        { "name": "provider", "description": "Not part of the API: the payment provider's webhook." },
    ]);
    value["x-tagGroups"] = json!([
        { "name": "API", "tags": API_TAGS },
        { "name": "Agents", "tags": AGENT_TAGS },
        { "name": "Site (not part of the API)", "tags": SITE_TAGS },
    ]);
    let components = &mut value["components"];
    components["securitySchemes"] = json!({
        "bearer": { "type": "http", "scheme": "bearer", "description": "API key (vis_…)" },
        "apiKeyHeader": { "type": "apiKey", "in": "header", "name": "x-api-key" },
    });
    components["responses"] = json!({
        "Problem": {
            "description": "A problem document (RFC 9457).",
            "headers": { "X-Request-Id": { "schema": { "type": "string" } } },
            "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } },
        },
    });
    let schemas = components["schemas"]
        .as_object_mut()
        .expect("derived schemas");
    schemas.insert("ImageRequest".into(), image_request());
    schemas.insert("BatchImageUrlRequest".into(), batch_request());
    schemas.insert("ResolveRequest".into(), resolve_request());
    schemas.insert("FeedbackRequest".into(), feedback_request());
    schemas.insert("CheckoutRequest".into(), checkout_request());
    schemas.insert("EventsRequest".into(), events_request());
    schemas.insert("EventValue".into(), event_value());
    let mut paths = paths();
    for (_, item) in paths.as_object_mut().expect("paths").iter_mut() {
        for (_, operation) in item.as_object_mut().expect("a path item").iter_mut() {
            let samples = operation["operationId"]
                .as_str()
                .and_then(samples::code_samples);
            if let Some(samples) = samples {
                operation["x-codeSamples"] = samples;
            }
        }
    }
    value["paths"] = paths;
    value
}

/// The public document: the API and the agents' endpoints, without the
/// site's pages, forms and operator routes, and without the schemas only
/// those use. This is what `/api/v1/openapi.json` serves, what
/// `docs/openapi.json` holds and what the SDKs are generated from.
fn public(full: &Value) -> Value {
    let mut doc = full.clone();
    let public_tags: Vec<&str> = API_TAGS.iter().chain(AGENT_TAGS.iter()).copied().collect();
    let is_public = |operation: &Value| {
        operation["tags"][0]
            .as_str()
            .is_some_and(|t| public_tags.contains(&t))
    };
    let paths = doc["paths"].as_object_mut().expect("paths");
    paths.retain(|_, item| {
        let item = item.as_object_mut().expect("a path item");
        item.retain(|_, operation| is_public(operation));
        !item.is_empty()
    });
    doc["tags"]
        .as_array_mut()
        .expect("tags")
        .retain(|t| t["name"].as_str().is_some_and(|n| public_tags.contains(&n)));
    doc["x-tagGroups"]
        .as_array_mut()
        .expect("tag groups")
        .truncate(2);
    // Keep the schemas the public paths reach, directly or through others.
    let schemas = doc["components"]["schemas"].clone();
    let mut reached: Vec<String> = Vec::new();
    let mut pending = vec![doc["paths"].clone(), doc["components"]["responses"].clone()];
    while let Some(value) = pending.pop() {
        let text = value.to_string();
        for (i, _) in text.match_indices("#/components/schemas/") {
            let rest = &text[i + "#/components/schemas/".len()..];
            let name = rest[..rest.find('"').unwrap_or(rest.len())].to_string();
            if !reached.contains(&name) {
                pending.push(schemas[&name].clone());
                reached.push(name);
            }
        }
    }
    doc["components"]["schemas"]
        .as_object_mut()
        .expect("schemas")
        .retain(|name, _| reached.contains(name));
    doc
}

fn problem() -> Value {
    json!({ "$ref": "#/components/responses/Problem" })
}

/// Error responses by status, all problem documents.
fn problems(statuses: &[u16]) -> serde_json::Map<String, Value> {
    statuses
        .iter()
        .map(|s| (s.to_string(), problem()))
        .collect()
}

fn keyed() -> Value {
    json!([{ "bearer": [] }, { "apiKeyHeader": [] }])
}

fn int_header(description: &str) -> Value {
    json!({ "schema": { "type": "integer" }, "description": description })
}

fn rate_headers() -> serde_json::Map<String, Value> {
    let mut h = serde_json::Map::new();
    h.insert(
        "RateLimit-Limit".into(),
        int_header("Requests per 60 s window for this key."),
    );
    h.insert(
        "RateLimit-Remaining".into(),
        int_header("Requests left in the window."),
    );
    h.insert(
        "RateLimit-Reset".into(),
        int_header("Seconds until the window resets."),
    );
    h
}

fn with(mut base: serde_json::Map<String, Value>, extra: Value) -> Value {
    if let Value::Object(extra) = extra {
        base.extend(extra);
    }
    Value::Object(base)
}

fn json_content(schema: &str) -> Value {
    json!({ "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } })
}

fn text(max: usize) -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": max, "pattern": TEXT_PATTERN })
}

fn int(min: i64, max: i64) -> Value {
    json!({ "type": "integer", "minimum": min, "maximum": max })
}

fn accepted(schema: utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>) -> Value {
    serde_json::to_value(schema).expect("schema serialises")
}

/// `schema`, or JSON `null` (which the server reads as absent): a type
/// gains "null"; an enumeration becomes `anyOf` of itself and `null`
/// (which generators read as an optional enum, where `null` among the
/// values would make them invent types).
fn nullable(mut schema: Value) -> Value {
    if let Some(any) = schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        any.push(json!({ "type": "null" }));
        if let Some(t) = schema.get("type").and_then(Value::as_str) {
            schema["type"] = json!([t, "null"]);
        }
        return schema;
    }
    if schema.get("enum").is_some() {
        let description = schema.as_object_mut().and_then(|s| s.remove("description"));
        let mut wrapped = json!({ "anyOf": [schema, { "type": "null" }] });
        if let Some(description) = description {
            wrapped["description"] = description;
        }
        return wrapped;
    }
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        schema["type"] = json!([t, "null"]);
    }
    schema
}

/// `field` is present and not `null` (the server reads `null` as absent).
fn present(field: &str) -> Value {
    json!({ "required": [field], "properties": { field: { "not": { "type": "null" } } } })
}

/// The fields of one image, as query parameters (`w`, `h`) or as JSON
/// (`width`, `height`), with the rules of `images::validate`.
fn image_fields(json_body: bool) -> serde_json::Map<String, Value> {
    let maybe_null = |v: Value| if json_body { nullable(v) } else { v };
    let (w, h) = if json_body {
        ("width", "height")
    } else {
        ("w", "h")
    };
    let mut f = serde_json::Map::new();
    f.insert(
        "make".into(),
        with_description(text(100), "Make name or slug (or send brand, not both)."),
    );
    f.insert(
        "brand".into(),
        with_description(text(100), "Alias of make; send one of them."),
    );
    f.insert(
        "model".into(),
        with_description(text(100), "Model name, slug or unique prefix."),
    );
    f.insert(
        "year".into(),
        with_description(
            int(YEAR_MIN.into(), YEAR_MAX.into()),
            "Model year (next year's models are accepted).",
        ),
    );
    f.insert(
        "view".into(),
        maybe_null(with_description(
            accepted(vis_protocol::View::accepted_schema()),
            "Default front-3-4; aliases accepted. top looks down from directly above (nose left); angle-N is an angle's view as responses name it. Not with angle.",
        )),
    );
    f.insert(
        "angle".into(),
        maybe_null(with_description(
            {
                let mut a = int(0, 345);
                a["multipleOf"] = json!(15);
                a
            },
            "Instead of view: degrees around the vehicle from the nose, 0 to 345 in steps of 15 (90 the left side, 180 the tail). The 24 angles share one scale through the turn. view and angle together are a 400 naming angle.",
        )),
    );
    f.insert(
        "color".into(),
        maybe_null(with_description(
            color_schema(),
            "A preset name, or any colour as #RRGGBB (or RRGGBB; %23 for # in a URL). Default silver. Not with paint.",
        )),
    );
    f.insert(
        "paint".into(),
        maybe_null(with_description(
            json!({ "type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[!-~]+$" }),
            "A paint code of the make (3R3 for Toyota, 475 for BMW; the options document lists them), instead of color: color and paint together are a 400 naming paint. A make without paint codes is a 400 naming paint; a code the make does not have is a 400 naming paint and listing its nearest codes (near_codes).",
        )),
    );
    f.insert(
        "finish".into(),
        maybe_null(with_description(
            json!({ "type": "string", "enum": ["solid", "metallic", "pearl"] }),
            "The colour's finish: a #RRGGBB color is solid unless told; presets and paint codes have their own, and another finish makes them a custom paint.",
        )),
    );
    f.insert(
        "shadow".into(),
        maybe_null(with_description(
            json!({ "type": "boolean" }),
            "The soft contact shadow under the vehicle: true (default) or false, the vehicle alone. Drawn by the renderer, so shadow=false is a render of its own.",
        )),
    );
    f.insert(
        "scale".into(),
        maybe_null(with_description(
            json!({ "type": "string", "enum": ["fill", "relative"] }),
            "fill (default): every vehicle fills the frame. relative: one metres-per-pixel for every vehicle of a size class (cars and light trucks, whose longest fits the frame; box trucks; buses; motorcycles), all on one ground line, so images shown side by side keep the vehicles' real sizes. A render of its own, like shadow=false.",
        )),
    );
    f.insert(
        w.into(),
        maybe_null(with_description(
            int(1, 1024),
            "Fit inside this width; never enlarged.",
        )),
    );
    f.insert(
        h.into(),
        maybe_null(with_description(
            int(1, 1024),
            "Fit inside this height; never enlarged.",
        )),
    );
    f.insert(
        "size".into(),
        maybe_null(with_description(
            accepted(vis_protocol::SizePreset::accepted_schema()),
            "Shorthand for the width; ignored when a width or height is given.",
        )),
    );
    f.insert(
        "format".into(),
        maybe_null(with_description(
            accepted(vis_protocol::FormatChoice::accepted_schema()),
            "Default png; jpeg is an alias of jpg. auto: the smallest format the request's Accept header names by its own type (avif, then webp; a higher q wins), else png (jpg when the background is opaque); the answer carries Vary: Accept. A URL minted with auto negotiates on every load.",
        )),
    );
    f.insert(
        "background".into(),
        maybe_null(with_description(
            json!({ "type": "string", "anyOf": [
                { "enum": ["transparent", "white", "studio", "none"] },
                { "pattern": "^#[0-9A-Fa-f]{6}$" },
            ] }),
            "What is behind the vehicle: transparent (default; the render's alpha with its soft contact shadow), white, studio (a photographer's light grey sweep, the contact shadow on it) or #RRGGBB (%23 for # in a URL). An opaque background makes every pixel opaque, and format=auto then falls back to jpg.",
        )),
    );
    f.insert(
        "fit".into(),
        maybe_null(with_description(
            json!({ "type": "string", "enum": ["contain", "cover"] }),
            &format!("The output is exactly the box, which then needs both {w} and {h}: contain, the picture whole inside it (the rest background); cover, the box filled from the picture's centre. Without fit the output keeps the render's square shape inside the box."),
        )),
    );
    f.insert(
        "trim".into(),
        maybe_null(with_description(
            json!({ "type": "boolean" }),
            "Crop to the vehicle (and the dense core of its contact shadow), then contain it in the box (or cover it with fit=cover). A missing side of the box is the other's; no box is 1024 x 1024. The output's size is always known from the parameters.",
        )),
    );
    f.insert(
        "padding".into(),
        maybe_null(with_description(
            int(0, vis_protocol::PADDING_MAX.into()),
            "Pixels of margin around the vehicle inside the output, with trim=true or fit=contain (a 400 naming padding otherwise); less than half the output's shorter side.",
        )),
    );
    f
}

/// `color`: a preset's spellings, or six hex digits with an optional `#`.
fn color_schema() -> Value {
    let presets = accepted(vis_protocol::Color::accepted_schema());
    json!({ "type": "string", "anyOf": [
        { "enum": presets["enum"] },
        { "pattern": "^#?[0-9A-Fa-f]{6}$" },
    ] })
}

fn with_description(mut schema: Value, description: &str) -> Value {
    schema["description"] = json!(description);
    schema
}

/// `make` or `brand`, exactly one (a JSON `null` counts as absent).
fn make_or_brand() -> Value {
    json!([
        { "required": ["make"], "properties": { "make": { "type": "string" } } },
        { "required": ["brand"], "properties": { "brand": { "type": "string" } } },
    ])
}

/// spec §2 ImageRequest (additional properties rejected).
fn image_request() -> Value {
    json!({
        "description": "One image. Send make or brand (not both), model and year; color or paint (not both); view or angle (not both).",
        "allOf": [
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["model", "year"],
                "properties": Value::Object(image_fields(true)),
            },
            { "oneOf": make_or_brand() },
            { "not": {
                "required": ["color", "paint"],
                "properties": { "color": { "type": "string" }, "paint": { "type": "string" } },
            } },
            { "not": {
                "required": ["view", "angle"],
                "properties": { "view": { "type": "string" }, "angle": { "type": "integer" } },
            } },
        ],
    })
}

/// spec §2 BatchImageUrlRequest (additional properties rejected).
fn batch_request() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["images"],
        "properties": {
            "images": {
                "type": "array",
                "minItems": 1,
                "maxItems": limits::MAX_BATCH_URLS,
                "items": { "$ref": "#/components/schemas/ImageRequest" },
            },
            "ttl_seconds": nullable(with_description(
                int(limits::DELIVERY_TTL_MIN_SECS as i64, limits::DELIVERY_TTL_MAX_SECS as i64),
                "URL lifetime, seconds; default 3600; clamped to the deployment's bounds.",
            )),
            "max_uses": nullable(with_description(
                int(0, limits::MAX_USES.into()),
                "Loads allowed; 0 (default) means unlimited until expiry.",
            )),
        },
    })
}

/// spec §2 ResolveRequest (additional properties rejected).
fn resolve_request() -> Value {
    let name = |what: &str| {
        json!({
            "type": ["string", "null"],
            "maxLength": super::resolve::NAME_MAX_CHARS,
            "pattern": TEXT_OR_BLANK_PATTERN,
            "description": what,
        })
    };
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["query"],
        "properties": {
            "query": with_description(text(super::resolve::QUERY_MAX_CHARS), "Free text, e.g. \"navy 2019 camry from behind, 512px webp\"."),
            "year": nullable(with_description(int(YEAR_MIN.into(), YEAR_MAX.into()), "Overrides any year in the text.")),
            "make": name("Narrows the search to this make; blank is absent."),
            "model": name("The model, searched instead of the text; blank is absent."),
        },
    })
}

/// spec §2 FeedbackRequest (additional properties rejected): the image by
/// request_id or by make, model and year; rating or verdict. Every field
/// may be `null`, which the server reads as absent, so the rules count a
/// field only when it is present and not `null`.
fn feedback_request() -> Value {
    let vehicle = ["make", "model", "year"];
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "request_id": nullable(with_description(text(super::feedback::REQUEST_ID_MAX), "The X-Request-Id of the request that delivered the image (get_image's request_id).")),
            "make": nullable(with_description(text(100), "Make name or slug (with model and year, instead of request_id).")),
            "model": nullable(with_description(text(100), "Model name or slug.")),
            "year": nullable(int(YEAR_MIN.into(), YEAR_MAX.into())),
            "view": nullable(accepted(vis_protocol::View::accepted_schema())),
            "color": nullable(color_schema()),
            "rating": nullable(with_description(int(1, 5), "1 (bad) to 5 (good); 1 and 2 count as negative unless a verdict says otherwise.")),
            "verdict": nullable(json!({ "type": "string", "enum": ["good", "bad"] })),
            "reason": nullable(json!({ "type": "string", "maxLength": super::feedback::REASON_MAX, "pattern": TEXT_OR_BLANK_PATTERN })),
        },
        "allOf": [
            { "oneOf": [
                { "allOf": [present("request_id")], "not": { "anyOf": vehicle.map(present) } },
                { "allOf": vehicle.map(present), "not": present("request_id") },
            ] },
            { "anyOf": [present("rating"), present("verdict")] },
        ],
    })
}

/// The body of POST /api/auth/device/code (all optional; OAuth clients'
/// extra fields are accepted).
fn device_code_request() -> Value {
    json!({
        "type": "object",
        "properties": {
            "client_name": { "type": "string", "maxLength": 80, "pattern": TEXT_OR_BLANK_PATTERN, "description": "Names the key to be made." },
            "client_id": { "description": "OAuth clients' id; the key's name when client_name is absent and this is plain text of at most 80 characters; anything else is ignored." },
            "scope": { "description": "Ignored: a device key has all three scopes." },
        },
    })
}

/// The body of POST /api/auth/device/token.
fn device_token_request() -> Value {
    json!({
        "type": "object",
        "required": ["device_code"],
        "properties": {
            "device_code": { "type": "string", "minLength": 1, "maxLength": 200 },
            "grant_type": { "type": "string", "enum": [super::device::GRANT_TYPE] },
            "client_id": { "type": "string", "maxLength": 200 },
        },
    })
}

/// spec §6 EventsRequest (additional properties rejected).
fn events_request() -> Value {
    use super::events as ev;
    let bounded = |max: usize, what: &str| json!({ "type": ["string", "null"], "maxLength": max, "pattern": TEXT_OR_BLANK_PATTERN, "description": what });
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["events"],
        "properties": {
            "events": {
                "type": "array",
                "minItems": 1,
                "maxItems": ev::MAX_EVENTS,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["event"],
                    "properties": {
                        "event": { "type": "string", "pattern": ev::NAME_PATTERN, "description": "Funnel event name, snake_case (page_view, cli_install, cli_login, mcp_session, docs_view, …)." },
                        "source": { "type": ["string", "null"], "enum": [ev::SOURCES[0], ev::SOURCES[1], ev::SOURCES[2], ev::SOURCES[3], ev::SOURCES[4], ev::SOURCES[5], null] },
                        "anonymous_id": bounded(ev::ID_MAX_CHARS, "A client-chosen id of the visitor."),
                        "session_id": bounded(ev::ID_MAX_CHARS, "A client-chosen id of the session."),
                        "properties": { "type": ["object", "null"], "additionalProperties": { "$ref": "#/components/schemas/EventValue" }, "description": "Free object." },
                        "url": bounded(ev::URL_MAX_CHARS, "The page or resource the event happened on."),
                        "referrer": bounded(ev::URL_MAX_CHARS, "Where the visitor came from."),
                        "utm": { "type": ["object", "null"], "maxProperties": ev::UTM_MAX_KEYS, "additionalProperties": { "type": "string", "maxLength": ev::UTM_VALUE_MAX_CHARS, "pattern": TEXT_OR_BLANK_PATTERN }, "description": "Campaign parameters (utm_source, utm_medium, …)." },
                    },
                },
            },
        },
    })
}

/// A value inside an event's free `properties` (text without control,
/// invisible or combining characters, like every string of the API).
fn event_value() -> Value {
    json!({
        "anyOf": [
            { "type": ["number", "boolean", "null"] },
            { "type": "string", "pattern": TEXT_OR_BLANK_PATTERN },
            { "type": "array", "items": { "$ref": "#/components/schemas/EventValue" } },
            { "type": "object", "additionalProperties": { "$ref": "#/components/schemas/EventValue" } },
        ],
    })
}

/// One query parameter: its description moves from the schema to the
/// parameter, where generators and readers look for it.
fn query_param(name: &str, required: bool, mut schema: Value, example: Option<Value>) -> Value {
    let description = schema
        .as_object_mut()
        .and_then(|s| s.remove("description"))
        .unwrap_or(Value::Null);
    let mut p = json!({ "name": name, "in": "query", "required": required, "schema": schema });
    if !description.is_null() {
        p["description"] = description;
    }
    if let Some(example) = example {
        p["example"] = example;
    }
    p
}

/// The image's query parameters (GET /api/v1/images/car and
/// /images/car.png), each its own parameter. `brand`, the alias of
/// `make`, is described under `make` rather than listed: the two are
/// mutually exclusive, which separate parameters cannot state, and
/// listing only `make` keeps every request built from the document valid.
fn image_params() -> Vec<Value> {
    let mut fields = image_fields(false);
    fields.insert(
        "make".into(),
        with_description(
            text(100),
            "Make name or slug. `brand` is accepted as an alias (send one of them, not both).",
        ),
    );
    let example = |name: &str| match name {
        "make" => json!("toyota"),
        "model" => json!("camry"),
        "year" => json!(2019),
        "view" => json!("side"),
        "angle" => json!(30),
        "color" => json!("red"),
        "finish" => json!("metallic"),
        "w" | "h" => json!(512),
        "size" => json!("small"),
        "background" => json!("white"),
        "scale" => json!("relative"),
        _ => json!("webp"),
    };
    // `brand` is described under `make` (above).
    super::images::IMAGE_PARAMS
        .iter()
        .filter(|name| **name != "brand")
        .map(|name| {
            let schema = fields.remove(*name).expect("an image field");
            let required = matches!(*name, "make" | "model" | "year");
            // `paint` and `angle` carry no example: with the example color and
            // view they would be the combinations refused (color or paint,
            // view or angle, not both); nor do `fit`, `trim` and `padding`,
            // which need a box or each other.
            let example = (!matches!(
                *name,
                "paint" | "angle" | "shadow" | "fit" | "trim" | "padding"
            ))
            .then(|| example(name));
            query_param(name, required, schema, example)
        })
        .collect()
}

/// The query of GET /api/v1/images/car: the image's parameters and
/// `response`. Unknown parameters are a 400 naming them.
fn image_query() -> Vec<Value> {
    let mut params = image_params();
    params.push(query_param(
        "response",
        false,
        json!({ "type": "string", "enum": ["image", "url"], "default": "image", "description": "image (default): the image's bytes. url: a signed delivery URL as JSON (ImageUrlResponse), charged now; the image renders on the URL's first load." }),
        Some(json!("image")),
    ));
    params
}

/// The query of GET /api/v1/images/spin: the image's parameters without
/// `view` and `angle`, frames of at most 512 pixels, `layout` and
/// `response`.
fn spin_query() -> Vec<Value> {
    let frame_max = crate::delivery::spin::FRAME_MAX;
    let mut params: Vec<Value> = image_params()
        .into_iter()
        .filter(|p| {
            !matches!(
                p["name"].as_str(),
                Some("view" | "angle" | "background" | "fit" | "trim" | "padding")
            )
        })
        .collect();
    for p in &mut params {
        match p["name"].as_str() {
            Some("w" | "h") => {
                p["schema"]["maximum"] = json!(frame_max);
                p["description"] = json!(format!(
                    "Fit each frame inside this box, 1 to {frame_max} pixels; never enlarged. Default: frames of {frame_max}."
                ));
            }
            Some("size") => {
                p["schema"] = json!({ "type": "string", "enum": ["thumb", "small"] });
                p["description"] = json!(
                    "Shorthand for the frame width: thumb 256, small 512; ignored when w or h is given."
                );
            }
            Some("format") => {
                p["schema"] = json!({ "type": "string", "enum": ["webp", "png", "jpg", "jpeg", "avif", "auto"], "default": "webp" });
                p["description"] = json!(
                    "Default webp. An animation is always webp (auto is webp); a sprite may be png, webp, jpg or avif, or auto (chosen from the Accept header as for an image)."
                );
                p["example"] = json!("webp");
            }
            _ => {}
        }
    }
    params.push(query_param(
        "layout",
        false,
        json!({ "type": "string", "enum": ["animation", "sprite"], "default": "animation", "description": "animation (default): one animated WebP of the 24 frames, 83 ms each, looping. sprite: one image of the frames in a grid of 6 columns and 4 rows, angle 0 at the top left, row by row (response=manifest says where each frame is)." }),
        Some(json!("animation")),
    ));
    params.push(query_param(
        "response",
        false,
        json!({ "type": "string", "enum": ["image", "manifest"], "default": "image", "description": "image (default): the spin's bytes, 24 credits. manifest: where each frame is, each frame's own URL, the price and the ETag, as JSON (SpinManifestResponse), free; also the answer to Accept: application/json with no image type." }),
        Some(json!("image")),
    ));
    params
}

/// The query of GET /images/car.png: the image's parameters plus the
/// grants' (mode; exp, sig and partner; the deprecated key).
fn legacy_query() -> Vec<Value> {
    let mut params = image_params();
    params[2] = query_param(
        "year",
        true,
        with_description(
            int(YEAR_MIN.into(), YEAR_MAX.into()),
            "Model year, at least 1990.",
        ),
        Some(json!(2019)),
    );
    params.push(query_param("mode", false, json!({ "type": "string", "enum": ["cached"], "description": "Serve only a variant already rendered (free, public); otherwise 404. Never renders." }), Some(json!("cached"))));
    // The grants' parameters carry no example: a made-up signature or key
    // is refused, so an example request would not be a valid one.
    params.push(query_param("exp", false, json!({ "type": "string", "pattern": "^[0-9]{1,19}$", "description": "Partner signature: expiry, unix seconds, at most 30 days ahead." }), None));
    params.push(query_param("sig", false, json!({ "type": "string", "pattern": "^[0-9a-f]{64}$", "description": "Partner signature: lowercase hex HMAC-SHA256 over /images/car.png?<query without sig, sorted by name> under the partner secret (/docs/embeds)." }), None));
    params.push(query_param(
        "partner",
        false,
        with_description(
            text(100),
            "Optional partner id, covered by the signature: only that partner's secret is checked.",
        ),
        None,
    ));
    let mut key = query_param(
        "key",
        false,
        with_description(
            text(200),
            "Deprecated API key; honoured only when the deployment enables ALLOW_LEGACY_QUERY_KEYS. Send Authorization instead.",
        ),
        None,
    );
    key["deprecated"] = json!(true);
    params.push(key);
    params
}

/// The query of GET /api/v1/vehicles, each parameter on its own. The
/// combination selects one of six data shapes (spec §4); any other
/// combination is a 400 naming the parameter that does not fit, which
/// separate parameters cannot state (the description lists the shapes).
fn vehicles_query() -> Vec<Value> {
    let year = int(YEAR_MIN.into(), YEAR_MAX.into());
    let slug = text(super::vehicles::SLUG_MAX_CHARS);
    vec![
        query_param(
            "year",
            false,
            with_description(
                year,
                "Model year. Alone: the makes of that year; with makeId: that make's models; with q or make: narrows to the year.",
            ),
            Some(json!(2019)),
        ),
        query_param(
            "makeId",
            false,
            json!({ "type": "integer", "minimum": 0, "maximum": super::vehicles::MAKE_ID_MAX, "description": "A make's id (from the makes of a year); needs year." }),
            Some(json!(7)),
        ),
        query_param(
            "q",
            false,
            with_description(
                text(super::vehicles::Q_MAX_CHARS),
                "Search text: makes and models, misspellings allowed (with optional year and limit).",
            ),
            Some(json!("porsche 911")),
        ),
        query_param(
            "limit",
            false,
            with_description(
                int(1, super::vehicles::LIMIT_MAX as i64),
                "Search results to return (with q); default 10.",
            ),
            Some(json!(5)),
        ),
        query_param(
            "make",
            false,
            with_description(
                slug.clone(),
                "A make slug: its models (with optional year), or with model the years of that model.",
            ),
            Some(json!("toyota")),
        ),
        query_param(
            "model",
            false,
            with_description(slug, "A model slug or unique prefix; needs make."),
            Some(json!("camry")),
        ),
    ]
}

fn params<const N: usize>(mut query: Vec<Value>, headers: [Value; N]) -> Value {
    query.extend(headers);
    Value::Array(query)
}

fn if_none_match(what: &str) -> Value {
    json!({ "name": "If-None-Match", "in": "header", "required": false, "schema": { "type": "string" }, "description": what })
}

fn request_id_header() -> Value {
    json!({ "schema": { "type": "string" }, "description": "The request's id (the client's X-Request-Id when it sent one); quote it to support, or in feedback." })
}

fn image_headers() -> serde_json::Map<String, Value> {
    let mut h = rate_headers();
    for (name, value) in [
        (
            "ETag",
            json!({ "schema": { "type": "string" }, "description": "Strong validator of this exact output (variant, size, format, render revision)." }),
        ),
        (
            "Content-Location",
            json!({ "schema": { "type": "string" }, "description": "Canonical URL of the image, in make spelling." }),
        ),
        (
            "Cache-Control",
            json!({ "schema": { "type": "string" }, "description": "private, no-store" }),
        ),
        (
            "X-Credits-Charged",
            int_header("1 for a delivered image (0 on HEAD)."),
        ),
        (
            "X-Credits-Remaining",
            int_header("Balance after the request."),
        ),
        (
            "X-Image-Source",
            json!({ "schema": { "type": "string", "enum": ["cache", "generated"] }, "description": "cache or generated (cold render); both cost the same." }),
        ),
        ("X-Image-Width", int_header("Width in pixels.")),
        ("X-Image-Height", int_header("Height in pixels.")),
        (
            "X-Color-Match",
            json!({ "schema": { "type": "string" }, "description": "What the paint is called and how exactly: `exact` (a preset, or one of the make's paint codes) or `nearest; delta-e=1.8` (a #RRGGBB colour and its CIEDE2000 to the nearest preset or paint of the make), then `name=\"…\"` and, for a paint of the make, `paint=\"CODE\"`." }),
        ),
        ("X-Request-Id", request_id_header()),
    ] {
        h.insert(name.into(), value);
    }
    h
}

/// Image bytes in every format the service encodes.
fn binary_images() -> Value {
    let mut content = serde_json::Map::new();
    for f in vis_protocol::Format::ALL {
        content.insert(
            f.mime().into(),
            json!({ "schema": { "type": "string", "format": "binary", "contentMediaType": f.mime() } }),
        );
    }
    Value::Object(content)
}

/// The 200 of GET /api/v1/images/car: the image's bytes, or with
/// response=url its signed delivery URL as JSON.
fn image_content() -> Value {
    let mut content = binary_images();
    content["application/json"] = json!({
        "schema": { "$ref": "#/components/schemas/ImageUrlResponse" },
        "example": {
            "data": {
                "url": "https://vis.example.com/api/v1/delivery/9c1f0e6b2a7d4c3e8f5a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6",
                "expires_at": "2026-11-25T13:00:00Z",
                "max_uses": 0,
                "vehicle": { "make": "toyota", "model": "camry", "year": 2019, "view": "side", "color": "red", "format": "webp", "width": 512, "height": null },
                "width": 512,
                "height": 512,
                "format": "webp",
            },
            "billing": { "credits_charged": 1, "credits_remaining": 99 },
            "request_id": "01JDQ7S4W2M9Z3K8N6P5R4T3V2",
        },
    });
    content
}

fn checkout_request() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["credits"],
        "properties": {
            "credits": { "type": "integer", "enum": [5000, 10000, 25000, 100000], "description": "The pack: 5000 ($5), 10000 ($10), 25000 ($25) or 100000 ($100)." },
        },
    })
}

fn html() -> Value {
    json!({ "text/html": { "schema": { "type": "string" } } })
}

/// Responses of a page for people: HTML pages for `pages`, a 303 for
/// `redirect` (where it goes), problems for the rest.
fn web_responses(pages: &[(u16, &str)], redirect: Option<&str>) -> Value {
    let mut r = problems(&[500, 503]);
    for (status, description) in pages {
        r.insert(
            status.to_string(),
            json!({ "description": description, "content": html() }),
        );
    }
    if let Some(to) = redirect {
        r.insert("303".into(), json!({ "description": to, "headers": { "Location": { "schema": { "type": "string" } }, "Set-Cookie": { "schema": { "type": "string" } } } }));
    }
    Value::Object(r)
}

/// A CSRF-protected HTML form POST with `fields` (all strings).
fn web_form(
    summary: &str,
    description: &str,
    fields: &[(&str, &str)],
    pages: &[(u16, &str)],
    redirect: Option<&str>,
) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert("csrf".into(), json!({ "type": "string", "description": "The token the page's form carries (signed double submit with the vis_csrf cookie)." }));
    for (name, what) in fields {
        properties.insert(
            (*name).into(),
            json!({ "type": "string", "description": what }),
        );
    }
    let mut all_pages: Vec<(u16, &str)> = pages.to_vec();
    all_pages.extend([
        (
            403,
            "Refused: no valid CSRF token, or sent from another site.",
        ),
        (413, "The form is larger than 8 KiB."),
    ]);
    if !all_pages.iter().any(|(s, _)| *s == 400) {
        all_pages.push((400, "Not a form (application/x-www-form-urlencoded), or a field is wrong: the page says which."));
    }
    json!({ "post": {
        "summary": summary, "tags": ["web"], "description": description,
        "requestBody": { "required": true, "content": { "application/x-www-form-urlencoded": { "schema": {
            "type": "object", "required": ["csrf"], "properties": properties,
        } } } },
        "responses": web_responses(&all_pages, redirect),
    } })
}

fn web_get(summary: &str, params: Value, pages: &[(u16, &str)], redirect: Option<&str>) -> Value {
    json!({ "get": {
        "summary": summary, "tags": ["web"], "parameters": params,
        "responses": web_responses(pages, redirect),
    } })
}

fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (a, _) => a,
    }
}

fn people() -> Value {
    let next = json!([{ "name": "next", "in": "query", "required": false, "schema": { "type": "string" }, "description": "Where to go after signing in: a path on this site (anything else goes to /dashboard)." }]);
    let path_param = |name: &str| json!([{ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }]);
    let form_pages: &[(u16, &str)] = &[
        (400, "The form again, saying which field is wrong."),
        (429, "The form again: too many attempts; wait a minute."),
    ];
    json!({
        "/signup": merge(
            web_get("The sign-up form", next.clone(), &[(200, "The form.")], None),
            web_form("Create an account with email and password", "Signs the browser in (session cookie) and goes to next, and mails a link to the address (GET /verify); the 100 free credits land when it is opened. A password of at least 10 characters. 10 a minute per client address; per UTC day at most [signup] per_address_per_day per client address and per_domain_per_day per email domain (429 on the form).", &[("email", "An email address."), ("password", "At least 10 characters."), ("next", "Where to go afterwards.")], form_pages, Some("Signed in: to next.")),
        ),
        "/signin": merge(
            web_get("The sign-in form", next.clone(), &[(200, "The form.")], Some("Already signed in: to next.")),
            web_form("Sign in with email and password", "Sets the session cookie (HttpOnly, SameSite=Lax, 30 days). 20 attempts a minute per client address and 5 per email address.", &[("email", "The account's email."), ("password", "Its password."), ("next", "Where to go afterwards.")], &[(400, "The form again."), (401, "The form again: the email or the password is wrong."), (429, "The form again: too many attempts.")], Some("Signed in: to next.")),
        ),
        "/signout": web_form("Sign out", "Ends this browser's session.", &[], &[], Some("Signed out: to /.")),
        "/verify": web_get("Verify an email address (the link mailed at sign-up)", json!([{ "name": "token", "in": "query", "required": false, "schema": { "type": "string" }, "description": "The secret of the mailed link." }]), &[(200, "Verified: the 100 free credits landed, once per account; or verified already, and nothing changed."), (410, "The link is expired, unknown or incomplete.")], None),
        "/verify/resend": web_form("Mail a new verification link", "For the signed-in account while its email is unverified: a link that works for 24 hours. 1 a minute per account, 5 per client address, 5 mails an account in 24 hours.", &[], &[(200, "Check your email."), (429, "Too many; wait."), (503, "Mail could not be sent.")], Some("Verified already: to /dashboard. Not signed in: to /signin.")),
        "/reset": merge(
            web_get("Ask for a password-reset link, or (with token) choose the new password", json!([{ "name": "token", "in": "query", "required": false, "schema": { "type": "string" }, "description": "The secret of an emailed link." }]), &[(200, "The form."), (410, "The link is used, expired or unknown.")], None),
            web_form("Mail a reset link (email), or set the new password (token and password)", "With email: the same answer whether or not an account has it; the link works once, for an hour (SMTP, or the outbox folder on the embedded default). With token: sets the password, ends every session of the account, and signs this browser in.", &[("email", "The account's email."), ("token", "The secret of the emailed link."), ("password", "The new password, at least 10 characters.")], &[(200, "Check your email."), (400, "The form again, saying which field is wrong."), (410, "The link is used, expired or unknown."), (429, "Too many requests; wait a minute."), (503, "Mail could not be sent.")], Some("Password set, signed in: to /dashboard.")),
        ),
        "/dashboard": web_get("The dashboard: balance, 30 days of usage, API keys, partner secrets, recent delivery URLs", json!([]), &[(200, "The dashboard.")], Some("Not signed in: to /signin.")),
        "/dashboard/keys": web_form("Create an API key (shown once)", "A name (1 to 80 characters) and one or more scope fields (images:read, account:read, billing:write).", &[("name", "The key's name."), ("scope", "A scope; repeat the field for several.")], &[], Some("Created: to /dashboard, which shows the new key once. Not signed in: to /signin.")),
        "/dashboard/keys/revoke": web_form("Revoke one of the account's keys", "Its delivery URLs answer 403 and its partner signatures stop working at once.", &[("key_id", "The key's id.")], &[(404, "The account has no such key.")], Some("Revoked: to /dashboard.")),
        "/dashboard/partners": web_form("Create a partner secret under one of the account's live keys (shown once)", "For signing /images/car.png URLs (see /docs/embeds).", &[("key_id", "A live key of the account.")], &[(404, "No such live key.")], Some("Created: to /dashboard, which shows the new secret once. Not signed in: to /signin.")),
        "/dashboard/partners/revoke": web_form("Revoke a partner secret", "Its signatures stop working within a second on every replica.", &[("partner_id", "The partner's id.")], &[(404, "The account has no such partner.")], Some("Revoked: to /dashboard.")),
        "/dashboard/credits": merge(
            web_get("Buy credits: the four packs and past purchases", json!([{ "name": "purchase", "in": "query", "required": false, "schema": { "type": "string" }, "description": "done or cancelled, after the payment page." }]), &[(200, "The page.")], Some("Not signed in: to /signin.")),
            web_form("Buy a pack", "Opens a purchase and goes to the payment provider's hosted page; credits land when the provider's signed webhook says it was paid.", &[("credits", "5000, 10000, 25000 or 100000.")], &[(502, "The payment provider could not be reached; nothing was charged.")], Some("To the hosted payment page.")),
        ),
        "/dashboard/billing-portal": web_form("Open the payment provider's customer portal", "Receipts and past purchases; for accounts that have bought before.", &[], &[(400, "The account has made no purchase yet.")], Some("To the portal.")),
        "/device": { "get": {
            "summary": "The device-login verification page", "tags": ["web"],
            "description": "Shows the client's name and the code; a signed-in person approves or denies it, anyone else is asked to sign in first.",
            "parameters": [{ "name": "user_code", "in": "query", "required": false, "schema": { "type": "string" }, "description": "The code to show; any text (an unknown one says so)." }],
            "responses": web_responses(&[(200, "An HTML page.")], None),
        }, "post": web_form("Approve or deny a device login", "decision=approve creates nothing yet: the device's next poll gets a new key with all three scopes, named after the client; deny makes it answer access_denied.", &[("user_code", "The code, ABCD-EF23."), ("decision", "approve or deny.")], &[(200, "The page, saying what was decided.")], Some("Not signed in: to /signin, then back."))["post"].clone() },
        "/billing/sandbox/checkout/{session}": merge(
            web_get("The sandbox's hosted payment page (test payments)", path_param("session"), &[(200, "The payment page, marked as a test payment."), (404, "No such payment.")], None),
            {
                let mut pay = web_form("Pay (test)", "The sandbox signs a checkout.session.completed event and hands it to the same webhook code Stripe's events go through; credits land once.", &[], &[(404, "No such payment.")], Some("Paid: to /dashboard/credits?purchase=done."));
                pay["post"]["parameters"] = path_param("session");
                pay
            },
        ),
        "/billing/sandbox/portal/{token}": web_get("The sandbox's customer portal (a signed link, valid for an hour)", path_param("token"), &[(200, "Paid purchases."), (404, "The link is unknown or expired.")], None),
        "/api/v1/billing/checkout": { "post": {
            "summary": "A hosted payment page for a credit pack", "operationId": "checkout", "tags": ["billing"],
            "description": "Scope billing:write. Creating the session charges nothing: a person opens the URL and pays; the credits land once, when the payment provider confirms (its signed webhook). Body at most 1 KiB.",
            "security": keyed(),
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CheckoutRequest" }, "example": { "credits": 5000 } } } },
            "responses": with(problems(&[400, 401, 403, 413, 429, 500]), json!({
                "201": { "description": "The payment page.", "headers": Value::Object(rate_headers()), "content": json_content("CheckoutResponse") },
            })),
        } },
        "/api/v1/billing/portal": { "post": {
            "summary": "The customer portal", "operationId": "portal", "tags": ["billing"],
            "description": "Scope billing:write. No body. 400 when the account has made no purchase yet.",
            "security": keyed(),
            "responses": with(problems(&[400, 401, 403, 429, 500]), json!({
                "201": { "description": "The portal.", "headers": Value::Object(rate_headers()), "content": json_content("PortalResponse") },
            })),
        } },
        "/api/v1/billing/webhook": { "post": {
            "summary": "The payment provider's events (Stripe's webhook format)", "operationId": "paymentWebhook", "tags": ["provider"],
            "description": "Public, authenticated by the Stripe-Signature header (HMAC-SHA256 of t.body with the endpoint's secret, t within 5 minutes). checkout.session.completed and checkout.session.async_payment_succeeded with payment_status paid credit the purchase's pack exactly once, whatever the retries; other events are acknowledged. Body at most 256 KiB.",
            "parameters": [{ "name": "Stripe-Signature", "in": "header", "required": false, "schema": { "type": "string" }, "description": "t=<unix seconds>,v1=<hex HMAC>[,v1=…]" }],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "description": "A Stripe event: id, type, data.object." } } } },
            "responses": with(problems(&[400, 413, 500, 503]), json!({
                "200": { "description": "Handled (credited, or a duplicate, or nothing to do).", "content": json_content("WebhookReceipt") },
            })),
        } },
    })
}

fn html_page(summary: &str) -> Value {
    json!({ "get": {
        "summary": summary, "tags": ["pages"],
        "responses": { "200": { "description": "An HTML page.", "content": { "text/html": { "schema": { "type": "string" } } } } },
    } })
}

fn paths() -> Value {
    let image_car = |method: &str| {
        let head = method == "head";
        json!({
            "summary": if head { "Validate an image request without paying for it" } else { "One image by make, model, year, view, colour, size and format" },
            "operationId": if head { "headImage" } else { "getImage" },
            "tags": ["images"],
            "description": if head {
                "Scope images:read. Free: validated exactly like the GET (key, scope, parameters, catalog, rate limit) and answered with the headers the GET would give, without charging, rendering or minting."
            } else {
                "Scope images:read. 1 credit for a 200 (image bytes; or with response=url, or Accept: application/json and no image type, a signed delivery URL as JSON, charged now, the image rendering on the URL's first load); 0 for a 304. A cold render can take up to two minutes; allow three."
            },
            "security": keyed(),
            "parameters": params(image_query(), [
                if_none_match("Compared weakly (W/ on either side still matches); a match is a free 304."),
                json!({ "name": "X-Request-Id", "in": "header", "required": false, "schema": { "type": "string", "pattern": REQUEST_ID_PATTERN }, "description": "Echoed back and stored with the charge; anything else is a 400 naming X-Request-Id. On a GET it is also a retry key (like Idempotency-Key, which wins when both are sent): the same id for the same image within 24 hours is charged once.", "example": "order-1234" }),
                json!({ "name": "Idempotency-Key", "in": "header", "required": false, "schema": { "type": "string", "pattern": "^[!-~]{1,255}$" }, "example": "order-1234-hero", "description": "Makes a retry safe, on every replica: the same key for the same image (variant, size, format) within 24 hours is answered again (header Idempotent-Replayed: true, X-Credits-Charged: 0) and charged once; for another image it is a 409 naming Idempotency-Key. Ignored by HEAD." }),
            ]),
            "responses": with(problems(&if head { vec![400, 401, 402, 403, 404, 429, 502, 503] } else { vec![400, 401, 402, 403, 404, 409, 429, 502, 503] }), json!({
                "200": { "description": "The image, or (response=url) an ImageUrlResponse.", "headers": if head { Value::Object(image_headers()) } else { with(image_headers(), json!({ "Idempotent-Replayed": { "schema": { "type": "string", "enum": ["true"] }, "description": "Present when a retried Idempotency-Key or X-Request-Id was answered again, charged nothing." } })) }, "content": image_content() },
                "304": { "description": "Not modified: the ETag sent in If-None-Match is still current. No body; nothing charged (still rate limited).", "headers": with(rate_headers(), json!({ "ETag": { "schema": { "type": "string" } }, "X-Request-Id": request_id_header() })) },
            })),
        })
    };
    let spin = |method: &str| {
        let head = method == "head";
        let mut headers = image_headers();
        headers.insert(
            "X-Credits-Charged".into(),
            int_header(
                "24 for a delivered spin, one per frame (0 on HEAD, a replay and the manifest).",
            ),
        );
        headers.insert("ETag".into(), json!({ "schema": { "type": "string" }, "description": "Strong validator of this exact spin (every frame's variant and render revision, the frame size, layout and format)." }));
        headers.insert(
            "X-Image-Width".into(),
            int_header("The output's width: a frame's for an animation, the sheet's for a sprite."),
        );
        headers.insert("X-Image-Height".into(), int_header("The output's height."));
        headers.insert(
            "X-Spin-Frames".into(),
            int_header("Frames in the spin: 24."),
        );
        headers.insert("X-Spin-Frame-Size".into(), json!({ "schema": { "type": "string", "pattern": "^[0-9]+x[0-9]+$" }, "description": "One frame's width x height." }));
        headers.insert("X-Spin-Grid".into(), json!({ "schema": { "type": "string", "pattern": "^[0-9]+x[0-9]+$" }, "description": "Columns x rows: 6x4 for a sprite, 1x1 for an animation." }));
        let mut content = binary_images();
        content["application/json"] =
            json!({ "schema": { "$ref": "#/components/schemas/SpinManifestResponse" } });
        json!({
            "summary": if head { "Validate a spin request without paying for it" } else { "A 360° spin: 24 angles as an animated WebP or a sprite sheet" },
            "operationId": if head { "headSpin" } else { "getSpin" },
            "tags": ["images"],
            "description": if head {
                "Scope images:read. Free: validated exactly like the GET and answered with its headers, without charging or rendering."
            } else {
                "Scope images:read. 24 credits for a 200 (one per frame; each frame is the cached variant angle-0 to angle-345 of GET /api/v1/images/car, so frames rendered before cost no render); 0 for a 304 and for response=manifest. Cold frames render at once on the render nodes; a spin of 24 cold frames can take minutes on CPU nodes."
            },
            "security": keyed(),
            "parameters": params(spin_query(), [
                if_none_match("Compared weakly; a match is a free 304."),
                json!({ "name": "Idempotency-Key", "in": "header", "required": false, "schema": { "type": "string", "pattern": "^[!-~]{1,255}$" }, "description": "The same key for the same spin within 24 hours is answered again (Idempotent-Replayed: true) and charged once; for another request it is a 409 naming Idempotency-Key." }),
            ]),
            "responses": with(problems(&if head { vec![400, 401, 402, 403, 404, 429, 502, 503] } else { vec![400, 401, 402, 403, 404, 409, 429, 502, 503] }), json!({
                "200": { "description": "The spin, or (response=manifest) its SpinManifestResponse.", "headers": headers, "content": content },
                "304": { "description": "Not modified. No body; nothing charged.", "headers": with(rate_headers(), json!({ "ETag": { "schema": { "type": "string" } } })) },
            })),
        })
    };
    let delivery = |method: &str| {
        let head = method == "head";
        let ok_headers = json!({
            "ETag": { "schema": { "type": "string" } },
            "Cache-Control": { "schema": { "type": "string" }, "description": "Unlimited URLs: public, max-age=min(300, seconds left), s-maxage=min(3600, seconds left). Use-capped URLs: private, no-store." },
            "X-Image-Width": { "schema": { "type": "integer" } },
            "X-Image-Height": { "schema": { "type": "integer" } },
        });
        json!({
            "summary": if head { "Validate a signed delivery URL" } else { "Load a signed delivery URL" },
            "operationId": if head { "headDelivery" } else { "getDelivery" },
            "tags": ["delivery"],
            "description": if head {
                "Public. Validates without rendering or consuming a use; the Content-Type is the image type the GET will serve."
            } else {
                "Public and free (paid at creation). The first load renders the image if needed; later loads come from cache. A use of a use-capped URL is redeemed only when bytes are served. A render failure on the first load consumes the URL and refunds its credit (502; later loads 410)."
            },
            "parameters": [
                { "name": "token", "in": "path", "required": true, "schema": { "type": "string", "pattern": "^[0-9a-f]{64}$" }, "description": "The opaque signed token of a delivery URL." },
                if_none_match("Compared weakly; a match is a 304 and redeems no use."),
            ],
            "responses": with(problems(if head { &[403, 410, 503] } else { &[403, 410, 502, 503] }), json!({
                "200": { "description": "The image.", "headers": ok_headers, "content": binary_images() },
                "304": { "description": "Not modified; no use redeemed.", "headers": { "ETag": { "schema": { "type": "string" } } } },
            })),
        })
    };
    let legacy = |method: &str| {
        let head = method == "head";
        let ok_headers = json!({
            "ETag": { "schema": { "type": "string" } },
            "Cache-Control": { "schema": { "type": "string" }, "description": "Signed: public, max-age=<seconds until exp>. mode=cached and examples: public, max-age=300, s-maxage=3600, stale-while-revalidate=60. Key: private, no-store. Playground: private, max-age=300." },
            "Content-Location": { "schema": { "type": "string" }, "description": "The canonical /images/car.png URL of the image." },
            "X-Image-Source": { "schema": { "type": "string", "enum": ["cache", "generated"] } },
            "X-Image-Width": { "schema": { "type": "integer" } },
            "X-Image-Height": { "schema": { "type": "integer" } },
            "X-Credits-Charged": int_header("With an API key: 1 (0 on HEAD and 304). Absent under the free grants."),
            "X-Credits-Remaining": int_header("With an API key: the balance after the request."),
        });
        json!({
            "summary": if head { "Validate an embeddable image request without paying for it" } else { "The embeddable legacy image endpoint" },
            "operationId": if head { "headLegacyImage" } else { "getLegacyImage" },
            "tags": ["images"],
            "description": if head {
                "The same checks and headers as the GET; never charges, renders or counts against an allowance."
            } else {
                "The same renders as /api/v1/images/car for <img> tags. Grants, in order: 1. a partner signature (exp + sig; free, public until exp, never redirected); 2. mode=cached (free, public; only variants already rendered, else 404); 3. the home page's example images (free, public); 4. an API key in Authorization or x-api-key (1 credit, private; key in the query only where the deployment allows it); 5. the playground cookie (free, private). Anything else is a 401. Unsigned requests with non-canonical spellings are a 308 to the canonical URL. See /docs/embeds."
            },
            "security": [{}, { "bearer": [] }, { "apiKeyHeader": [] }],
            "parameters": params(legacy_query(), [if_none_match("Compared weakly; a match is a free 304.")]),
            "responses": with(problems(&[400, 401, 402, 403, 404, 429, 502, 503]), json!({
                "200": { "description": "The image.", "headers": ok_headers, "content": binary_images() },
                "304": { "description": "Not modified; nothing charged.", "headers": { "ETag": { "schema": { "type": "string" } } } },
                "308": { "description": "The canonical URL of this image (unsigned requests spelt otherwise).", "headers": { "Location": { "schema": { "type": "string" } } } },
            })),
        })
    };
    let front_door = json!({
        "/": html_page("The home page"),
        "/playground": html_page("The playground: try renders for free (sets the playground cookie)"),
        "/pricing": html_page("Credit packs and what each operation costs"),
        "/static/{path}": { "get": {
            "summary": "The web pages' static files", "tags": ["pages"],
            "parameters": [{ "name": "path", "in": "path", "required": true, "schema": { "type": "string" } }],
            "responses": with(problems(&[404]), json!({ "200": { "description": "A static file (CSS, JavaScript, SVG)." }, "304": { "description": "Not modified." } })),
        } },
        "/images/car.png": { "get": legacy("get"), "head": legacy("head") },
    });
    let people_and_agents = json!({
        "/api/v1/feedback": { "post": {
            "summary": "Report a good or bad render", "operationId": "feedback", "tags": ["feedback"],
            "description": "Scope account:read. Free; rate limited per key. Names the image by the request_id of the request that delivered it (this account's deliveries only) or by make, model and year (with view and colour). A negative report (verdict bad, or a rating of 1 or 2 without a verdict) from the third distinct account flags the render (flagged: true) and it is re-rendered under a new revision: later deliveries carry new bytes and a new ETag. Body at most 8 KiB.",
            "security": keyed(),
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/FeedbackRequest" }, "example": { "make": "toyota", "model": "camry", "year": 2019, "view": "side", "color": "red", "verdict": "bad", "reason": "wrong grille" } } } },
            "responses": with(problems(&[400, 401, 403, 404, 413, 429]), json!({
                "201": { "description": "Recorded.", "headers": Value::Object(rate_headers()), "content": json_content("FeedbackResponse") },
            })),
        } },
        "/api/auth/device/code": { "post": {
            "summary": "Start a device login (RFC 8628)", "operationId": "deviceCode", "tags": ["account"],
            "description": "Public; 20 a minute per client address. Returns a device code (keep it secret; poll with it), a user code for the person to approve at verification_uri, expires_in 600 and interval 3. client_name names the key to be made (OAuth clients' client_id is used when client_name is absent). Body optional: JSON or a form.",
            "requestBody": { "required": false, "content": {
                "application/json": { "schema": device_code_request(), "example": { "client_name": "my laptop" } },
                "application/x-www-form-urlencoded": { "schema": device_code_request() },
            } },
            "responses": with(problems(&[400, 413, 429, 503]), json!({
                "201": { "description": "The codes.", "headers": Value::Object(rate_headers()), "content": json_content("DeviceCodeResponse") },
            })),
        } },
        "/api/auth/device/token": { "post": {
            "summary": "Poll a device login for its API key", "operationId": "deviceToken", "tags": ["account"],
            "description": "Public; 60 a minute per client address. Poll every interval seconds with the device code: 400 authorization_pending until the person approves, then 200 with the key (scopes images:read account:read billing:write) exactly once; later polls answer expired_token. 429 slow_down (with Retry-After) when polled sooner than the interval; 400 access_denied when denied; 400 expired_token after 600 s; 400 invalid_request for a missing or unknown code. Errors use the DeviceError body, which OAuth 2.0 clients read. JSON or a form (grant_type, when sent, is urn:ietf:params:oauth:grant-type:device_code).",
            "requestBody": { "required": true, "content": {
                "application/json": { "schema": device_token_request(), "example": { "device_code": "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS" } },
                "application/x-www-form-urlencoded": { "schema": device_token_request() },
            } },
            "responses": with(problems(&[503]), json!({
                "200": { "description": "The API key, shown once.", "headers": Value::Object(rate_headers()), "content": json_content("DeviceTokenResponse") },
                "400": { "description": "authorization_pending, access_denied, expired_token or invalid_request.", "content": json_content("DeviceError") },
                "429": { "description": "slow_down: wait Retry-After seconds.", "headers": { "Retry-After": int_header("Seconds to wait.") }, "content": json_content("DeviceError") },
            })),
        } },
        "/api/mcp": { "post": {
            "summary": "The remote MCP endpoint (Model Context Protocol, Streamable HTTP)", "operationId": "mcp", "tags": ["mcp"],
            "description": "An MCP server for AI agents: JSON-RPC 2.0 messages in, JSON (or an event stream) out; stateless, so any replica answers. Tools mirror the API and are billed like it (get_image 1 credit, create_image_urls 1 per URL, the rest free). Needs the API key; requests from a browser origin other than this service's are refused. Send Accept: application/json, text/event-stream. tools/list names the tools and their arguments (docs/mcp.md in the repository describes them).",
            "security": keyed(),
            "requestBody": { "required": true, "content": { "application/json": { "schema": {
                "type": "object",
                "description": "A JSON-RPC 2.0 request (with id) or notification (initialize, tools/list, tools/call, …).",
                "required": ["jsonrpc", "method"],
                "properties": {
                    "jsonrpc": { "const": "2.0" },
                    "id": { "type": ["string", "integer"] },
                    "method": { "type": "string", "description": "initialize, ping, tools/list, tools/call, notifications/initialized, …; an unknown method is a JSON-RPC error in a 200." },
                    "params": { "type": ["object", "null"] },
                },
            }, "example": { "jsonrpc": "2.0", "id": 1, "method": "tools/list" } } } },
            "responses": with(problems(&[400, 401, 403, 404, 405, 406, 413, 415, 422, 429, 500]), json!({
                "200": { "description": "The JSON-RPC response.", "content": { "application/json": { "schema": { "type": "object" } }, "text/event-stream": { "schema": { "type": "string" } } } },
                "202": { "description": "A notification or response accepted." },
            })),
        } },
    });
    let mut api = json!({
        "/healthz": { "get": {
            "summary": "Liveness", "operationId": "healthz", "tags": ["operations"],
            "responses": { "200": { "description": "The process is alive.", "content": json_content("Health") } },
        } },
        "/readyz": { "get": {
            "summary": "Readiness: the database and the object store answer", "operationId": "readyz", "tags": ["operations"],
            "responses": with(problems(&[503]), json!({ "200": { "description": "Ready.", "content": json_content("Health") } })),
        } },
        "/docs": html_page("The API reference, drawn from this document"),
        "/api/v1/openapi.json": { "get": {
            "summary": "This document", "operationId": "openapi", "tags": ["operations"],
            "responses": { "200": { "description": "The OpenAPI 3.1 document.", "content": { "application/json": { "schema": { "type": "object" } } } } },
        } },
        "/metrics": { "get": {
            "summary": "Operator metrics (OpenMetrics text, which Prometheus scrapes)", "operationId": "metrics", "tags": ["operations"],
            "description": "Served here unless the deployment sets metrics_listen, which moves it to a separate address.",
            "responses": { "200": { "description": "OpenMetrics exposition text.", "content": { "application/openmetrics-text": { "schema": { "type": "string" } } } } },
        } },
        "/api/v1/images/options": { "get": {
            "summary": "Views, colours, sizes, formats, pricing, catalog and limits", "operationId": "options", "tags": ["catalog"],
            "description": "Public and free; cacheable for one hour.",
            "responses": { "200": { "description": "The options document.", "headers": { "Cache-Control": { "schema": { "type": "string" }, "description": "public, max-age=3600" } }, "content": json_content("OptionsResponse") } },
        } },
        "/api/v1/vehicles": { "get": {
            "summary": "Browse and search the catalog", "operationId": "vehicles", "tags": ["catalog"],
            "description": "Public and free; cacheable for a day. The parameters present select one of six data shapes: none → years; year → the makes of that year; year + makeId → that make's models; q (+ year, limit) → search results; make (+ year) → the models of a make; make + model → the years of a model. Any other combination is a 400 naming the parameter that does not fit.",
            "parameters": params(vehicles_query(), [if_none_match("Compared weakly; a match is a 304.")]),
            "responses": with(problems(&[400, 404]), json!({
                "200": { "description": "One of six data shapes.", "headers": { "ETag": { "schema": { "type": "string" } }, "Cache-Control": { "schema": { "type": "string" }, "description": "public, max-age=86400" } }, "content": json_content("VehiclesResponse") },
                "304": { "description": "Not modified.", "headers": { "ETag": { "schema": { "type": "string" } } } },
            })),
        } },
        "/api/v1/images/resolve": { "post": {
            "summary": "Free text to exact image parameters", "operationId": "resolve", "tags": ["images"],
            "description": "Scope account:read. Free; rate limited per key like the image endpoint. Deterministic, no model calls: extracts year, colour (with synonyms), view phrases, size and format, then searches the catalog for the remaining words. Use image_path directly when confidence is high; show candidates to a human when it is medium or low. Body at most 4 KiB.",
            "security": keyed(),
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ResolveRequest" }, "example": { "query": "navy 2019 camry from behind, 512px webp" } } } },
            "responses": with(problems(&[400, 401, 403, 404, 413, 429]), json!({
                "200": { "description": "The resolution.", "headers": Value::Object(rate_headers()), "content": json_content("ResolveResponse") },
            })),
        } },
        "/api/v1/account": { "get": {
            "summary": "Balance, pricing, 30-day usage and the calling key", "operationId": "account", "tags": ["account"],
            "description": "Scope account:read. Free.",
            "security": keyed(),
            "responses": with(problems(&[401, 403, 429]), json!({
                "200": { "description": "The account.", "content": json_content("AccountResponse") },
            })),
        } },
        "/api/v1/images/car": { "get": image_car("get"), "head": image_car("head") },
        "/api/v1/images/spin": { "get": spin("get"), "head": spin("head") },
        "/api/v1/image-urls": { "post": {
            "summary": "Mint signed delivery URLs (1 to 50), billed once at creation", "operationId": "createImageUrls", "tags": ["delivery"],
            "description": "Scope images:read. 1 credit per URL, one debit for the batch. Every image is validated and found in the catalog before anything is charged; a failing item's 400 or 404 carries its index. Body at most 64 KiB.",
            "security": keyed(),
            "parameters": [
                { "name": "Idempotency-Key", "in": "header", "required": false, "schema": { "type": "string", "pattern": "^[!-~]{1,255}$" }, "example": "order-1234-images", "description": "Makes a retry safe: the same key with the same body within 24 hours answers the first 201 again (header Idempotent-Replayed: true) and charges nothing; with another body it is a 409. Reuse the key when retrying; use a new key for a new request." },
            ],
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "oneOf": [
                    { "$ref": "#/components/schemas/ImageRequest" },
                    { "$ref": "#/components/schemas/BatchImageUrlRequest" },
                ] },
                "examples": {
                    "batch": { "summary": "Several images, each URL loadable 10 times within an hour", "value": { "images": [{ "make": "toyota", "model": "camry", "year": 2019, "color": "red", "view": "side" }, { "make": "honda", "model": "civic", "year": 2020, "format": "webp", "size": "small" }], "ttl_seconds": 3600, "max_uses": 10 } },
                    "single": { "summary": "One image (an ImageRequest as the body)", "value": { "make": "toyota", "model": "camry", "year": 2019, "color": "red" } },
                },
            } } },
            "responses": with(problems(&[400, 401, 402, 403, 404, 409, 413, 429, 503]), json!({
                "201": { "description": "The URLs (or, for a retried Idempotency-Key, the first answer again).", "headers": with(rate_headers(), json!({ "X-Credits-Charged": int_header("Credits charged by this request: the URLs created, 0 on a replay."), "X-Credits-Remaining": int_header("Balance after the request."), "Idempotent-Replayed": { "schema": { "type": "string", "enum": ["true"] }, "description": "Present on a replayed answer." } })), "content": json_content("ImageUrlsResponse") },
            })),
        } },
        "/api/v1/delivery/{token}": { "get": delivery("get"), "head": delivery("head") },
        "/api/v1/events": { "post": {
            "summary": "The telemetry sink", "operationId": "events", "tags": ["events"],
            "description": "Public (CORS), never billed, never tied to an account. 120 batches per minute per IP; body at most 32 KiB; 1 to 20 events. Answers 202 at once; events are written after the answer, in batches. A full queue is a 503 (nothing of the batch kept).",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/EventsRequest" }, "example": { "events": [{ "event": "docs_view", "source": "sdk", "url": "/docs" }] } } } },
            "responses": with(problems(&[400, 413, 429, 503]), json!({
                "202": { "description": "Accepted.", "headers": Value::Object(rate_headers()), "content": json_content("EventsAccepted") },
            })),
        } },
    });
    for more in [front_door, people_and_agents, people()] {
        if let (Value::Object(api), Value::Object(more)) = (&mut api, more) {
            api.extend(more);
        }
    }
    // The guides: pages of docs/*.md (`/docs/errors`, `/docs/embeds`, …).
    if let Value::Object(api) = &mut api {
        for guide in &super::guides::GUIDES {
            let summary = format!("A guide: {} (docs/{})", guide.label, guide.file);
            api.insert(guide.path.to_owned(), html_page(&summary));
        }
    }
    api
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/openapi.json` is the generated document; run with
    /// `VIS_WRITE_OPENAPI=1` to rewrite it after changing the API.
    #[test]
    fn docs_openapi_json_is_the_generated_document() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json");
        let generated = document_json();
        if std::env::var_os("VIS_WRITE_OPENAPI").is_some() {
            std::fs::write(path, generated).expect("write docs/openapi.json");
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == generated,
            "docs/openapi.json is stale: run VIS_WRITE_OPENAPI=1 cargo test -p control-plane openapi"
        );
    }

    fn operations(doc: &Value) -> Vec<(String, String, &Value)> {
        let mut ops = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                ops.push((path.clone(), method.clone(), op));
            }
        }
        ops
    }

    /// The public document is the API, then the agents' endpoints, in
    /// that tag order, and leaves out every page, form and operator route.
    #[test]
    fn public_document_is_the_api_then_the_agents() {
        let doc = document();
        let tags: Vec<&str> = doc["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            tags,
            [
                "images", "delivery", "catalog", "account", "billing", "mcp", "feedback", "events"
            ]
        );
        for (path, method, op) in operations(doc) {
            let tag = op["tags"][0].as_str().unwrap();
            assert!(tags.contains(&tag), "{method} {path} has tag {tag}");
        }
        let paths = doc["paths"].as_object().unwrap();
        for gone in [
            "/signup",
            "/dashboard/keys",
            "/device",
            "/dashboard",
            "/metrics",
            "/healthz",
            "/",
            "/api/v1/billing/webhook",
        ] {
            assert!(
                !paths.contains_key(gone),
                "{gone} is in the public document"
            );
            assert!(
                full_document()["paths"].get(gone).is_some(),
                "{gone} is in the full document"
            );
        }
        // No schema that only the site's routes use.
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        assert!(!schemas.contains_key("Health") && !schemas.contains_key("WebhookReceipt"));
    }

    /// Every query parameter is its own parameter, with a type or enum, a
    /// description and (unless an example could not be a valid request) an
    /// example; nothing is an exploded object any more.
    #[test]
    fn every_query_parameter_is_listed_on_its_own_with_an_example() {
        let doc = document();
        for (path, method, op) in operations(doc) {
            for p in op["parameters"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().unwrap();
                let schema = &p["schema"];
                assert!(
                    schema["type"].is_string() || schema["enum"].is_array(),
                    "{method} {path} {name}: no type"
                );
                assert_ne!(schema["type"], "object", "{method} {path} {name}");
                assert!(
                    p["description"].is_string(),
                    "{method} {path} {name}: no description"
                );
                let grant =
                    path == "/images/car.png" && ["exp", "sig", "partner", "key"].contains(&name);
                // With the example color and view, an example paint or
                // angle would be a refused combination; fit, trim and
                // padding need a box or each other.
                let grant =
                    grant || ["paint", "angle", "shadow", "fit", "trim", "padding"].contains(&name);
                if p["in"] == "query" && !grant {
                    assert!(
                        p.get("example").is_some(),
                        "{method} {path} {name}: no example"
                    );
                }
            }
        }
        let image = &doc["paths"]["/api/v1/images/car"]["get"]["parameters"];
        let names: Vec<&str> = image
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["in"] == "query")
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "make",
                "model",
                "year",
                "view",
                "angle",
                "color",
                "paint",
                "finish",
                "shadow",
                "scale",
                "w",
                "h",
                "size",
                "format",
                "background",
                "fit",
                "trim",
                "padding",
                "response"
            ]
        );
        let year = image
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "year")
            .unwrap();
        assert_eq!(year["schema"]["minimum"], i64::from(YEAR_MIN));
        assert_eq!(year["schema"]["maximum"], i64::from(YEAR_MAX));
        assert_eq!(year["required"], true);
    }

    /// Images are binary in their three types, before the JSON form, with
    /// the headers a client reads.
    #[test]
    fn image_responses_are_binary_with_their_headers() {
        let doc = document();
        let ok = &doc["paths"]["/api/v1/images/car"]["get"]["responses"]["200"];
        let types: Vec<&String> = ok["content"].as_object().unwrap().keys().collect();
        assert!(types.contains(&&"image/png".to_string()));
        for mime in ["image/png", "image/webp", "image/jpeg", "image/avif"] {
            assert_eq!(ok["content"][mime]["schema"]["format"], "binary", "{mime}");
        }
        // A written example, not a reader's sample made up from the schema
        // (whose uri would be http://example.com).
        let url = ok["content"]["application/json"]["example"]["data"]["url"]
            .as_str()
            .unwrap();
        assert!(url.contains("/api/v1/delivery/"), "{url}");
        for header in [
            "ETag",
            "Cache-Control",
            "X-Credits-Charged",
            "X-Credits-Remaining",
            "RateLimit-Limit",
            "RateLimit-Remaining",
            "RateLimit-Reset",
            "X-Request-Id",
        ] {
            assert!(ok["headers"].get(header).is_some(), "200 lacks {header}");
        }
        let not_modified = &doc["paths"]["/api/v1/images/car"]["get"]["responses"]["304"];
        assert!(not_modified["headers"].get("ETag").is_some());
        for path in ["/api/v1/delivery/{token}", "/images/car.png"] {
            let ok = &doc["paths"][path]["get"]["responses"]["200"];
            assert_eq!(
                ok["content"]["image/webp"]["schema"]["format"], "binary",
                "{path}"
            );
        }
    }

    /// Each public operation has samples in curl, TypeScript and Python,
    /// and in the `vis` command line where it has a command for it.
    #[test]
    fn every_public_operation_has_code_samples() {
        let with_cli = [
            "getImage",
            "getSpin",
            "resolve",
            "createImageUrls",
            "vehicles",
            "account",
            "deviceCode",
            "deviceToken",
            "feedback",
        ];
        for (path, method, op) in operations(document()) {
            let id = op["operationId"].as_str().unwrap();
            let labels: Vec<&str> = op["x-codeSamples"]
                .as_array()
                .unwrap_or_else(|| panic!("{method} {path} has no samples"))
                .iter()
                .map(|s| s["label"].as_str().unwrap())
                .collect();
            let mut want = vec!["curl", "TypeScript", "Python"];
            if with_cli.contains(&id) {
                want.insert(1, "vis CLI");
            }
            assert_eq!(labels, want, "{method} {path}");
        }
    }

    /// An optional enumeration of a JSON body admits `null`, which the
    /// server reads as absent; a required one does not.
    #[test]
    fn optional_json_enumerations_admit_null() {
        let doc = document();
        let schemas = &doc["components"]["schemas"];
        let admits_null = |schema: &Value| {
            schema["anyOf"]
                .as_array()
                .is_some_and(|a| a.contains(&json!({ "type": "null" })))
        };
        let image = &schemas["ImageRequest"]["allOf"][0]["properties"];
        for field in ["view", "color", "size", "format"] {
            assert!(admits_null(&image[field]), "ImageRequest.{field}");
        }
        let feedback = &schemas["FeedbackRequest"]["properties"];
        for field in ["view", "color", "verdict"] {
            assert!(admits_null(&feedback[field]), "FeedbackRequest.{field}");
        }
        let checkout = &schemas["CheckoutRequest"]["properties"]["credits"];
        assert!(
            !admits_null(checkout),
            "CheckoutRequest.credits is required"
        );
    }

    /// Every JSON request body carries an example.
    #[test]
    fn request_bodies_have_examples() {
        for (path, method, op) in operations(document()) {
            let Some(content) = op["requestBody"]["content"].as_object() else {
                continue;
            };
            let json = &content["application/json"];
            assert!(
                json.get("example").is_some() || json.get("examples").is_some(),
                "{method} {path}: no request example"
            );
        }
    }

    #[test]
    fn the_document_is_openapi_3_1_with_every_schema_it_refers_to() {
        let doc: Value = serde_json::from_str(full_document_json()).unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(doc["info"]["version"], "2.0.0");
        for text in [document_json(), full_document_json()] {
            let doc: Value = serde_json::from_str(text).unwrap();
            let schemas = doc["components"]["schemas"].as_object().unwrap();
            for (i, _) in text.match_indices("#/components/schemas/") {
                let rest = &text[i + "#/components/schemas/".len()..];
                let name = &rest[..rest.find('"').unwrap()];
                assert!(schemas.contains_key(name), "missing schema {name}");
            }
        }
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for name in [
            "Problem",
            "OptionsResponse",
            "VehiclesResponse",
            "ResolveResponse",
            "AccountResponse",
            "ImageUrlResponse",
            "ImageUrlsResponse",
            "ImageRequest",
            "BatchImageUrlRequest",
            "ResolveRequest",
            "CatalogMake",
            "View",
        ] {
            assert!(schemas.contains_key(name), "{name}");
        }
    }
}
