//! The HTTP layer: one module per resource (extract, call the domain,
//! respond). Only this layer knows about JSON shapes, headers and status codes.

pub mod accept;
pub mod account;
pub mod app;
pub mod auth;
pub mod billing;
pub mod body_clock;
pub mod context;
pub mod dashboard;
pub mod delivery;
pub mod device;
pub mod docs;
pub mod error;
pub mod events;
pub mod extract;
pub mod feedback;
pub mod flash;
pub mod guides;
pub mod health;
pub mod image_urls;
pub mod images;
pub mod legacy;
pub mod mcp;
pub mod metrics;
pub mod middleware;
pub mod nodes;
pub mod openapi;
pub mod operator;
pub mod options;
pub mod pages;
pub mod people;
pub mod rate;
pub mod resolve;
pub mod server;
pub mod spin;
pub mod state;
pub mod vehicles;
pub mod web;

use std::time::Duration;

use axum::Router;
use axum::http::{HeaderName, Method, header};
use axum::routing::{MethodRouter, get, post};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{Any, CorsLayer};

use self::error::ApiError;
use self::state::HttpState;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No key; callable from any web origin (CORS).
    Public,
    /// An API key in a header; not exposed to browsers through CORS.
    Keyed,
    /// Pages for people, signed in by a cookie: same-origin only (no CORS).
    Web,
}

/// Every route the service answers, in one table: the router is built from
/// it, and the OpenAPI test walks it to prove the document lists each one.
pub fn route_table() -> Vec<(&'static str, Access, MethodRouter<HttpState>)> {
    let mut table = routes();
    // The guides (`/docs/embeds`, `/docs/errors`, …): pages of docs/*.md.
    for (index, guide) in guides::GUIDES.iter().enumerate() {
        let handler = move |state| guides::page(state, index);
        table.push((guide.path, Access::Public, get(handler)));
    }
    table
}

fn routes() -> Vec<(&'static str, Access, MethodRouter<HttpState>)> {
    vec![
        ("/healthz", Access::Public, get(health::healthz)),
        ("/readyz", Access::Public, get(health::readyz)),
        ("/", Access::Public, get(pages::home)),
        ("/playground", Access::Public, get(pages::playground)),
        ("/pricing", Access::Public, get(pages::pricing)),
        (
            "/signin",
            Access::Web,
            get(people::signin_page).post(people::signin),
        ),
        (
            "/signup",
            Access::Web,
            get(people::signup_page).post(people::signup),
        ),
        ("/signout", Access::Web, post(people::signout)),
        ("/verify", Access::Web, get(people::verify)),
        (
            "/verify/resend",
            Access::Web,
            post(people::resend_verification),
        ),
        (
            "/reset",
            Access::Web,
            get(people::reset_page).post(people::reset),
        ),
        ("/dashboard", Access::Web, get(dashboard::page)),
        ("/dashboard/keys", Access::Web, post(dashboard::create_key)),
        (
            "/dashboard/keys/revoke",
            Access::Web,
            post(dashboard::revoke_key),
        ),
        (
            "/dashboard/partners",
            Access::Web,
            post(dashboard::create_partner),
        ),
        (
            "/dashboard/partners/revoke",
            Access::Web,
            post(dashboard::revoke_partner),
        ),
        (
            "/dashboard/credits",
            Access::Web,
            get(dashboard::credits_page).post(dashboard::buy),
        ),
        (
            "/dashboard/billing-portal",
            Access::Web,
            post(dashboard::portal),
        ),
        (
            "/billing/sandbox/checkout/{session}",
            Access::Web,
            get(billing::sandbox_checkout_page).post(billing::sandbox_pay),
        ),
        (
            "/billing/sandbox/portal/{token}",
            Access::Web,
            get(billing::sandbox_portal),
        ),
        ("/docs", Access::Public, get(pages::docs)),
        ("/static/{*path}", Access::Public, get(pages::asset)),
        (
            "/images/car.png",
            Access::Public,
            get(legacy::get).head(legacy::head),
        ),
        ("/api/v1/openapi.json", Access::Public, get(docs::openapi)),
        ("/api/v1/images/options", Access::Public, get(options::get)),
        ("/api/v1/vehicles", Access::Public, get(vehicles::get)),
        ("/api/v1/images/resolve", Access::Keyed, post(resolve::post)),
        ("/api/v1/account", Access::Keyed, get(account::get)),
        (
            "/api/v1/images/car",
            Access::Keyed,
            get(images::get_car).head(images::head_car),
        ),
        (
            "/api/v1/images/spin",
            Access::Keyed,
            get(spin::get).head(spin::head),
        ),
        ("/api/v1/image-urls", Access::Keyed, post(image_urls::post)),
        (
            "/api/v1/delivery/{token}",
            Access::Public,
            get(delivery::get).head(delivery::head),
        ),
        ("/api/v1/feedback", Access::Keyed, post(feedback::post)),
        ("/api/v1/events", Access::Public, post(events::post)),
        ("/api/auth/device/code", Access::Public, post(device::code)),
        (
            "/api/auth/device/token",
            Access::Public,
            post(device::token),
        ),
        (
            "/device",
            Access::Web,
            get(device::page).post(device::decide),
        ),
        (
            "/api/v1/billing/checkout",
            Access::Keyed,
            post(billing::checkout),
        ),
        (
            "/api/v1/billing/portal",
            Access::Keyed,
            post(billing::portal),
        ),
        (
            "/api/v1/billing/webhook",
            Access::Public,
            post(billing::webhook),
        ),
        (mcp::PATH, Access::Keyed, post(mcp::endpoint)),
        ("/metrics", Access::Public, get(metrics::get)),
    ]
}

/// Headers a browser script may read from our responses.
const EXPOSED_HEADERS: [&str; 17] = [
    "etag",
    "x-request-id",
    "x-credits-charged",
    "x-credits-remaining",
    "x-image-source",
    "x-image-width",
    "x-image-height",
    "x-color-match",
    "x-spin-frames",
    "x-spin-frame-size",
    "x-spin-grid",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "retry-after",
    "content-location",
    "link",
];

fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::HEAD, Method::POST, Method::OPTIONS])
        .allow_headers([
            header::CONTENT_TYPE,
            header::IF_NONE_MATCH,
            HeaderName::from_static("x-request-id"),
        ])
        .expose_headers(EXPOSED_HEADERS.map(HeaderName::from_static))
        .max_age(Duration::from_secs(86_400))
}

/// How [`router`] builds the public router.
#[derive(Debug, Clone, Copy)]
pub struct RouterOptions {
    /// A request body that pauses too long, or takes too long in all, is a
    /// 408.
    pub body_clocks: body_clock::BodyClocks,
    /// Whether `/metrics` is served here (false when `metrics_listen` is set).
    pub metrics: bool,
}

impl Default for RouterOptions {
    fn default() -> Self {
        RouterOptions {
            body_clocks: body_clock::BodyClocks {
                pause: Duration::from_secs(30),
                total: Duration::from_secs(60),
            },
            metrics: true,
        }
    }
}

/// The public router. MCP tool calls are answered by the same routes, in
/// process: the router without the MCP route is built once and handed to
/// the MCP endpoint.
pub fn router(
    state: HttpState,
    extra: Option<Router<HttpState>>,
    options: RouterOptions,
) -> Router {
    let api = build_router(state.clone(), extra.clone(), options, None);
    build_router(state, extra, options, Some(mcp::Api::new(api)))
}

fn build_router(
    state: HttpState,
    extra: Option<Router<HttpState>>,
    options: RouterOptions,
    mcp: Option<mcp::Api>,
) -> Router {
    let mut router = extra.unwrap_or_default();
    for (path, access, method_router) in route_table() {
        if path == "/metrics" && !options.metrics {
            continue;
        }
        let method_router = if path == mcp::PATH {
            match &mcp {
                Some(api) => method_router.layer(axum::Extension(api.clone())),
                None => continue,
            }
        } else {
            method_router
        };
        let method_router = match access {
            Access::Public => method_router.layer(cors()),
            Access::Keyed | Access::Web => method_router,
        };
        router = router.route(path, method_router);
    }
    // The render nodes' API: for the operator's nodes, not in the table
    // the public OpenAPI document is checked against.
    router = router.merge(nodes::router());
    // The dashboard's operator page: for the deployment's operators, not
    // part of the public interface either.
    router = router.merge(operator::router());
    let router = router
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            options.body_clocks,
            body_clock::clock_bodies,
        ));
    with_middleware(router, state)
}

/// The operators' router of a separate `metrics_listen` address.
pub fn metrics_router(state: HttpState) -> Router {
    let router = Router::new()
        .route("/metrics", get(metrics::get))
        .fallback(not_found);
    with_middleware(router, state)
}

/// Request ids, the problem safety net and panic capture, for every router.
fn with_middleware(router: Router<HttpState>, state: HttpState) -> Router {
    router
        .layer(CatchPanicLayer::custom(middleware::panic_response))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::request_context,
        ))
        .with_state(state)
}

async fn not_found() -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut r =
        ApiError::NotFound("No such endpoint. See /docs for the API.".into()).into_response();
    r.extensions_mut().insert(middleware::Unrouted);
    r
}
