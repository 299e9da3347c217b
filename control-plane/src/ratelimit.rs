//! Fixed-window rate limiting (spec §8: per key, 60 s windows aligned to the
//! clock minute; per IP for the public endpoints that have limits).
//!
//! Counters live in memory, sharded to keep lock hold times short. Memory is
//! bounded: a shard drops every counter of past windows the first time it
//! sees a new window, so only subjects active in the current window are kept,
//! and a shard never holds more than `MAX_SUBJECTS_PER_SHARD` of those.
//! Several control-plane replicas each count on their own (documented in
//! docs/OPERATIONS.md): the effective limit is per replica.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::BuildHasher;

const SHARDS: usize = 16;
const MAX_SUBJECTS_PER_SHARD: usize = 65_536;
pub const WINDOW_SECS: u64 = 60;

/// The verdict for one request, with what the `RateLimit-*` headers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u64,
    pub remaining: u64,
    /// Seconds until the window resets (1..=60).
    pub reset_secs: u64,
}

#[derive(Debug, Default)]
struct Shard {
    window: u64,
    counts: HashMap<String, u64>,
}

#[derive(Debug)]
pub struct RateLimiter {
    shards: Vec<Mutex<Shard>>,
    hasher: std::collections::hash_map::RandomState,
}

impl Default for RateLimiter {
    fn default() -> Self {
        RateLimiter {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            hasher: Default::default(),
        }
    }
}

impl RateLimiter {
    /// Counts one request by `subject` against `limit` per window at unix
    /// time `now_secs`. A refused request is not counted.
    pub fn check(&self, subject: &str, limit: u64, now_secs: u64) -> Decision {
        let window = now_secs / WINDOW_SECS;
        let reset_secs = WINDOW_SECS - now_secs % WINDOW_SECS;
        let shard = &self.shards[(self.hasher.hash_one(subject) as usize) % SHARDS];
        let mut shard = shard.lock();
        if shard.window != window {
            // A new window: every old counter is stale. Keep the allocation.
            shard.window = window;
            shard.counts.clear();
        }
        let full = shard.counts.len() >= MAX_SUBJECTS_PER_SHARD;
        let count = match shard.counts.get_mut(subject) {
            Some(c) => c,
            None if full => {
                // Too many distinct subjects this minute: refuse newcomers
                // rather than grow without bound.
                return Decision {
                    allowed: false,
                    limit,
                    remaining: 0,
                    reset_secs,
                };
            }
            None => shard.counts.entry(subject.to_owned()).or_insert(0),
        };
        if *count >= limit {
            return Decision {
                allowed: false,
                limit,
                remaining: 0,
                reset_secs,
            };
        }
        *count += 1;
        Decision {
            allowed: true,
            limit,
            remaining: limit - *count,
            reset_secs,
        }
    }

    /// Subjects currently counted (for tests and metrics).
    pub fn tracked(&self) -> usize {
        self.shards.iter().map(|s| s.lock().counts.len()).sum()
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

    #[test]
    fn counts_down_then_refuses_until_the_window_turns() {
        let rl = RateLimiter::default();
        let t = 1_000 * 60 + 15;
        for i in 0..3 {
            let d = rl.check("k", 3, t);
            assert!(d.allowed);
            assert_eq!(d.remaining, 2 - i);
            assert_eq!(d.reset_secs, 45);
        }
        let d = rl.check("k", 3, t + 10);
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (false, 0, 35));
        // Refusals are not counted; the next window starts fresh.
        let d = rl.check("k", 3, t + 45);
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 2, 60));
        // Subjects are independent.
        assert!(rl.check("other", 1, t).allowed);
    }

    #[test]
    fn memory_holds_only_the_current_window() {
        let rl = RateLimiter::default();
        for i in 0..5_000 {
            rl.check(&format!("ip-{i}"), 10, 60);
        }
        assert_eq!(rl.tracked(), 5_000);
        // One request per shard in the next window evicts the old counters.
        for i in 0..2_000 {
            rl.check(&format!("later-{i}"), 10, 120);
        }
        assert_eq!(rl.tracked(), 2_000);
    }

    #[test]
    fn concurrent_requests_never_exceed_the_limit() {
        let rl = std::sync::Arc::new(RateLimiter::default());
        let allowed = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let rl = rl.clone();
                let allowed = allowed.clone();
                std::thread::spawn(move || {
                    for _ in 0..100 {
                        if rl.check("shared", 120, 600).allowed {
                            allowed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(allowed.load(std::sync::atomic::Ordering::Relaxed), 120);
    }
}
