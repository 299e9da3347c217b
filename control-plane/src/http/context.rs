//! Per-request context (request id, base URL), set by the request middleware
//! in a task-local so that any error, however deep, can render a complete
//! problem document.

use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct RequestContext {
    pub request_id: String,
    pub base_url: Arc<str>,
}

tokio::task_local! {
    static CONTEXT: RequestContext;
}

/// Runs `fut` with `ctx` as the current request context.
pub async fn scope<F: std::future::Future>(ctx: RequestContext, fut: F) -> F::Output {
    CONTEXT.scope(ctx, fut).await
}

/// The current request's context; outside a request (CLI, tests) a fresh id
/// and an empty base URL.
pub fn current() -> RequestContext {
    CONTEXT
        .try_with(Clone::clone)
        .unwrap_or_else(|_| RequestContext {
            request_id: new_request_id(),
            base_url: Arc::from(""),
        })
}

/// Time-ordered, so the deliveries index on request ids grows at its right
/// edge instead of dirtying random pages on every charge.
pub fn new_request_id() -> String {
    format!("req_{}", crate::store::time_ordered_id().simple())
}

/// A request id the service chooses for a request it sends through its own
/// router (an MCP tool's API call), carried in the request's extensions,
/// which no client can set. It contains a `/`, which the client alphabet
/// lacks, so no client-chosen X-Request-Id can ever equal one: a reference
/// built on it (an idempotent call's charge) is the service's alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalRequestId(String);

impl InternalRequestId {
    /// A fresh id in `namespace` (letters only), such as `mcp/req_…`.
    pub fn new(namespace: &str) -> InternalRequestId {
        InternalRequestId(format!("{namespace}/{}", new_request_id()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A client-supplied request id is kept when it is 1–128 characters of
/// `A-Z a-z 0-9 . _ : -` (spec §2, X-Request-Id).
pub fn valid_client_request_id(raw: &str) -> bool {
    (1..=128).contains(&raw.len())
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_request_ids() {
        assert!(valid_client_request_id("abc-123_x:y.z"));
        assert!(valid_client_request_id(&"a".repeat(128)));
        assert!(!valid_client_request_id(&"a".repeat(129)));
        assert!(!valid_client_request_id(""));
        assert!(!valid_client_request_id("a b"));
        assert!(!valid_client_request_id("ä"));
        assert!(!valid_client_request_id("a/b"));
        let internal = InternalRequestId::new("mcp");
        assert!(internal.as_str().starts_with("mcp/req_"));
        assert!(!valid_client_request_id(internal.as_str()));
    }
}
