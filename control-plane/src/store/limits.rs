//! Rate-limit windows shared by every replica.

use super::*;

/// One replica's request for a block of a subject's rate-limit window.
#[derive(Debug, Clone, Copy)]
pub struct RateTake<'a> {
    pub subject: &'a str,
    /// The replica asking (random per process): it holds at most one lease
    /// per subject.
    pub holder: &'a str,
    /// The replica's clock, ms.
    pub now: Millis,
    /// How long a window lasts from its first request, ms.
    pub window: Millis,
    /// How long a block stays the holder's, ms; after that any replica
    /// taking a block returns it to the window.
    pub lease: Millis,
    pub want: i64,
    pub limit: i64,
    /// What the holder gives back of its previous block (unspent, and it
    /// will not spend it), and the window that block belonged to.
    pub returned: i64,
    pub returned_window: Millis,
}

/// What [`RateStore::take_rate_block`] granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateGrant {
    /// Granted to the holder now (0 when the window is spent).
    pub granted: i64,
    /// Granted in the window in all, this grant included, less returns.
    pub used: i64,
    /// When the subject's open window started, ms.
    pub window_start: Millis,
}

/// Rate-limit windows shared by every control plane on the database
/// (`ratelimit.rs`): a replica takes a subject's requests in leased blocks.
#[async_trait]
pub trait RateStore: Send + Sync + std::fmt::Debug {
    /// In one transaction: opens the subject's window when none is open
    /// (the last one started `window` or more ago), takes back the
    /// holder's `returned` and every expired lease of other holders, then
    /// grants `min(want, what is left)` as the holder's new lease.
    async fn take_rate_block(&self, take: &RateTake<'_>) -> Result<RateGrant, StoreError>;
    /// Deletes windows and leases of windows that started before `before`;
    /// how many windows.
    async fn prune_rate_windows(&self, before: Millis) -> Result<u64, StoreError>;
}
