//! The remote MCP endpoint, `POST /api/mcp` (spec §4; docs/mcp.md): a Model
//! Context Protocol server over Streamable HTTP, built on the official Rust
//! SDK (`rmcp`), stateless so that any replica answers any request.
//!
//! Each tool is the API it mirrors: a tool call is answered by sending the
//! matching request through the service's own router (built once, without
//! this route: [`Api`]), in process, with the caller's key. The router and
//! the services ride in the request's extensions, so the MCP service holds
//! no state of its own. Validation, billing, rate limits, idempotency and
//! problem documents are the API's, with no second implementation to drift.
//! A failing call comes back as a tool error carrying the problem document.
//! No result carries the key; delivery tokens appear only inside URLs the
//! agent asked for.

mod idempotent;
mod tools;

use std::sync::Arc;

use axum::Extension;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use tower::ServiceExt;

use crate::http::auth::{cached_principal, presented_key};
use crate::http::error::ApiError;
use crate::http::rate;
use crate::http::state::HttpState;

/// Where the endpoint is served.
pub const PATH: &str = "/api/mcp";

/// Largest MCP request body (a tool call with 50 images is well under).
pub const BODY_LIMIT: usize = 256 * 1024;

/// What every session is told first (the client shows it to the model).
pub const INSTRUCTIONS: &str = "Studio-style vehicle renders by make, model, year, colour and view, metered in credits \
(1 credit per delivered image; $1 buys 1,000 credits). Workflow: resolve_vehicle turns a description into exact \
parameters (free); search_vehicles and browse_catalog find makes, models and years (free); get_image returns the \
image itself (1 credit); create_image_urls makes browser-safe signed URLs (1 credit per URL, free to load until they \
expire) for pages, emails or other agents; get_account shows the balance (free); leave_feedback reports a bad render \
with the request_id get_image returned (free). Retry rule: on a timeout or a 5xx, call a billed tool again with the \
same idempotency_key and you are never billed twice; never retry a 400, 402 or 404 unchanged; on 429 or 503 wait \
Retry-After seconds. A cold render of a never-rendered variant can take up to two minutes. Never put the API key in \
a prompt, a URL or a tool argument.";

/// The rmcp service behind `/api/mcp`, built once.
pub type McpService = StreamableHttpService<McpServer, NeverSessionManager>;

pub fn service(base_url: &str) -> McpService {
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    if let Some(authority) = base_url.split_once("://").map(|(_, rest)| rest) {
        let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
        config = config.with_allowed_hosts([
            authority.to_owned(),
            host.to_owned(),
            "localhost".into(),
            "127.0.0.1".into(),
            "::1".into(),
        ]);
    }
    StreamableHttpService::new(
        || Ok(McpServer),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// One MCP server: stateless; what it needs comes with each request.
#[derive(Debug, Clone, Copy)]
pub struct McpServer;

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "vehicle-image-service",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::catalog()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let parts = context
            .extensions
            .get::<axum::http::request::Parts>()
            .ok_or_else(|| ErrorData::internal_error("no HTTP request", None))?;
        let state = parts
            .extensions
            .get::<HttpState>()
            .ok_or_else(|| ErrorData::internal_error("no application state", None))?;
        let routes = parts
            .extensions
            .get::<Api>()
            .ok_or_else(|| ErrorData::internal_error("no API router", None))?;
        let api = Caller {
            router: &routes.router,
            authorization: parts.headers.get(header::AUTHORIZATION).cloned(),
            api_key: parts.headers.get("x-api-key").cloned(),
        };
        let arguments = request.arguments.unwrap_or_default();
        tools::call(&api, state, &request.name, arguments)
            .await
            .map(CallToolResponse::from)
    }
}

/// The service's own routes (all but this endpoint), built once with the
/// router and handed to the endpoint.
#[derive(Clone)]
pub struct Api {
    router: axum::Router,
}

impl Api {
    pub fn new(router: axum::Router) -> Api {
        Api { router }
    }
}

/// The service's own API, called in process with the caller's credentials.
pub struct Caller<'a> {
    router: &'a axum::Router,
    authorization: Option<HeaderValue>,
    api_key: Option<HeaderValue>,
}

/// One answer of the API.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: bytes::Bytes,
}

impl Caller<'_> {
    /// The key the caller presented (never shown in a result).
    pub fn raw_key(&self) -> Option<String> {
        if let Some(v) = self.authorization.as_ref().and_then(|v| v.to_str().ok()) {
            let (scheme, rest) = v.trim().split_once(' ').unwrap_or((v.trim(), ""));
            if scheme.eq_ignore_ascii_case("bearer") {
                return Some(rest.trim().to_owned());
            }
        }
        self.api_key
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_owned())
    }

    pub async fn call(
        &self,
        method: axum::http::Method,
        path_and_query: &str,
        json_body: Option<&serde_json::Value>,
        extra: &[(&str, String)],
    ) -> Result<Reply, ErrorData> {
        self.call_as(None, method, path_and_query, json_body, extra)
            .await
    }

    /// [`Api::call`], under a request id the service chose (`request_id`).
    pub async fn call_as(
        &self,
        request_id: Option<&crate::http::context::InternalRequestId>,
        method: axum::http::Method,
        path_and_query: &str,
        json_body: Option<&serde_json::Value>,
        extra: &[(&str, String)],
    ) -> Result<Reply, ErrorData> {
        let mut builder = axum::http::Request::builder()
            .method(method)
            .uri(path_and_query)
            .header(header::ACCEPT, "*/*");
        if let Some(v) = &self.authorization {
            builder = builder.header(header::AUTHORIZATION, v.clone());
        }
        if let Some(v) = &self.api_key {
            builder = builder.header("x-api-key", v.clone());
        }
        for (name, value) in extra {
            builder = builder.header(*name, value.as_str());
        }
        let body = match json_body {
            Some(v) => {
                builder = builder.header(header::CONTENT_TYPE, "application/json");
                Body::from(v.to_string())
            }
            None => Body::empty(),
        };
        let mut request = builder
            .body(body)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        if let Some(id) = request_id {
            request.extensions_mut().insert(id.clone());
        }
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, 64 * 1024 * 1024)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(Reply {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    }
}

/// `POST /api/mcp` (and the other methods of the transport): the key, the
/// browser origin and the per-key rate limit at the door, then rmcp.
pub async fn endpoint(
    State(state): State<HttpState>,
    Extension(api): Extension<Api>,
    req: Request,
) -> Response {
    let (parts, body) = req.into_parts();
    let Some(raw) = presented_key(&parts) else {
        return ApiError::Unauthorized(
            "The MCP endpoint needs an API key: send Authorization: Bearer <API_KEY> (or x-api-key)."
                .into(),
        )
        .into_response();
    };
    let principal = match cached_principal(&state, raw).await {
        Ok((principal, _)) => principal,
        Err(e) => return e.into_response(),
    };
    if let Some(origin) = parts.headers.get(header::ORIGIN)
        && origin.to_str().ok() != Some(state.base_url.as_ref())
    {
        return ApiError::Forbidden(format!(
            "Requests from the browser origin {:?} are not accepted; the MCP endpoint answers {} and non-browser clients.",
            origin.to_str().unwrap_or("(not text)"),
            state.base_url
        ))
        .into_response();
    }
    let bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(_) => {
            return ApiError::PayloadTooLarge {
                limit_bytes: BODY_LIMIT,
            }
            .into_response();
        }
    };
    // A tool call is counted by the API request it makes; anything else
    // (initialize, tools/list, notifications) counts here.
    let message = if parts.method == axum::http::Method::POST {
        match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(v) => Some(v),
            // rmcp would answer 415; the API's rule for a body that does
            // not parse is a 400 naming it.
            Err(e) => {
                return ApiError::bad_request(
                    "body",
                    format!(
                        "must be a JSON-RPC 2.0 request or batch in JSON (line {}, column {})",
                        e.line(),
                        e.column()
                    ),
                )
                .into_response();
            }
        }
    } else {
        None
    };
    let is_tool_call = message.is_some_and(|v| v["method"] == "tools/call");
    let decision = if is_tool_call {
        None
    } else {
        let (decision, admitted) = rate::check_key(&state, &principal).await;
        if let Err(refused) = admitted {
            return rate::with_headers(refused.into_response(), &decision);
        }
        Some(decision)
    };
    let mut req = Request::from_parts(parts, Body::from(bytes));
    // A client that names neither answer type (curl, a plain HTTP library)
    // takes what the transport sends: JSON here.
    let accepts = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/json") || v.contains("text/event-stream"));
    if !accepts {
        req.headers_mut().insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
    }
    req.extensions_mut().insert(state.clone());
    req.extensions_mut().insert(api);
    let response = match state.mcp.clone().oneshot(req).await {
        Ok(r) => r.map(Body::new),
        Err(never) => match never {},
    };
    match decision {
        Some(d) => rate::with_headers(response, &d),
        None => response,
    }
}
