//! Render jobs (the deduplicated queue of cold renders), the daily
//! generation budget, and the remote render nodes that take jobs.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    Queued,
    Running,
    Done,
    Failed,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<JobStatus> {
        [
            JobStatus::Queued,
            JobStatus::Running,
            JobStatus::Done,
            JobStatus::Failed,
        ]
        .into_iter()
        .find(|s| s.as_str() == raw)
    }
}

/// A row's `status` column (`sqlx::FromRow`).
impl TryFrom<String> for JobStatus {
    type Error = UnknownValue;

    fn try_from(raw: String) -> Result<JobStatus, UnknownValue> {
        JobStatus::parse(&raw).ok_or(UnknownValue("job status", raw))
    }
}

/// A row's `priority` column, its rank (`sqlx::FromRow`).
impl From<i64> for JobPriority {
    fn from(rank: i64) -> JobPriority {
        JobPriority::from_rank(rank)
    }
}

/// Which jobs render first: nodes lease by priority, then age.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum JobPriority {
    /// A request waits on it.
    Interactive,
    /// A prewarm job's: no one waits; every interactive job goes first.
    Prewarm,
}

impl JobPriority {
    /// The `render_jobs.priority` value: lower leases first.
    pub fn rank(self) -> i64 {
        match self {
            JobPriority::Interactive => 0,
            JobPriority::Prewarm => 1,
        }
    }

    pub fn from_rank(rank: i64) -> JobPriority {
        if rank <= 0 {
            JobPriority::Interactive
        } else {
            JobPriority::Prewarm
        }
    }
}

#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct JobRecord {
    pub id: String,
    pub variant: String,
    pub revision: i64,
    pub shape: String,
    #[sqlx(try_from = "String")]
    pub status: JobStatus,
    #[sqlx(try_from = "i64")]
    pub priority: JobPriority,
    pub attempts: i64,
    pub lease_owner: Option<String>,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: Millis,
}

/// What `claim_job` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// A new job was queued (a cold render starts; it counts against the budget).
    Created,
    /// A failed job was queued again.
    Requeued,
    /// Another request's job is queued, running or done: wait on it.
    Joined,
}

/// Jobs by status; queued and running ones also by priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobCounts {
    pub queued: i64,
    pub running: i64,
    pub done: i64,
    pub failed: i64,
    /// Of `queued`, prewarm jobs.
    pub queued_prewarm: i64,
    /// Of `running`, prewarm jobs.
    pub running_prewarm: i64,
}

impl JobCounts {
    /// Interactive jobs queued: what a new request waits behind.
    pub fn queued_interactive(&self) -> i64 {
        self.queued - self.queued_prewarm
    }
}

/// A job to claim: its variant's text form, render revision and body shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewJob<'a> {
    pub variant: &'a str,
    pub revision: i64,
    pub shape: &'a str,
}

#[async_trait]
pub trait JobStore: Send + Sync + std::fmt::Debug {
    /// The jobs for (variant, revision), each created when absent and
    /// re-queued when it failed, at `priority`, in one transaction: a node
    /// never leases some of them before the rest are queued, so a spin's
    /// frames are leased as one batch. Joining a live job of a lower
    /// priority raises it. The unique (variant, revision) key makes this
    /// safe across control-plane replicas. One answer per job, in order.
    async fn claim_jobs(
        &self,
        jobs: &[NewJob<'_>],
        priority: JobPriority,
    ) -> Result<Vec<(JobRecord, Claim)>, StoreError>;
    /// [`JobStore::claim_jobs`] for one job.
    async fn claim_job(
        &self,
        variant: &str,
        revision: i64,
        shape: &str,
        priority: JobPriority,
    ) -> Result<(JobRecord, Claim), StoreError> {
        let job = NewJob {
            variant,
            revision,
            shape,
        };
        self.claim_jobs(&[job], priority)
            .await?
            .pop()
            .ok_or(StoreError::NotFound("render job"))
    }
    /// Raises a live job to interactive priority (a request now waits on
    /// it); false when it is no longer live.
    async fn promote_job(&self, id: &str) -> Result<bool, StoreError>;
    /// Removes a prewarm job that is still queued (a cancelled prewarm);
    /// returns the UTC day it was queued on, whose budget it took, or None
    /// when it is running, done, interactive or gone.
    async fn withdraw_job(&self, id: &str) -> Result<Option<String>, StoreError>;
    /// The job for (variant, revision) if it is queued or running.
    async fn live_job(&self, variant: &str, revision: i64)
    -> Result<Option<JobRecord>, StoreError>;
    /// Leases the oldest queued job (or one whose lease expired) to
    /// `owner`, and when it is interactive up to `max - 1` more queued
    /// interactive jobs of its vehicle and revision
    /// (`vis_protocol::vehicle_of`), in one transaction: a batch a node
    /// draws from one mesh. Prewarm jobs are leased alone, so an interactive
    /// request overtakes a prewarm after one render at most. The first job
    /// first, then the others oldest first; empty when nothing is queued.
    async fn lease_jobs(
        &self,
        owner: &str,
        lease_ms: i64,
        max: usize,
    ) -> Result<Vec<JobRecord>, StoreError>;
    /// [`JobStore::lease_jobs`] of one job.
    async fn lease_job(&self, owner: &str, lease_ms: i64) -> Result<Option<JobRecord>, StoreError> {
        Ok(self
            .lease_jobs(owner, lease_ms, 1)
            .await?
            .into_iter()
            .next())
    }
    /// Ends a leased job; false when `owner` no longer holds the lease.
    async fn finish_job(
        &self,
        id: &str,
        owner: &str,
        outcome: Result<i64, &str>,
    ) -> Result<bool, StoreError>;
    async fn job_by_id(&self, id: &str) -> Result<Option<JobRecord>, StoreError>;
    /// Jobs by status and priority, from counters the database keeps on
    /// every job write (migration 22), not by counting the jobs.
    async fn job_counts(&self) -> Result<JobCounts, StoreError>;
    /// What finished on the UTC day `day` (ms since the epoch / 86,400,000):
    /// renders per lease owner by duration bucket, failures per owner and
    /// cause; kept on write (migration 22), so reading it costs the same
    /// with a year of jobs as with none.
    async fn finishes_on(&self, day: i64) -> Result<DayFinishes, StoreError>;
    /// Running jobs per lease owner (`node:<name>` for remote nodes).
    async fn running_jobs_by_owner(&self) -> Result<Vec<(String, i64)>, StoreError>;
    /// Extends `owner`'s leases of the jobs `ids` to `until` (a remote
    /// node's heartbeat). Returns how many it still holds.
    async fn renew_leases(
        &self,
        owner: &str,
        ids: &[String],
        until: Millis,
    ) -> Result<u64, StoreError>;
}

/// Render jobs finished on one UTC day, as the database keeps them
/// (`render_finish_days`, `render_failure_days`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DayFinishes {
    pub renders: Vec<RenderBucket>,
    pub failures: Vec<FailureCount>,
}

/// Renders one lease owner finished with a duration in one bucket: the
/// fixed log-scale buckets of migration 22 (1 ms wide below 32 ms, then
/// 1/16 of their lower bound), with the smallest and largest duration seen.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct RenderBucket {
    /// The lease owner that finished them (None: none was recorded).
    pub owner: Option<String>,
    /// The bucket's lower bound (ms).
    pub bucket: i64,
    pub renders: i64,
    pub min_ms: i64,
    pub max_ms: i64,
}

/// Failures of one lease owner (None: failed with no owner, e.g. its
/// leases ran out) with one cause.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct FailureCount {
    pub owner: Option<String>,
    pub cause: String,
    pub failures: i64,
}

/// A job is leased at most this many times: a job whose lease ran out this
/// often (its node died each time) fails, and its waiters get a 502.
pub const MAX_JOB_ATTEMPTS: i64 = 3;

/// A remote render node's row (`render_nodes`, migration 13).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NodeRecord {
    pub name: String,
    /// `active`, `draining` or `removed`.
    pub state: String,
    pub slots: i64,
    pub adapter: Option<String>,
    pub last_heartbeat: Option<Millis>,
    /// Renders finished this UTC day.
    pub renders_today: i64,
    pub renders_total: i64,
    pub failures_total: i64,
    pub created_at: Millis,
}

impl NodeRecord {
    /// The owner a job leased by this node carries.
    pub fn lease_owner(&self) -> String {
        format!("node:{}", self.name)
    }
}

/// Remote render nodes (docs/render-nodes.md).
#[async_trait]
pub trait NodeStore: Send + Sync + std::fmt::Debug {
    /// Adds a node with the hash of its token; Conflict when the name is
    /// taken (a removed node's name too: names are never reused).
    async fn add_node(&self, name: &str, token_hash: &str) -> Result<NodeRecord, StoreError>;
    /// The node a token belongs to, unless it was removed.
    async fn node_by_token(&self, token_hash: &str) -> Result<Option<NodeRecord>, StoreError>;
    async fn nodes(&self) -> Result<Vec<NodeRecord>, StoreError>;
    /// Sets a node's state; false when there is no such node.
    async fn set_node_state(&self, name: &str, state: &str) -> Result<bool, StoreError>;
    /// A register or heartbeat: what the node says of itself.
    async fn node_seen(&self, name: &str, slots: i64, adapter: &str) -> Result<(), StoreError>;
    /// Counts a finished render (`ok`) or a failure against the node.
    async fn node_counted(&self, name: &str, day: &str, ok: bool) -> Result<(), StoreError>;
}

#[async_trait]
pub trait BudgetStore: Send + Sync + std::fmt::Debug {
    /// Takes `n` cold renders from `day`'s budget of `limit`, all or none;
    /// false when fewer than `n` are left.
    async fn take_budgets(&self, day: &str, limit: i64, n: i64) -> Result<bool, StoreError>;
    /// Returns `n` renders to `day`'s budget (never attempted).
    async fn return_budgets(&self, day: &str, n: i64) -> Result<(), StoreError>;
    /// Takes one cold render from `day`'s budget of `limit`; false when spent.
    async fn take_budget(&self, day: &str, limit: i64) -> Result<bool, StoreError> {
        self.take_budgets(day, limit, 1).await
    }
    /// Returns one render to `day`'s budget (the render was never attempted).
    async fn return_budget(&self, day: &str) -> Result<(), StoreError> {
        self.return_budgets(day, 1).await
    }
    async fn budget_used(&self, day: &str) -> Result<i64, StoreError>;
    async fn setting(&self, name: &str) -> Result<Option<String>, StoreError>;
    async fn set_setting(&self, name: &str, value: &str) -> Result<(), StoreError>;
}
