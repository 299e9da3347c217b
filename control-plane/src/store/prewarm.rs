//! Prewarm jobs (migration 14; `crate::prewarm` drives them): a list of
//! variants to render ahead of demand, each item's progress kept in the
//! database so that an interrupted job resumes where it stopped.

use async_trait::async_trait;

use super::{Millis, StoreError, UnknownValue};

/// A prewarm job's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrewarmState {
    /// Being driven, or interrupted (its driver went silent).
    Running,
    /// Stopped before the end (the budget reserve was reached); resumable.
    Paused,
    Done,
    Cancelled,
}

impl PrewarmState {
    pub fn as_str(self) -> &'static str {
        match self {
            PrewarmState::Running => "running",
            PrewarmState::Paused => "paused",
            PrewarmState::Done => "done",
            PrewarmState::Cancelled => "cancelled",
        }
    }

    pub fn parse(raw: &str) -> Option<PrewarmState> {
        [
            PrewarmState::Running,
            PrewarmState::Paused,
            PrewarmState::Done,
            PrewarmState::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == raw)
    }

    /// Whether the job can still make progress (resume, cancel).
    pub fn is_open(self) -> bool {
        matches!(self, PrewarmState::Running | PrewarmState::Paused)
    }
}

/// One prewarm job (`prewarm_runs`).
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct PrewarmRun {
    pub id: String,
    /// What was asked for, as canonical JSON.
    pub selection: String,
    /// Derived outputs per variant, `SIZE:FORMAT` joined by commas.
    pub outputs: String,
    #[sqlx(try_from = "String")]
    pub state: PrewarmState,
    pub stopped_reason: Option<String>,
    pub total: i64,
    /// The driving process's last sign of life.
    pub driver_beat: Option<Millis>,
    pub created_at: Millis,
    pub updated_at: Millis,
}

/// A prewarm item's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemStatus {
    Pending,
    /// Its render job is queued or running.
    Queued,
    /// Rendered by this prewarm job.
    Done,
    /// Its source render existed already: skipped, nothing spent.
    Cached,
    Failed,
    Cancelled,
}

impl ItemStatus {
    pub const ALL: [ItemStatus; 6] = [
        ItemStatus::Pending,
        ItemStatus::Queued,
        ItemStatus::Done,
        ItemStatus::Cached,
        ItemStatus::Failed,
        ItemStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::Pending => "pending",
            ItemStatus::Queued => "queued",
            ItemStatus::Done => "done",
            ItemStatus::Cached => "cached",
            ItemStatus::Failed => "failed",
            ItemStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(raw: &str) -> Option<ItemStatus> {
        ItemStatus::ALL.into_iter().find(|s| s.as_str() == raw)
    }
}

/// One variant of a prewarm job (`prewarm_items`).
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct PrewarmItem {
    pub seq: i64,
    /// `make/model/year/color/view`.
    pub variant: String,
    pub revision: i64,
    pub shape: String,
    #[sqlx(try_from = "String")]
    pub status: ItemStatus,
    pub job_id: Option<String>,
    pub error: Option<String>,
}

/// An item to add to a new prewarm job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPrewarmItem {
    pub variant: String,
    pub revision: i64,
    pub shape: String,
}

/// Items of a prewarm job by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct PrewarmCounts {
    pub pending: i64,
    pub queued: i64,
    pub done: i64,
    pub cached: i64,
    pub failed: i64,
    pub cancelled: i64,
}

impl PrewarmCounts {
    pub fn add(&mut self, status: ItemStatus, n: i64) {
        let slot = match status {
            ItemStatus::Pending => &mut self.pending,
            ItemStatus::Queued => &mut self.queued,
            ItemStatus::Done => &mut self.done,
            ItemStatus::Cached => &mut self.cached,
            ItemStatus::Failed => &mut self.failed,
            ItemStatus::Cancelled => &mut self.cancelled,
        };
        *slot += n;
    }

    /// Items that will not change any more.
    pub fn finished(&self) -> i64 {
        self.done + self.cached + self.failed + self.cancelled
    }

    /// Items still to do (pending or queued).
    pub fn remaining(&self) -> i64 {
        self.pending + self.queued
    }
}

#[async_trait]
pub trait PrewarmStore: Send + Sync + std::fmt::Debug {
    /// Creates a prewarm job with its items, in one transaction.
    async fn create_prewarm(
        &self,
        selection: &str,
        selection_hash: &str,
        outputs: &str,
        items: &[NewPrewarmItem],
    ) -> Result<PrewarmRun, StoreError>;
    async fn prewarm(&self, id: &str) -> Result<Option<PrewarmRun>, StoreError>;
    /// The newest running or paused job of this selection, to resume.
    async fn open_prewarm(&self, selection_hash: &str) -> Result<Option<PrewarmRun>, StoreError>;
    /// The newest jobs first.
    async fn prewarms(&self, limit: i64) -> Result<Vec<PrewarmRun>, StoreError>;
    /// Up to `limit` items of `status`, in order.
    async fn prewarm_items(
        &self,
        id: &str,
        status: ItemStatus,
        limit: i64,
    ) -> Result<Vec<PrewarmItem>, StoreError>;
    async fn set_prewarm_item(
        &self,
        id: &str,
        seq: i64,
        status: ItemStatus,
        job_id: Option<&str>,
        error: Option<&str>,
    ) -> Result<(), StoreError>;
    async fn prewarm_counts(&self, id: &str) -> Result<PrewarmCounts, StoreError>;
    /// Failed items back to pending (a resumed job tries them again);
    /// returns how many.
    async fn retry_failed_prewarm_items(&self, id: &str) -> Result<u64, StoreError>;
    /// Takes (or keeps) the right to drive an open job: granted when no
    /// other driver has beaten within `stale_ms`. Sets the state to running.
    async fn drive_prewarm(
        &self,
        id: &str,
        driver: &str,
        stale_ms: i64,
    ) -> Result<bool, StoreError>;
    /// Ends an open job with `state`; false when it had ended already.
    async fn end_prewarm(
        &self,
        id: &str,
        state: PrewarmState,
        reason: Option<&str>,
    ) -> Result<bool, StoreError>;
    /// The most delivered (charged) variants, with their counts, over whole
    /// UTC days from the day `since` falls in: from the per-day rollup
    /// `variant_days`, brought up to date first from the ledger rows after
    /// its mark (docs/OPERATIONS.md, "Status and metrics").
    async fn top_variants(
        &self,
        since: Millis,
        limit: i64,
    ) -> Result<Vec<(String, i64)>, StoreError>;
}

/// A row's `state` column (`sqlx::FromRow`).
impl TryFrom<String> for PrewarmState {
    type Error = UnknownValue;

    fn try_from(raw: String) -> Result<PrewarmState, UnknownValue> {
        PrewarmState::parse(&raw).ok_or(UnknownValue("prewarm state", raw))
    }
}

/// A row's `status` column (`sqlx::FromRow`).
impl TryFrom<String> for ItemStatus {
    type Error = UnknownValue;

    fn try_from(raw: String) -> Result<ItemStatus, UnknownValue> {
        ItemStatus::parse(&raw).ok_or(UnknownValue("item status", raw))
    }
}
