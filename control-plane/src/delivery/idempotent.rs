//! Idempotent image deliveries: a request that names an idempotency key
//! (HTTP `Idempotency-Key` or a client's `X-Request-Id` on
//! `GET /api/v1/images/car`; MCP `get_image`'s `idempotency_key`) and is
//! retried within 24 hours is never charged twice, on any replica
//! (docs/ledger.md, "Retries are not paid twice").
//!
//! The key is claimed in the database (`call_claims`, primary key account +
//! key) before the delivery charges; the claiming request's id is its
//! charge's ledger reference. A later request with the key reads the
//! claim, and:
//! - with other parameters, it is a conflict;
//! - the claim's charge stands (not refunded): the request was paid for,
//!   the image is served again for free (a replay);
//! - the claim's charge was refunded (its delivery failed) or the claim is
//!   abandoned (no charge after [`Rules::abandoned_ms`]: the request died
//!   before it charged): this request takes the claim over and pays;
//! - no charge yet: the claiming request is still at work; wait for it
//!   up to [`Rules::wait`], then say it is in progress.

use std::time::Duration;

use super::{Deliverer, Resolved};
use crate::store::{CallClaim, StoreError, now_millis};

/// What a keyed request does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This request holds the key: deliver and charge as usual, under the
    /// request id it claimed with; release the key if nothing was charged.
    Fresh,
    /// Already paid for by the request `reference`: serve it again, free.
    Replay { reference: String },
    /// The key was used with other parameters within 24 hours.
    Conflict,
    /// The request holding the key is still at work after [`Rules::wait`].
    InProgress,
}

/// How long a keyed request waits for the one holding its key.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// How long to wait for the holder's charge or image.
    pub wait: Duration,
    /// A claim with no charge this old belongs to a request that died.
    pub abandoned_ms: i64,
    /// Replay only once the image exists too (MCP replays through the
    /// cached-only legacy path; HTTP derives it, free, from the source).
    pub replay_needs_image: bool,
}

/// How often a waiting request looks again.
const POLL: Duration = Duration::from_millis(250);
/// Replicas' clocks differ: a claim's charge is the one written after the
/// claim, give or take this much (an older charge under the same client
/// request id is a request of another day).
const CLOCK_SLACK_MS: i64 = 60_000;

/// What an idempotency key asks for: the same key with another variant,
/// size or format is a conflict.
pub fn fingerprint(r: &Resolved) -> String {
    format!(
        "{} {}x{} {}",
        r.variant,
        r.width,
        r.height,
        r.format_choice()
    )
}

/// The state of the claim's charge.
enum Paid {
    /// Charged and not refunded.
    Yes,
    /// Charged, then refunded: the request failed.
    Refunded,
    /// No charge yet.
    No,
}

impl Deliverer {
    async fn paid(&self, account: &str, claim: &CallClaim) -> Result<Paid, StoreError> {
        let charges = self
            .store
            .deliveries_by_request_id(&claim.request_id)
            .await?;
        let mine = charges.iter().filter(|d| {
            d.account_id == account && d.created_at >= claim.created_at - CLOCK_SLACK_MS
        });
        let mut state = Paid::No;
        for d in mine {
            if d.refunded_at.is_none() {
                return Ok(Paid::Yes);
            }
            state = Paid::Refunded;
        }
        Ok(state)
    }

    /// Claims `key` of `account` for the request `mine` (the id its charge
    /// will carry), or says what the earlier request with that key did.
    pub async fn claim(
        &self,
        account: &str,
        key: &str,
        r: &Resolved,
        mine: &str,
        rules: Rules,
    ) -> Result<Claim, StoreError> {
        self.claim_as(account, key, &fingerprint(r), Some(r), mine, rules)
            .await
    }

    /// [`Deliverer::claim`] for what `fingerprint` names (a spin: its
    /// frames are not one image). `image` is what must exist before a
    /// replay when [`Rules::replay_needs_image`] holds.
    pub async fn claim_as(
        &self,
        account: &str,
        key: &str,
        fingerprint: &str,
        image: Option<&Resolved>,
        mine: &str,
        rules: Rules,
    ) -> Result<Claim, StoreError> {
        let give_up_at = tokio::time::Instant::now() + rules.wait;
        loop {
            let Some(held) = self
                .store
                .claim_call(account, key, fingerprint, mine)
                .await?
            else {
                return Ok(Claim::Fresh);
            };
            if held.fingerprint != fingerprint {
                return Ok(Claim::Conflict);
            }
            let take_over = match self.paid(account, &held).await? {
                // A charge can exist before its image does (the credit is
                // reserved before a cold render).
                Paid::Yes
                    if !rules.replay_needs_image
                        || match image {
                            Some(r) => self.is_cached(r).await,
                            None => true,
                        } =>
                {
                    return Ok(Claim::Replay {
                        reference: held.request_id,
                    });
                }
                Paid::Yes => false,
                Paid::Refunded => true,
                Paid::No => now_millis() - held.created_at > rules.abandoned_ms,
            };
            if take_over {
                if self
                    .store
                    .retake_call(account, key, &held.request_id, mine)
                    .await?
                {
                    return Ok(Claim::Fresh);
                }
                continue;
            }
            if tokio::time::Instant::now() >= give_up_at {
                return Ok(Claim::InProgress);
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Gives up the claim `mine` holds: its delivery charged nothing, so a
    /// retry may claim the key.
    pub async fn release(&self, account: &str, key: &str, mine: &str) -> Result<(), StoreError> {
        self.store.release_call(account, key, mine).await
    }
}
