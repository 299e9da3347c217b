//! POST /api/v1/image-urls (spec §4; scope images:read; 1 credit per URL,
//! charged once at creation). Also the JSON shapes shared with the `url`
//! form of GET /api/v1/images/car.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use vis_protocol::{Finish, FormatChoice, Paint, View};

use super::auth::{Auth, ImagesRead, Principal};
use super::extract::{parse_json, read_body};
use super::images::{FieldNames, ImageItem, lookup_error, validate};
use super::{context, rate};
use crate::app::AppState;
use crate::delivery::signed::{Minted, MintedUrl};
use crate::delivery::{ImageParams, Resolved};
use crate::http::error::ApiError;
use crate::limits;
use crate::metrics::Metrics;
use crate::store::{IdempotencyClaim, Millis, StoreError};

/// The batch form (spec BatchImageUrlRequest; additional properties rejected).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchBody {
    pub images: Vec<ImageItem>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub ttl_seconds: Option<i64>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub max_uses: Option<i64>,
}

/// The batch form's fields, then an image's (errors look a nested field up
/// by its last name).
const BATCH_RULES: [(&str, &str); 15] = {
    let item = super::images::IMAGE_RULES;
    [
        (
            "images",
            "an array of 1 to 50 image objects (make, model, year, …)",
        ),
        ("ttl_seconds", "an integer from 60 to 604800"),
        (
            "max_uses",
            "an integer from 0 to 1000 (0 = unlimited until expiry)",
        ),
        item[0],
        item[1],
        item[2],
        item[3],
        item[4],
        item[5],
        item[6],
        item[7],
        item[8],
        item[9],
        item[10],
        item[11],
    ]
};

impl super::extract::Described for BatchBody {
    const SHAPE: &'static str = "a JSON object: one image (make, model, year, …) or a batch {\"images\": [...], \"ttl_seconds\", \"max_uses\"}";
    const RULES: &'static [(&'static str, &'static str)] = &BATCH_RULES;
}

/// A validated request: the images, the requested lifetime and use cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlRequest {
    pub images: Vec<ImageParams>,
    pub ttl_seconds: Option<u64>,
    pub max_uses: u32,
    /// The batch form (errors carry `index`).
    pub batch: bool,
}

/// Parses either form; errors name the parameter, and in the batch form
/// carry `index` of the failing item.
pub fn parse_body(bytes: &[u8]) -> Result<UrlRequest, ApiError> {
    // Syntax errors first (named `body`), then the form decides the shape.
    let value: Value = parse_json(bytes)?;
    let is_batch = value.as_object().is_some_and(|m| m.contains_key("images"));
    if !is_batch {
        let item: ImageItem = parse_json(bytes).map_err(|e| match e {
            ApiError::BadRequest { param, message }
                if param == "ttl_seconds" || param == "max_uses" =>
            {
                ApiError::bad_request(
                    param,
                    format!("{message}; ttl_seconds and max_uses are accepted only in the batch form {{\"images\": [...]}}"),
                )
            }
            other => other,
        })?;
        return Ok(UrlRequest {
            images: vec![validate_item(item, "")?],
            ttl_seconds: None,
            max_uses: 0,
            batch: false,
        });
    }
    let body: BatchBody = parse_json(bytes).map_err(|e| match &e {
        ApiError::BadRequest { param, .. } => match index_in(param) {
            Some(i) => e.with_field("index", i),
            None => e,
        },
        _ => e,
    })?;
    let n = body.images.len();
    if n == 0 || n > limits::MAX_BATCH_URLS {
        return Err(ApiError::bad_request(
            "images",
            format!("must hold 1 to {} images, got {n}", limits::MAX_BATCH_URLS),
        ));
    }
    let ttl_seconds = body
        .ttl_seconds
        .map(|t| {
            u64::try_from(t)
                .ok()
                .filter(|t| {
                    (limits::DELIVERY_TTL_MIN_SECS..=limits::DELIVERY_TTL_MAX_SECS).contains(t)
                })
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "ttl_seconds",
                        format!(
                            "must be an integer from {} to {}",
                            limits::DELIVERY_TTL_MIN_SECS,
                            limits::DELIVERY_TTL_MAX_SECS
                        ),
                    )
                })
        })
        .transpose()?;
    let max_uses = match body.max_uses {
        None => 0,
        Some(m) => u32::try_from(m)
            .ok()
            .filter(|m| *m <= limits::MAX_USES)
            .ok_or_else(|| {
                ApiError::bad_request(
                    "max_uses",
                    format!(
                        "must be an integer from 0 to {} (0 = unlimited until expiry)",
                        limits::MAX_USES
                    ),
                )
            })?,
    };
    let images = body
        .images
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            validate_item(item, &format!("images[{i}].")).map_err(|e| e.with_field("index", i))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(UrlRequest {
        images,
        ttl_seconds,
        max_uses,
        batch: true,
    })
}

/// `images[3].year` → 3.
fn index_in(param: &str) -> Option<usize> {
    let rest = param.strip_prefix("images[")?;
    rest[..rest.find(']')?].parse().ok()
}

/// The same rules as the query of GET /api/v1/images/car; `prefix` goes in
/// front of field names (`images[2].`).
fn validate_item(item: ImageItem, prefix: &str) -> Result<ImageParams, ApiError> {
    validate(
        item,
        FieldNames {
            prefix,
            width: "width",
            height: "height",
        },
    )
}

/// VehicleParams (spec §2): normalized slugs; width and height are the
/// requested box, when one was given.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VehicleParams {
    /// Make slug.
    pub make: String,
    /// Model slug.
    pub model: String,
    pub year: u16,
    pub view: View,
    /// A preset's name, or `#rrggbb` for any other colour (asked for by
    /// hex or by paint code).
    #[schema(example = "red", pattern = "^([a-z]+|#[0-9a-f]{6})$")]
    pub color: String,
    /// The finish of a `#rrggbb` colour: solid, metallic or pearl.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, pattern = "^(solid|metallic|pearl)$")]
    pub finish: Option<Finish>,
    /// The format asked for; `auto` when the URL chooses per load.
    pub format: FormatChoice,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// `false` when asked for without the contact shadow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow: Option<bool>,
    /// `relative` when asked for at the size class's one scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, pattern = "^relative$")]
    pub scale: Option<&'static str>,
    /// The framing asked for (docs/framing.md), each only when not its
    /// default: `white`, `studio` or `#rrggbb`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "studio")]
    pub background: Option<String>,
    /// `contain` or `cover` (a trimmed image's implied `contain` is left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, pattern = "^(contain|cover)$")]
    pub fit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding: Option<u32>,
}

impl VehicleParams {
    pub fn of(r: &Resolved) -> VehicleParams {
        let v = &r.variant;
        let canonical = r.framing.canonical();
        VehicleParams {
            make: v.make.to_string(),
            model: v.model.to_string(),
            year: v.year,
            view: v.view,
            color: match v.color {
                Paint::Named(c) => c.id().to_owned(),
                custom => custom.hex(),
            },
            finish: v.color.named().is_none().then(|| v.color.finish()),
            format: r.format_choice(),
            width: r.box_w,
            height: r.box_h,
            shadow: (!v.staging.shadow).then_some(false),
            scale: (v.staging.scale != vis_protocol::Scale::Fill).then(|| v.staging.scale.id()),
            background: nonempty(&canonical[0].1),
            fit: nonempty(&canonical[1].1),
            trim: r.framing.trim.then_some(true),
            padding: (r.framing.padding > 0).then_some(r.framing.padding),
        }
    }
}

fn nonempty(v: &str) -> Option<String> {
    (!v.is_empty()).then(|| v.to_owned())
}

/// What the image's paint is called and how exactly (the JSON twin of the
/// `X-Color-Match` header; docs/rendering.md, "Colours and paint codes").
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ColorMatchBody {
    /// `exact`: a preset, or one of the make's paint codes, painted as
    /// listed. `nearest`: a custom colour, named after the nearest preset
    /// or paint of the make.
    #[serde(rename = "match")]
    #[schema(value_type = String, pattern = "^(exact|nearest)$")]
    pub kind: &'static str,
    /// A preset's name (`red`) or a paint's (`Barcelona Red Metallic`).
    pub name: String,
    /// The paint code, when `name` is one of the make's paints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paint: Option<String>,
    /// The sRGB colour painted, `#rrggbb`.
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub hex: String,
    #[schema(value_type = String, pattern = "^(solid|metallic|pearl)$")]
    pub finish: Finish,
    /// CIEDE2000 from the painted colour to the named one, one decimal
    /// (0 when exact).
    pub delta_e: f64,
}

impl ColorMatchBody {
    pub fn of(r: &Resolved) -> ColorMatchBody {
        let m = r.color_match();
        ColorMatchBody {
            kind: m.kind.id(),
            name: m.name,
            paint: m.paint.map(|p| p.code.clone()),
            hex: r.variant.color.hex(),
            finish: r.variant.color.finish(),
            delta_e: m.delta_e,
        }
    }
}

/// One signed delivery URL (spec §2 DeliveryUrl).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryUrl {
    #[schema(format = "uuid")]
    pub id: String,
    /// Loads the image with no key; free until `expires_at`.
    #[schema(format = "uri")]
    pub url: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    /// 0 = unlimited loads until expiry.
    pub max_uses: u32,
    pub vehicle: VehicleParams,
    pub color_match: ColorMatchBody,
    /// Alt text for the `<img>` tag: colour, year, make, model, body
    /// style and view ("Red 2019 Toyota Camry saloon, front three-quarter
    /// view").
    #[schema(example = "Red 2019 Toyota Camry saloon, front three-quarter view")]
    pub alt: String,
}

/// The 201 of POST /api/v1/image-urls (spec §2 ImageUrlsResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImageUrlsResponse {
    /// One URL per requested image, in order.
    pub data: Vec<DeliveryUrl>,
    pub billing: UrlsBilling,
    pub request_id: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UrlsBilling {
    /// Always `creation`: URLs are billed once, when minted.
    #[schema(value_type = String, example = "creation", pattern = "^creation$")]
    pub charged_on: &'static str,
    /// The number of URLs created.
    pub credits_charged: usize,
    pub credits_remaining: i64,
    /// Always 1.
    #[schema(minimum = 1, maximum = 1)]
    pub credits_per_url: u32,
}

/// RFC 3339 in UTC, whole seconds.
pub fn rfc3339(ms: Millis) -> String {
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

pub fn url_of(state: &AppState, u: &MintedUrl) -> String {
    format!("{}/api/v1/delivery/{}", state.base_url, u.token)
}

/// Maps a failed mint: 402 with the number of URLs as `required_credits`.
pub fn mint_error(e: StoreError, metrics: &Metrics) -> ApiError {
    match e {
        StoreError::InsufficientCredits { balance, required } => {
            metrics.insufficient_credits.inc();
            ApiError::PaymentRequired { balance, required }
        }
        StoreError::Conflict("idempotency key") => {
            ApiError::Conflict("This Idempotency-Key is being used by another request.".into())
        }
        other => other.into(),
    }
}

/// Mints one URL per image for `principal`, billed as one debit.
pub async fn mint(
    state: &AppState,
    principal: &Principal,
    resolved: &[Resolved],
    ttl_seconds: Option<u64>,
    max_uses: u32,
    idempotency: Option<IdempotencyClaim<'_>>,
) -> Result<Minted, ApiError> {
    let ctx = context::current();
    let payer = principal.payer(&ctx.request_id);
    let minted = state
        .urls
        .mint(payer, resolved, ttl_seconds, max_uses, idempotency)
        .await
        .map_err(|e| mint_error(e, &state.metrics))?;
    for _ in &minted.urls {
        state.metrics.delivery_urls_minted.inc();
    }
    Ok(minted)
}

/// Headers every billed answer carries.
pub fn billing_headers(r: &mut Response, charged: usize, remaining: i64) {
    let h = r.headers_mut();
    h.insert("x-credits-charged", HeaderValue::from(charged));
    h.insert("x-credits-remaining", HeaderValue::from(remaining));
    // The body holds bearer URLs: no cache keeps them.
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
}

pub async fn post(
    State(state): State<AppState>,
    Auth(principal, ..): Auth<ImagesRead>,
    req: Request,
) -> Response {
    let (decision, admitted) = rate::check_key(&state, &principal).await;
    let result = match admitted {
        Ok(()) => create(&state, &principal, req).await,
        Err(refused) => Err(refused),
    };
    rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    )
}

async fn create(
    state: &AppState,
    principal: &Principal,
    req: Request,
) -> Result<Response, ApiError> {
    let idempotency_key = idempotency_key(req.headers())?;
    let bytes = read_body::<{ limits::BODY_IMAGE_URLS }>(req, true).await?;
    let request = parse_body(&bytes)?;
    // Every item is found in the catalog before anything is charged.
    let resolved = request
        .images
        .iter()
        .enumerate()
        .map(|(i, p)| {
            state.deliverer.resolve(state.catalog, p).map_err(|e| {
                let err = lookup_error(e);
                if request.batch {
                    err.with_field("index", i)
                } else {
                    err
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let Some(key) = idempotency_key else {
        let minted = mint(
            state,
            principal,
            &resolved,
            request.ttl_seconds,
            request.max_uses,
            None,
        )
        .await?;
        return Ok(created(state, &minted, context::current().request_id));
    };
    let minted = mint_once(
        state,
        principal,
        &resolved,
        (request.ttl_seconds, request.max_uses),
        (&key, "Idempotency-Key"),
        &fingerprint(&bytes),
    )
    .await?;
    let mut r = created(state, &minted.minted, minted.request_id);
    if minted.replayed {
        billing_headers(&mut r, 0, minted.balance);
        r.headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(r)
}

/// A mint under an idempotency key: the first, or the one it replays.
pub struct MintedOnce {
    pub minted: Minted,
    /// The request id of the request that minted.
    pub request_id: String,
    /// Answered again: nothing was charged now.
    pub replayed: bool,
    /// The balance now (after the mint, or now for a replay).
    pub balance: i64,
}

/// Mints under `key`: the same key with the same `fingerprint` within 24 h
/// answers what the first request did and charges nothing; with another
/// fingerprint it is a 409 naming `param`, the header that carried the key.
pub async fn mint_once(
    state: &AppState,
    principal: &Principal,
    resolved: &[Resolved],
    (ttl_seconds, max_uses): (Option<u64>, u32),
    (key, param): (&str, &'static str),
    fingerprint: &str,
) -> Result<MintedOnce, ApiError> {
    let account = principal.key.account_id.as_str();
    for _ in 0..2 {
        if let Some(replayed) = state.urls.replay(account, key).await? {
            if replayed.fingerprint != fingerprint {
                return Err(ApiError::Conflict(format!(
                    "This {param} was used with another request in the last 24 hours. Use a new one for a new request."
                ))
                .with_field("param", param));
            }
            let balance = state.deliverer.ledger.balance(account).await?.unwrap_or(0);
            return Ok(MintedOnce {
                minted: replayed.minted,
                request_id: replayed.request_id,
                replayed: true,
                balance,
            });
        }
        let claim = IdempotencyClaim { key, fingerprint };
        match mint(
            state,
            principal,
            resolved,
            ttl_seconds,
            max_uses,
            Some(claim),
        )
        .await
        {
            Ok(minted) => {
                let balance = minted.balance_after;
                return Ok(MintedOnce {
                    minted,
                    request_id: context::current().request_id,
                    replayed: false,
                    balance,
                });
            }
            // A concurrent request with the same key won: replay it.
            Err(ApiError::Conflict(_)) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(ApiError::Unavailable {
        message: format!("Another request with this {param} is being answered; retry shortly."),
        retry_after_secs: Some(1),
    })
}

/// The longest Idempotency-Key (Stripe's limit).
pub const IDEMPOTENCY_KEY_MAX: usize = 255;

/// The optional Idempotency-Key header: 1 to 255 visible ASCII characters.
pub fn idempotency_key(headers: &axum::http::HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let ok = value
        .to_str()
        .ok()
        .filter(|v| (1..=IDEMPOTENCY_KEY_MAX).contains(&v.len()))
        .filter(|v| v.bytes().all(|b| b.is_ascii_graphic()));
    match ok {
        Some(v) => Ok(Some(v.to_owned())),
        None => Err(ApiError::bad_request(
            "Idempotency-Key",
            "must be 1 to 255 visible ASCII characters (a UUID is a good choice)",
        )),
    }
}

/// A hash of the request body, independent of key order and spacing.
fn fingerprint(body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let canonical = serde_json::from_slice::<Value>(body)
        .map(|v| v.to_string().into_bytes())
        .unwrap_or_else(|_| body.to_vec());
    hex::encode(Sha256::digest(&canonical))
}

/// The 201 of a mint (first or replayed).
fn created(state: &AppState, minted: &Minted, request_id: String) -> Response {
    let data: Vec<DeliveryUrl> = minted
        .urls
        .iter()
        .map(|u| DeliveryUrl {
            id: u.id.to_string(),
            url: url_of(state, u),
            expires_at: rfc3339(u.expires_at),
            max_uses: u.max_uses,
            vehicle: VehicleParams::of(&u.resolved),
            color_match: ColorMatchBody::of(&u.resolved),
            alt: crate::delivery::alt::alt_text(state.catalog, &u.resolved),
        })
        .collect();
    let n = minted.urls.len();
    let body = ImageUrlsResponse {
        data,
        billing: UrlsBilling {
            charged_on: "creation",
            credits_charged: n,
            credits_remaining: minted.balance_after,
            credits_per_url: 1,
        },
        request_id,
    };
    let mut r = (StatusCode::CREATED, axum::Json(body)).into_response();
    billing_headers(&mut r, n, minted.balance_after);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use vis_protocol::{Color, Format, View};

    fn err_of(json: &str) -> (String, Option<usize>) {
        match parse_body(json.as_bytes()).unwrap_err() {
            ApiError::BadRequest { param, .. } => (param, None),
            ApiError::WithFields { inner, fields } => match *inner {
                ApiError::BadRequest { param, .. } => {
                    (param, fields["index"].as_u64().map(|i| i as usize))
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    const ITEM: &str = r#"{"make":"toyota","model":"camry","year":2019}"#;

    #[test]
    fn single_and_batch_forms_parse_with_defaults() {
        let r = parse_body(ITEM.as_bytes()).unwrap();
        assert_eq!(
            (r.images.len(), r.ttl_seconds, r.max_uses, r.batch),
            (1, None, 0, false)
        );
        let p = &r.images[0];
        assert_eq!(
            (p.view, p.color, p.format, p.width),
            (
                View::Front34,
                Color::Silver.into(),
                FormatChoice::default(),
                None
            )
        );
        let r = parse_body(
            format!(r#"{{"images":[{ITEM},{{"brand":"bmw","model":"m3","year":2020,"view":"hero","format":"jpeg","size":"small"}}],"ttl_seconds":60,"max_uses":1000}}"#)
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(
            (r.images.len(), r.ttl_seconds, r.max_uses, r.batch),
            (2, Some(60), 1000, true)
        );
        assert_eq!(
            (
                r.images[1].make.as_str(),
                r.images[1].format,
                r.images[1].width
            ),
            ("bmw", FormatChoice::Fixed(Format::Jpg), Some(512))
        );
    }

    #[test]
    fn every_bad_field_is_named_with_its_index() {
        assert_eq!(err_of("{"), ("body".into(), None));
        assert_eq!(err_of(r#"{"images": ["#), ("body".into(), None));
        assert_eq!(
            err_of(r#"{"make":"a","model":"b","year":2019,"colour":"red"}"#),
            ("colour".into(), None)
        );
        assert_eq!(
            err_of(r#"{"make":"a","model":"b","year":2019,"ttl_seconds":60}"#).0,
            "ttl_seconds"
        );
        assert_eq!(
            err_of(r#"{"make":"a","brand":"a","model":"b","year":2019}"#),
            ("brand".into(), None)
        );
        assert_eq!(err_of(r#"{"images":[]}"#), ("images".into(), None));
        let many = vec![ITEM; 51].join(",");
        assert_eq!(
            err_of(&format!(r#"{{"images":[{many}]}}"#)),
            ("images".into(), None)
        );
        assert_eq!(
            err_of(&format!(r#"{{"images":[{ITEM}],"ttl_seconds":59}}"#)).0,
            "ttl_seconds"
        );
        assert_eq!(
            err_of(&format!(r#"{{"images":[{ITEM}],"ttl_seconds":604801}}"#)).0,
            "ttl_seconds"
        );
        assert_eq!(
            err_of(&format!(r#"{{"images":[{ITEM}],"max_uses":1001}}"#)).0,
            "max_uses"
        );
        assert_eq!(
            err_of(&format!(r#"{{"images":[{ITEM}],"max_uses":-1}}"#)).0,
            "max_uses"
        );
        assert_eq!(
            err_of(&format!(r#"{{"images":[{ITEM}],"extra":1}}"#)).0,
            "extra"
        );
        for (item, param) in [
            (r#"{"model":"b","year":2019}"#, "make"),
            (r#"{"make":"a","year":2019}"#, "model"),
            (r#"{"make":"a","model":"b"}"#, "year"),
            (r#"{"make":"a","model":"b","year":1989}"#, "year"),
            (r#"{"make":"a","model":"b","year":2028}"#, "year"),
            (r#"{"make":"a","model":"b","year":"x"}"#, "year"),
            (r#"{"make":"a","model":"b","year":2019,"width":0}"#, "width"),
            (
                r#"{"make":"a","model":"b","year":2019,"height":1025}"#,
                "height",
            ),
            (
                r#"{"make":"a","model":"b","year":2019,"view":"bottom"}"#,
                "view",
            ),
            (
                r#"{"make":"a","model":"b","year":2019,"color":"navy"}"#,
                "color",
            ),
            (
                r#"{"make":"a","model":"b","year":2019,"format":"gif"}"#,
                "format",
            ),
            (
                r#"{"make":"a","model":"b","year":2019,"size":"huge"}"#,
                "size",
            ),
            (
                r#"{"make":"a","model":"b","year":2019,"colour":"red"}"#,
                "colour",
            ),
            (r#"{"make":" ","model":"b","year":2019}"#, "make"),
        ] {
            let (p, i) = err_of(&format!(r#"{{"images":[{ITEM},{item}]}}"#));
            assert_eq!(
                (p.as_str(), i),
                (format!("images[1].{param}").as_str(), Some(1)),
                "{item}"
            );
        }
    }

    #[test]
    fn timestamps_print_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_000_000_999), "2026-11-18T11:06:40Z");
    }
}
