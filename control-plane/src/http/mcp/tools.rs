//! The MCP tools: their catalog (names, one-line descriptions with the cost,
//! input and output schemas, annotations) and how each call becomes the API
//! request it mirrors.

use std::sync::Arc;

use axum::http::{Method, StatusCode};
use base64::Engine as _;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock as Content, JsonObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use super::Caller;
use crate::http::state::HttpState;

/// The type a tool argument must have; strings are coerced to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Str,
    Int,
    Bool,
    Array,
}

struct Arg {
    name: &'static str,
    kind: Kind,
    required: bool,
    schema: Value,
}

fn arg(name: &'static str, kind: Kind, required: bool, schema: Value) -> Arg {
    Arg {
        name,
        kind,
        required,
        schema,
    }
}

struct Spec {
    name: &'static str,
    description: &'static str,
    args: Vec<Arg>,
    output: Value,
    read_only: bool,
    idempotent: bool,
}

/// `format` of get_image: one format (an image a model reads).
const FORMATS: [&str; 4] = ["png", "webp", "jpg", "avif"];

/// `format` of an image URL: a format, or auto (negotiated per load).
const FORMATS_OR_AUTO: [&str; 5] = ["png", "webp", "jpg", "avif", "auto"];

const VIEWS: [&str; 7] = [
    "front",
    "front-3-4",
    "side",
    "side-right",
    "rear",
    "rear-3-4",
    "top",
];

/// `angle`: a turntable angle instead of a named view.
fn angle_schema() -> Value {
    json!({ "type": "integer", "minimum": 0, "maximum": 345, "multipleOf": 15, "description": "Instead of view: degrees around the vehicle from the nose, 0 to 345 in steps of 15 (90 the left side, 180 the tail)." })
}
const SIZES: [&str; 4] = ["thumb", "small", "medium", "large"];
const COLORS: [&str; 15] = [
    "white", "black", "gray", "silver", "blue", "red", "green", "brown", "beige", "tan", "orange",
    "yellow", "gold", "burgundy", "purple",
];

const FINISHES: [&str; 3] = ["solid", "metallic", "pearl"];

/// `color`: a preset, or six hex digits with an optional `#`.
fn color_schema(description: &str) -> Value {
    json!({ "type": "string", "anyOf": [{ "enum": COLORS }, { "pattern": "^#?[0-9A-Fa-f]{6}$" }], "description": description })
}

fn text(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

fn integer(min: i64, max: i64, description: &str) -> Value {
    json!({ "type": "integer", "minimum": min, "maximum": max, "description": description })
}

fn idempotency() -> Arg {
    arg(
        "idempotency_key",
        Kind::Str,
        false,
        json!({ "type": "string", "minLength": 1, "maxLength": 255, "description": "Any unique string (a UUID). Send the same value when you retry this call: within 24 hours it answers the first result again and never bills twice; with other arguments it is an error." }),
    )
}

fn vehicle_args(image: bool) -> Vec<Arg> {
    let mut args = vec![
        arg(
            "make",
            Kind::Str,
            true,
            text("Make name or slug, e.g. toyota."),
        ),
        arg(
            "model",
            Kind::Str,
            true,
            text("Model name or slug, e.g. camry."),
        ),
        arg("year", Kind::Int, true, integer(1990, 2027, "Model year.")),
        arg(
            "view",
            Kind::Str,
            false,
            json!({ "type": "string", "enum": VIEWS, "description": "Camera view (default front-3-4); top looks down from above. Or send angle." }),
        ),
        arg(
            "color",
            Kind::Str,
            false,
            color_schema("Paint colour: a preset, or any colour as #RRGGBB (default silver)."),
        ),
    ];
    if image {
        args.push(arg("angle", Kind::Int, false, angle_schema()));
        args.push(arg(
            "paint",
            Kind::Str,
            false,
            json!({ "type": "string", "minLength": 1, "maxLength": 20, "description": "A manufacturer's paint code of the make instead of color, e.g. 3R3 for Toyota (GET /api/v1/images/options lists them)." }),
        ));
        args.push(arg(
            "finish",
            Kind::Str,
            false,
            json!({ "type": "string", "enum": FINISHES, "description": "The finish of a #RRGGBB colour (default solid); presets and paint codes have their own." }),
        ));
        args.push(arg(
            "width",
            Kind::Int,
            false,
            integer(
                1,
                1024,
                "Width in pixels of the box the image is fitted into (default 512).",
            ),
        ));
        args.push(arg(
            "height",
            Kind::Int,
            false,
            integer(1, 1024, "Height in pixels of the box (optional)."),
        ));
        args.push(arg(
            "size",
            Kind::Str,
            false,
            json!({ "type": "string", "enum": SIZES, "description": "A size preset instead of width: thumb 256, small 512, medium 768, large 1024 pixels (ignored when width or height is given). resolve_vehicle's params may carry one." }),
        ));
        args.push(arg(
            "format",
            Kind::Str,
            false,
            json!({ "type": "string", "enum": FORMATS, "description": "Image format (default png). avif is the smallest, but many model APIs do not read it: prefer png or webp for an image a model should see." }),
        ));
        for (name, kind, schema) in framing_args() {
            args.push(arg(name, kind, false, schema));
        }
    }
    args
}

/// The staging and framing arguments of an image (docs/framing.md), as
/// `GET /api/v1/images/car` takes them.
fn framing_args() -> [(&'static str, Kind, Value); 6] {
    [
        (
            "shadow",
            Kind::Bool,
            json!({ "type": "boolean", "description": "false: without the contact shadow under the vehicle (default true)." }),
        ),
        (
            "scale",
            Kind::Str,
            json!({ "type": "string", "enum": ["fill", "relative"], "description": "relative: one metres-per-pixel per size class, so vehicles shown side by side keep their real sizes (default fill)." }),
        ),
        (
            "background",
            Kind::Str,
            json!({ "type": "string", "description": "transparent (default), white, studio (a photographer's grey sweep) or #RRGGBB." }),
        ),
        (
            "fit",
            Kind::Str,
            json!({ "type": "string", "enum": ["contain", "cover"], "description": "The image is exactly width x height (both needed): contain, the vehicle whole inside; cover, the box filled." }),
        ),
        (
            "trim",
            Kind::Bool,
            json!({ "type": "boolean", "description": "Crop to the vehicle, then fit it in the box (a missing side is the other's)." }),
        ),
        (
            "padding",
            Kind::Int,
            integer(
                0,
                256,
                "Pixels of margin around the vehicle, with trim or fit=contain.",
            ),
        ),
    ]
}

/// The output of tools that return an API document: its JSON body.
fn document(data: Value) -> Value {
    json!({
        "type": "object",
        "properties": { "data": data, "request_id": { "type": "string" } },
        "required": ["data"],
    })
}

fn specs() -> Vec<Spec> {
    let mut get_image_args = vehicle_args(true);
    get_image_args.push(idempotency());
    let image_item = json!({
        "type": "object",
        "properties": {
            "make": { "type": "string" }, "model": { "type": "string" },
            "year": { "type": "integer", "minimum": 1990, "maximum": 2027 },
            "view": { "type": "string", "enum": VIEWS },
            "angle": angle_schema(),
            "color": color_schema("A preset, or any colour as #RRGGBB (default silver)."),
            "paint": { "type": "string", "minLength": 1, "maxLength": 20, "description": "A paint code of the make instead of color." },
            "finish": { "type": "string", "enum": FINISHES },
            "width": { "type": "integer", "minimum": 1, "maximum": 1024 },
            "height": { "type": "integer", "minimum": 1, "maximum": 1024 },
            "size": { "type": "string", "enum": SIZES },
            "format": { "type": "string", "enum": FORMATS_OR_AUTO, "description": "auto: the format each loader's Accept header names (avif, then webp, else png)." },
        },
        "required": ["make", "model", "year"],
    });
    let mut image_item = image_item;
    for (name, _, schema) in framing_args() {
        image_item["properties"][name] = schema;
    }
    let mut feedback_args = vec![arg(
        "request_id",
        Kind::Str,
        false,
        json!({ "type": "string", "maxLength": 128, "description": "The request_id get_image returned (or X-Request-Id of the API call that delivered the image). Or name the image with make, model, year, view, color." }),
    )];
    for a in vehicle_args(false) {
        feedback_args.push(Arg {
            required: false,
            ..a
        });
    }
    feedback_args.extend([
        arg("rating", Kind::Int, false, integer(1, 5, "1 (bad) to 5 (good); send rating or verdict.")),
        arg(
            "verdict",
            Kind::Str,
            false,
            json!({ "type": "string", "enum": ["good", "bad"], "description": "good or bad; send rating or verdict." }),
        ),
        arg(
            "reason",
            Kind::Str,
            false,
            json!({ "type": "string", "maxLength": 500, "description": "What is wrong (or right) with the render." }),
        ),
    ]);
    vec![
        Spec {
            name: "get_image",
            description: "Render one vehicle image and return it (1 credit; free when retried with the same idempotency_key).",
            args: get_image_args,
            output: json!({
                "type": "object",
                "properties": {
                    "vehicle": { "type": "object", "properties": {
                        "make": { "type": "string" }, "model": { "type": "string" }, "year": { "type": "integer" },
                        "view": { "type": "string" }, "color": { "type": "string" } } },
                    "alt": { "type": "string", "description": "Alt text for an <img> tag: colour, year, make, model, body style and view." },
                    "width": { "type": "integer" }, "height": { "type": "integer" },
                    "format": { "type": "string" }, "etag": { "type": "string" },
                    "source": { "type": "string", "enum": ["cache", "generated"] },
                    "credits_charged": { "type": "integer" }, "credits_remaining": { "type": "integer" },
                    "replayed": { "type": "boolean" },
                    "request_id": { "type": "string", "description": "Quote it in leave_feedback." },
                },
                "required": ["vehicle", "width", "height", "format", "credits_charged", "request_id"],
            }),
            read_only: false,
            idempotent: false,
        },
        Spec {
            name: "create_image_urls",
            description: "Create 1 to 50 browser-safe signed image URLs, free to load until they expire (1 credit per URL, charged now).",
            args: vec![
                arg(
                    "images",
                    Kind::Array,
                    true,
                    json!({ "type": "array", "minItems": 1, "maxItems": 50, "items": image_item, "description": "The images, each {make, model, year, view?, color? (or paint?), finish?, width?, height?, size?, format?, shadow?, scale?, background?, fit?, trim?, padding?}." }),
                ),
                arg(
                    "ttl_seconds",
                    Kind::Int,
                    false,
                    integer(60, 604_800, "Lifetime of the URLs (default 3600)."),
                ),
                arg(
                    "max_uses",
                    Kind::Int,
                    false,
                    integer(0, 1000, "Loads allowed per URL; 0 (default) is unlimited."),
                ),
                idempotency(),
            ],
            output: json!({
                "type": "object",
                "properties": {
                    "data": { "type": "array", "items": { "type": "object", "properties": {
                        "id": { "type": "string" }, "url": { "type": "string" }, "expires_at": { "type": "string" },
                        "max_uses": { "type": "integer" }, "vehicle": { "type": "object" } } } },
                    "billing": { "type": "object" },
                    "request_id": { "type": "string" },
                },
                "required": ["data", "billing"],
            }),
            read_only: false,
            idempotent: false,
        },
        Spec {
            name: "resolve_vehicle",
            description: "Turn a free-text description (\"red 2019 camry from behind\") into exact image parameters (free).",
            args: vec![
                arg(
                    "query",
                    Kind::Str,
                    true,
                    json!({ "type": "string", "minLength": 1, "maxLength": 200, "description": "The description." }),
                ),
                arg(
                    "year",
                    Kind::Int,
                    false,
                    integer(1990, 2027, "Model year, if known."),
                ),
                arg("make", Kind::Str, false, text("Make, if known.")),
                arg("model", Kind::Str, false, text("Model, if known.")),
            ],
            output: document(json!({ "type": "object" })),
            read_only: true,
            idempotent: true,
        },
        Spec {
            name: "search_vehicles",
            description: "Search the catalog's makes and models by name (free).",
            args: vec![
                arg(
                    "q",
                    Kind::Str,
                    true,
                    json!({ "type": "string", "minLength": 1, "maxLength": 200, "description": "Words of a make or model name." }),
                ),
                arg(
                    "year",
                    Kind::Int,
                    false,
                    integer(1990, 2027, "Only what exists in this model year."),
                ),
                arg(
                    "limit",
                    Kind::Int,
                    false,
                    integer(1, 25, "Results (default 10)."),
                ),
            ],
            output: document(json!({ "type": "object" })),
            read_only: true,
            idempotent: true,
        },
        Spec {
            name: "browse_catalog",
            description: "Browse the catalog: no arguments → years; year → makes; make (+ year) → models; make + model → years (free).",
            args: vec![
                arg(
                    "year",
                    Kind::Int,
                    false,
                    integer(1990, 2027, "A model year."),
                ),
                arg("make", Kind::Str, false, text("A make's slug.")),
                arg(
                    "model",
                    Kind::Str,
                    false,
                    text("A model's slug (with make)."),
                ),
            ],
            output: document(json!({ "type": "object" })),
            read_only: true,
            idempotent: true,
        },
        Spec {
            name: "get_options",
            description: "The views, colours, sizes, formats, prices and limits the service offers (free).",
            args: vec![],
            output: document(json!({ "type": "object" })),
            read_only: true,
            idempotent: true,
        },
        Spec {
            name: "get_account",
            description: "The account's credit balance, prices and 30-day usage (free).",
            args: vec![],
            output: document(
                json!({ "type": "object", "properties": { "credits": { "type": "integer" } }, "required": ["credits"] }),
            ),
            read_only: true,
            idempotent: true,
        },
        Spec {
            name: "leave_feedback",
            description: "Report a good or bad render, by request_id or by vehicle; enough bad reports get it re-rendered (free).",
            args: feedback_args,
            output: document(json!({
                "type": "object",
                "properties": {
                    "asset_id": { "type": "string" }, "recorded": { "type": "boolean" },
                    "flagged": { "type": "boolean" },
                },
                "required": ["asset_id", "recorded", "flagged"],
            })),
            read_only: false,
            idempotent: false,
        },
    ]
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// Every tool, as `tools/list` shows it.
pub fn catalog() -> Vec<Tool> {
    specs()
        .into_iter()
        .map(|s| {
            let properties: Map<String, Value> = s
                .args
                .iter()
                .map(|a| (a.name.to_owned(), a.schema.clone()))
                .collect();
            let required: Vec<&str> = s
                .args
                .iter()
                .filter(|a| a.required)
                .map(|a| a.name)
                .collect();
            let input = json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            });
            Tool::new(s.name, s.description, object(input))
                .with_raw_output_schema(object(s.output))
                .with_annotations(
                    ToolAnnotations::new()
                        .read_only(s.read_only)
                        .destructive(false)
                        .idempotent(s.idempotent)
                        .open_world(false),
                )
        })
        .collect()
}

/// A tool error carrying a problem document (spec §7 shape); `call` gives
/// it the API's `type` URI and a `request_id`.
fn problem(status: u16, detail: String, param: Option<&str>) -> CallToolResult {
    let title =
        axum::http::StatusCode::from_u16(status).map_or("Error", crate::http::error::title_for);
    let mut doc = json!({ "title": title, "status": status, "detail": detail });
    if let Some(p) = param {
        doc["param"] = json!(p);
    }
    failure(doc)
}

fn failure(doc: Value) -> CallToolResult {
    let mut r = CallToolResult::error(vec![Content::text(doc.to_string())]);
    r.structured_content = Some(doc);
    r
}

/// Checks and coerces the arguments: strings that spell an integer, a
/// boolean or a JSON array become one; unknown names are refused.
fn coerce(spec: &Spec, mut given: JsonObject) -> Result<JsonObject, CallToolResult> {
    let mut out = JsonObject::new();
    for a in &spec.args {
        let Some(value) = given.remove(a.name) else {
            if a.required {
                return Err(problem(
                    400,
                    format!("{} is required", a.name),
                    Some(a.name),
                ));
            }
            continue;
        };
        if value.is_null() && !a.required {
            continue;
        }
        let bad = |what: &str| problem(400, format!("{} must be {what}", a.name), Some(a.name));
        let value = match (a.kind, value) {
            (Kind::Int, Value::String(s)) => s
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| bad("an integer"))?,
            (Kind::Int, Value::Number(n)) if n.is_i64() => Value::Number(n),
            (Kind::Int, Value::Number(n)) => n
                .as_f64()
                .filter(|f| f.fract() == 0.0)
                .map(|f| Value::from(f as i64))
                .ok_or_else(|| bad("an integer"))?,
            (Kind::Array, Value::String(s)) => match serde_json::from_str::<Value>(&s) {
                Ok(v @ Value::Array(_)) => v,
                _ => return Err(bad("an array (or a JSON array in a string)")),
            },
            (Kind::Bool, v @ Value::Bool(_)) => v,
            (Kind::Bool, Value::String(s)) => match s.trim() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(bad("true or false")),
            },
            (Kind::Bool, _) => return Err(bad("true or false")),
            (Kind::Str, v @ Value::String(_)) => v,
            (Kind::Str, Value::Number(n)) => Value::String(n.to_string()),
            (Kind::Int, _) => return Err(bad("an integer")),
            (Kind::Array, v @ Value::Array(_)) => v,
            (Kind::Array, _) => return Err(bad("an array")),
            (Kind::Str, _) => return Err(bad("a string")),
        };
        out.insert(a.name.to_owned(), value);
    }
    if let Some(unknown) = given.keys().next() {
        let known: Vec<&str> = spec.args.iter().map(|a| a.name).collect();
        return Err(problem(
            400,
            format!(
                "unknown argument {unknown}; this tool takes: {}",
                known.join(", ")
            ),
            Some(unknown),
        ));
    }
    Ok(out)
}

fn query_of(args: &JsonObject, names: &[(&str, &str)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (arg_name, param) in names {
        if let Some(v) = args.get(*arg_name) {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            q.append_pair(param, &text);
        }
    }
    q.finish()
}

/// The result of an API call that answers JSON: its body as structured
/// content, or the problem document as a tool error.
fn json_result(reply: super::Reply) -> CallToolResult {
    let body: Value = serde_json::from_slice(&reply.body).unwrap_or_else(|_| {
        json!({ "title": crate::http::error::title_for(reply.status), "status": reply.status.as_u16(), "detail": String::from_utf8_lossy(&reply.body) })
    });
    if !reply.status.is_success() {
        return failure(body);
    }
    let mut r = CallToolResult::success(vec![Content::text(body.to_string())]);
    r.structured_content = Some(body);
    r
}

pub async fn call(
    api: &Caller<'_>,
    state: &HttpState,
    name: &str,
    arguments: JsonObject,
) -> Result<CallToolResult, ErrorData> {
    let mut result = dispatch(api, state, name, arguments).await?;
    if result.is_error == Some(true)
        && let Some(doc) = result.structured_content.as_mut()
    {
        in_tool_words(doc, &state.base_url);
        result.content = vec![Content::text(doc.to_string())];
    }
    Ok(result)
}

/// A problem document as an agent reads it: every member the API's have
/// (`type`, `request_id`), argument names instead of HTTP header names, and
/// the tools to use instead of the API's paths.
fn in_tool_words(doc: &mut Value, base_url: &str) {
    let status = doc["status"].as_u64().unwrap_or(500);
    if doc.get("type").is_none_or(|t| t == "about:blank") {
        doc["type"] = json!(format!("{base_url}/docs/errors#{status}"));
    }
    if doc.get("request_id").is_none() {
        doc["request_id"] = json!(crate::http::context::new_request_id());
    }
    if doc["param"] == "Idempotency-Key" {
        doc["param"] = json!("idempotency_key");
    }
    if let Some(detail) = doc["detail"].as_str() {
        let detail = detail
            .replace("Idempotency-Key", "idempotency_key")
            .replace("request body", "arguments")
            .replace(
                "Use /api/v1/vehicles or /api/v1/images/resolve",
                "Use the search_vehicles or resolve_vehicle tool",
            );
        doc["detail"] = json!(detail);
    }
}

async fn dispatch(
    api: &Caller<'_>,
    state: &HttpState,
    name: &str,
    arguments: JsonObject,
) -> Result<CallToolResult, ErrorData> {
    let Some(spec) = specs().into_iter().find(|s| s.name == name) else {
        return Ok(problem(404, format!("no tool named {name}"), Some("name")));
    };
    let args = match coerce(&spec, arguments) {
        Ok(a) => a,
        Err(refused) => return Ok(refused),
    };
    Ok(match name {
        "get_image" => get_image(api, state, &args).await?,
        "create_image_urls" => {
            let mut body = JsonObject::new();
            for k in ["images", "ttl_seconds", "max_uses"] {
                if let Some(v) = args.get(k) {
                    body.insert(k.to_owned(), v.clone());
                }
            }
            let mut headers = Vec::new();
            if let Some(Value::String(k)) = args.get("idempotency_key") {
                headers.push(("idempotency-key", k.clone()));
            }
            json_result(
                api.call(
                    Method::POST,
                    "/api/v1/image-urls",
                    Some(&Value::Object(body)),
                    &headers,
                )
                .await?,
            )
        }
        "resolve_vehicle" => json_result(
            api.call(
                Method::POST,
                "/api/v1/images/resolve",
                Some(&Value::Object(args)),
                &[],
            )
            .await?,
        ),
        "search_vehicles" => {
            let q = query_of(&args, &[("q", "q"), ("year", "year"), ("limit", "limit")]);
            json_result(
                api.call(Method::GET, &format!("/api/v1/vehicles?{q}"), None, &[])
                    .await?,
            )
        }
        "browse_catalog" => {
            let q = query_of(
                &args,
                &[("year", "year"), ("make", "make"), ("model", "model")],
            );
            json_result(
                api.call(Method::GET, &format!("/api/v1/vehicles?{q}"), None, &[])
                    .await?,
            )
        }
        "get_options" => json_result(
            api.call(Method::GET, "/api/v1/images/options", None, &[])
                .await?,
        ),
        "get_account" => json_result(api.call(Method::GET, "/api/v1/account", None, &[]).await?),
        "leave_feedback" => json_result(
            api.call(
                Method::POST,
                "/api/v1/feedback",
                Some(&Value::Object(args)),
                &[],
            )
            .await?,
        ),
        _ => problem(404, format!("no tool named {name}"), Some("name")),
    })
}

/// `get_image`: `GET /api/v1/images/car` with the caller's key. With an
/// idempotency key, the call first claims the key (`idempotent.rs`): the one
/// call holding it charges, under a request id no client can choose; a
/// charge already made under it (in the last 24 hours) is answered again for
/// free, and a concurrent duplicate waits for it instead of charging.
async fn get_image(
    api: &Caller<'_>,
    state: &HttpState,
    args: &JsonObject,
) -> Result<CallToolResult, ErrorData> {
    let mut args = args.clone();
    // A size preset stands for the width; without either, 512.
    if !args.contains_key("width") && !args.contains_key("size") {
        args.insert("width".into(), json!(512));
    }
    let query = query_of(
        &args,
        &[
            ("make", "make"),
            ("model", "model"),
            ("year", "year"),
            ("view", "view"),
            ("angle", "angle"),
            ("color", "color"),
            ("paint", "paint"),
            ("finish", "finish"),
            ("width", "w"),
            ("height", "h"),
            ("size", "size"),
            ("format", "format"),
            ("shadow", "shadow"),
            ("scale", "scale"),
            ("background", "background"),
            ("fit", "fit"),
            ("trim", "trim"),
            ("padding", "padding"),
        ],
    );
    let mut replay = None;
    let mut claim = None;
    if let Some(Value::String(idem)) = args.get("idempotency_key") {
        match super::idempotent::prepare(api, state, idem, &query).await? {
            super::idempotent::Prepared::Replay {
                reference,
                canonical,
            } => {
                replay = Some((reference, canonical));
            }
            super::idempotent::Prepared::Conflict => {
                return Ok(problem(
                    409,
                    "This idempotency_key was used with other arguments in the last 24 hours. Use a new key for a new request.".into(),
                    Some("idempotency_key"),
                ));
            }
            super::idempotent::Prepared::InProgress => {
                let mut refused = problem(
                    503,
                    "Another get_image call with this idempotency_key is still working (a cold render can take up to two minutes). Call again with the same idempotency_key in a few seconds: it is never billed twice.".into(),
                    Some("idempotency_key"),
                );
                if let Some(doc) = refused.structured_content.as_mut() {
                    doc["retry_after"] = json!(5);
                }
                return Ok(refused);
            }
            super::idempotent::Prepared::Fresh(claimed) => claim = Some(claimed),
            super::idempotent::Prepared::Unchecked => {}
        }
    }
    let reply = match &replay {
        // Already paid for: the same image, free (it exists now).
        Some((_, canonical)) => {
            api.call(
                Method::GET,
                &format!("/images/car.png?{canonical}&mode=cached"),
                None,
                &[],
            )
            .await
        }
        None => {
            api.call_as(
                claim.as_ref().map(|c| &c.request_id),
                Method::GET,
                &format!("/api/v1/images/car?{query}"),
                None,
                &[],
            )
            .await
        }
    };
    let header_of = |reply: &super::Reply, name: &str| {
        reply
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let charged: i64 = reply
        .as_ref()
        .ok()
        .filter(|r| r.status == StatusCode::OK)
        .and_then(|r| header_of(r, "x-credits-charged"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if let Some(claimed) = claim {
        claimed.finish(state, charged > 0).await?;
    }
    let reply = reply?;
    if reply.status != StatusCode::OK {
        return Ok(json_result(reply));
    }
    let header = |name: &str| header_of(&reply, name);
    let mut request_id = header("x-request-id").unwrap_or_default();
    if let Some((reference, _)) = &replay {
        request_id = reference.clone();
    }
    let remaining = match header("x-credits-remaining").and_then(|v| v.parse::<i64>().ok()) {
        Some(r) if charged > 0 || replay.is_none() => r,
        _ => super::idempotent::balance(api, state).await?,
    };
    let mime = header("content-type").unwrap_or_else(|| "image/png".into());
    let location = header("content-location").unwrap_or_default();
    let vehicle = vehicle_of(&location);
    let width: i64 = header("x-image-width")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let height: i64 = header("x-image-height")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let format = match mime.as_str() {
        "image/webp" => "webp",
        "image/jpeg" => "jpg",
        "image/avif" => "avif",
        _ => "png",
    };
    let alt = alt_of_location(state, &location);
    let structured = json!({
        "vehicle": vehicle,
        "alt": alt,
        "width": width,
        "height": height,
        "format": format,
        "etag": header("etag").unwrap_or_default(),
        "source": header("x-image-source").unwrap_or_else(|| "cache".into()),
        "credits_charged": charged,
        "credits_remaining": remaining,
        "replayed": replay.is_some() || charged == 0,
        "request_id": request_id,
    });
    let data = base64::engine::general_purpose::STANDARD.encode(&reply.body);
    let field = |k: &str| match &vehicle[k] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let summary = format!(
        "{} {} {}, {} {}, {width}x{height} {format}; {charged} {} charged, {remaining} left; request_id {request_id}",
        field("year"),
        field("make"),
        field("model"),
        field("color"),
        field("view"),
        if charged == 1 { "credit" } else { "credits" },
    );
    let mut r = CallToolResult::success(vec![Content::image(data, mime), Content::text(summary)]);
    r.structured_content = Some(structured);
    Ok(r)
}

/// Alt text for the image at a canonical image URL (its vehicle and
/// colour, named as `X-Color-Match` names it); empty when the URL is not
/// one.
fn alt_of_location(state: &HttpState, url: &str) -> String {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let mut f: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        f.insert(k.into_owned(), v.into_owned());
    }
    let get = |k: &str| f.get(k).map(String::as_str).unwrap_or_default();
    let view = crate::delivery::view_of_query(
        f.get("view").map(String::as_str),
        f.get("angle").map(String::as_str),
    );
    let (Ok(year), Some(view)) = (get("year").parse::<u16>(), view) else {
        return String::new();
    };
    let finish = get("finish").parse().ok();
    let Ok(paint) = vis_protocol::Paint::parse_color(get("color"), None) else {
        return String::new();
    };
    let colour = vis_protocol::paints::describe(get("make"), paint.with_finish(finish), None).name;
    crate::delivery::alt::alt_of(
        state.catalog,
        get("make"),
        get("model"),
        year,
        &colour,
        view,
    )
}

/// The vehicle of a canonical image URL (`…?make=…&model=…&year=…&view=…&color=…`).
fn vehicle_of(url: &str) -> Value {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let mut v = json!({});
    for (k, val) in form_urlencoded::parse(query.as_bytes()) {
        match k.as_ref() {
            "make" | "model" | "view" | "color" => v[k.as_ref()] = json!(val),
            // An angle view, named as responses name it.
            "angle" => v["view"] = json!(format!("angle-{val}")),
            "year" => v["year"] = json!(val.parse::<i64>().unwrap_or(0)),
            _ => {}
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> Spec {
        specs().into_iter().find(|s| s.name == name).unwrap()
    }

    #[test]
    fn strings_are_coerced_and_unknown_arguments_refused() {
        let given: JsonObject = serde_json::from_value(json!({
            "make": "toyota", "model": "camry", "year": "2019", "width": 256.0,
        }))
        .unwrap();
        let args = coerce(&spec("get_image"), given).unwrap();
        assert_eq!(args["year"], json!(2019));
        assert_eq!(args["width"], json!(256));
        let given: JsonObject = serde_json::from_value(json!({
            "images": "[{\"make\":\"bmw\",\"model\":\"x5\",\"year\":2020}]",
        }))
        .unwrap();
        let args = coerce(&spec("create_image_urls"), given).unwrap();
        assert!(args["images"].is_array());
        let given: JsonObject =
            serde_json::from_value(json!({ "make": "a", "model": "b", "year": "soon" })).unwrap();
        let refused = coerce(&spec("get_image"), given).unwrap_err();
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(refused.structured_content.unwrap()["param"], "year");
        let given: JsonObject =
            serde_json::from_value(json!({ "query": "x", "key": "vis_x" })).unwrap();
        let refused = coerce(&spec("resolve_vehicle"), given).unwrap_err();
        assert_eq!(refused.structured_content.unwrap()["param"], "key");
    }

    #[test]
    fn every_tool_states_its_cost_and_has_schemas() {
        let tools = catalog();
        assert_eq!(tools.len(), 8);
        for t in tools {
            let d = t.description.as_deref().unwrap_or_default();
            assert!(
                d.contains("credit") || d.contains("(free)"),
                "{}: {d}",
                t.name
            );
            assert!(t.output_schema.is_some(), "{}", t.name);
            assert!(t.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        }
    }
}
