//! The revocation follower: every control plane reads the database's
//! revocation feed a few times a second and tells what caches keys or
//! signed URLs to drop them, so that a key revoked on one replica (or by
//! the CLI) answers 401, and its delivery URLs 403, on every replica within
//! a second (docs/ledger.md, "Several control planes").
//!
//! The feed is a table written in the revocation's own transaction
//! (`RevocationStore`), read by position (`seq`). Positions are handed out
//! at insert and a transaction may commit after a later one, so each read
//! also takes every entry of the last [`OVERLAP`]; entries already applied
//! are skipped. Polling is the one mechanism on both databases: one indexed
//! read per replica per [`EVERY`], and no connection held open.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::store::{Millis, RevocationStore, RevokedKind, now_millis};

/// How often the feed is read.
pub const EVERY: Duration = Duration::from_millis(250);
/// How far back each read looks again for entries that committed late.
const OVERLAP: Millis = 10_000;
/// Entries per read at most.
const PAGE: i64 = 1_000;

/// What drops cached state of a revoked key or partner.
pub trait RevocationSink: Send + Sync {
    fn revoked(&self, kind: RevokedKind, subject_id: &str);
}

/// Starts following the feed from its current end (nothing cached yet
/// predates it). Runs for as long as the process does.
pub fn spawn(store: Arc<dyn RevocationStore>, sinks: Vec<Arc<dyn RevocationSink>>) {
    tokio::spawn(async move {
        let mut follower = Follower {
            store,
            sinks,
            after: 0,
            applied: BTreeMap::new(),
        };
        follower.after = match follower.store.revocation_head().await {
            Ok(head) => head,
            Err(e) => {
                tracing::warn!(error = %e, "revocation feed unavailable at start");
                0
            }
        };
        let mut every = tokio::time::interval(EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if let Err(e) = follower.poll().await {
                tracing::warn!(error = %e, "could not read the revocation feed");
            }
        }
    });
}

struct Follower {
    store: Arc<dyn RevocationStore>,
    sinks: Vec<Arc<dyn RevocationSink>>,
    /// The highest position applied.
    after: i64,
    /// Positions applied within the overlap, with their time.
    applied: BTreeMap<i64, Millis>,
}

impl Follower {
    async fn poll(&mut self) -> Result<(), crate::store::StoreError> {
        let now = now_millis();
        let entries = self
            .store
            .revocations(self.after, now - OVERLAP, PAGE)
            .await?;
        for entry in entries {
            if self.applied.contains_key(&entry.seq) {
                continue;
            }
            for sink in &self.sinks {
                sink.revoked(entry.kind, &entry.subject_id);
            }
            self.applied.insert(entry.seq, now);
            self.after = self.after.max(entry.seq);
        }
        self.applied.retain(|_, at| *at >= now - 2 * OVERLAP);
        Ok(())
    }
}
