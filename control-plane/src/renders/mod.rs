//! Render dispatch: finds a variant's source render, or has one made.
//!
//! A source render is looked up in the object store by variant key and render
//! revision. On a miss, concurrent requests in this process share one future
//! (single-flight per variant); across processes the render job's unique
//! (variant, revision) row makes them share one job. A cold render passes two
//! admission checks first: the daily generation budget and the queue depth.
//! Render nodes (the in-process [`worker`] pool, or remote nodes later) lease
//! jobs from the job table; waiters poll the job until it is done.

pub mod cache;
pub mod farm;
pub mod revisions;
pub mod worker;

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use tokio::sync::{Notify, OnceCell};
use vis_protocol::{RenderJob, VariantKey};

use crate::metrics::Metrics;
use crate::objects::{ObjectKey, ObjectStore};
use crate::store::{
    BudgetStore, Claim, JobPriority, JobStatus, JobStore, NewJob, NodeStore, StoreError,
};

/// Draws source renders. The in-process node uses the wgpu renderer; tests
/// and remote-node adapters implement it too.
#[async_trait]
pub trait RenderBackend: Send + Sync + std::fmt::Debug {
    /// The job's source render as PNG bytes (1024x1024, transparent).
    async fn render_png(&self, job: &RenderJob) -> Result<Vec<u8>, String>;

    /// Renders a leased batch (jobs of one vehicle) one after another,
    /// sending each job's PNG, by index, on `done` as soon as it is drawn.
    /// By default one by one with [`RenderBackend::render_png`]; the wgpu
    /// renderer draws the batch from one mesh.
    async fn render_batch(&self, jobs: Vec<RenderJob>, done: Rendered) {
        for (index, job) in jobs.iter().enumerate() {
            let started = Instant::now();
            let png = self.render_png(job).await;
            let ms = started.elapsed().as_millis() as u64;
            if done.send(Drawn { index, png, ms }).is_err() {
                return;
            }
        }
    }
}

/// One render of a batch, sent as soon as it is drawn.
#[derive(Debug)]
pub struct Drawn {
    /// The job's place in the batch.
    pub index: usize,
    /// Its source render (PNG), or why there is none.
    pub png: Result<Vec<u8>, String>,
    /// How long it took to draw and encode, on its own.
    pub ms: u64,
}

/// Where a batch's renders go as they are drawn.
pub type Rendered = tokio::sync::mpsc::UnboundedSender<Drawn>;

/// Operator settings for dispatch.
#[derive(Debug, Clone)]
pub struct DispatchConfig {
    /// Part of every object key and ETag; bump to re-render everything.
    pub revision: u32,
    /// How long a request waits for a cold render (spec: up to 2 minutes).
    pub job_timeout: Duration,
    /// Cold renders per UTC day when no operator setting overrides it.
    pub default_daily_budget: i64,
    /// Queued + running jobs above which new cold renders are refused (503).
    pub max_queue_depth: i64,
    /// Render slots of the in-process pool (0: none). The queue-wait
    /// estimate adds the slots of the remote nodes that heartbeat.
    pub workers: usize,
    /// The most jobs an in-process worker leases at once (`[render] batch`).
    pub batch: usize,
    /// A remote node's job lease past its last heartbeat naming the job.
    pub node_lease: Duration,
    /// How often remote nodes heartbeat.
    pub node_heartbeat: Duration,
}

impl Default for DispatchConfig {
    fn default() -> Self {
        DispatchConfig {
            revision: crate::config::RenderConfig::default().revision,
            job_timeout: Duration::from_secs(120),
            default_daily_budget: 10_000,
            max_queue_depth: 200,
            workers: 2,
            batch: crate::config::MAX_BATCH,
            node_lease: Duration::from_secs(30),
            node_heartbeat: Duration::from_secs(5),
        }
    }
}

/// Where a delivered source came from (spec `X-Image-Source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Cache,
    Generated,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Cache => "cache",
            SourceKind::Generated => "generated",
        }
    }
}

/// Who a cold render is for, which decides whether it may be started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// A paying client (or a URL paid at creation): the whole daily budget.
    Paid,
    /// A free visitor (the playground): at most `per_day` cold renders a UTC
    /// day across all replicas, and never the last `reserve_percent` of the
    /// daily budget, which stays for paying clients.
    Free { per_day: i64, reserve_percent: u8 },
    /// Only renders that already exist; never a cold render (`mode=cached`).
    CachedOnly,
}

impl Admission {
    /// The budget counter's name for free renders of `day`.
    fn free_day(day: &str) -> String {
        format!("free:{day}")
    }
}

/// Why no source could be had.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DispatchError {
    #[error("the daily generation budget is spent")]
    BudgetSpent { retry_after_secs: u64 },
    #[error("today's allowance of free cold renders is spent")]
    FreeAllowanceSpent { retry_after_secs: u64 },
    #[error("the variant has never been rendered")]
    NotRendered,
    #[error("the render queue is full")]
    Overloaded { retry_after_secs: u64 },
    #[error("the render failed: {0}")]
    RenderFailed(String),
    #[error("the render did not finish in time")]
    TimedOut,
    #[error("a dependency is unavailable: {0}")]
    Unavailable(String),
}

impl From<StoreError> for DispatchError {
    fn from(e: StoreError) -> Self {
        DispatchError::Unavailable(e.to_string())
    }
}

impl From<crate::objects::ObjectError> for DispatchError {
    fn from(e: crate::objects::ObjectError) -> Self {
        DispatchError::Unavailable(e.to_string())
    }
}

pub const BUDGET_SETTING: &str = "daily_render_budget";

/// The object key of a variant's source render.
pub fn source_key(variant: &VariantKey, revision: u32) -> ObjectKey {
    ObjectKey::parse(&format!("renders/r{revision}/{variant}/source.png"))
        .expect("slugs and ids make valid keys")
}

/// The part of the store renders use: the job queue, the daily budget and
/// the render nodes. `app.rs` hands the concrete store in as this port.
pub trait RenderStore: JobStore + BudgetStore + NodeStore {}

impl<T: JobStore + BudgetStore + NodeStore + ?Sized> RenderStore for T {}

type Shared = Arc<OnceCell<Result<Bytes, DispatchError>>>;

#[derive(Debug)]
pub struct Dispatcher {
    store: Arc<dyn RenderStore>,
    objects: Arc<dyn ObjectStore>,
    config: DispatchConfig,
    inflight: Mutex<HashMap<String, Shared>>,
    /// Wakes in-process workers when a job is queued.
    pub(crate) job_queued: Arc<Notify>,
    /// Wakes waiters when any in-process job finishes.
    pub(crate) job_finished: Arc<Notify>,
    metrics: Arc<Metrics>,
    /// Render slots counted lately, and when.
    slots: Mutex<Option<(usize, Instant)>>,
}

/// How long a count of render slots is reused.
const SLOTS_TTL: Duration = Duration::from_secs(5);

impl Dispatcher {
    pub fn new(
        store: Arc<dyn RenderStore>,
        objects: Arc<dyn ObjectStore>,
        config: DispatchConfig,
        metrics: Arc<Metrics>,
    ) -> Dispatcher {
        Dispatcher {
            store,
            objects,
            config,
            inflight: Mutex::new(HashMap::new()),
            job_queued: Arc::new(Notify::new()),
            job_finished: Arc::new(Notify::new()),
            metrics,
            slots: Mutex::new(None),
        }
    }

    pub fn config(&self) -> &DispatchConfig {
        &self.config
    }

    /// The source render of `job`'s variant, rendering it if needed.
    pub async fn source(&self, job: &RenderJob) -> Result<(Bytes, SourceKind), DispatchError> {
        self.source_with(job, Admission::Paid).await
    }

    /// The source render of `job`'s variant; a cold render only when
    /// `admission` allows one.
    pub async fn source_with(
        &self,
        job: &RenderJob,
        admission: Admission,
    ) -> Result<(Bytes, SourceKind), DispatchError> {
        let key = source_key(&job.variant, job.revision);
        if let Some(obj) = self.objects.get(&key).await? {
            return Ok((obj.bytes, SourceKind::Cache));
        }
        if admission == Admission::CachedOnly {
            return Err(DispatchError::NotRendered);
        }
        let flight_key = key.to_string();
        let cell: Shared = {
            let mut map = self.inflight.lock();
            map.entry(flight_key.clone()).or_default().clone()
        };
        let result = cell
            .get_or_init(|| self.generate(job, &key, admission))
            .await
            .clone();
        // The first finisher clears the entry; later requests find the object.
        self.inflight.lock().remove(&flight_key);
        match result {
            // The flight was led by a free request that was refused; a
            // paying one does not inherit that refusal.
            Err(DispatchError::FreeAllowanceSpent { .. }) if admission == Admission::Paid => {
                self.generate(job, &key, admission).await
            }
            other => other,
        }
        .map(|bytes| (bytes, SourceKind::Generated))
    }

    /// Today's budget limit: the operator setting, else the configured default.
    pub async fn daily_budget(&self) -> Result<i64, StoreError> {
        daily_budget(&*self.store, self.config.default_daily_budget).await
    }

    async fn generate(
        &self,
        job: &RenderJob,
        key: &ObjectKey,
        admission: Admission,
    ) -> Result<Bytes, DispatchError> {
        // Another process may have finished it since the first look.
        if let Some(obj) = self.objects.get(key).await? {
            return Ok(obj.bytes);
        }
        let variant = job.variant.to_string();
        let revision = i64::from(job.revision);
        let started = Instant::now();
        // A job can vanish under a request that joined it: a prewarm job
        // cancelled (withdrawn) as the request joined it. That is not a
        // failed render: the request admits its own job, a normal cold
        // render (with the budget and queue checks of any other), twice at
        // most, then answers 503 with Retry-After.
        for _ in 0..3 {
            let job_id = self.admit(job, &variant, revision, admission).await?;
            match self.wait_for(&job_id, key, started).await {
                Ok(Some(bytes)) => return Ok(bytes),
                Ok(None) => {
                    if let Some(obj) = self.objects.get(key).await? {
                        return Ok(obj.bytes);
                    }
                }
                Err(e) => {
                    self.metrics.render_waits_failed.inc();
                    return Err(e);
                }
            }
        }
        self.metrics.render_waits_failed.inc();
        Err(DispatchError::Unavailable(
            "the render job was withdrawn as this request joined it".into(),
        ))
    }

    /// Joins a live job, or takes budget and queues one. Returns the job id.
    async fn admit(
        &self,
        job: &RenderJob,
        variant: &str,
        revision: i64,
        admission: Admission,
    ) -> Result<String, DispatchError> {
        // A job already queued or running (perhaps by another replica)
        // needs neither budget nor capacity: join it. A prewarm job is
        // raised to interactive priority first, so the request does not
        // wait behind the rest of the prewarm.
        if let Some(live) = self.store.live_job(variant, revision).await?
            && (live.priority == JobPriority::Interactive
                || self.store.promote_job(&live.id).await?)
        {
            return Ok(live.id);
        }
        // Prewarm jobs queued do not count: interactive ones overtake them.
        let counts = self.store.job_counts().await?;
        let depth = counts.queued_interactive() + counts.running;
        let day = utc_day();
        // Admission before the job exists, so a refused request never creates one.
        let limit = self.daily_budget().await?;
        let free_day = Admission::free_day(&day);
        let free = match admission {
            Admission::Free {
                per_day,
                reserve_percent,
            } => {
                let refused = DispatchError::FreeAllowanceSpent {
                    retry_after_secs: secs_until_utc_midnight(),
                };
                // The free allowance first, then the budget below its reserve:
                // both conditional writes, so replicas together keep both.
                if !self.store.take_budget(&free_day, per_day).await? {
                    self.metrics.budget_refusals.inc();
                    return Err(refused);
                }
                let cap = limit - limit * i64::from(reserve_percent.min(100)) / 100;
                if !self.store.take_budget(&day, cap).await? {
                    self.store.return_budget(&free_day).await?;
                    self.metrics.budget_refusals.inc();
                    return Err(refused);
                }
                true
            }
            Admission::Paid | Admission::CachedOnly => {
                if !self.store.take_budget(&day, limit).await? {
                    self.metrics.budget_refusals.inc();
                    return Err(DispatchError::BudgetSpent {
                        retry_after_secs: secs_until_utc_midnight(),
                    });
                }
                false
            }
        };
        let give_back = || async {
            self.store.return_budget(&day).await?;
            if free {
                self.store.return_budget(&free_day).await?;
            }
            Ok::<(), StoreError>(())
        };
        if let Some(refused) = self.queue_refusal(depth, 1).await {
            give_back().await?;
            return Err(refused);
        }
        let (record, claim) = self
            .store
            .claim_job(variant, revision, job.shape.id(), JobPriority::Interactive)
            .await?;
        match claim {
            Claim::Created | Claim::Requeued => {
                self.metrics.renders_queued.inc();
                self.job_queued.notify_one();
            }
            Claim::Joined => give_back().await?,
        }
        Ok(record.id)
    }

    /// Why `n` more jobs may not join a queue `depth` deep, if they may not:
    /// it is full, or it cannot drain within the time a client is told to
    /// wait (refuse rather than hang).
    async fn queue_refusal(&self, depth: i64, n: i64) -> Option<DispatchError> {
        let slots = self.render_slots().await;
        let too_slow =
            self.queue_wait_estimate(depth + n, slots) > self.config.job_timeout.as_secs();
        if depth + n > self.config.max_queue_depth || too_slow {
            self.metrics.queue_refusals.inc();
            return Some(DispatchError::Overloaded {
                retry_after_secs: self.queue_wait_estimate(depth, slots),
            });
        }
        None
    }

    /// Queues the cold ones of `jobs` (a spin's frames: one vehicle) for a
    /// paying request, admitted together: the budget and the queue take them
    /// all or refuse them all, and they are claimed in one transaction, so
    /// a node leases them as one batch and draws them from one mesh. Frames
    /// already rendered or with a live job are left alone. Each frame's
    /// [`Dispatcher::source`] then joins its job.
    pub async fn admit_batch(&self, jobs: &[RenderJob]) -> Result<(), DispatchError> {
        let mut cold = Vec::with_capacity(jobs.len());
        for job in jobs {
            let key = source_key(&job.variant, job.revision);
            if self.objects.head(&key).await?.is_some() {
                continue;
            }
            let variant = job.variant.to_string();
            if self
                .store
                .live_job(&variant, i64::from(job.revision))
                .await?
                .is_some()
            {
                continue;
            }
            cold.push((job, variant));
        }
        if cold.is_empty() {
            return Ok(());
        }
        let n = i64::try_from(cold.len()).unwrap_or(i64::MAX);
        let counts = self.store.job_counts().await?;
        let depth = counts.queued_interactive() + counts.running;
        let day = utc_day();
        let limit = self.daily_budget().await?;
        if !self.store.take_budgets(&day, limit, n).await? {
            self.metrics.budget_refusals.inc();
            return Err(DispatchError::BudgetSpent {
                retry_after_secs: secs_until_utc_midnight(),
            });
        }
        if let Some(refused) = self.queue_refusal(depth, n).await {
            self.store.return_budgets(&day, n).await?;
            return Err(refused);
        }
        let new: Vec<NewJob<'_>> = cold
            .iter()
            .map(|(job, variant)| NewJob {
                variant,
                revision: i64::from(job.revision),
                shape: job.shape.id(),
            })
            .collect();
        let claimed = match self.store.claim_jobs(&new, JobPriority::Interactive).await {
            Ok(claimed) => claimed,
            Err(e) => {
                self.store.return_budgets(&day, n).await?;
                return Err(e.into());
            }
        };
        // Another request's jobs, queued since the first look, took no budget.
        let joined = claimed.iter().filter(|(_, c)| *c == Claim::Joined).count();
        if joined > 0 {
            self.store
                .return_budgets(&day, i64::try_from(joined).unwrap_or(n))
                .await?;
        }
        let queued = claimed.len() - joined;
        if queued > 0 {
            self.metrics.renders_queued.inc_by(queued as u64);
            self.job_queued.notify_one();
        }
        Ok(())
    }

    /// Waits for job `job_id`'s image; `None` when the job is gone
    /// (withdrawn: a cancelled prewarm's queued job).
    async fn wait_for(
        &self,
        job_id: &str,
        key: &ObjectKey,
        started: Instant,
    ) -> Result<Option<Bytes>, DispatchError> {
        let deadline = started + self.config.job_timeout;
        loop {
            let finished = self.job_finished.notified();
            let Some(record) = self.store.job_by_id(job_id).await? else {
                return Ok(None);
            };
            match record.status {
                JobStatus::Done => {
                    return match self.objects.get(key).await? {
                        Some(obj) => Ok(Some(obj.bytes)),
                        None => Err(DispatchError::RenderFailed(
                            "the render finished but its image is missing".into(),
                        )),
                    };
                }
                JobStatus::Failed => {
                    return Err(DispatchError::RenderFailed(
                        record.error.unwrap_or_else(|| "unknown".into()),
                    ));
                }
                JobStatus::Queued | JobStatus::Running => {}
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(DispatchError::TimedOut);
            }
            // In-process jobs wake us at once; jobs of other processes are polled.
            let poll = Duration::from_millis(100).min(deadline - now);
            let _ = tokio::time::timeout(poll, finished).await;
        }
    }

    /// Seconds until a queue of `depth` jobs drains on `slots` render
    /// slots, given the measured mean render time (or 2 s before any render
    /// was measured).
    pub fn queue_wait_estimate(&self, depth: i64, slots: usize) -> u64 {
        let mean_ms = self.metrics.render_mean_ms().unwrap_or(2_000.0);
        let slots = slots.max(1) as f64;
        ((depth.max(1) as f64 * mean_ms / slots) / 1000.0)
            .ceil()
            .max(1.0) as u64
    }

    /// Render slots now: the in-process pool's plus those of the remote
    /// nodes that are active and heartbeating (within three heartbeats),
    /// counted from the node table at most every [`SLOTS_TTL`]. At least 1.
    pub async fn render_slots(&self) -> usize {
        if let Some((n, at)) = *self.slots.lock()
            && at.elapsed() < SLOTS_TTL
        {
            return n;
        }
        let fresh_since = crate::store::now_millis()
            - 3 * i64::try_from(self.config.node_heartbeat.as_millis()).unwrap_or(i64::MAX / 4);
        let remote: i64 = match self.store.nodes().await {
            Ok(nodes) => nodes
                .iter()
                .filter(|n| {
                    n.state == "active" && n.last_heartbeat.is_some_and(|b| b >= fresh_since)
                })
                .map(|n| n.slots.max(0))
                .sum(),
            // The estimate only shapes a refusal: keep the last count.
            Err(_) => {
                return self
                    .slots
                    .lock()
                    .map_or(self.config.workers.max(1), |(n, _)| n);
            }
        };
        let n = (self.config.workers + usize::try_from(remote).unwrap_or(0)).max(1);
        *self.slots.lock() = Some((n, Instant::now()));
        n
    }
}

/// Today's budget limit: the operator setting (`control-plane budget set`),
/// else `default`.
pub async fn daily_budget(
    store: &(impl BudgetStore + ?Sized),
    default: i64,
) -> Result<i64, StoreError> {
    Ok(store
        .setting(BUDGET_SETTING)
        .await?
        .and_then(|v| v.parse().ok())
        .unwrap_or(default))
}

/// Today's date in UTC, `YYYY-MM-DD`: the budget's day.
pub fn utc_day() -> String {
    crate::store::utc_day_of(crate::store::now_millis())
}

pub fn secs_until_utc_midnight() -> u64 {
    let now = time::OffsetDateTime::now_utc();
    let since_midnight =
        u64::from(now.hour()) * 3600 + u64::from(now.minute()) * 60 + u64::from(now.second());
    (86_400 - since_midnight).max(1)
}
