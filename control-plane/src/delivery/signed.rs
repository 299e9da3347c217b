//! Signed delivery URLs (spec §3 "Signed delivery URL"): minted and billed
//! once, then loaded for free until they expire, run out of uses, or their
//! minting key is revoked.
//!
//! Order of work for one load, and why:
//! 1. The token's HMAC is checked before anything else: a forged or
//!    malformed token costs no database work.
//! 2. The URL's row, from this replica's URL cache or one read that also
//!    gives its key's revocation state; revoked and expired URLs are refused
//!    (403), spent and consumed ones too (410), before any render is spent
//!    on them. The cache holds only rows that can no longer change but by a
//!    revocation: unlimited URLs whose first load succeeded. The revocation
//!    follower (`revocations.rs`) drops a revoked key's rows within a
//!    second; expiry is checked on every load. Use-capped URLs always read
//!    and redeem in the database, so their caps are exact across replicas.
//! 3. The bytes come from [`Deliverer::output`] (cache, else render), which
//!    never bills: the URL was paid for at creation.
//! 4. Only with bytes in hand is a use redeemed, atomically. A render failure
//!    on the first load consumes the URL and refunds its credit, once; a
//!    spent budget or a full queue consumes nothing, but is remembered on
//!    the URL: one that expires having served only such errors is refunded
//!    once by a sweep over an index of exactly those URLs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use vis_protocol::{BodyShape, FormatChoice, Framing, VariantKey};

use super::tokens::TokenKey;
use super::{Deliverer, DeliveryError, Resolved};
use crate::billing::Ledger;
use crate::renders::cache::Derived;
use crate::renders::{DispatchError, SourceKind};
use crate::store::{
    DeliveryUrlRecord, DeliveryUrlStore, IdempotencyClaim, Millis, NewDeliveryUrl, Payer,
    StoreError,
};

/// The settings row that holds the generated delivery secret.
pub const SECRET_SETTING: &str = "delivery_url_secret";

/// The deployment's bounds on a URL's lifetime, seconds (spec §8: requests
/// ask for 60 to 604800; the answer is clamped to these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtlBounds {
    pub default_secs: u64,
    pub min_secs: u64,
    pub max_secs: u64,
}

impl TtlBounds {
    pub fn clamp(&self, requested: Option<u64>) -> u64 {
        requested
            .unwrap_or(self.default_secs)
            .clamp(self.min_secs, self.max_secs)
    }
}

/// Why a URL is not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Malformed, forged, or unknown to this deployment (403).
    Invalid,
    /// `expires_at` has passed (403).
    Expired,
    /// The minting key was revoked (403).
    Revoked,
    /// A use-capped URL has used every redemption (410).
    Exhausted,
    /// Its first load failed: consumed and refunded (410).
    Consumed,
}

/// A valid URL, ready to load.
#[derive(Debug, Clone)]
pub struct Opened {
    /// Shared with the URL cache: a cached load copies nothing.
    pub record: Arc<DeliveryUrlRecord>,
    pub resolved: Resolved,
}

impl Opened {
    /// Use-capped URLs must reach the origin for every redemption.
    pub fn capped(&self) -> bool {
        self.record.max_uses > 0
    }

    /// Whole seconds of life left at `now`.
    pub fn remaining_secs(&self, now: Millis) -> u64 {
        u64::try_from((self.record.expires_at - now).max(0) / 1000).unwrap_or(0)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("refused: {0:?}")]
    Refused(Refused),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("refused: {0:?}")]
    Refused(Refused),
    /// The first load's render failed: the URL is consumed and its credit
    /// refunded (by this load or a concurrent one).
    #[error("the first load failed")]
    FirstLoadFailed { refunded_here: bool },
    /// Anything else: a later load's render failure, a spent budget, a full
    /// queue, a timeout. Nothing was consumed.
    #[error(transparent)]
    Delivery(DeliveryError),
}

/// One minted URL.
#[derive(Debug, Clone)]
pub struct MintedUrl {
    pub id: String,
    pub token: String,
    pub expires_at: Millis,
    pub max_uses: u32,
    pub resolved: Resolved,
}

#[derive(Debug, Clone)]
pub struct Minted {
    pub urls: Vec<MintedUrl>,
    pub balance_after: i64,
}

/// A mint that an Idempotency-Key already made, rebuilt for a retry.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub minted: Minted,
    /// The request id of the mint that charged (the first answer's).
    pub request_id: String,
    /// A hash of the body the key was first used with.
    pub fingerprint: String,
}

/// Mints, opens and loads signed delivery URLs.
#[derive(Debug, Clone)]
pub struct SignedUrls {
    key: TokenKey,
    store: Arc<dyn DeliveryUrlStore>,
    ledger: Ledger,
    pub ttl: TtlBounds,
    /// Rows of unlimited URLs whose first load succeeded, by id.
    loaded: Arc<quick_cache::sync::Cache<String, Arc<DeliveryUrlRecord>>>,
    /// Revocations applied to `loaded`: a row read before one is not cached
    /// after it.
    revocations_seen: Arc<AtomicU64>,
}

/// Rows in a replica's URL cache at most.
const URL_CACHE_ROWS: usize = 100_000;

impl SignedUrls {
    pub fn new(
        key: TokenKey,
        store: Arc<dyn DeliveryUrlStore>,
        ledger: Ledger,
        ttl: TtlBounds,
    ) -> SignedUrls {
        SignedUrls {
            key,
            store,
            ledger,
            ttl,
            loaded: Arc::new(quick_cache::sync::Cache::new(URL_CACHE_ROWS)),
            revocations_seen: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The token of the URL with row `id` (the dashboard lists an account's
    /// URLs again); None for an id that is not a UUID.
    pub fn token_of(&self, id: &str) -> Option<String> {
        uuid::Uuid::parse_str(id).ok().map(|u| self.key.sign(u))
    }

    /// Mints one URL per item, billed as one debit of their number.
    /// `ttl_secs` is clamped to the deployment's bounds; `max_uses` 0 means
    /// unlimited until expiry.
    pub async fn mint(
        &self,
        payer: Payer<'_>,
        items: &[Resolved],
        ttl_secs: Option<u64>,
        max_uses: u32,
        idempotency: Option<IdempotencyClaim<'_>>,
    ) -> Result<Minted, StoreError> {
        let ttl = i64::try_from(self.ttl.clamp(ttl_secs)).unwrap_or(i64::MAX);
        // Whole seconds, so `expires_at` prints exactly as stored.
        let expires_at = (crate::store::now_millis() / 1000)
            .saturating_add(ttl)
            .saturating_mul(1000);
        let urls: Vec<MintedUrl> = items
            .iter()
            .map(|r| {
                let id = uuid::Uuid::new_v4();
                MintedUrl {
                    id: id.to_string(),
                    token: self.key.sign(id),
                    expires_at,
                    max_uses,
                    resolved: r.clone(),
                }
            })
            .collect();
        let rows: Vec<NewDeliveryUrl> = urls
            .iter()
            .map(|u| NewDeliveryUrl {
                id: u.id.clone(),
                variant: u.resolved.variant.to_string(),
                shape: u.resolved.shape.to_string(),
                revision: i64::from(u.resolved.revision),
                box_width: u.resolved.box_w.map(i64::from),
                box_height: u.resolved.box_h.map(i64::from),
                width: i64::from(u.resolved.width),
                height: i64::from(u.resolved.height),
                // `auto` stays auto: the URL negotiates on every load.
                format: u.resolved.format_choice().to_string(),
                framing: u.resolved.framing.key(),
                max_uses: i64::from(max_uses),
                expires_at,
            })
            .collect();
        let balance_after = self.ledger.mint(payer, &rows, idempotency).await?;
        Ok(Minted {
            urls,
            balance_after,
        })
    }

    /// The mint an Idempotency-Key of `account_id` already made (under
    /// 24 h old), rebuilt as it was answered: the same URLs, lifetimes and
    /// balance after.
    pub async fn replay(
        &self,
        account_id: &str,
        key: &str,
    ) -> Result<Option<Replayed>, StoreError> {
        let Some(record) = self.store.idempotent_mint(account_id, key).await? else {
            return Ok(None);
        };
        let mut urls = Vec::with_capacity(record.url_ids.len());
        for id in &record.url_ids {
            let row = self
                .store
                .delivery_url(id)
                .await?
                .ok_or(StoreError::NotFound("delivery URL of an idempotent mint"))?;
            let revision = u32::try_from(row.revision).unwrap_or(0);
            let resolved = resolved_of(&row, revision)
                .ok_or(StoreError::Database("unreadable delivery URL".into()))?;
            let uuid = uuid::Uuid::parse_str(id)
                .map_err(|_| StoreError::Database("unreadable delivery URL id".into()))?;
            urls.push(MintedUrl {
                id: id.clone(),
                token: self.key.sign(uuid),
                expires_at: row.expires_at,
                max_uses: u32::try_from(row.max_uses).unwrap_or(0),
                resolved,
            });
        }
        Ok(Some(Replayed {
            minted: Minted {
                urls,
                balance_after: record.balance_after,
            },
            request_id: record.request_id,
            fingerprint: record.fingerprint,
        }))
    }

    /// Checks a token: HMAC first (no database work for a forgery), then
    /// the URL's state. `revision` is the deployment's current render
    /// revision, which the URL serves (a renderer upgrade never serves stale
    /// bytes under an old validator).
    pub async fn open(&self, token: &str, revision: u32, now: Millis) -> Result<Opened, OpenError> {
        let id = self
            .key
            .verify(token)
            .ok_or(OpenError::Refused(Refused::Invalid))?
            .to_string();
        let record = match self.loaded.get(&id) {
            Some(cached) => cached,
            None => {
                let seen = self.revocations_seen.load(Ordering::SeqCst);
                let record = Arc::new(
                    self.store
                        .delivery_url(&id)
                        .await?
                        .ok_or(OpenError::Refused(Refused::Invalid))?,
                );
                if record.max_uses == 0 && record.uses > 0 && refusal(&record, now).is_none() {
                    self.remember(record.clone(), seen);
                }
                record
            }
        };
        if let Some(refused) = refusal(&record, now) {
            return Err(OpenError::Refused(refused));
        }
        let resolved = resolved_of(&record, revision).ok_or_else(|| {
            StoreError::Database(format!(
                "delivery URL {} has unreadable parameters",
                record.id
            ))
        })?;
        Ok(Opened { record, resolved })
    }

    /// Caches a row read while `seen` revocations had been applied, unless
    /// one was applied since (it may have been this row's key's).
    fn remember(&self, record: Arc<DeliveryUrlRecord>, seen: u64) {
        let id = record.id.clone();
        self.loaded.insert(id.clone(), record);
        if self.revocations_seen.load(Ordering::SeqCst) != seen {
            self.loaded.remove(&id);
        }
    }

    /// Loads the bytes of an opened URL and redeems a use for them.
    pub async fn load(
        &self,
        deliverer: &Deliverer,
        opened: &Opened,
    ) -> Result<(Derived, SourceKind), LoadError> {
        let id = &opened.record.id;
        let output = match deliverer.output(&opened.resolved).await {
            Ok(output) => output,
            Err(e) if is_render_failure(&e) && opened.record.uses == 0 => {
                let reason = "refund: first load of a signed delivery URL failed";
                match self.ledger.refund_failed_url(id, reason).await {
                    Ok(Some(_)) => {
                        return Err(LoadError::FirstLoadFailed {
                            refunded_here: true,
                        });
                    }
                    Ok(None) => {}
                    Err(store) => return Err(LoadError::Delivery(store.into())),
                }
                // Another load got there first: either it failed too (the
                // URL is consumed) or it succeeded (this is a later load).
                let now = self.store.delivery_url(id).await;
                return match now {
                    Ok(Some(r)) if r.failed_at.is_some() => Err(LoadError::FirstLoadFailed {
                        refunded_here: false,
                    }),
                    Ok(_) => Err(LoadError::Delivery(e)),
                    Err(store) => Err(LoadError::Delivery(store.into())),
                };
            }
            Err(e) => {
                // Nothing served and nothing consumed (a spent budget, a
                // full queue, a timeout): remembered on the URL, so that if
                // it expires having served only errors it is refunded once
                // (`refund_expired_unserved`). Only before its first use.
                if opened.record.uses == 0
                    && let Err(store) = self.store.mark_delivery_url_errored(id).await
                {
                    tracing::warn!(error = %store, "could not mark a delivery URL's failed load");
                }
                return Err(LoadError::Delivery(e));
            }
        };
        // Unlimited URLs record only their first redemption: later loads stay
        // read-only, so cached delivery is never serialised on a write.
        if opened.capped() || opened.record.uses == 0 {
            let seen = self.revocations_seen.load(Ordering::SeqCst);
            let redeemed = self
                .store
                .consume_delivery_url(id)
                .await
                .map_err(|e| LoadError::Delivery(e.into()))?;
            if redeemed.is_none() {
                // Lost a race: spent, consumed or revoked meanwhile.
                let record = self
                    .store
                    .delivery_url(id)
                    .await
                    .map_err(|e| LoadError::Delivery(e.into()))?;
                let refused = record
                    .and_then(|r| refusal(&r, crate::store::now_millis()))
                    .unwrap_or(Refused::Exhausted);
                return Err(LoadError::Refused(refused));
            }
            if !opened.capped() {
                let mut record = DeliveryUrlRecord::clone(&opened.record);
                record.uses = redeemed.unwrap_or(1);
                self.remember(Arc::new(record), seen);
            }
        }
        Ok(output)
    }
}

/// How often each replica looks for expired URLs that served only errors.
pub const EXPIRY_REFUND_EVERY: std::time::Duration = std::time::Duration::from_secs(5);
/// URLs refunded per look, at most (the rest wait for the next).
const EXPIRY_REFUND_BATCH: i64 = 500;

impl SignedUrls {
    /// Refunds, once each, the URLs that expired by `now` having served only
    /// errors: a load failed without consuming the URL (503: budget spent,
    /// queue full, timeout) and no load ever redeemed a use
    /// (docs/delivery-urls.md, "Refunds"). Found through a partial index of
    /// exactly those URLs, never a scan of all. The refund is the failed
    /// first load's: it consumes the URL and refunds its credit in one
    /// transaction, conditional on no use and no refund yet, so replicas
    /// sweeping at once, or a load racing the sweep, refund at most once.
    /// Returns how many this call refunded.
    pub async fn refund_expired_unserved(&self, now: Millis) -> Result<usize, StoreError> {
        let ids = self
            .store
            .expired_errored_urls(now, EXPIRY_REFUND_BATCH)
            .await?;
        let mut refunded = 0;
        for id in ids {
            let reason = "refund: signed delivery URL expired having served only errors";
            if self.ledger.refund_failed_url(&id, reason).await?.is_some() {
                refunded += 1;
            }
        }
        Ok(refunded)
    }
}

/// Runs [`SignedUrls::refund_expired_unserved`] every
/// [`EXPIRY_REFUND_EVERY`] for the life of the runtime.
pub fn spawn_expiry_refunds(urls: Arc<SignedUrls>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EXPIRY_REFUND_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            match urls
                .refund_expired_unserved(crate::store::now_millis())
                .await
            {
                Ok(0) => {}
                Ok(n) => tracing::info!(
                    refunded = n,
                    "expired delivery URLs that served only errors refunded"
                ),
                Err(e) => {
                    tracing::warn!(error = %e, "the expired-URL refund sweep failed; retrying")
                }
            }
        }
    });
}

/// A revoked key's URLs leave this replica's URL cache.
impl crate::revocations::RevocationSink for SignedUrls {
    fn revoked(&self, kind: crate::store::RevokedKind, subject_id: &str) {
        if kind == crate::store::RevokedKind::Key {
            // Counted first: a load that read its row before this and
            // caches it after sees the count move and drops it again.
            self.revocations_seen.fetch_add(1, Ordering::SeqCst);
            self.loaded.retain(|_, r| r.key_id != subject_id);
        }
    }
}

/// A render that was attempted and failed (502), as opposed to one that was
/// refused (503).
fn is_render_failure(e: &DeliveryError) -> bool {
    matches!(
        e,
        DeliveryError::Dispatch(DispatchError::RenderFailed(_)) | DeliveryError::Derive(_)
    )
}

/// Why `record` cannot be served at `now`, if it cannot. 403s before 410s.
fn refusal(record: &DeliveryUrlRecord, now: Millis) -> Option<Refused> {
    if record.key_revoked {
        Some(Refused::Revoked)
    } else if record.expires_at <= now {
        Some(Refused::Expired)
    } else if record.failed_at.is_some() {
        Some(Refused::Consumed)
    } else if record.max_uses > 0 && record.uses >= record.max_uses {
        Some(Refused::Exhausted)
    } else {
        None
    }
}

fn resolved_of(r: &DeliveryUrlRecord, revision: u32) -> Option<Resolved> {
    let dim = |v: i64| u32::try_from(v).ok();
    let box_dim = |v: Option<i64>| match v {
        None => Some(None),
        Some(v) => dim(v).map(Some),
    };
    let choice = r.format.parse::<FormatChoice>().ok()?;
    Some(Resolved {
        variant: r.variant.parse::<VariantKey>().ok()?,
        shape: r.shape.parse::<BodyShape>().ok()?,
        revision,
        width: dim(r.width)?,
        height: dim(r.height)?,
        format: choice.provisional(),
        auto_format: choice == FormatChoice::Auto,
        box_w: box_dim(r.box_width)?,
        box_h: box_dim(r.box_height)?,
        framing: Framing::from_key(&r.framing).ok()?,
        paint_code: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_is_clamped_to_the_deployment_bounds() {
        let b = TtlBounds {
            default_secs: 3600,
            min_secs: 60,
            max_secs: 604_800,
        };
        assert_eq!(b.clamp(None), 3600);
        assert_eq!(b.clamp(Some(60)), 60);
        assert_eq!(b.clamp(Some(10)), 60);
        assert_eq!(b.clamp(Some(10_000_000)), 604_800);
        let narrow = TtlBounds {
            default_secs: 5,
            min_secs: 1,
            max_secs: 5,
        };
        assert_eq!(narrow.clamp(Some(3600)), 5);
    }
}
