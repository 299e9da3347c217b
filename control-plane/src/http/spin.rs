//! GET /api/v1/images/spin (scope images:read; 1 credit per frame, 24 a
//! spin): a vehicle's 360° spin as an animated WebP or a sprite sheet, or
//! its manifest (free). docs/embeds.md, "Spins".

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use vis_protocol::{Format, FormatChoice};

use super::accept::Accept;
use super::auth::{CachedAuth, ImagesRead};
use super::extract::QueryParams;
use super::images::{
    FieldNames, IDEMPOTENT_REPLAYED, RETRY_RULES, balance_of, delivery_error, header_value,
    item_of, keyed, lookup_error, not_modified, retry_key, retry_refused, validate,
};
use super::{context, image_urls};
use crate::delivery::idempotent::Claim;
use crate::delivery::spin::{FRAME_MAX, Layout, Spin, SpinManifest};
use crate::http::error::ApiError;
use crate::http::state::HttpState;

/// Parameters this endpoint knows: an image's, less `view` and `angle` (a
/// spin has every angle) and the framing (`background`, `fit`, `trim`,
/// `padding`: not yet), plus `layout`. `shadow` and `scale` stage every
/// frame.
const KNOWN: [&str; 15] = [
    "make", "brand", "model", "year", "color", "paint", "finish", "shadow", "scale", "w", "h",
    "size", "format", "layout", "response",
];

/// The manifest of a spin (`response=manifest`; free).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SpinManifestResponse {
    pub data: SpinManifest,
    pub request_id: String,
}

/// What the client wants back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Image,
    Manifest,
}

/// Parses the query; errors name the parameter.
fn parse(
    state: &HttpState,
    raw: Option<&str>,
    headers: &HeaderMap,
) -> Result<(Spin, Form), ApiError> {
    let mut known = KNOWN.to_vec();
    known.extend(["view", "angle"]);
    let query = QueryParams::parse(raw, &known)?;
    for name in ["view", "angle"] {
        if query.get(name).is_some() {
            return Err(ApiError::bad_request(
                name,
                "a spin has every angle (0 to 345 in steps of 15); send no view or angle",
            ));
        }
    }
    let mut params = validate(item_of(&query), FieldNames::QUERY)?;
    let frame_limit = |param: &str| {
        ApiError::bad_request(
            param,
            format!("a spin's frames are at most {FRAME_MAX} pixels (24 frames of one spin)"),
        )
    };
    if params.width.is_some_and(|w| w > FRAME_MAX) {
        let param = if query.get("w").is_some() {
            "w"
        } else {
            "size"
        };
        return Err(frame_limit(param));
    }
    if params.height.is_some_and(|h| h > FRAME_MAX) {
        return Err(frame_limit("h"));
    }
    if params.width.is_none() && params.height.is_none() {
        params.width = Some(FRAME_MAX);
    }
    let layout = match query.get("layout").map(str::trim) {
        None | Some("animation") => Layout::Animation,
        Some("sprite") => Layout::Sprite,
        Some(_) => {
            return Err(ApiError::bad_request(
                "layout",
                "must be animation (an animated WebP) or sprite (a sheet of 6 x 4 frames)",
            ));
        }
    };
    let accept = Accept::of(headers);
    // WebP unless told; `auto` is WebP for an animation (the one animated
    // format) and negotiated from Accept for a sprite sheet.
    let format = match (query.get("format"), params.format, layout) {
        (None, ..) | (_, FormatChoice::Auto, Layout::Animation) => Format::Webp,
        (_, FormatChoice::Auto, Layout::Sprite) => accept.auto_format(),
        (_, FormatChoice::Fixed(f), _) => f,
    };
    if layout == Layout::Animation && format != Format::Webp {
        return Err(ApiError::bad_request(
            "format",
            "an animation is an animated WebP: send format=webp or auto, or layout=sprite for png, jpg or avif",
        ));
    }
    let form = match query.get("response").map(str::trim) {
        None | Some("image") if !accept.wants_json() => Form::Image,
        None | Some("image") | Some("manifest") => Form::Manifest,
        Some(_) => {
            return Err(ApiError::bad_request(
                "response",
                "must be image or manifest",
            ));
        }
    };
    let spin = Spin::resolve(&state.deliverer, state.catalog, &params, layout, format)
        .map_err(lookup_error)?;
    Ok((spin, form))
}

pub async fn get(
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

/// HEAD: validated like the GET and answered with its headers, free.
pub async fn head(
    State(state): State<HttpState>,
    CachedAuth(principal, key_hash, ..): CachedAuth<ImagesRead>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    keyed(&state, &principal, &key_hash, || async {
        let (spin, form) = parse(&state, query.as_deref(), &headers)?;
        image_urls::idempotency_key(&headers)?;
        let balance = balance_of(&state, &principal).await?;
        if form == Form::Manifest {
            let mut r = StatusCode::OK.into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            image_urls::billing_headers(&mut r, 0, balance);
            return Ok(r);
        }
        if matches_etag(&headers, &spin) {
            return Ok(not_modified(&spin.etag(), balance));
        }
        let source = if state.deliverer.is_spin_cached(&spin).await {
            crate::renders::SourceKind::Cache
        } else {
            crate::renders::SourceKind::Generated
        };
        let mut r = StatusCode::OK.into_response();
        spin_headers(&state, &spin, &mut r, 0, balance, source);
        Ok(r)
    })
    .await
}

fn matches_etag(headers: &HeaderMap, spin: &Spin) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| super::extract::if_none_match(v, &spin.etag()))
}

async fn serve(
    state: &HttpState,
    principal: &super::auth::Principal,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let (spin, form) = parse(state, query, headers)?;
    let ctx = context::current();
    if form == Form::Manifest {
        let alt = spin_alt(state, &spin);
        let body = SpinManifestResponse {
            data: spin.manifest(&state.base_url, alt),
            request_id: ctx.request_id,
        };
        let mut r = axum::Json(body).into_response();
        let balance = balance_of(state, principal).await?;
        image_urls::billing_headers(&mut r, 0, balance);
        return Ok(r);
    }
    let idempotency = retry_key(headers, &ctx.request_id)?;
    if matches_etag(headers, &spin) {
        state.metrics.not_modified.inc();
        return Ok(not_modified(
            &spin.etag(),
            balance_of(state, principal).await?,
        ));
    }
    let account = principal.key.account_id.as_str();
    if let Some(retry) = &idempotency {
        let claim = state
            .deliverer
            .claim_as(
                account,
                &retry.key,
                &spin.fingerprint(),
                None,
                &ctx.request_id,
                RETRY_RULES,
            )
            .await?;
        match claim {
            Claim::Fresh => {}
            Claim::Replay { .. } => {
                let (bytes, source) = state
                    .deliverer
                    .spin_output(&spin)
                    .await
                    .map_err(|e| delivery_error(e, &state.metrics))?;
                let balance = balance_of(state, principal).await?;
                let mut r = (StatusCode::OK, bytes).into_response();
                spin_headers(state, &spin, &mut r, 0, balance, source);
                r.headers_mut()
                    .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
                return Ok(r);
            }
            Claim::Conflict | Claim::InProgress => {
                return Err(retry_refused(&claim, retry, "spin"));
            }
        }
    }
    let payer = principal.payer(&ctx.request_id);
    let delivered = state.deliverer.deliver_spin(&spin, &payer).await;
    if let (Some(retry), Err(_)) = (&idempotency, &delivered) {
        state
            .deliverer
            .release(account, &retry.key, &ctx.request_id)
            .await?;
    }
    let delivered = delivered.map_err(|e| delivery_error(e, &state.metrics))?;
    let mut r = (StatusCode::OK, delivered.bytes).into_response();
    spin_headers(
        state,
        &spin,
        &mut r,
        delivered.credits_charged,
        delivered.balance_after,
        delivered.source,
    );
    Ok(r)
}

/// Alt text for a spin: the vehicle's, with "360° spin" for the view.
fn spin_alt(state: &HttpState, spin: &Spin) -> String {
    crate::delivery::alt::alt_text_as(state.catalog, &spin.frames[0], "360° spin")
}

/// The headers of a spin answer, shared by GET and HEAD.
fn spin_headers(
    state: &HttpState,
    spin: &Spin,
    r: &mut Response,
    charged: i64,
    balance: i64,
    source: crate::renders::SourceKind,
) {
    let (w, h) = spin.output_size();
    let (fw, fh) = spin.frame_size();
    let (columns, rows) = spin.grid();
    let h_ = r.headers_mut();
    h_.insert(header::CONTENT_TYPE, HeaderValue::from_static(spin.mime()));
    h_.insert(header::ETAG, header_value(&spin.etag()));
    h_.insert(
        header::CONTENT_LOCATION,
        header_value(&format!("{}{}", state.base_url, spin.canonical_path())),
    );
    h_.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    h_.insert("x-credits-charged", HeaderValue::from(charged));
    h_.insert("x-credits-remaining", HeaderValue::from(balance));
    h_.insert("x-image-source", HeaderValue::from_static(source.as_str()));
    h_.insert("x-image-width", HeaderValue::from(w));
    h_.insert("x-image-height", HeaderValue::from(h));
    h_.insert("x-spin-frames", HeaderValue::from(spin.frames.len() as u64));
    h_.insert("x-spin-frame-size", header_value(&format!("{fw}x{fh}")));
    h_.insert("x-spin-grid", header_value(&format!("{columns}x{rows}")));
    h_.insert(
        "x-color-match",
        header_value(&spin.frames[0].color_match().header()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_parameters_are_an_images_without_view_and_angle() {
        for p in KNOWN {
            assert!(!matches!(p, "view" | "angle"), "{p}");
        }
        assert!(KNOWN.contains(&"layout"));
        assert_eq!(crate::delivery::spin::CREDITS_PER_SPIN, 24);
    }
}
