//! `get_image` with an `idempotency_key` (Stripe's rule: the same key with
//! the same arguments within 24 hours answers the first result again and
//! never bills twice; with other arguments it is a conflict).
//!
//! An image's credit is reserved (charged) before a cold render and
//! refunded if the render fails, so the key is claimed
//! before the work starts (`call_claims`), under a request id of the call's
//! own that no client can choose ([`InternalRequestId`]); the call's charge
//! carries that id as its ledger reference. Exactly one call per key ever
//! charges, and nothing here refunds anything:
//! - the key is free: this call claims it, and charges;
//! - the claim's charge and its image exist: the same arguments are answered
//!   again for free (through `mode=cached`), other arguments are a conflict;
//! - the claim has no charge yet: another call with this key is working.
//!   This one waits for it (up to [`WAIT`]) and then answers it again; if
//!   that call fails it releases the key and this one claims it; a claim
//!   left without a charge for [`ABANDONED_MS`] (a replica died mid-call)
//!   is taken over. Past the wait, the caller is told to call again.

use std::time::Duration;

use rmcp::ErrorData;

use super::Caller;
use crate::http::auth::cached_principal;
use crate::http::context::InternalRequestId;
use crate::http::state::HttpState;
use crate::store::{CallClaim, now_millis};

/// How long a call waits for another call with the same key.
pub const WAIT: Duration = Duration::from_secs(60);
/// How often a waiting call looks again.
const POLL: Duration = Duration::from_millis(250);
/// A claim with no charge this old belongs to a call that died: longer
/// than any call lives (a cold render waits at most `[render]
/// job_timeout_secs`, 2 minutes by default).
pub const ABANDONED_MS: i64 = 15 * 60 * 1000;

pub enum Prepared {
    /// This call holds the key: call the API under its request id, then
    /// [`Claimed::finish`].
    Fresh(Claimed),
    /// Already charged for these arguments: answer it again, free.
    Replay {
        reference: String,
        canonical: String,
    },
    /// Already used with other arguments.
    Conflict,
    /// Another call with this key is still working after [`WAIT`].
    InProgress,
    /// The key or the arguments are not valid: the API call will say why.
    Unchecked,
}

/// The key, held by this call.
pub struct Claimed {
    account: String,
    key: String,
    pub request_id: InternalRequestId,
}

impl Claimed {
    /// After the API call: a call that charged keeps the key (its charge is
    /// the key's record); one that did not gives it up for a retry.
    pub async fn finish(self, state: &HttpState, charged: bool) -> Result<(), ErrorData> {
        if charged {
            return Ok(());
        }
        state
            .store
            .release_call(&self.account, &self.key, self.request_id.as_str())
            .await
            .map_err(internal)
    }
}

fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

async fn account(api: &Caller<'_>, state: &HttpState) -> Option<String> {
    let raw = api.raw_key()?;
    cached_principal(state, &raw)
        .await
        .ok()
        .map(|(p, _)| p.key.account_id.clone())
}

/// Whether the claim's call has charged (and not been refunded since).
async fn charged(state: &HttpState, account: &str, claim: &CallClaim) -> Result<bool, ErrorData> {
    Ok(state
        .store
        .deliveries_by_request_id(&claim.request_id)
        .await
        .map_err(internal)?
        .iter()
        .any(|d| d.account_id == account && d.refunded_at.is_none()))
}

pub async fn prepare(
    api: &Caller<'_>,
    state: &HttpState,
    idem: &str,
    query: &str,
) -> Result<Prepared, ErrorData> {
    let Some(account) = account(api, state).await else {
        return Ok(Prepared::Unchecked);
    };
    let Ok((params, _)) = crate::http::images::parse_query(Some(query)) else {
        return Ok(Prepared::Unchecked);
    };
    let Ok(resolved) = state.deliverer.resolve(state.catalog, &params) else {
        return Ok(Prepared::Unchecked);
    };
    let fingerprint = format!(
        "{} {}x{} {}",
        resolved.variant,
        resolved.width,
        resolved.height,
        resolved.format.id()
    );
    let mine = InternalRequestId::new("mcp");
    let claimed = |request_id: InternalRequestId| {
        Prepared::Fresh(Claimed {
            account: account.clone(),
            key: idem.to_owned(),
            request_id,
        })
    };
    let give_up_at = tokio::time::Instant::now() + WAIT;
    loop {
        let held = state
            .store
            .claim_call(&account, idem, &fingerprint, mine.as_str())
            .await
            .map_err(internal)?;
        let Some(held) = held else {
            return Ok(claimed(mine));
        };
        if held.fingerprint != fingerprint {
            return Ok(Prepared::Conflict);
        }
        // A delivery reserves its credit before a cold render
        // (docs/ledger.md), so a charge can exist before its image does:
        // replay only once the image is there too; until then the call is
        // still at work (if it fails, its charge is refunded and the key
        // released).
        if charged(state, &account, &held).await? && state.deliverer.is_cached(&resolved).await {
            return Ok(Prepared::Replay {
                reference: held.request_id,
                canonical: resolved.canonical_query(),
            });
        }
        if now_millis() - held.created_at > ABANDONED_MS {
            if state
                .store
                .retake_call(&account, idem, &held.request_id, mine.as_str())
                .await
                .map_err(internal)?
            {
                return Ok(claimed(mine));
            }
            continue;
        }
        if tokio::time::Instant::now() >= give_up_at {
            return Ok(Prepared::InProgress);
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The caller's balance now.
pub async fn balance(api: &Caller<'_>, state: &HttpState) -> Result<i64, ErrorData> {
    let Some(account) = account(api, state).await else {
        return Ok(0);
    };
    Ok(state
        .deliverer
        .ledger
        .balance(&account)
        .await
        .map_err(internal)?
        .unwrap_or(0))
}
