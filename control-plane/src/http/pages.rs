//! The web pages: home `/`, `/playground`, `/pricing`, the API reference
//! `/docs` (Redoc over the served OpenAPI document), the guides' layout
//! (`guides.rs` renders them), the HTML 404 and 405 pages for browsers,
//! and their static files under `/static/`.
//!
//! Templates (`control-plane/web/templates/`, Jinja syntax, rendered by
//! `minijinja` with HTML escaping) and static files (`web/static/`) are
//! embedded in the binary, so a deployment ships no asset directory and
//! pages load nothing from another host. Every page is sent with a strict
//! Content-Security-Policy (scripts and styles from this origin only).

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use include_dir::{Dir, include_dir};
use minijinja::{Environment, Value, context};
use serde::Serialize;
use sha2::{Digest, Sha256};
use vis_protocol::{Color, Format, SizePreset, View};

use crate::billing::{CREDITS_PER_IMAGE, FREE_CREDITS, PACKS};
use crate::embeds::playground;
use crate::embeds::signature;
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::ratelimit::now_secs;

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/web/templates");
static STATIC: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/web/static");

/// Pages' scripts and styles come from this origin only; images may also
/// be `data:` URIs (the docs renderer draws some).
const CSP: &str = "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; \
                   connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; \
                   form-action 'self'; frame-ancestors 'none'";
/// The API reference: Redoc injects two style elements of its own (their
/// hashes: web/static/vendor/redoc/README.md; a Redoc upgrade changes the
/// first) and runs its search in a blob worker.
const CSP_DOCS: &str = "default-src 'self'; img-src 'self' data:; script-src 'self'; \
                        style-src 'self' 'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc=' \
                        'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; worker-src 'self' blob:; \
                        connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; \
                        form-action 'self'; frame-ancestors 'none'";

/// The templates, loaded once, and the static files' version.
#[derive(Debug)]
pub struct Pages {
    env: Environment<'static>,
    /// A short hash of every static file: `?v=` on their URLs.
    asset_version: String,
}

impl Pages {
    pub fn new() -> Result<Pages, String> {
        let mut env = Environment::new();
        env.add_filter("thousands", thousands);
        for file in TEMPLATES.files() {
            let name = file
                .path()
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or("a template name is not UTF-8")?;
            let text = file
                .contents_utf8()
                .ok_or_else(|| format!("template {name} is not UTF-8"))?;
            env.add_template(name, text)
                .map_err(|e| format!("template {name}: {e}"))?;
        }
        let mut hash = Sha256::new();
        let mut files: Vec<_> = Vec::new();
        collect(&STATIC, &mut files);
        files.sort_by_key(|f| f.path());
        for f in files {
            hash.update(f.path().to_string_lossy().as_bytes());
            hash.update(f.contents());
        }
        Ok(Pages {
            env,
            asset_version: hex::encode(&hash.finalize()[..6]),
        })
    }

    fn render(
        &self,
        name: &str,
        page: &str,
        state: &HttpState,
        ctx: Value,
    ) -> Result<String, ApiError> {
        let common = context! {
            base_url => state.base_url.as_ref(),
            page => page,
            asset_version => &self.asset_version,
            year_now => time::OffsetDateTime::now_utc().year(),
        };
        let template = self
            .env
            .get_template(name)
            .map_err(|e| ApiError::internal(format!("template {name}: {e}")))?;
        template
            .render(context! { ..ctx, ..common })
            .map_err(|e| ApiError::internal(format!("template {name}: {e:#}")))
    }
}

/// `12345` → `12,345`, for credit counts on pages.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

fn collect<'a>(dir: &'a Dir<'a>, out: &mut Vec<&'a include_dir::File<'a>>) {
    out.extend(dir.files());
    for d in dir.dirs() {
        collect(d, out);
    }
}

fn html(body: String, csp: &'static str) -> Response {
    let mut r = Html(body).into_response();
    let h = r.headers_mut();
    h.insert("content-security-policy", HeaderValue::from_static(csp));
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        "referrer-policy",
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

fn page(state: &HttpState, name: &str, page: &str, ctx: Value, csp: &'static str) -> Response {
    match state.pages.render(name, page, state, ctx) {
        Ok(body) => html(body, csp),
        Err(e) => e.into_response(),
    }
}

#[derive(Serialize)]
struct ExampleImage {
    src: String,
    alt: String,
    caption: String,
    width: u32,
    height: u32,
}

/// `/`: what the service does, the examples, a quick start.
pub async fn home(State(state): State<HttpState>) -> Response {
    let examples: Vec<ExampleImage> = state
        .embeds
        .examples
        .iter()
        .map(|e| ExampleImage {
            src: e.path.clone(),
            alt: format!(
                "Studio render of a {}, {} {}",
                e.caption, e.resolved.variant.color, e.resolved.variant.view
            ),
            caption: e.caption.clone(),
            width: e.resolved.width,
            height: e.resolved.height,
        })
        .collect();
    // What a partner-signed URL looks like (a made-up secret; docs/embeds.md
    // says how to sign with a real one).
    let exp = (now_secs() / 86_400 + 30) * 86_400;
    let query = format!(
        "make=toyota&model=camry&year=2019&view=front-3-4&color=red&w=512&format=webp&exp={exp}"
    );
    let sig = signature::sign(b"vps_example_secret", &query);
    let signed_example = format!("{}{}?{query}&sig={sig}", state.base_url, signature::PATH);
    let ctx = context! { examples, signed_example };
    page(&state, "home.html", "home", ctx, CSP)
}

#[derive(Serialize)]
struct Choice {
    slug: &'static str,
    label: String,
}

#[derive(Serialize)]
struct ColorChoice {
    slug: &'static str,
    label: String,
    hex: String,
}

#[derive(Serialize)]
struct SizeChoice {
    slug: &'static str,
    label: String,
    px: u32,
}

fn label(slug: &str) -> String {
    let text = slug.replace("-3-4", " ¾").replace('-', " ");
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `/playground`: try renders for free; the page issues the cookie that
/// grants them (grant 5 of `/images/car.png`).
pub async fn playground(State(state): State<HttpState>) -> Response {
    let views: Vec<Choice> = View::NAMED
        .iter()
        .map(|v| Choice {
            slug: v.id(),
            label: label(v.id()),
        })
        .collect();
    let colors: Vec<ColorChoice> = Color::ALL
        .iter()
        .map(|c| ColorChoice {
            slug: c.id(),
            label: label(c.id()),
            hex: c.hex(),
        })
        .collect();
    let sizes: Vec<SizeChoice> = SizePreset::ALL
        .iter()
        .map(|s| SizeChoice {
            slug: s.id(),
            label: label(s.id()),
            px: s.px(),
        })
        .collect();
    let formats: Vec<Choice> = Format::ALL
        .iter()
        .map(|f| Choice {
            slug: f.id(),
            label: f.id().to_uppercase(),
        })
        .collect();
    let newest = state.catalog.stats().years.to;
    let years: Vec<u16> = (crate::http::images::YEAR_MIN..=newest).rev().collect();
    let initial = context! {
        make_slug => "porsche", make_name => "Porsche",
        model_slug => "911", model_name => "911",
        year => 2020, view => "front-3-4", color => "red", size => "small", format => "webp",
    };
    let limits = context! {
        per_minute => state.embeds.playground.per_minute,
        cold_per_day => state.embeds.playground.cold_per_day,
    };
    let ctx = context! { views, colors, sizes, formats, years, initial, limits };
    let mut r = page(&state, "playground.html", "playground", ctx, CSP);
    if r.status() == StatusCode::OK {
        let secure = if state.base_url.starts_with("https://") {
            "; Secure"
        } else {
            ""
        };
        let cookie = format!(
            "{}={}; Path=/images/; Max-Age={}; HttpOnly; SameSite=Lax{secure}",
            playground::COOKIE,
            state.embeds.cookies.issue(now_secs()),
            playground::LIFETIME_SECS
        );
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            r.headers_mut().insert(header::SET_COOKIE, v);
        }
    }
    r
}

#[derive(Serialize)]
struct PackRow {
    credits: i64,
    usd: i64,
    images: i64,
}

#[derive(Serialize)]
struct ChargeRow {
    operation: &'static str,
    credits: &'static str,
    note: &'static str,
}

/// Spec §1's table of charges, in the pricing page's words.
const CHARGES: [ChargeRow; 9] = [
    ChargeRow {
        operation: "GET /api/v1/images/car returning image bytes",
        credits: "1",
        note: "a cache hit and a cold render cost the same",
    },
    ChargeRow {
        operation: "GET /api/v1/images/car with response=url",
        credits: "1",
        note: "charged when the URL is made",
    },
    ChargeRow {
        operation: "GET /api/v1/images/car answered 304 Not Modified",
        credits: "0",
        note: "send If-None-Match with the ETag you have",
    },
    ChargeRow {
        operation: "GET /api/v1/images/spin (a 360° spin)",
        credits: "24",
        note: "one per frame, 24 angles; its manifest and a 304 are free",
    },
    ChargeRow {
        operation: "POST /api/v1/image-urls",
        credits: "1 per URL",
        note: "charged once, at creation",
    },
    ChargeRow {
        operation: "GET /api/v1/delivery/{token}",
        credits: "0",
        note: "any number of loads until the URL expires",
    },
    ChargeRow {
        operation: "GET /images/car.png with an API key",
        credits: "1",
        note: "the legacy embed endpoint",
    },
    ChargeRow {
        operation: "GET /images/car.png signed, mode=cached, playground or example",
        credits: "0",
        note: "free grants of the embed endpoint",
    },
    ChargeRow {
        operation: "Options, vehicles, resolve, account, feedback, events",
        credits: "0",
        note: "free helpers",
    },
];

/// `/pricing`: the packs, what each operation costs, what is free. The
/// target of a 402's `Link: </pricing>; rel=payment`.
pub async fn pricing(State(state): State<HttpState>) -> Response {
    let packs: Vec<PackRow> = PACKS
        .iter()
        .map(|p| PackRow {
            credits: p.credits,
            usd: p.cents / 100,
            images: p.credits / CREDITS_PER_IMAGE,
        })
        .collect();
    let free = [
        "Every account starts with 100 free credits",
        "304 Not Modified answers",
        "Loads of signed delivery URLs, until they expire",
        "Catalog browse and search, resolve, the options document",
        "Account balance and usage, feedback, telemetry events",
        "Renders that fail are refunded automatically; rate-limited requests are never billed",
    ];
    let ctx = context! { packs, charges => CHARGES, free, free_credits => FREE_CREDITS };
    page(&state, "pricing.html", "pricing", ctx, CSP)
}

/// `/docs`: the API reference, drawn by Redoc from `/api/v1/openapi.json`.
pub async fn docs(State(state): State<HttpState>) -> Response {
    let ctx = context! { guides => super::guides::nav() };
    page(&state, "docs.html", "docs", ctx, CSP_DOCS)
}

/// A page of the site from `template` with `ctx`, under the usual CSP.
pub fn render_page(state: &HttpState, template: &str, nav: &str, ctx: Value) -> Response {
    page(state, template, nav, ctx, CSP)
}

/// A documentation page at `path` in the site's layout, with the guides
/// in its docs bar; `body` is trusted HTML.
pub fn article(state: &HttpState, title: &str, path: &str, body: String) -> Response {
    let ctx = context! {
        title => title,
        current => path,
        guides => super::guides::nav(),
        body => Value::from_safe_string(body),
    };
    page(state, "article.html", "docs", ctx, CSP)
}

/// Whether a request's `Accept` prefers an HTML page to JSON: a browser's
/// navigation (`text/html,…,*/*;q=0.8`). `*/*`, no `Accept`, or JSON
/// listed at least as high as HTML is an API client's. Media ranges are
/// parsed by the `mime` crate.
pub fn prefers_html(headers: &HeaderMap) -> bool {
    let (mut html, mut json) = (0.0f32, 0.0f32);
    let ranges = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|range| range.trim().parse::<mime::Mime>().ok());
    for m in ranges {
        let q = m
            .get_param("q")
            .and_then(|q| q.as_str().parse::<f32>().ok())
            .unwrap_or(1.0);
        let (ty, sub) = (m.type_(), m.subtype());
        if (ty == mime::TEXT && sub == mime::HTML) || (ty == mime::APPLICATION && sub == "xhtml") {
            html = html.max(q);
        } else if ty == mime::APPLICATION
            && (sub == mime::JSON || sub == mime::STAR || sub == "problem")
        {
            json = json.max(q);
        }
    }
    html > 0.0 && html > json
}

/// The HTML page of an error status for a browser (404: no such page; 405:
/// the address takes other methods), in the site's layout with links home
/// and to the docs. The response leaves the problem safety net alone.
pub fn error_page(state: &HttpState, status: StatusCode) -> Response {
    let (title, detail) = match status {
        StatusCode::NOT_FOUND => (
            "Page not found",
            "There is no page at this address. It may have moved, or the link may be mistyped.",
        ),
        StatusCode::METHOD_NOT_ALLOWED => (
            "Method not allowed",
            "This address exists, but not for this kind of request. Go back and try again from the page.",
        ),
        _ => (
            status.canonical_reason().unwrap_or("Error"),
            "Something went wrong.",
        ),
    };
    let ctx = context! {
        status => status.as_u16(),
        title => title,
        detail => detail,
        guides => super::guides::nav(),
    };
    let mut r = page(state, "error.html", "error", ctx, CSP);
    if r.status() == StatusCode::OK {
        *r.status_mut() = status;
        r.extensions_mut().insert(super::middleware::KeepBody);
    }
    r
}

/// `/static/{*path}`: the pages' files. A URL carrying the current
/// `?v=` is immutable; without it, an hour.
pub async fn asset(
    State(state): State<HttpState>,
    Path(path): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let Some(file) = STATIC.get_file(&path) else {
        return ApiError::NotFound(format!("No static file {path:?}.")).into_response();
    };
    let etag = format!("\"{}\"", &state.pages.asset_version);
    let versioned = query.as_deref() == Some(&format!("v={}", state.pages.asset_version));
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    let mut r = if inm.is_some_and(|v| super::extract::if_none_match(v, &etag)) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = file.contents().into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(mime_of(&path)),
        );
        r
    };
    let h = r.headers_mut();
    h.insert(header::ETAG, super::images::header_value(&etag));
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if versioned {
            "public, max-age=31536000, immutable"
        } else {
            "public, max-age=3600"
        }),
    );
    r
}

fn mime_of(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        Some("txt") | Some("md") => "text/plain; charset=utf-8",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses_and_static_files_have_types() {
        let pages = Pages::new().unwrap();
        for name in [
            "layout.html",
            "home.html",
            "playground.html",
            "pricing.html",
            "docs.html",
            "signin.html",
            "signup.html",
            "reset.html",
            "notice.html",
            "dashboard.html",
            "credits.html",
            "dash_nav.html",
            "operator.html",
            "device.html",
            "sandbox_checkout.html",
            "sandbox_portal.html",
            "article.html",
            "error.html",
        ] {
            assert!(pages.env.get_template(name).is_ok(), "{name}");
        }
        let mut files = Vec::new();
        collect(&STATIC, &mut files);
        for f in files {
            let path = f.path().to_string_lossy();
            let known = mime_of(&path) != "application/octet-stream"
                || path.ends_with("LICENSE")
                || path.ends_with(".md");
            assert!(known, "no content type for {path}");
        }
    }

    #[test]
    fn browsers_prefer_html_and_api_clients_do_not() {
        let accepts = |value: Option<&str>| {
            let mut h = HeaderMap::new();
            if let Some(v) = value {
                h.insert(header::ACCEPT, HeaderValue::from_str(v).unwrap());
            }
            prefers_html(&h)
        };
        // Chromium's and Firefox's navigations.
        assert!(accepts(Some(
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8"
        )));
        assert!(accepts(Some(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        )));
        assert!(accepts(Some("text/html")));
        assert!(accepts(Some("application/json;q=0.5, text/html")));
        // API clients.
        assert!(!accepts(None));
        assert!(!accepts(Some("*/*")));
        assert!(!accepts(Some("application/json")));
        assert!(!accepts(Some("application/problem+json")));
        assert!(!accepts(Some("application/json, text/html")));
        assert!(!accepts(Some("text/html;q=0, */*")));
        assert!(!accepts(Some("image/webp,*/*")));
        assert!(!accepts(Some("nonsense")));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(5000), "5,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(-2500), "-2,500");
    }

    #[test]
    fn labels_read_well() {
        assert_eq!(label("front-3-4"), "Front ¾");
        assert_eq!(label("side-right"), "Side right");
        assert_eq!(label("burgundy"), "Burgundy");
    }
}
