//! GET /api/v1/images/car (spec §4; scope images:read; 1 credit): image
//! bytes, or with `response=url` (or `Accept: application/json` and no image
//! type) a signed delivery URL billed now.

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use vis_catalog::LookupError;
use vis_protocol::paints::PaintLookupError;
use vis_protocol::{
    Angle, Background, Finish, Fit, FormatChoice, Framing, PADDING_MAX, Paint, SizePreset, Staging,
    View,
};

use super::accept::Accept;
use super::auth::{CachedAuth, ImagesRead, confirm};
use super::{context, image_urls, rate};
use crate::delivery::idempotent::{Claim, Rules};
use crate::delivery::{self, DeliveryError, ImageParams, PaintRequest, ResolveError};
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::renders::DispatchError;

/// An image's query parameters, in the canonical order (`brand` beside
/// `make`): the image endpoint's, the embeddable endpoint's and the
/// interface description's one list. Anything else is a 400 naming it,
/// because silently ignoring a misspelt parameter bills the wrong image.
pub const IMAGE_PARAMS: [&str; 19] = [
    "make",
    "brand",
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
];

pub const YEAR_MIN: u16 = 1990;
/// The image endpoint accepts next year's models (spec §8).
pub const YEAR_MAX: u16 = 2027;

/// A model year a request may name: `Some(year)` in range, else the 400
/// naming `year` (spec §8: 1990 to 2027).
pub fn year_param(value: Option<i64>) -> Result<u16, ApiError> {
    value
        .and_then(|y| u16::try_from(y).ok())
        .filter(|y| (YEAR_MIN..=YEAR_MAX).contains(y))
        .ok_or_else(|| {
            ApiError::bad_request(
                "year",
                format!("must be an integer from {YEAR_MIN} to {YEAR_MAX}"),
            )
        })
}

/// How the client wants the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseForm {
    Image,
    Url,
}

/// One image's fields as a client sends them: the body of spec ImageRequest
/// (additional properties rejected), or the query of this endpoint. Every
/// field is optional here so that a missing one gets our message; integers
/// are wide so that range errors are ours too.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageItem {
    pub make: Option<String>,
    pub brand: Option<String>,
    pub model: Option<String>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub year: Option<i64>,
    pub view: Option<String>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub angle: Option<i64>,
    pub color: Option<String>,
    pub paint: Option<String>,
    pub finish: Option<String>,
    /// `true` or `false`, like `trim`.
    #[serde(default, deserialize_with = "super::extract::de_bool_text")]
    pub shadow: Option<String>,
    pub scale: Option<String>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub width: Option<i64>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub height: Option<i64>,
    pub size: Option<String>,
    pub format: Option<String>,
    pub background: Option<String>,
    pub fit: Option<String>,
    /// `true` or `false`: a JSON boolean in a body, the word in a query.
    #[serde(default, deserialize_with = "super::extract::de_bool_text")]
    pub trim: Option<String>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub padding: Option<i64>,
}

/// The rules of an image's fields in the API's words (spec §2 ImageRequest).
pub const IMAGE_RULES: [(&str, &str); 19] = [
    (
        "make",
        "a make's name or slug, 1 to 100 characters (brand is an alias; send one)",
    ),
    (
        "brand",
        "a make's name or slug, 1 to 100 characters (an alias of make; send one)",
    ),
    ("model", "a model's name or slug, 1 to 100 characters"),
    ("year", "an integer from 1990 to 2027"),
    (
        "view",
        "one of front, front-3-4, side, side-right, rear, rear-3-4, top (or an alias such as hero, profile, back, overhead), or an angle's angle-N; not with angle",
    ),
    (
        "angle",
        "degrees around the vehicle from the nose, 0 to 345 in steps of 15 (90 is the left side); not with view",
    ),
    (
        "color",
        "one of white, black, gray, silver, blue, red, green, brown, beige, tan, orange, yellow, gold, burgundy, purple, or #RRGGBB (RRGGBB; %23 for # in a URL)",
    ),
    (
        "paint",
        "a paint code of the make, such as 3R3 for Toyota or 475 for BMW (GET /api/v1/images/options lists them); not with color",
    ),
    (
        "finish",
        "one of solid, metallic, pearl: the colour's finish (a #RRGGBB color is solid unless told; presets and paint codes have their own)",
    ),
    (
        "shadow",
        "true (the default) or false: the soft contact shadow under the vehicle",
    ),
    (
        "scale",
        "fill (the default: every vehicle fills the frame) or relative (one metres-per-pixel per size class, so vehicles keep their real sizes side by side)",
    ),
    ("width", "an integer from 1 to 1024"),
    ("height", "an integer from 1 to 1024"),
    ("size", "one of thumb, small, medium, large"),
    (
        "format",
        "one of png, webp, jpg, avif (jpeg is an alias), or auto: the smallest format the request's Accept header names (avif, then webp; else png, or jpg behind an opaque background)",
    ),
    (
        "background",
        "transparent (the default), white, studio (a photographer's grey sweep) or #RRGGBB (%23 for # in a URL)",
    ),
    (
        "fit",
        "contain or cover: the output is exactly the box (both width and height needed), the vehicle whole inside it or filling it",
    ),
    (
        "trim",
        "true or false: crop to the vehicle, then contain it in the box (a missing side is the other's; no box: 1024 square)",
    ),
    (
        "padding",
        "an integer from 0 to 256: pixels of margin around the vehicle, with trim=true or fit=contain; less than half the shorter side",
    ),
];

impl super::extract::Described for ImageItem {
    const SHAPE: &'static str = "a JSON object describing one image: make (or brand), model, year, and optionally view (or angle), color (or paint), finish, width, height, size, format, background, fit, trim, padding, shadow, scale";
    const RULES: &'static [(&'static str, &'static str)] = &IMAGE_RULES;
}

/// How a form names the fields in its errors: a prefix for every name
/// (`images[2].`), and its words for the box (`w`/`h` in a query string).
#[derive(Debug, Clone, Copy)]
pub struct FieldNames<'a> {
    pub prefix: &'a str,
    pub width: &'a str,
    pub height: &'a str,
}

impl FieldNames<'_> {
    /// The query string of this endpoint.
    pub const QUERY: FieldNames<'static> = FieldNames {
        prefix: "",
        width: "w",
        height: "h",
    };
}

/// The rules of one image (spec §2 ImageRequest, §4 and §8), the same for
/// the query string and for JSON bodies; errors name the field.
pub fn validate(item: ImageItem, names: FieldNames<'_>) -> Result<ImageParams, ApiError> {
    let name = |field: &str| format!("{}{field}", names.prefix);
    let bad = |field: &str, message: &str| ApiError::bad_request(name(field), message);
    let item_framing = FramingFields {
        background: item.background.clone(),
        fit: item.fit.clone(),
        trim: item.trim.clone(),
        padding: item.padding,
    };
    let text = |field: &str, value: String| -> Result<String, ApiError> {
        let v = value.trim();
        if v.is_empty() {
            return Err(bad(field, "must not be empty"));
        }
        if v.chars().count() > 100 {
            return Err(bad(field, "must be at most 100 characters"));
        }
        Ok(v.to_owned())
    };
    let make = match (item.make, item.brand) {
        (Some(_), Some(_)) => return Err(bad("brand", "send make or brand, not both")),
        (Some(m), None) => text("make", m)?,
        (None, Some(b)) => text("brand", b)?,
        (None, None) => return Err(bad("make", "required (name or slug; brand is an alias)")),
    };
    let model = text("model", item.model.ok_or_else(|| bad("model", "required"))?)?;
    let year = item.year.ok_or_else(|| bad("year", "required"))?;
    let year = u16::try_from(year)
        .ok()
        .filter(|y| (YEAR_MIN..=YEAR_MAX).contains(y))
        .ok_or_else(|| {
            bad(
                "year",
                &format!("must be an integer from {YEAR_MIN} to {YEAR_MAX}"),
            )
        })?;
    let view = view_param(item.view.as_deref(), item.angle, &name)?;
    let staging = Staging {
        shadow: flag(item.shadow.as_deref(), &name("shadow"))?.unwrap_or(true),
        scale: parse_enum(item.scale.as_deref(), &name("scale"))?.unwrap_or_default(),
    };
    let (color, paint) = color_params(item.color, item.paint, item.finish, &name)?;
    let format: FormatChoice =
        parse_enum(item.format.as_deref(), &name("format"))?.unwrap_or_default();
    let size: Option<SizePreset> = parse_enum(item.size.as_deref(), &name("size"))?;
    let dim = |field: &str, v: Option<i64>| -> Result<Option<u32>, ApiError> {
        v.map(|n| {
            u32::try_from(n)
                .ok()
                .filter(|n| (1..=1024).contains(n))
                .ok_or_else(|| bad(field, "must be an integer from 1 to 1024"))
        })
        .transpose()
    };
    let (mut width, height) = (
        dim(names.width, item.width)?,
        dim(names.height, item.height)?,
    );
    // `size` is shorthand for the width, ignored when a width or height is given.
    if width.is_none() && height.is_none() {
        width = size.map(SizePreset::px);
    }
    let framing = framing_params(&item_framing, width, height, &name)?;
    Ok(ImageParams {
        make,
        model,
        year,
        view,
        color,
        paint,
        width,
        height,
        format,
        framing,
        staging,
    })
}

/// A `true` or `false` parameter (`shadow`, `trim`); anything else is a
/// 400 naming it.
fn flag(raw: Option<&str>, name: &str) -> Result<Option<bool>, ApiError> {
    match raw.map(str::trim) {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(_) => Err(ApiError::bad_request(name, "must be true or false")),
    }
}

/// The framing fields of one image, taken out before the rest is consumed.
struct FramingFields {
    background: Option<String>,
    fit: Option<String>,
    trim: Option<String>,
    padding: Option<i64>,
}

/// `background`, `fit`, `trim` and `padding`, each checked, then how they
/// combine with each other and the box (`vis_protocol::Framing::new`).
fn framing_params(
    f: &FramingFields,
    width: Option<u32>,
    height: Option<u32>,
    name: &dyn Fn(&str) -> String,
) -> Result<Framing, ApiError> {
    let background: Background =
        parse_enum(f.background.as_deref(), &name("background"))?.unwrap_or_default();
    let fit: Option<Fit> = parse_enum(f.fit.as_deref(), &name("fit"))?;
    let trim = flag(f.trim.as_deref(), &name("trim"))?.unwrap_or(false);
    let padding = f
        .padding
        .map(|n| {
            u32::try_from(n)
                .ok()
                .filter(|n| *n <= PADDING_MAX)
                .ok_or_else(|| {
                    ApiError::bad_request(
                        name("padding"),
                        format!("must be an integer from 0 to {PADDING_MAX} (pixels)"),
                    )
                })
        })
        .transpose()?;
    Framing::new(background, fit, trim, padding, width, height)
        .map_err(|e| ApiError::bad_request(name(e.parameter), e.message))
}

/// `view` or `angle` (a turntable angle, 0 to 345 in steps of 15); both
/// together are a 400 naming `angle`.
fn view_param(
    view: Option<&str>,
    angle: Option<i64>,
    name: &dyn Fn(&str) -> String,
) -> Result<View, ApiError> {
    let Some(degrees) = angle else {
        return Ok(parse_enum(view, &name("view"))?.unwrap_or_default());
    };
    if view.is_some() {
        return Err(ApiError::bad_request(
            name("angle"),
            "send view or angle, not both",
        ));
    }
    u16::try_from(degrees)
        .ok()
        .and_then(Angle::new)
        .map(View::Angle)
        .ok_or_else(|| {
            ApiError::bad_request(
                name("angle"),
                "must be an integer from 0 to 345 in steps of 15 (0 the nose, 90 the left side)",
            )
        })
}

/// `color`, `paint` and `finish`: a preset name or `#RRGGBB`, or a paint
/// code (looked up with the make later); `finish` gives whichever colour
/// that finish (a preset or a paint in another finish is a custom paint).
/// `color` and `paint` together are a 400 naming `paint`.
fn color_params(
    color: Option<String>,
    paint: Option<String>,
    finish: Option<String>,
    name: &dyn Fn(&str) -> String,
) -> Result<(Paint, Option<PaintRequest>), ApiError> {
    let finish: Option<Finish> = parse_enum(finish.as_deref(), &name("finish"))?;
    if let Some(code) = paint {
        if color.is_some() {
            return Err(ApiError::bad_request(
                name("paint"),
                "send color or paint, not both",
            ));
        }
        let code = code.trim();
        if code.is_empty() || code.len() > 20 || !code.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ApiError::bad_request(
                name("paint"),
                "must be a paint code of 1 to 20 visible ASCII characters, such as 3R3",
            ));
        }
        let request = PaintRequest {
            code: code.to_owned(),
            finish,
        };
        return Ok((Paint::default(), Some(request)));
    }
    let paint = match color {
        Some(raw) => Paint::parse_color(&raw, None)
            .map_err(|e| ApiError::bad_request(name("color"), e.to_string()))?,
        None => Paint::default(),
    };
    Ok((paint.with_finish(finish), None))
}

/// One image's fields from a query string (`w` and `h` for the box).
/// Something that is not an integer is outside every range, so the range
/// check names it with the same message.
pub fn item_of(query: &super::extract::QueryParams) -> ImageItem {
    let get = |name: &str| query.get(name).map(str::to_owned);
    let int = |name: &str| {
        query
            .get(name)
            .map(|v| super::extract::plain_int(v).unwrap_or(i64::MIN))
    };
    ImageItem {
        make: get("make"),
        brand: get("brand"),
        model: get("model"),
        year: int("year"),
        view: get("view"),
        angle: int("angle"),
        color: get("color"),
        paint: get("paint"),
        finish: get("finish"),
        shadow: get("shadow"),
        scale: get("scale"),
        width: int("w"),
        height: int("h"),
        size: get("size"),
        format: get("format"),
        background: get("background"),
        fit: get("fit"),
        trim: get("trim"),
        padding: int("padding"),
    }
}

/// Parses and validates the query string; errors name the parameter.
pub fn parse_query(raw: Option<&str>) -> Result<(ImageParams, ResponseForm), ApiError> {
    let query = super::extract::QueryParams::parse_known(raw, &[&IMAGE_PARAMS, &["response"]])?;
    let item = item_of(&query);
    let params = validate(item, FieldNames::QUERY)?;
    let response = match query.get("response").map(str::trim) {
        None | Some("image") => ResponseForm::Image,
        Some("url") => ResponseForm::Url,
        Some(_) => return Err(ApiError::bad_request("response", "must be image or url")),
    };
    Ok((params, response))
}

pub(super) fn parse_enum<T>(raw: Option<&str>, name: &str) -> Result<Option<T>, ApiError>
where
    T: std::str::FromStr<Err = vis_protocol::ParseError>,
{
    raw.map(|v| {
        v.parse::<T>()
            .map_err(|e| ApiError::bad_request(name, e.to_string()))
    })
    .transpose()
}

pub(super) fn lookup_error(e: ResolveError) -> ApiError {
    let e = match e {
        ResolveError::Catalog(e) => e,
        ResolveError::Paint(e) => return paint_error(e),
    };
    let param = match &e {
        LookupError::UnknownMake(_) => "make",
        LookupError::UnknownModel { .. } | LookupError::AmbiguousModel { .. } => "model",
        LookupError::YearNotAvailable { .. } => "year",
    };
    let mut err = ApiError::NotFound(format!(
        "{e}. Use /api/v1/vehicles or /api/v1/images/resolve to find exact parameters."
    ))
    .with_field("param", param);
    if let LookupError::AmbiguousModel { candidates, .. } = &e {
        err = err.with_field("candidates", candidates.clone());
    }
    if let LookupError::YearNotAvailable { available, .. } = &e {
        err = err.with_field("available_years", available.clone());
    }
    err
}

/// A paint code the make does not have: 400 naming `paint`, with the
/// make's nearest codes (`near_codes`); a make without paint codes: 400
/// naming `paint`, with the makes that have them (`paint_makes`). Both are
/// a value `paint` does not allow for that make, never a missing vehicle.
fn paint_error(e: PaintLookupError) -> ApiError {
    match &e {
        PaintLookupError::NoCodesForMake { known, .. } => {
            ApiError::bad_request("paint", format!("{e}; or send color=%23RRGGBB"))
                .with_field("paint_makes", known.clone())
        }
        PaintLookupError::UnknownCode { near, .. } => ApiError::bad_request(
            "paint",
            format!("{e}. GET /api/v1/images/options lists every make's paint codes."),
        )
        .with_field("near_codes", near.clone()),
    }
}

pub fn delivery_error(e: DeliveryError, metrics: &crate::metrics::Metrics) -> ApiError {
    match e {
        DeliveryError::InsufficientCredits { balance, required } => {
            metrics.insufficient_credits.inc();
            ApiError::PaymentRequired { balance, required }
        }
        DeliveryError::Dispatch(DispatchError::BudgetSpent { retry_after_secs }) => ApiError::Unavailable {
            message: "Today's generation budget is spent: this variant has never been rendered. Cached variants are still served. Nothing was charged.".into(),
            retry_after_secs: Some(retry_after_secs),
        },
        DeliveryError::Dispatch(DispatchError::FreeAllowanceSpent { retry_after_secs }) => ApiError::Unavailable {
            message: "Today's allowance of free renders of never-rendered variants is spent. Variants already rendered still load; an API key renders any variant.".into(),
            retry_after_secs: Some(retry_after_secs),
        },
        DeliveryError::Dispatch(DispatchError::NotRendered) => ApiError::NotFound(
            "This variant has not been rendered yet, and mode=cached serves only variants already rendered.".into(),
        ),
        DeliveryError::Dispatch(DispatchError::Overloaded { retry_after_secs }) => ApiError::Unavailable {
            message: "Render capacity is full; this variant cannot be rendered within the client allowance. Nothing was charged.".into(),
            retry_after_secs: Some(retry_after_secs),
        },
        DeliveryError::Dispatch(DispatchError::TimedOut) => ApiError::Unavailable {
            message: "The render is taking longer than allowed; it continues, so retry shortly. Nothing was charged.".into(),
            retry_after_secs: Some(10),
        },
        DeliveryError::Dispatch(DispatchError::RenderFailed(cause)) => {
            tracing::warn!(error.cause = %cause, "render failed");
            ApiError::BadGateway("The render failed. Nothing was charged; retry after a pause.".into())
        }
        DeliveryError::Derive(cause) => {
            tracing::error!(error.cause = %cause, "deriving an output failed");
            ApiError::BadGateway("Producing the requested size or format failed. Nothing was charged.".into())
        }
        DeliveryError::Dispatch(DispatchError::Unavailable(cause)) => {
            tracing::error!(error.cause = %cause, "dependency unavailable");
            ApiError::Unavailable {
                message: "A dependency is unavailable. Nothing was charged.".into(),
                retry_after_secs: Some(5),
            }
        }
        DeliveryError::Store(e) => e.into(),
    }
}

pub async fn get_car(
    State(state): State<HttpState>,
    CachedAuth(principal, key_hash, ..): CachedAuth<ImagesRead>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    keyed(&state, &principal, &key_hash, || {
        serve(&state, &principal, query.as_deref(), &headers)
    })
    .await
}

/// HEAD /api/v1/images/car: validated exactly like the GET (key, scope,
/// parameters, catalog, rate limit) and answered with the headers the GET
/// would give, but free: nothing is charged, rendered or minted.
pub async fn head_car(
    State(state): State<HttpState>,
    CachedAuth(principal, key_hash, ..): CachedAuth<ImagesRead>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    keyed(&state, &principal, &key_hash, || {
        head(&state, &principal, query.as_deref(), &headers)
    })
    .await
}

/// The frame of every keyed request on this route: the rate limit first,
/// then the handler, then (unless a charge already did) a check that the
/// possibly cached key is still live; RateLimit-* on every answer.
pub(super) async fn keyed<F, Fut>(
    state: &HttpState,
    principal: &super::auth::Principal,
    key_hash: &str,
    handler: F,
) -> Response
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Response, ApiError>>,
{
    let (decision, admitted) = rate::check_key(state, principal).await;
    let result = match admitted {
        Ok(()) => handler().await,
        Err(refused) => Err(refused),
    };
    // A billed 200 was confirmed by its charge transaction; anything else
    // first confirms that the (possibly cached) key is still live.
    let billed = matches!(&result, Ok(r) if r.status() == StatusCode::OK
        && r.headers().get("x-credits-charged").is_some_and(|v| v != "0"));
    let result = match result {
        Err(ApiError::Unauthorized(m)) => {
            state.keys.forget(key_hash);
            Err(ApiError::Unauthorized(m))
        }
        other if !billed => match confirm(state, principal, key_hash).await {
            Ok(()) => other,
            Err(e) => Err(e),
        },
        other => other,
    };
    let mut response = rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    );
    // The Accept header chooses between the image and its JSON form.
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}

/// The unbilled balance a 304 or a HEAD reports.
pub(super) async fn balance_of(
    state: &HttpState,
    principal: &super::auth::Principal,
) -> Result<i64, ApiError> {
    Ok(state
        .deliverer
        .ledger
        .balance(&principal.key.account_id)
        .await?
        .unwrap_or(0))
}

/// The request's vehicle and the form it wants, for GET and HEAD alike.
fn request(
    state: &HttpState,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<(delivery::Resolved, ResponseForm), ApiError> {
    let (params, mut form) = parse_query(query)?;
    let accept = Accept::of(headers);
    if accept.wants_json() {
        form = ResponseForm::Url;
    }
    let mut resolved = state
        .deliverer
        .resolve(state.catalog, &params)
        .map_err(lookup_error)?;
    resolved.negotiate(|f| accept.q(f));
    Ok((resolved, form))
}

/// A `format=auto` answer depends on the request's `Accept`: shared
/// caches must key on it (`Vary: Accept`).
pub(super) fn vary_if_auto(h: &mut HeaderMap, r: &delivery::Resolved) {
    if r.auto_format {
        h.insert(header::VARY, HeaderValue::from_static("Accept"));
    }
}

async fn head(
    state: &HttpState,
    principal: &super::auth::Principal,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let (resolved, form) = request(state, query, headers)?;
    // The GET refuses a malformed retry key before it charges; the HEAD
    // that validates the same request refuses it too.
    image_urls::idempotency_key(headers)?;
    let balance = balance_of(state, principal).await?;
    let mut r = StatusCode::OK.into_response();
    if form == ResponseForm::Url {
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        image_urls::billing_headers(&mut r, 0, balance);
        return Ok(r);
    }
    let etag = resolved.etag();
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    if inm.is_some_and(|v| super::extract::if_none_match(v, &etag)) {
        return Ok(not_modified(&etag, balance));
    }
    let source = if state.deliverer.is_cached(&resolved).await {
        crate::renders::SourceKind::Cache
    } else {
        crate::renders::SourceKind::Generated
    };
    image_headers(state, &resolved, &mut r, 0, balance, source);
    Ok(r)
}

pub(super) fn not_modified(etag: &str, balance: i64) -> Response {
    let mut r = StatusCode::NOT_MODIFIED.into_response();
    let h = r.headers_mut();
    h.insert(header::ETAG, header_value(etag));
    h.insert("x-credits-charged", HeaderValue::from(0));
    h.insert("x-credits-remaining", HeaderValue::from(balance));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    r
}

/// The headers of an image answer (spec §4), shared by GET and HEAD.
pub(super) fn image_headers(
    state: &HttpState,
    resolved: &delivery::Resolved,
    r: &mut Response,
    charged: i64,
    balance: i64,
    source: crate::renders::SourceKind,
) {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(resolved.format.mime()),
    );
    h.insert(header::ETAG, header_value(&resolved.etag()));
    h.insert(
        header::CONTENT_LOCATION,
        header_value(&format!(
            "{}{}",
            state.base_url,
            resolved.representation_path()
        )),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    h.insert("x-credits-charged", HeaderValue::from(charged));
    h.insert("x-credits-remaining", HeaderValue::from(balance));
    h.insert("x-image-source", HeaderValue::from_static(source.as_str()));
    h.insert("x-image-width", HeaderValue::from(resolved.width));
    h.insert("x-image-height", HeaderValue::from(resolved.height));
    h.insert(
        "x-color-match",
        header_value(&resolved.color_match().header()),
    );
}

async fn serve(
    state: &HttpState,
    principal: &super::auth::Principal,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let (resolved, form) = request(state, query, headers)?;
    let etag = resolved.etag();
    let ctx = context::current();
    let idempotency = retry_key(headers, &ctx.request_id)?;
    if form == ResponseForm::Url {
        return url_form(state, principal, resolved, idempotency).await;
    }
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    if inm.is_some_and(|v| super::extract::if_none_match(v, &etag)) {
        state.metrics.not_modified.inc();
        return Ok(not_modified(&etag, balance_of(state, principal).await?));
    }
    let account = principal.key.account_id.as_str();
    if let Some(retry) = &idempotency {
        let claim = state
            .deliverer
            .claim(account, &retry.key, &resolved, &ctx.request_id, RETRY_RULES)
            .await?;
        match claim {
            Claim::Fresh => {}
            Claim::Replay { .. } => return replay(state, principal, &resolved).await,
            Claim::Conflict | Claim::InProgress => {
                return Err(retry_refused(&claim, retry, "image"));
            }
        }
    }
    let payer = principal.payer(&ctx.request_id);
    let delivered = state.deliverer.deliver(&resolved, &payer).await;
    if let (Some(retry), Err(_)) = (&idempotency, &delivered) {
        // Nothing stands charged: a retry may claim the key.
        state
            .deliverer
            .release(account, &retry.key, &ctx.request_id)
            .await?;
    }
    let delivered = delivered.map_err(|e| delivery_error(e, &state.metrics))?;
    let out = delivered.output;
    let mut r = (StatusCode::OK, out.bytes).into_response();
    image_headers(
        state,
        &resolved,
        &mut r,
        delivered.credits_charged,
        delivered.balance_after,
        delivered.source,
    );
    // The derived output's own size is the truth (equal to the resolved one).
    r.headers_mut()
        .insert("x-image-width", HeaderValue::from(out.width));
    r.headers_mut()
        .insert("x-image-height", HeaderValue::from(out.height));
    Ok(r)
}

/// The JSON form of GET /api/v1/images/car (spec §2 ImageUrlResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImageUrlResponse {
    pub data: ImageUrlData,
    pub billing: UrlBilling,
    pub request_id: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImageUrlData {
    /// Loads the image with no key; the image renders on its first load.
    #[schema(format = "uri")]
    pub url: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    /// Always 0 here (unlimited loads until expiry).
    pub max_uses: u32,
    pub vehicle: image_urls::VehicleParams,
    pub color_match: image_urls::ColorMatchBody,
    /// Alt text for the `<img>` tag: colour, year, make, model, body
    /// style and view.
    #[schema(example = "Red 2019 Toyota Camry saloon, front three-quarter view")]
    pub alt: String,
    /// The image's width in pixels.
    pub width: u32,
    /// The image's height in pixels.
    pub height: u32,
    /// The format asked for; `auto` when the URL chooses per load (by the
    /// loader's `Accept` header).
    pub format: FormatChoice,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UrlBilling {
    pub credits_charged: usize,
    pub credits_remaining: i64,
}

/// The JSON form (spec ImageUrlResponse): one signed delivery URL, minted
/// and billed now with the deployment's default lifetime and no use cap; the
/// image renders on the URL's first load.
async fn url_form(
    state: &HttpState,
    principal: &super::auth::Principal,
    resolved: delivery::Resolved,
    idempotency: Option<RetryKey>,
) -> Result<Response, ApiError> {
    let once = match idempotency {
        None => {
            let minted = image_urls::mint(
                state,
                principal,
                std::slice::from_ref(&resolved),
                None,
                0,
                None,
            )
            .await?;
            let balance = minted.balance_after;
            image_urls::MintedOnce {
                minted,
                request_id: context::current().request_id,
                replayed: false,
                balance,
            }
        }
        // Mints under the key, in the transaction that debits (the
        // image-urls store), apart from POST /api/v1/image-urls' keys.
        Some(retry) => {
            image_urls::mint_once(
                state,
                principal,
                std::slice::from_ref(&resolved),
                (None, 0),
                (
                    &format!("GET /api/v1/images/car {}", retry.key),
                    retry.param,
                ),
                &delivery::idempotent::fingerprint(&resolved),
            )
            .await?
        }
    };
    let minted = &once.minted;
    let Some(u) = minted.urls.first() else {
        return Err(ApiError::internal("minting returned no URL"));
    };
    let body = ImageUrlResponse {
        data: ImageUrlData {
            url: image_urls::url_of(state, u),
            expires_at: image_urls::rfc3339(u.expires_at),
            max_uses: u.max_uses,
            vehicle: image_urls::VehicleParams::of(&resolved),
            color_match: image_urls::ColorMatchBody::of(&resolved),
            alt: delivery::alt::alt_text(state.catalog, &resolved),
            width: resolved.width,
            height: resolved.height,
            format: resolved.format_choice(),
        },
        billing: UrlBilling {
            credits_charged: if once.replayed { 0 } else { minted.urls.len() },
            credits_remaining: once.balance,
        },
        request_id: context::current().request_id,
    };
    let mut r = (StatusCode::OK, axum::Json(body)).into_response();
    if once.replayed {
        image_urls::billing_headers(&mut r, 0, once.balance);
        r.headers_mut()
            .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    } else {
        image_urls::billing_headers(&mut r, minted.urls.len(), once.balance);
    }
    Ok(r)
}

/// A retried request's key: the `Idempotency-Key` header, else the
/// client's own `X-Request-Id` (spec §2 lets a client choose it here).
/// Either one, repeated within 24 hours, is never charged twice
/// (docs/ledger.md, "Retries are not paid twice").
#[derive(Debug, Clone)]
pub(super) struct RetryKey {
    /// Namespaced, so that the two headers never meet.
    pub(super) key: String,
    /// The header, for errors.
    pub(super) param: &'static str,
}

/// How long a retry waits for the request holding its key to charge: the
/// charge is the delivery's first write, so it is there within
/// milliseconds unless the holder died (a minute with no charge).
pub(super) const RETRY_RULES: Rules = Rules {
    wait: std::time::Duration::from_secs(10),
    abandoned_ms: 60_000,
    replay_needs_image: false,
};

/// Marks an answer given again for a retried key, charged nothing.
pub(super) const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";

/// The answer to a retry key held elsewhere: used for another `what`
/// (409), or still being answered (503).
pub(super) fn retry_refused(claim: &Claim, retry: &RetryKey, what: &str) -> ApiError {
    if *claim == Claim::Conflict {
        return ApiError::Conflict(format!(
            "This {} was used for another {what} in the last 24 hours. Use a new one for a new request.",
            retry.param
        ))
        .with_field("param", retry.param);
    }
    ApiError::Unavailable {
        message: format!(
            "Another request with this {} is being answered; retry shortly. It is never charged twice.",
            retry.param
        ),
        retry_after_secs: Some(2),
    }
}

pub(super) fn retry_key(
    headers: &HeaderMap,
    request_id: &str,
) -> Result<Option<RetryKey>, ApiError> {
    if let Some(key) = image_urls::idempotency_key(headers)? {
        return Ok(Some(RetryKey {
            key: format!("idempotency-key:{key}"),
            param: "Idempotency-Key",
        }));
    }
    // The middleware kept the client's id only when it is valid, so the
    // header equal to the request's id is the client's choice.
    let client_chose = headers
        .get(super::middleware::X_REQUEST_ID)
        .is_some_and(|v| v.as_bytes() == request_id.as_bytes());
    Ok(client_chose.then(|| RetryKey {
        key: format!("x-request-id:{request_id}"),
        param: "X-Request-Id",
    }))
}

/// The image again for a retry of a request already charged: free.
async fn replay(
    state: &HttpState,
    principal: &super::auth::Principal,
    resolved: &delivery::Resolved,
) -> Result<Response, ApiError> {
    let (out, source) = state
        .deliverer
        .output(resolved)
        .await
        .map_err(|e| delivery_error(e, &state.metrics))?;
    let balance = balance_of(state, principal).await?;
    let mut r = (StatusCode::OK, out.bytes).into_response();
    image_headers(state, resolved, &mut r, 0, balance, source);
    r.headers_mut()
        .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    Ok(r)
}

pub(super) fn header_value(s: &str) -> HeaderValue {
    HeaderValue::from_str(s).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vis_protocol::{Color, Format};

    fn param_of(q: &str) -> String {
        match parse_query(Some(q)).unwrap_err() {
            ApiError::BadRequest { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_defaults_aliases_and_size() {
        let (p, form) = parse_query(Some("brand=Toyota&model=Camry&year=2019")).unwrap();
        assert_eq!(
            (p.make.as_str(), p.model.as_str(), p.year),
            ("Toyota", "Camry", 2019)
        );
        assert_eq!(
            (p.view, p.color, p.format, p.width, p.height),
            (
                View::Front34,
                Color::Silver.into(),
                FormatChoice::default(),
                None,
                None
            )
        );
        assert_eq!(form, ResponseForm::Image);
        let (p, form) = parse_query(Some(
            "make=bmw&model=m3&year=2020&view=hero&format=jpeg&size=small&response=url",
        ))
        .unwrap();
        assert_eq!(
            (p.view, p.format, p.width, form),
            (
                View::Front34,
                FormatChoice::Fixed(Format::Jpg),
                Some(512),
                ResponseForm::Url
            )
        );
        let (p, _) = parse_query(Some("make=bmw&model=m3&year=2020&angle=30")).unwrap();
        assert_eq!(p.view, View::Angle(Angle::new(30).unwrap()));
        let (p, _) = parse_query(Some("make=bmw&model=m3&year=2020&angle=0")).unwrap();
        assert_eq!(p.view.id(), "angle-0");
        let (p, _) = parse_query(Some("make=bmw&model=m3&year=2020&view=overhead")).unwrap();
        assert_eq!(p.view, View::Top);
        // size is ignored when w or h is given
        let (p, _) = parse_query(Some("make=bmw&model=m3&year=2020&size=small&h=300")).unwrap();
        assert_eq!((p.width, p.height), (None, Some(300)));
    }

    #[test]
    fn every_bad_parameter_is_named() {
        let base = "make=bmw&model=m3&year=2020";
        assert_eq!(param_of("model=m3&year=2020"), "make");
        assert_eq!(param_of("make=bmw&brand=bmw&model=m3&year=2020"), "brand");
        assert_eq!(param_of("make=bmw&year=2020"), "model");
        assert_eq!(param_of("make=bmw&model=m3"), "year");
        for (extra, param) in [
            ("&year=2020", "year"),
            ("&colour=red", "colour"),
            ("&view=bottom", "view"),
            ("&angle=20", "angle"),
            ("&angle=360", "angle"),
            ("&angle=-15", "angle"),
            ("&angle=15.0", "angle"),
            ("&angle=30&view=side", "angle"),
            ("&color=navy", "color"),
            ("&format=gif", "format"),
            ("&size=huge", "size"),
            ("&w=0", "w"),
            ("&h=1025", "h"),
            ("&w=abc", "w"),
            ("&response=html", "response"),
            ("&key=vis_x", "key"),
        ] {
            assert_eq!(param_of(&format!("{base}{extra}")), param, "{extra}");
        }
        assert_eq!(param_of("make=bmw&model=m3&year=1989"), "year");
        assert_eq!(param_of("make=bmw&model=m3&year=2028"), "year");
        assert_eq!(param_of("make=%20&model=m3&year=2020"), "make");
        assert!(parse_query(Some("make=bmw&model=m3&year=2027")).is_ok());
    }
}
