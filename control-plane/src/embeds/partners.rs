//! The live partner secrets, kept in memory so that a signed request costs
//! no database work (spec §5; docs/embeds.md).
//!
//! The spec's query names no partner, so a signature is checked against
//! each live secret, in constant time (an optional `partner` parameter,
//! itself covered by the signature, narrows the check to one). The set is
//! loaded at start; the revocation follower drops a revoked partner, or
//! every partner of a revoked key, within a second; a signature that
//! matches none reloads the set (misses share reloads, spaced 100 ms apart),
//! which is how a partner created by the CLI or another replica is learnt.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use parking_lot::RwLock;
use sha2::Sha256;

use super::signature;
use crate::revocations::RevocationSink;
use crate::store::{PartnerStore, RevokedKind, StoreError};

/// A new partner secret: a recognisable prefix and 256 bits of randomness.
pub fn generate_secret() -> String {
    format!("vps_{}", crate::auth::random_base62(43))
}

/// Who signed a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    pub partner_id: String,
    pub key_id: String,
}

struct Live {
    partner_id: String,
    key_id: String,
    /// Keyed with the secret; cloned per check. The secret itself is not kept.
    mac: Hmac<Sha256>,
}

/// Least time between two reloads caused by unknown signatures.
const RELOAD_GAP: Duration = Duration::from_millis(100);

pub struct PartnerKeys {
    store: Arc<dyn PartnerStore>,
    live: RwLock<Arc<Vec<Live>>>,
    /// When the set was last read; one reload at a time.
    loaded_at: tokio::sync::Mutex<Option<Instant>>,
    /// Revocations applied; a reload that saw this move while it read
    /// reads again, so it cannot bring back what was just revoked.
    revocations_seen: AtomicU64,
}

impl std::fmt::Debug for PartnerKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartnerKeys")
            .field("live", &self.live.read().len())
            .finish_non_exhaustive()
    }
}

impl PartnerKeys {
    pub fn new(store: Arc<dyn PartnerStore>) -> PartnerKeys {
        PartnerKeys {
            store,
            live: RwLock::new(Arc::new(Vec::new())),
            loaded_at: tokio::sync::Mutex::new(None),
            revocations_seen: AtomicU64::new(0),
        }
    }

    /// The partner whose secret signed `raw_query` with `sig`, if any.
    pub async fn signer(
        &self,
        raw_query: &str,
        sig: &[u8; 32],
        partner: Option<&str>,
    ) -> Result<Option<Signer>, StoreError> {
        let message = signature::signed_string(raw_query);
        if let Some(found) = self.check(&message, sig, partner) {
            return Ok(Some(found));
        }
        // Unknown: perhaps a partner created since the last read. Reloads
        // are serialised; one that began after this request arrived covers
        // it, so concurrent misses share one read, and reads are spaced by
        // at least RELOAD_GAP.
        let arrived = Instant::now();
        let mut loaded_at = self.loaded_at.lock().await;
        if loaded_at.is_none_or(|at| at < arrived) {
            if let Some(at) = *loaded_at {
                let since = at.elapsed();
                if since < RELOAD_GAP {
                    tokio::time::sleep(RELOAD_GAP - since).await;
                }
            }
            let started = Instant::now();
            self.reload().await?;
            *loaded_at = Some(started);
        }
        drop(loaded_at);
        Ok(self.check(&message, sig, partner))
    }

    /// Reads the live set from the database.
    pub async fn reload(&self) -> Result<(), StoreError> {
        loop {
            let seen = self.revocations_seen.load(Ordering::SeqCst);
            let partners = self.store.live_partners().await?;
            let fresh: Vec<Live> = partners
                .into_iter()
                .filter_map(|p| {
                    Some(Live {
                        mac: signature::keyed(p.secret.expose().as_bytes()),
                        key_id: p.key_id?,
                        partner_id: p.id,
                    })
                })
                .collect();
            // Swapped in under the lock revocations take, and only when no
            // revocation was applied while the set was read.
            let mut live = self.live.write();
            if self.revocations_seen.load(Ordering::SeqCst) == seen {
                *live = Arc::new(fresh);
                return Ok(());
            }
        }
    }

    fn check(&self, message: &str, sig: &[u8; 32], partner: Option<&str>) -> Option<Signer> {
        let live = Arc::clone(&self.live.read());
        // Every candidate is checked (no early exit), each in constant time.
        let mut found = None;
        for p in live.iter() {
            if partner.is_some_and(|id| id != p.partner_id) {
                continue;
            }
            let mut mac = p.mac.clone();
            mac.update(message.as_bytes());
            if mac.verify_slice(sig).is_ok() && found.is_none() {
                found = Some(Signer {
                    partner_id: p.partner_id.clone(),
                    key_id: p.key_id.clone(),
                });
            }
        }
        found
    }

    /// How many partners are live here.
    pub fn len(&self) -> usize {
        self.live.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl RevocationSink for PartnerKeys {
    fn revoked(&self, kind: RevokedKind, subject_id: &str) {
        if kind == RevokedKind::Render {
            return;
        }
        let mut live = self.live.write();
        self.revocations_seen.fetch_add(1, Ordering::SeqCst);
        let keep = |p: &Live| match kind {
            RevokedKind::Partner => p.partner_id != subject_id,
            RevokedKind::Key => p.key_id != subject_id,
            RevokedKind::Render => true,
        };
        if live.iter().all(keep) {
            return;
        }
        let kept: Vec<Live> = live
            .iter()
            .filter(|p| keep(p))
            .map(|p| Live {
                partner_id: p.partner_id.clone(),
                key_id: p.key_id.clone(),
                mac: p.mac.clone(),
            })
            .collect();
        *live = Arc::new(kept);
    }
}
