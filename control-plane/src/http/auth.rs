//! The API-key extractor every authenticated endpoint uses (spec §5).
//!
//! `Auth<AccountRead>` in a handler's arguments means: a live key from
//! `Authorization: Bearer` or `x-api-key`, carrying the `account:read` scope.

use std::marker::PhantomData;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use crate::auth::{ApiKey, Scope, Scopes};
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::store::KeyRecord;

/// The caller behind a valid, unrevoked key.
#[derive(Debug, Clone)]
pub struct Principal {
    pub key: KeyRecord,
    pub scopes: Scopes,
}

/// Which scope an endpoint requires.
impl Principal {
    /// Who pays for what this key asks for, under `request_id`.
    pub fn payer<'a>(&'a self, request_id: &'a str) -> crate::store::Payer<'a> {
        crate::store::Payer {
            account_id: &self.key.account_id,
            key_id: &self.key.id,
            request_id,
        }
    }
}

pub trait RequiredScope: Send + Sync + 'static {
    const SCOPE: Option<Scope>;
}

#[derive(Debug)]
pub struct AnyScope;
#[derive(Debug)]
pub struct ImagesRead;
#[derive(Debug)]
pub struct AccountRead;
#[derive(Debug)]
pub struct BillingWrite;

impl RequiredScope for AnyScope {
    const SCOPE: Option<Scope> = None;
}
impl RequiredScope for ImagesRead {
    const SCOPE: Option<Scope> = Some(Scope::ImagesRead);
}
impl RequiredScope for AccountRead {
    const SCOPE: Option<Scope> = Some(Scope::AccountRead);
}
impl RequiredScope for BillingWrite {
    const SCOPE: Option<Scope> = Some(Scope::BillingWrite);
}

#[derive(Debug)]
pub struct Auth<S: RequiredScope>(pub Principal, pub PhantomData<S>);

/// Query parameters that look like a key; never honoured on /api/v1.
const QUERY_KEY_NAMES: [&str; 4] = ["key", "api_key", "apikey", "access_token"];

/// The raw key a request presents in its headers, if any.
pub fn presented_key(parts: &Parts) -> Option<&str> {
    if let Some(value) = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        let (scheme, rest) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
        if scheme.eq_ignore_ascii_case("bearer") {
            return Some(rest.trim());
        }
    }
    parts
        .headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// Looks the key up and checks it is live; no scope check.
pub async fn authenticate(state: &HttpState, raw: &str) -> Result<Principal, ApiError> {
    let Some(key) = ApiKey::parse(raw) else {
        return Err(ApiError::Unauthorized("The API key is not valid.".into()));
    };
    let record = state
        .store
        .key_by_hash(&key.hash())
        .await?
        .ok_or_else(|| ApiError::Unauthorized("The API key is not valid.".into()))?;
    if record.revoked_at.is_some() {
        return Err(ApiError::Unauthorized(
            "The API key has been revoked.".into(),
        ));
    }
    // A disputed payment freezes the account's keys (docs/billing.md); the
    // dispute announces them on the revocation feed, so no replica answers
    // from a key it cached before.
    if record.account_disputes > 0 {
        return Err(ApiError::Forbidden(super::error::FROZEN.into()));
    }
    let scopes = Scopes::parse(&record.scopes).map_err(ApiError::internal)?;
    state.web.key_use.used(state, &record.id);
    Ok(Principal {
        key: record,
        scopes,
    })
}

/// Records when keys are used, for the dashboard's "last used": at most
/// once a minute per key in this process, as one conditional UPDATE on a
/// task of its own, never on the request's path. Bounded: past its entry
/// cap the least used keys are forgotten (they are recorded again, which
/// the UPDATE's own minute rule keeps cheap).
#[derive(Debug)]
pub struct KeyUse {
    recorded: quick_cache::sync::Cache<String, std::time::Instant>,
}

/// How often one key's use is written, at most.
const KEY_USE_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

impl Default for KeyUse {
    fn default() -> Self {
        KeyUse {
            recorded: quick_cache::sync::Cache::new(100_000),
        }
    }
}

impl KeyUse {
    /// Key `id` authenticated a request now.
    pub fn used(&self, state: &crate::app::AppState, id: &str) {
        if self
            .recorded
            .get(id)
            .is_some_and(|at| at.elapsed() < KEY_USE_EVERY)
        {
            return;
        }
        self.recorded
            .insert(id.to_owned(), std::time::Instant::now());
        let store = std::sync::Arc::clone(&state.store);
        let id = id.to_owned();
        let at = crate::store::now_millis();
        tokio::spawn(async move {
            if let Err(e) = store.record_key_use(&id, at).await {
                tracing::warn!(key.id = %id, error = %e, "recording a key's use failed");
            }
        });
    }
}

/// 403 naming the scope when the endpoint needs one the key lacks.
fn require_scope<S: RequiredScope>(principal: &Principal) -> Result<(), ApiError> {
    match S::SCOPE {
        Some(scope) if !principal.scopes.contains(scope) => {
            Err(ApiError::MissingScope(scope.as_str()))
        }
        _ => Ok(()),
    }
}

/// Like [`Auth`], but served from the key cache when the key was seen in the
/// last minute. Only for handlers that honour the cache's contract: the
/// charge re-checks the key in its transaction, and every unbilled answer is
/// preceded by [`confirm`].
#[derive(Debug)]
pub struct CachedAuth<S: RequiredScope>(
    pub std::sync::Arc<Principal>,
    pub String,
    pub PhantomData<S>,
);

impl<S: RequiredScope> FromRequestParts<HttpState> for CachedAuth<S> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &HttpState) -> Result<Self, ApiError> {
        if let Some(raw) = presented_key(parts) {
            let (principal, hash) = cached_principal(state, raw).await?;
            require_scope::<S>(&principal)?;
            return Ok(CachedAuth(principal, hash, PhantomData));
        }
        // No key: Auth says why in the API's words.
        let Auth(..) = Auth::<S>::from_request_parts(parts, state).await?;
        Err(ApiError::internal("a request without a key authenticated"))
    }
}

/// The principal behind `raw` from the key cache, else the database (then
/// cached), with its hash; no scope check. Same contract as [`CachedAuth`].
pub async fn cached_principal(
    state: &HttpState,
    raw: &str,
) -> Result<(std::sync::Arc<Principal>, String), ApiError> {
    let Some(key) = ApiKey::parse(raw) else {
        return Err(ApiError::Unauthorized("The API key is not valid.".into()));
    };
    let hash = key.hash();
    if let Some(principal) = state.keys.get(&hash) {
        state.web.key_use.used(state, &principal.key.id);
        return Ok((principal, hash));
    }
    let principal = std::sync::Arc::new(authenticate(state, raw).await?);
    state
        .keys
        .insert(hash.clone(), std::sync::Arc::clone(&principal));
    Ok((principal, hash))
}

/// 403 naming `images:read` when the key lacks it.
pub fn require_images_read(principal: &Principal) -> Result<(), ApiError> {
    require_scope::<ImagesRead>(principal)
}

/// Confirms against the database that a cached key is still live; a revoked
/// key leaves the cache and answers 401.
pub async fn confirm(state: &HttpState, principal: &Principal, hash: &str) -> Result<(), ApiError> {
    let record = state.store.key_by_id(&principal.key.id).await?;
    if record.as_ref().is_none_or(|r| r.revoked_at.is_some()) {
        state.keys.forget(hash);
        return Err(ApiError::Unauthorized(
            "The API key has been revoked.".into(),
        ));
    }
    if record.is_some_and(|r| r.account_disputes > 0) {
        state.keys.forget(hash);
        return Err(ApiError::Forbidden(super::error::FROZEN.into()));
    }
    Ok(())
}

impl<S: RequiredScope> FromRequestParts<HttpState> for Auth<S> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &HttpState) -> Result<Self, ApiError> {
        let Some(raw) = presented_key(parts) else {
            let in_query = parts.uri.query().is_some_and(|q| {
                q.split('&')
                    .filter_map(|pair| pair.split('=').next())
                    .any(|name| QUERY_KEY_NAMES.contains(&name))
            });
            let message = if in_query {
                "API keys in the query string are not accepted; send Authorization: Bearer <API_KEY>."
            } else {
                "An API key is required: send Authorization: Bearer <API_KEY> (or x-api-key)."
            };
            return Err(ApiError::Unauthorized(message.into()));
        };
        let principal = authenticate(state, raw).await?;
        require_scope::<S>(&principal)?;
        Ok(Auth(principal, PhantomData))
    }
}

/// A revoked key leaves the key cache of every replica (`revocations.rs`).
impl crate::revocations::RevocationSink for crate::auth::KeyCache<std::sync::Arc<Principal>> {
    fn revoked(&self, kind: crate::store::RevokedKind, subject_id: &str) {
        if kind == crate::store::RevokedKind::Key {
            self.forget_where(|p| p.key.id == subject_id);
        }
    }
}
