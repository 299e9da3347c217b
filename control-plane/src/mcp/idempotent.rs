//! `get_image` with an `idempotency_key` (Stripe's rule: the same key with
//! the same arguments within 24 hours answers the first result again and
//! never bills twice; with other arguments it is a conflict).
//!
//! An image charge is its ledger row, and its reference is the request id,
//! so the request id of a keyed call is derived from the account and the
//! key (`idem-<digest>`): the first charge under it is the call's record.
//! A retry finds that charge and answers the same image through the free
//! `mode=cached` path. Two copies of one call racing on two replicas can
//! both charge; each then settles: every charge under the reference but the
//! first is refunded (at most once, by the ledger's unique `refund_of`).

use rmcp::ErrorData;

use super::Api;
use crate::app::AppState;
use crate::http::auth::cached_principal;
use crate::store::{DeliveryRecord, now_millis};

/// How long an idempotency key holds.
const WINDOW_MS: i64 = 24 * 60 * 60 * 1000;

pub enum Prepared {
    /// No charge yet under this key: charge with this request id.
    Fresh(String),
    /// Already charged for these arguments: answer it again, free.
    Replay {
        reference: String,
        canonical: String,
    },
    /// Already used with other arguments.
    Conflict,
    /// The key or the arguments are not valid: the API call will say why.
    Unchecked,
}

fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

async fn account(api: &Api<'_>, state: &AppState) -> Option<String> {
    let raw = api.raw_key()?;
    cached_principal(state, &raw)
        .await
        .ok()
        .map(|(p, _)| p.key.account_id.clone())
}

fn reference(account: &str, idem: &str) -> String {
    format!("idem-{}", super::tools::digest(&[account, idem]))
}

/// Live charges under `reference` for `account`, oldest first.
async fn charges(
    state: &AppState,
    account: &str,
    reference: &str,
) -> Result<Vec<DeliveryRecord>, ErrorData> {
    let since = now_millis() - WINDOW_MS;
    Ok(state
        .store
        .deliveries_by_request_id(reference)
        .await
        .map_err(internal)?
        .into_iter()
        .filter(|d| d.account_id == account && d.created_at >= since && d.refunded_at.is_none())
        .collect())
}

pub async fn prepare(
    api: &Api<'_>,
    state: &AppState,
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
    let reference = reference(&account, idem);
    let Some(first) = charges(state, &account, &reference)
        .await?
        .into_iter()
        .next()
    else {
        return Ok(Prepared::Fresh(reference));
    };
    let same = first.variant == resolved.variant.to_string()
        && first.width == Some(i64::from(resolved.width))
        && first.height == Some(i64::from(resolved.height))
        && first.format.as_deref() == Some(resolved.format.id());
    Ok(if same {
        Prepared::Replay {
            reference,
            canonical: resolved.canonical_query(),
        }
    } else {
        Prepared::Conflict
    })
}

/// After a charge under `idem`: refunds every charge but the first under
/// its reference. True when there was more than one (this call may have
/// been the duplicate).
pub async fn settle_duplicates(
    api: &Api<'_>,
    state: &AppState,
    idem: &str,
) -> Result<bool, ErrorData> {
    let Some(account) = account(api, state).await else {
        return Ok(false);
    };
    let live = charges(state, &account, &reference(&account, idem)).await?;
    for duplicate in live.iter().skip(1) {
        state
            .deliverer
            .ledger
            .refund_delivery(duplicate.id, "duplicate of an idempotent get_image")
            .await
            .map_err(internal)?;
    }
    Ok(live.len() > 1)
}

/// The caller's balance now.
pub async fn balance(api: &Api<'_>, state: &AppState) -> Result<i64, ErrorData> {
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
