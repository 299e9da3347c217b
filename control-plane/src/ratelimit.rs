//! Fixed-window rate limiting (spec §8: per key, 60 s windows aligned to the
//! clock minute; per IP for the public endpoints that have limits), shared
//! by every control plane on the database.
//!
//! The count of a window lives in the database (`rate_windows`, through
//! [`RateStore`]); a replica takes a subject's requests from it in *blocks*
//! with one conditional upsert and spends them from memory. So:
//! - together, all replicas never admit more than the limit in a window: the
//!   database grants at most `limit`;
//! - a replica may hold up to one block it has not spent yet, so another
//!   replica can be refused at most `block - 1` requests early in a window
//!   (`block` is a sixteenth of the limit, at least 1: exact for small
//!   limits, one round trip per 1/16 of the window for large ones);
//! - a window the database says is spent is remembered as spent until the
//!   window turns, so a client hammering past its limit costs no database
//!   work.
//!
//! Memory is bounded: a shard drops every slot of past windows the first time
//! it sees a new window, and never holds more than `MAX_SUBJECTS_PER_SHARD`
//! subjects. When the database cannot be reached, requests are admitted (the
//! billed work behind them fails on its own) and a warning is logged.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::store::{Millis, RateStore};

const SHARDS: usize = 16;
const MAX_SUBJECTS_PER_SHARD: usize = 65_536;
pub const WINDOW_SECS: u64 = 60;
/// A block is this fraction of the limit.
const BLOCKS_PER_WINDOW: u64 = 16;

/// The verdict for one request, with what the `RateLimit-*` headers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u64,
    pub remaining: u64,
    /// Seconds until the window resets (1..=60).
    pub reset_secs: u64,
}

/// What this replica knows of one subject in the current window.
#[derive(Debug, Default, Clone, Copy)]
struct Slot {
    /// Requests the database granted this replica.
    granted: u64,
    /// Of those, admitted.
    used: u64,
    /// Not yet granted to any replica, as of this replica's last block.
    unclaimed: u64,
    /// The database granted nothing: refuse until the window turns.
    spent: bool,
}

impl Slot {
    fn remaining(&self) -> u64 {
        self.unclaimed + (self.granted - self.used)
    }
}

#[derive(Debug, Default)]
struct Shard {
    window: u64,
    slots: HashMap<String, Slot>,
}

#[derive(Debug)]
pub struct RateLimiter {
    store: Arc<dyn RateStore>,
    shards: Vec<Mutex<Shard>>,
    hasher: std::collections::hash_map::RandomState,
}

/// What the fast path found.
enum Local {
    Decided(Decision),
    NeedBlock,
}

impl RateLimiter {
    pub fn new(store: Arc<dyn RateStore>) -> RateLimiter {
        RateLimiter {
            store,
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            hasher: Default::default(),
        }
    }

    /// Counts one request by `subject` against `limit` per window at unix
    /// time `now_secs`. A refused request is not counted.
    pub async fn check(&self, subject: &str, limit: u64, now_secs: u64) -> Decision {
        let window = now_secs / WINDOW_SECS;
        let reset_secs = WINDOW_SECS - now_secs % WINDOW_SECS;
        let refused = |remaining| Decision {
            allowed: false,
            limit,
            remaining,
            reset_secs,
        };
        if limit == 0 {
            return refused(0);
        }
        match self.spend(subject, window, limit, reset_secs) {
            Local::Decided(d) => return d,
            Local::NeedBlock => {}
        }
        let block = (limit / BLOCKS_PER_WINDOW).max(1);
        let window_start = Millis::try_from(window * WINDOW_SECS * 1000).unwrap_or(Millis::MAX);
        let limit_i = i64::try_from(limit).unwrap_or(i64::MAX);
        let taken = self
            .store
            .take_rate_block(
                subject,
                window_start,
                i64::try_from(block).unwrap_or(1),
                limit_i,
            )
            .await;
        let (granted, used_in_db) = match taken {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(error = %e, "rate limit window unavailable; admitting the request");
                return Decision {
                    allowed: true,
                    limit,
                    remaining: 0,
                    reset_secs,
                };
            }
        };
        let mut shard = self.shard(subject).lock();
        if shard.window != window {
            // The window turned while the block was on its way: the block
            // belongs to the old one; admit this request on it alone.
            return Decision {
                allowed: granted > 0,
                limit,
                remaining: 0,
                reset_secs,
            };
        }
        let slot = shard.slots.entry(subject.to_owned()).or_default();
        slot.granted += u64::try_from(granted).unwrap_or(0);
        slot.unclaimed = limit.saturating_sub(u64::try_from(used_in_db).unwrap_or(limit));
        if granted == 0 {
            slot.spent = true;
        }
        if slot.used < slot.granted {
            slot.used += 1;
            return Decision {
                allowed: true,
                limit,
                remaining: slot.remaining(),
                reset_secs,
            };
        }
        refused(slot.remaining())
    }

    /// Spends from this replica's block when it can.
    fn spend(&self, subject: &str, window: u64, limit: u64, reset_secs: u64) -> Local {
        let mut shard = self.shard(subject).lock();
        if shard.window != window {
            // A new window: every old slot is stale. Keep the allocation.
            shard.window = window;
            shard.slots.clear();
        }
        let full = shard.slots.len() >= MAX_SUBJECTS_PER_SHARD;
        let Some(slot) = shard.slots.get_mut(subject) else {
            if full {
                // Too many distinct subjects this minute: refuse newcomers
                // rather than grow without bound.
                return Local::Decided(Decision {
                    allowed: false,
                    limit,
                    remaining: 0,
                    reset_secs,
                });
            }
            return Local::NeedBlock;
        };
        if slot.used < slot.granted {
            slot.used += 1;
            return Local::Decided(Decision {
                allowed: true,
                limit,
                remaining: slot.remaining(),
                reset_secs,
            });
        }
        if slot.spent {
            return Local::Decided(Decision {
                allowed: false,
                limit,
                remaining: 0,
                reset_secs,
            });
        }
        Local::NeedBlock
    }

    fn shard(&self, subject: &str) -> &Mutex<Shard> {
        &self.shards[(self.hasher.hash_one(subject) as usize) % SHARDS]
    }

    /// Subjects currently counted (for tests and metrics).
    pub fn tracked(&self) -> usize {
        self.shards.iter().map(|s| s.lock().slots.len()).sum()
    }

    /// Deletes windows before the current one from the database, every
    /// window, for as long as the process runs.
    pub fn spawn_pruner(self: &Arc<Self>) {
        let store = Arc::clone(&self.store);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(WINDOW_SECS));
            loop {
                every.tick().await;
                let current = now_secs() / WINDOW_SECS * WINDOW_SECS * 1000;
                let before = Millis::try_from(current).unwrap_or(0);
                if let Err(e) = store.prune_rate_windows(before).await {
                    tracing::warn!(error = %e, "could not prune old rate limit windows");
                }
            }
        });
    }
}

pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SqlStore;

    /// Two limiters on one SQLite file stand for two replicas.
    async fn store() -> (tempfile::TempDir, Arc<SqlStore>) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("rl.db").display());
        let store = SqlStore::connect(&url).await.unwrap();
        store.migrate().await.unwrap();
        (dir, Arc::new(store))
    }

    #[tokio::test]
    async fn counts_down_then_refuses_until_the_window_turns() {
        let (_dir, store) = store().await;
        let rl = RateLimiter::new(store);
        let t = 1_000 * 60 + 15;
        for i in 0..3 {
            let d = rl.check("k", 3, t).await;
            assert!(d.allowed);
            assert_eq!(d.remaining, 2 - i);
            assert_eq!(d.reset_secs, 45);
        }
        let d = rl.check("k", 3, t + 10).await;
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (false, 0, 35));
        // Refusals are not counted; the next window starts fresh.
        let d = rl.check("k", 3, t + 45).await;
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 2, 60));
        // Subjects are independent.
        assert!(rl.check("other", 1, t).await.allowed);
    }

    #[tokio::test]
    async fn replicas_share_one_window() {
        let (_dir, store) = store().await;
        let a = RateLimiter::new(store.clone());
        let b = RateLimiter::new(store);
        let t = 2_000 * 60;
        // A limit of 10 takes blocks of 1: exact across replicas.
        let mut admitted = 0;
        for i in 0..30 {
            let rl = if i % 2 == 0 { &a } else { &b };
            if rl.check("key:shared", 10, t).await.allowed {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 10);
        // A large limit takes blocks of a sixteenth: together never over.
        let mut admitted = 0;
        for i in 0..400 {
            let rl = if i % 3 == 0 { &a } else { &b };
            if rl.check("key:big", 320, t).await.allowed {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 320);
    }

    #[tokio::test]
    async fn memory_holds_only_the_current_window() {
        let (_dir, store) = store().await;
        let rl = RateLimiter::new(store);
        for i in 0..500 {
            rl.check(&format!("ip-{i}"), 10, 60).await;
        }
        assert_eq!(rl.tracked(), 500);
        // One request per shard in the next window evicts the old slots.
        for i in 0..200 {
            rl.check(&format!("later-{i}"), 10, 120).await;
        }
        assert_eq!(rl.tracked(), 200);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_requests_never_exceed_the_limit() {
        let (_dir, store) = store().await;
        let rl = Arc::new(RateLimiter::new(store));
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let rl = rl.clone();
                tokio::spawn(async move {
                    let mut allowed = 0;
                    for _ in 0..50 {
                        if rl.check("shared", 120, 600).await.allowed {
                            allowed += 1;
                        }
                    }
                    allowed
                })
            })
            .collect();
        let mut allowed = 0;
        for t in tasks {
            allowed += t.await.unwrap();
        }
        assert_eq!(allowed, 120);
    }
}
