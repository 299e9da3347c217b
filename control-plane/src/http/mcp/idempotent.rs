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
use crate::delivery::idempotent::{Claim, Rules};
use crate::http::auth::cached_principal;
use crate::http::context::InternalRequestId;
use crate::http::state::HttpState;

/// How long a call waits for another call with the same key.
pub const WAIT: Duration = Duration::from_secs(60);
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
            .deliverer
            .release(&self.account, &self.key, self.request_id.as_str())
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
    let mine = InternalRequestId::new("mcp");
    let rules = Rules {
        wait: WAIT,
        abandoned_ms: ABANDONED_MS,
        replay_needs_image: true,
    };
    let claim = state
        .deliverer
        .claim(&account, idem, &resolved, mine.as_str(), rules)
        .await
        .map_err(internal)?;
    Ok(match claim {
        Claim::Fresh => Prepared::Fresh(Claimed {
            account,
            key: idem.to_owned(),
            request_id: mine,
        }),
        Claim::Replay { reference } => Prepared::Replay {
            reference,
            canonical: resolved.canonical_query(),
        },
        Claim::Conflict => Prepared::Conflict,
        Claim::InProgress => Prepared::InProgress,
    })
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
