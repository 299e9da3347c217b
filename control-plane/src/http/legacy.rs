//! GET and HEAD /images/car.png (spec §4): the embeddable legacy endpoint.
//! The same renders and parameters as `/api/v1/images/car`, for `<img>`
//! tags, through five grants checked in the spec's order (docs/embeds.md):
//!
//! | # | grant | price | Cache-Control |
//! |---|---|---|---|
//! | 1 | partner signature (`exp` + `sig`) | free | `public`, until `exp` |
//! | 2 | `mode=cached` (only variants already rendered) | free | `public` |
//! | 3 | one of the home page's example images | free | `public`, shared cache 1 h |
//! | 4 | an API key (header; `key` only when the deployment allows it) | 1 credit | `private, no-store` |
//! | 5 | the playground cookie, or a signed-in session | free | `private` |
//!
//! Anything else is a 401. An unsigned request whose values are not spelt
//! canonically (a name instead of a slug, `brand`, an alias view, upper
//! case, `jpeg`) is a 308 to the canonical URL, keeping `mode` and an
//! honoured key; a signed one is never redirected (its signature covers
//! what was sent). Order of checks: parameters (400), signature (403),
//! catalog (404), spelling (308), then the grants.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use vis_protocol::SizePreset;

use super::accept::Accept;
use super::auth::{Principal, cached_principal, presented_key, require_images_read};
use super::extract::{QueryParams, if_none_match};
use super::images::{
    FieldNames, IMAGE_PARAMS, balance_of, delivery_error, header_value, image_headers, item_of,
    keyed, lookup_error, not_modified, validate, vary_if_auto,
};
use super::{context, rate};
use crate::delivery::{ImageParams, Resolved};
use crate::embeds::playground;
use crate::embeds::signature::{self, SigError};
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::ratelimit::now_secs;
use crate::renders::{Admission, SourceKind};

/// Parameters this endpoint knows beside an image's (`images::IMAGE_PARAMS`):
/// the grants' (spec §4, plus `partner`, which narrows a signature check to
/// one partner and is covered by the signature).
const GRANT_PARAMS: [&str; 5] = ["mode", "exp", "sig", "key", "partner"];

/// Free example images and `mode=cached` (spec §8 Shared cache).
pub const PUBLIC_CACHE: &str = "public, max-age=300, s-maxage=3600, stale-while-revalidate=60";
/// The playground's renders: this browser only.
pub const PLAYGROUND_CACHE: &str = "private, max-age=300";
/// Keyed renders (spec §8): billed per request, so never stored.
pub const KEYED_CACHE: &str = "private, no-store";

/// One request, parsed: the image, the raw values as sent (for the 308
/// rule) and the grant-related parameters.
struct Parsed {
    params: ImageParams,
    brand: bool,
    raw: Raw,
    cached_mode: bool,
    exp: Option<String>,
    sig: Option<String>,
    partner: Option<String>,
    key: Option<String>,
}

/// Values as sent, for the spelling check.
#[derive(Default)]
struct Raw {
    make: String,
    model: String,
    view: Option<String>,
    angle: Option<String>,
    color: Option<String>,
    paint: Option<String>,
    finish: Option<String>,
    size: Option<String>,
    format: Option<String>,
    w: Option<String>,
    h: Option<String>,
    shadow: Option<String>,
    scale: Option<String>,
    /// `background`, `fit`, `trim`, `padding` as sent, in that order.
    framing: [Option<String>; 4],
}

fn parse(raw_query: Option<&str>) -> Result<Parsed, ApiError> {
    let q = QueryParams::parse_known(raw_query, &[&IMAGE_PARAMS, &GRANT_PARAMS])?;
    let get = |name: &str| q.get(name).map(str::to_owned);
    let item = item_of(&q);
    let params = validate(item, FieldNames::QUERY)?;
    // The spec's year rule here is "at least 1990"; the catalog decides the
    // newest, as on the API (1990 to 2027).
    let cached_mode = match q.get("mode") {
        None => false,
        Some("cached") => true,
        Some(_) => return Err(ApiError::bad_request("mode", "the only value is cached")),
    };
    let make = q.get("make").or_else(|| q.get("brand")).unwrap_or_default();
    Ok(Parsed {
        brand: q.get("brand").is_some(),
        raw: Raw {
            make: make.trim().to_owned(),
            model: q.get("model").unwrap_or_default().trim().to_owned(),
            view: get("view"),
            angle: get("angle"),
            color: get("color"),
            paint: get("paint"),
            finish: get("finish"),
            size: get("size"),
            format: get("format"),
            w: get("w"),
            h: get("h"),
            shadow: get("shadow"),
            scale: get("scale"),
            framing: ["background", "fit", "trim", "padding"].map(get),
        },
        params,
        cached_mode,
        exp: get("exp"),
        sig: get("sig"),
        partner: get("partner"),
        key: get("key"),
    })
}

/// The canonical query of this request, when what was sent is not it.
fn respelt(p: &Parsed, r: &Resolved, honoured_key: Option<&str>) -> Option<String> {
    let v = &r.variant;
    let differs =
        |given: &Option<String>, canonical: &str| given.as_deref().is_some_and(|g| g != canonical);
    let size = p
        .raw
        .size
        .as_deref()
        .and_then(|s| s.parse::<SizePreset>().ok());
    let canonical = !p.brand
        && p.raw.make == v.make.as_str()
        && p.raw.model == v.model.as_str()
        && !differs(&p.raw.view, &canonical_view(v.view))
        && !differs(&p.raw.angle, &canonical_angle(v.view))
        && p.raw.paint.is_none()
        && !differs(&p.raw.color, &canonical_color(v.color))
        && !differs(&p.raw.finish, &canonical_finish(v.color))
        && !differs(&p.raw.shadow, if v.staging.shadow { "" } else { "false" })
        && !differs(
            &p.raw.scale,
            match v.staging.scale {
                vis_protocol::Scale::Fill => "",
                s => s.id(),
            },
        )
        && !differs(&p.raw.format, r.format_choice().id())
        && size.is_none_or(|s| p.raw.size.as_deref() == Some(s.id()))
        && !differs(
            &p.raw.w,
            &r.box_w.map(|w| w.to_string()).unwrap_or_default(),
        )
        && !differs(
            &p.raw.h,
            &r.box_h.map(|h| h.to_string()).unwrap_or_default(),
        )
        && p.raw
            .framing
            .iter()
            .zip(r.framing.canonical())
            .all(|(given, (_, canonical))| !differs(given, &canonical));
    if canonical {
        return None;
    }
    let mut query = r.canonical_query();
    if p.cached_mode {
        query.push_str("&mode=cached");
    }
    if let Some(key) = honoured_key {
        query.push_str("&key=");
        query.extend(form_urlencoded::byte_serialize(key.as_bytes()));
    }
    Some(query)
}

/// `view` as the canonical query spells it: a named view's id; nothing
/// for an angle, which is `angle`.
fn canonical_view(view: vis_protocol::View) -> String {
    match view.angle() {
        Some(_) => String::new(),
        None => view.id().to_owned(),
    }
}

/// `angle` as the canonical query spells it: an angle view's degrees.
fn canonical_angle(view: vis_protocol::View) -> String {
    view.angle()
        .map(|a| a.degrees().to_string())
        .unwrap_or_default()
}

/// `color` as the canonical query spells it (decoded): a preset's name, or
/// `#rrggbb`.
fn canonical_color(paint: vis_protocol::Paint) -> String {
    match paint.named() {
        Some(c) => c.id().to_owned(),
        None => paint.hex(),
    }
}

/// `finish` as the canonical query spells it: only for a custom colour
/// that is not solid.
fn canonical_finish(paint: vis_protocol::Paint) -> String {
    match (paint.named(), paint.finish()) {
        (None, f) if f != vis_protocol::Finish::Solid => f.id().to_owned(),
        _ => String::new(),
    }
}

/// The grant a request was served under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grant {
    Signed { remaining_secs: u64 },
    Cached,
    Example,
    Playground,
    Session,
}

impl Grant {
    fn cache_control(self) -> HeaderValue {
        match self {
            Grant::Signed { remaining_secs } => {
                header_value(&format!("public, max-age={remaining_secs}"))
            }
            Grant::Cached | Grant::Example => HeaderValue::from_static(PUBLIC_CACHE),
            Grant::Playground | Grant::Session => HeaderValue::from_static(PLAYGROUND_CACHE),
        }
    }

    fn admission(self, state: &HttpState) -> Admission {
        match self {
            Grant::Cached => Admission::CachedOnly,
            Grant::Playground | Grant::Session => Admission::Free {
                per_day: state.embeds.playground.cold_per_day,
                reserve_percent: state.embeds.playground.budget_reserve_percent,
            },
            Grant::Signed { .. } | Grant::Example => Admission::Paid,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Grant::Signed { .. } => "signed",
            Grant::Cached => "cached",
            Grant::Example => "example",
            Grant::Playground => "playground",
            Grant::Session => "session",
        }
    }
}

pub async fn get(State(state): State<HttpState>, req: Request) -> Response {
    handle(state, req).await
}

/// HEAD: the same checks and headers as the GET; nothing is charged,
/// rendered or counted against an allowance.
pub async fn head(State(state): State<HttpState>, req: Request) -> Response {
    handle(state, req).await
}

async fn handle(state: HttpState, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    let is_head = parts.method == Method::HEAD;
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip().to_string());
    let query = parts.uri.query().map(str::to_owned);
    let header_key = presented_key(&parts).map(str::to_owned);
    let cookie = super::web::cookie(&parts.headers, playground::COOKIE).map(str::to_owned);
    let result = route(
        &state,
        Incoming {
            query: query.as_deref(),
            headers: &parts.headers,
            header_key: header_key.as_deref(),
            cookie: cookie.as_deref(),
            peer: peer.as_deref().unwrap_or("unknown"),
            is_head,
        },
    )
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

struct Incoming<'a> {
    query: Option<&'a str>,
    headers: &'a HeaderMap,
    header_key: Option<&'a str>,
    cookie: Option<&'a str>,
    peer: &'a str,
    is_head: bool,
}

async fn route(state: &HttpState, inc: Incoming<'_>) -> Result<Response, ApiError> {
    let p = parse(inc.query)?;
    let now = now_secs();
    // 1. A partner signature: checked before anything else is looked up.
    let signed =
        signature::presented(p.exp.as_deref(), p.sig.as_deref(), now).map_err(sig_refused)?;
    if p.partner.is_some() && signed.is_none() {
        return Err(sig_refused(SigError::Incomplete));
    }
    if let Some(signed) = signed {
        let signer = state
            .embeds
            .partners
            .signer(inc.query.unwrap_or(""), &signed.sig, p.partner.as_deref())
            .await?;
        if signer.is_none() {
            return Err(sig_refused(SigError::Invalid));
        }
        let resolved = resolve(state, &p.params, inc.headers)?;
        let grant = Grant::Signed {
            remaining_secs: signed.remaining_secs,
        };
        return serve_free(state, &resolved, grant, inc.headers, inc.is_head).await;
    }
    let resolved = resolve(state, &p.params, inc.headers)?;
    let legacy_key = p
        .key
        .as_deref()
        .filter(|_| state.embeds.allow_legacy_query_keys);
    if let Some(target) = respelt(&p, &resolved, legacy_key) {
        return Ok(redirect(&target));
    }
    // 2. mode=cached: only what already exists.
    if p.cached_mode {
        if !inc.is_head {
            admit_free_derivation(state, &resolved, inc.peer).await?;
        }
        return serve_free(state, &resolved, Grant::Cached, inc.headers, inc.is_head).await;
    }
    // 3. The home page's examples.
    if state.embeds.examples.contains(&resolved) {
        return serve_free(state, &resolved, Grant::Example, inc.headers, inc.is_head).await;
    }
    // 4. An API key: in a header, or (when the deployment allows) the query.
    if let Some(raw) = inc.header_key.or(legacy_key) {
        let (principal, hash) = cached_principal(state, raw).await?;
        require_images_read(&principal)?;
        let (r, headers, is_head) = (&resolved, inc.headers, inc.is_head);
        return Ok(keyed(state, &principal, &hash, || {
            serve_keyed(state, &principal, r, headers, is_head)
        })
        .await);
    }
    // 5. A signed-in session (limited per account), or the playground
    // cookie (limited per client address); cold renders of either draw on
    // the playground's daily allowance.
    let session = match super::web::cookie(inc.headers, super::web::SESSION_COOKIE) {
        Some(_) => super::web::signed_in(state, inc.headers).await,
        None => None,
    };
    // A playground cookie is counted under the client's address and under
    // its own id: carried to other addresses, it still gets one allowance.
    let free = match &session {
        Some(account) => Some((Grant::Session, vec![format!("session:{}", account.id)])),
        None => inc
            .cookie
            .and_then(|c| state.embeds.cookies.id(c, now))
            .map(|id| {
                (
                    Grant::Playground,
                    vec![
                        format!("playground:{}", inc.peer),
                        format!("playground-cookie:{id}"),
                    ],
                )
            }),
    };
    if let Some((grant, subjects)) = free {
        let limit = state.embeds.playground.per_minute;
        let mut decisions = Vec::with_capacity(subjects.len());
        let mut admitted = Ok(());
        for subject in &subjects {
            let (decision, result) = rate::check_ip(state, "car-png", subject, limit).await;
            decisions.push(decision);
            if result.is_err() {
                admitted = result;
                break;
            }
        }
        // The headers of the refusing window, else of the one with least left.
        let tightest = decisions
            .into_iter()
            .min_by_key(|d| (d.allowed, d.remaining));
        let result = match admitted {
            Ok(()) => serve_free(state, &resolved, grant, inc.headers, inc.is_head).await,
            Err(refused) => Err(refused),
        };
        let response = result.unwrap_or_else(IntoResponse::into_response);
        return Ok(match &tightest {
            Some(decision) => rate::with_headers(response, decision),
            None => response,
        });
    }
    let detail = if p.key.is_some() {
        "The key query parameter is not accepted by this deployment: send the key in Authorization: Bearer <API_KEY>, or use a partner-signed URL (see /docs/embeds)."
    } else {
        "This image needs a grant: a partner signature (exp and sig), mode=cached, an API key in Authorization, the playground, or a signed-in session. See /docs/embeds."
    };
    Err(ApiError::Unauthorized(detail.into()))
}

/// `mode=cached` serves a size or format not derived yet by resizing and
/// encoding the rendered source: tens of milliseconds of CPU given away, so
/// it is limited per client address (429) and, all addresses and replicas
/// together, in total (503); outputs already derived are never limited
/// (`[embeds] cached_derivations_*`, docs/embeds.md).
async fn admit_free_derivation(
    state: &HttpState,
    r: &Resolved,
    peer: &str,
) -> Result<(), ApiError> {
    if state.deliverer.is_derived(r).await {
        return Ok(());
    }
    let e = &state.embeds;
    if e.cached_derivations_per_address == 0 {
        return Err(ApiError::NotFound(
            "This size or format has not been made yet, and mode=cached serves only outputs already made on this deployment.".into(),
        ));
    }
    let (decision, admitted) = rate::check_ip(
        state,
        "cached-derive",
        peer,
        e.cached_derivations_per_address,
    )
    .await;
    if admitted.is_err() {
        return Err(ApiError::TooManyRequests {
            retry_after_secs: decision.reset_secs,
            reason: Some(
                "mode=cached makes a size or format of a rendered image that was not made yet only a few times a minute per client (ask for a size already served, or use a partner-signed URL or an API key)",
            ),
        });
    }
    let (decision, admitted) =
        rate::check_shared(state, "cached-derive", e.cached_derivations_per_minute).await;
    if admitted.is_err() {
        return Err(ApiError::Unavailable {
            message: "mode=cached is making as many new sizes and formats as it gives away a minute; retry after Retry-After seconds, or use a partner-signed URL or an API key.".into(),
            retry_after_secs: Some(decision.reset_secs),
        });
    }
    Ok(())
}

fn sig_refused(e: SigError) -> ApiError {
    ApiError::Forbidden(format!("Partner signature refused: {e}. See /docs/embeds."))
}

/// The vehicle, and with `format=auto` the format the request's `Accept`
/// names.
fn resolve(
    state: &HttpState,
    params: &ImageParams,
    headers: &HeaderMap,
) -> Result<Resolved, ApiError> {
    let mut r = state
        .deliverer
        .resolve(state.catalog, params)
        .map_err(lookup_error)?;
    let accept = Accept::of(headers);
    r.negotiate(|f| accept.q(f));
    Ok(r)
}

fn redirect(query: &str) -> Response {
    let mut r = StatusCode::PERMANENT_REDIRECT.into_response();
    r.headers_mut().insert(
        header::LOCATION,
        header_value(&format!("{}?{query}", signature::PATH)),
    );
    r.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    r
}

fn legacy_location(state: &HttpState, r: &Resolved) -> HeaderValue {
    header_value(&format!(
        "{}{}?{}",
        state.base_url,
        signature::PATH,
        r.canonical_query()
    ))
}

/// Headers of a free image answer (every grant but the key).
fn free_headers(
    state: &HttpState,
    r: &Resolved,
    response: &mut Response,
    grant: Grant,
    source: SourceKind,
) {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(r.format.mime()),
    );
    h.insert(header::ETAG, header_value(&r.etag()));
    h.insert(header::CONTENT_LOCATION, legacy_location(state, r));
    h.insert(header::CACHE_CONTROL, grant.cache_control());
    h.insert("x-image-source", HeaderValue::from_static(source.as_str()));
    h.insert("x-image-width", HeaderValue::from(r.width));
    h.insert("x-image-height", HeaderValue::from(r.height));
    h.insert("x-color-match", header_value(&r.color_match().header()));
    vary_if_auto(h, r);
}

async fn serve_free(
    state: &HttpState,
    r: &Resolved,
    grant: Grant,
    headers: &HeaderMap,
    is_head: bool,
) -> Result<Response, ApiError> {
    let etag = r.etag();
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    if inm.is_some_and(|v| if_none_match(v, &etag)) {
        state.metrics.not_modified.inc();
        let mut resp = StatusCode::NOT_MODIFIED.into_response();
        resp.headers_mut().insert(header::ETAG, header_value(&etag));
        resp.headers_mut()
            .insert(header::CACHE_CONTROL, grant.cache_control());
        vary_if_auto(resp.headers_mut(), r);
        return Ok(resp);
    }
    if is_head {
        let cached = state.deliverer.is_cached(r).await;
        if grant == Grant::Cached && !cached {
            return Err(not_rendered());
        }
        let source = if cached {
            SourceKind::Cache
        } else {
            SourceKind::Generated
        };
        let mut resp = StatusCode::OK.into_response();
        free_headers(state, r, &mut resp, grant, source);
        return Ok(resp);
    }
    let (out, source) = state
        .deliverer
        .output_with(r, grant.admission(state))
        .await
        .map_err(|e| delivery_error(e, &state.metrics))?;
    state.metrics.legacy_image(grant.label());
    let mut resp = (StatusCode::OK, out.bytes).into_response();
    free_headers(state, r, &mut resp, grant, source);
    Ok(resp)
}

fn not_rendered() -> ApiError {
    ApiError::NotFound(
        "This variant has not been rendered yet, and mode=cached serves only variants already rendered.".into(),
    )
}

/// Grant 4: billed exactly like `GET /api/v1/images/car`, in this
/// endpoint's words; `keyed` around it adds the rate limit and the key check.
async fn serve_keyed(
    state: &HttpState,
    principal: &Arc<Principal>,
    r: &Resolved,
    headers: &HeaderMap,
    is_head: bool,
) -> Result<Response, ApiError> {
    let etag = r.etag();
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    if inm.is_some_and(|v| if_none_match(v, &etag)) {
        state.metrics.not_modified.inc();
        return Ok(not_modified(&etag, balance_of(state, principal).await?));
    }
    let mut resp = StatusCode::OK.into_response();
    if is_head {
        let source = if state.deliverer.is_cached(r).await {
            SourceKind::Cache
        } else {
            SourceKind::Generated
        };
        image_headers(
            state,
            r,
            &mut resp,
            0,
            balance_of(state, principal).await?,
            source,
        );
    } else {
        let ctx = context::current();
        let delivered = state
            .deliverer
            .deliver(r, &principal.payer(&ctx.request_id))
            .await
            .map_err(|e| delivery_error(e, &state.metrics))?;
        state.metrics.legacy_image("key");
        resp = (StatusCode::OK, delivered.output.bytes).into_response();
        image_headers(
            state,
            r,
            &mut resp,
            delivered.credits_charged,
            delivered.balance_after,
            delivered.source,
        );
    }
    resp.headers_mut()
        .insert(header::CONTENT_LOCATION, legacy_location(state, r));
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(query: &str) -> (Parsed, Resolved) {
        let p = parse(Some(query)).unwrap();
        let r = crate::delivery::resolve(vis_catalog::Catalog::embedded(), &p.params, 1).unwrap();
        (p, r)
    }

    #[test]
    fn canonical_spellings_are_served_and_others_respelt() {
        for ok in [
            "make=toyota&model=camry&year=2019",
            "model=camry&year=2019&make=toyota&view=side&color=red&format=webp&size=small",
            "make=toyota&model=camry&year=2019&w=300&mode=cached",
            "make=toyota&model=camry&year=2019&color=%238c1a20&finish=metallic&format=png",
            "make=toyota&model=camry&year=2019&color=%23123456",
            "make=toyota&model=camry&year=2019&angle=30&color=red&format=png",
            "make=toyota&model=camry&year=2019&view=top",
        ] {
            let (p, r) = resolved(ok);
            assert_eq!(respelt(&p, &r, None), None, "{ok}");
        }
        for (odd, want) in [
            (
                "brand=toyota&model=camry&year=2019",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=silver&format=png",
            ),
            (
                "make=Toyota&model=Camry&year=2019",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=silver&format=png",
            ),
            (
                "make=toyota&model=camry&year=2019&view=hero",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=silver&format=png",
            ),
            (
                "make=toyota&model=camry&year=2019&format=jpeg&mode=cached",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=silver&format=jpg&mode=cached",
            ),
            (
                "make=toyota&model=camry&year=2019&color=RED&size=small",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=red&w=512&format=png",
            ),
            (
                "make=toyota&model=camry&year=2019&color=8C1A20&finish=metallic",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=%238c1a20&finish=metallic&format=png",
            ),
            (
                "make=toyota&model=camry&year=2019&paint=3r3",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=%238c1a20&finish=metallic&format=png",
            ),
            (
                "make=toyota&model=camry&year=2019&color=%23123456&finish=solid",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=%23123456&format=png",
            ),
            (
                "make=toyota&model=camry&year=2019&view=angle-30",
                "make=toyota&model=camry&year=2019&angle=30&color=silver&format=png",
            ),
            (
                "make=toyota&model=camry&year=2019&view=overhead",
                "make=toyota&model=camry&year=2019&view=top&color=silver&format=png",
            ),
            (
                // A hex that is a preset's colour and finish is the preset.
                "make=toyota&model=camry&year=2019&color=%23b3121c",
                "make=toyota&model=camry&year=2019&view=front-3-4&color=red&format=png",
            ),
        ] {
            let (p, r) = resolved(odd);
            assert_eq!(respelt(&p, &r, None).as_deref(), Some(want), "{odd}");
        }
        let (p, r) = resolved("brand=toyota&model=camry&year=2019&key=vis_abc");
        assert!(
            respelt(&p, &r, Some("vis_abc"))
                .unwrap()
                .ends_with("&key=vis_abc")
        );
        assert!(
            !respelt(&p, &r, None).unwrap().contains("key="),
            "an unhonoured key is dropped"
        );
    }

    #[test]
    fn bad_parameters_are_named() {
        let param = |q: &str| match parse(Some(q)) {
            Err(ApiError::BadRequest { param, .. }) => param,
            other => panic!("{q}: {:?}", other.err()),
        };
        assert_eq!(
            param("make=toyota&model=camry&year=2019&mode=fresh"),
            "mode"
        );
        assert_eq!(param("make=toyota&model=camry&year=1989"), "year");
        assert_eq!(param("make=toyota&model=camry&year=2019&h=2000"), "h");
        assert_eq!(
            param("make=toyota&model=camry&year=2019&api_key=x"),
            "api_key"
        );
        assert_eq!(
            param("make=toyota&brand=toyota&model=camry&year=2019"),
            "brand"
        );
    }
}
