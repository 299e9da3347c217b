//! The web face's state: the application's services ([`AppState`]) plus
//! what only HTTP needs (page templates, cookies, the options document,
//! the key cache, the MCP transport). Handlers that need only the services
//! take `State<AppState>` (axum's `FromRef`); the rest take
//! `State<HttpState>`, which reaches the services through `Deref`.

use std::sync::Arc;

use axum::extract::FromRef;

use crate::app::AppState;

/// Shared by every request: one pointer.
#[derive(Clone)]
pub struct HttpState(Arc<HttpShared>);

/// What [`HttpState`] points to.
pub struct HttpShared {
    pub app: AppState,
    /// The options document's `data`, built once.
    pub options: Arc<super::options::OptionsDocument>,
    /// Keys seen recently (see `http::auth::CachedAuth`); revocations
    /// evict from it.
    pub keys: Arc<crate::auth::KeyCache<Arc<super::auth::Principal>>>,
    /// The web pages' templates (`http::pages`).
    pub pages: super::pages::Pages,
    /// Pages for people: the cookie secret and cookies (`http::web`).
    pub web: super::web::Web,
    /// The MCP endpoint's transport (`http::mcp`), stateless.
    pub mcp: super::mcp::McpService,
}

impl HttpState {
    pub fn new(shared: HttpShared) -> HttpState {
        HttpState(Arc::new(shared))
    }
}

impl std::ops::Deref for HttpState {
    type Target = HttpShared;

    fn deref(&self) -> &HttpShared {
        &self.0
    }
}

/// The services behind the web face: `state.store`, `state.deliverer`, …
/// read through.
impl std::ops::Deref for HttpShared {
    type Target = AppState;

    fn deref(&self) -> &AppState {
        &self.app
    }
}

impl FromRef<HttpState> for AppState {
    fn from_ref(state: &HttpState) -> AppState {
        state.app.clone()
    }
}
