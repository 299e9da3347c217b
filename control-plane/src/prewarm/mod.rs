//! Prewarm jobs: render many variants ahead of demand (docs/render-nodes.md,
//! "Prewarm jobs").
//!
//! `control-plane prewarm` turns a selection ([`selection`]: flags, a CSV or
//! JSON file, or the most requested variants) into a list of variants, keeps
//! it in the database as a prewarm job, and drives it from the command's own
//! process: it queues render jobs at prewarm priority, a window at a time,
//! and follows them to the end. The render nodes of every control plane
//! lease them like any job, but always after interactive ones.
//!
//! Rules, and where each is kept:
//! - A variant whose source render exists is skipped for free (`cached`);
//!   only the derived outputs it lacks are made, by this process.
//! - A queued job takes one render of today's budget, but never from the
//!   last `reserve_percent` of it, which stays for interactive requests: a
//!   conditional write against a lowered cap, as the playground's free
//!   renders do. When the cap is reached the job pauses (resumable).
//! - A variant with a live job (queued or running, perhaps for a request)
//!   joins it and spends nothing.
//! - Every item's state is a row: a driver killed at any point loses
//!   nothing. Its queued render jobs go on rendering; a re-run of the same
//!   selection (or `prewarm resume ID`) picks up where it stopped, once the
//!   old driver has been silent for [`DRIVER_STALE`].

pub mod selection;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use vis_protocol::{Format, SOURCE_PX, VariantKey};

use crate::objects::ObjectStore;
use crate::renders::cache::DerivedKey;
use crate::renders::{source_key, utc_day};
use crate::store::prewarm::PrewarmStore;
use crate::store::prewarm::{ItemStatus, PrewarmCounts, PrewarmItem, PrewarmRun, PrewarmState};
use crate::store::{BudgetStore, Claim, JobPriority, JobStatus, JobStore, StoreError};

/// The part of the store a prewarm run uses: its runs and items, the job
/// queue and the daily budget. `app.rs` and the CLI hand the concrete store
/// in as this port.
pub trait PrewarmPorts: PrewarmStore + JobStore + BudgetStore {}

impl<T: PrewarmStore + JobStore + BudgetStore + ?Sized> PrewarmPorts for T {}

/// A driver that has not beaten for this long is gone; another may take over.
pub const DRIVER_STALE: Duration = Duration::from_secs(5);
/// How often the driver says it is alive.
const BEAT_EVERY: Duration = Duration::from_secs(1);
/// How often the driver looks at its queued jobs.
const TICK: Duration = Duration::from_millis(250);

/// One derived output to make per variant: a square box and a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    pub size: u32,
    pub format: Format,
}

impl Output {
    /// `SIZE:FORMAT` joined by commas, as stored in `prewarm_runs.outputs`.
    pub fn list_to_string(outputs: &[Output]) -> String {
        outputs
            .iter()
            .map(|o| format!("{}:{}", o.size, o.format))
            .collect::<Vec<_>>()
            .join(",")
    }

    pub fn list_from_str(raw: &str) -> Result<Vec<Output>, String> {
        raw.split(',')
            .filter(|s| !s.is_empty())
            .map(|part| {
                let (size, format) = part
                    .split_once(':')
                    .ok_or_else(|| format!("{part:?} is not SIZE:FORMAT"))?;
                Ok(Output {
                    size: size.parse().map_err(|_| format!("bad size {size:?}"))?,
                    format: format.parse().map_err(|e| format!("{e}"))?,
                })
            })
            .collect()
    }

    fn key(&self, variant: &VariantKey, revision: u32) -> DerivedKey {
        let (width, height) =
            vis_render::image::fit(SOURCE_PX, SOURCE_PX, Some(self.size), Some(self.size));
        DerivedKey {
            variant: variant.clone(),
            revision,
            width,
            height,
            format: self.format,
            framing: vis_protocol::Framing::default(),
        }
    }
}

/// What a driver needs besides the job.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Render jobs of this prewarm job queued at once.
    pub window: usize,
    /// The share of the daily budget prewarming never spends.
    pub reserve_percent: u8,
    /// The daily budget when no operator setting overrides it.
    pub default_budget: i64,
}

/// A snapshot for the progress display.
#[derive(Debug, Clone)]
pub struct Progress {
    pub id: String,
    pub total: i64,
    pub counts: PrewarmCounts,
    /// Items finished per second by this driver since it started.
    pub rate: f64,
    pub eta: Option<Duration>,
}

impl Progress {
    /// One line: `prewarm ID: 120/500 finished (...), 380 remaining, 4.2/s, ETA 1m30s`.
    pub fn line(&self) -> String {
        let c = &self.counts;
        let mut line = format!(
            "prewarm {}: {}/{} finished ({} rendered, {} skipped as cached, {} failed",
            self.id,
            c.finished(),
            self.total,
            c.done,
            c.cached,
            c.failed
        );
        if c.cancelled > 0 {
            line.push_str(&format!(", {} cancelled", c.cancelled));
        }
        line.push_str(&format!(
            "), {} remaining, {:.1}/s, ETA {}",
            c.remaining(),
            self.rate,
            self.eta
                .map_or_else(|| "unknown".to_owned(), human_duration)
        ));
        line
    }
}

/// `1h02m`, `3m05s`, `42s`.
pub fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// How a drive ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Every item finished (some may have failed: see the counts).
    Done,
    /// Stopped early; resumable. The reason says why.
    Paused(String),
    Cancelled,
}

#[derive(Debug, thiserror::Error)]
pub enum PrewarmError {
    #[error(
        "prewarm {0} is being driven by another process (it beat {1} s ago); wait for it, or cancel it"
    )]
    Busy(String, i64),
    #[error("prewarm {0} has ended ({1}); start a new one")]
    Ended(String, &'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the object store failed: {0}")]
    Objects(#[from] crate::objects::ObjectError),
}

/// Drives prewarm jobs for one process.
pub struct Driver {
    store: Arc<dyn PrewarmPorts>,
    objects: Arc<dyn ObjectStore>,
    settings: Settings,
    /// This process's name in `prewarm_runs.driver`.
    name: String,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").field("name", &self.name).finish()
    }
}

impl Driver {
    pub fn new(
        store: Arc<dyn PrewarmPorts>,
        objects: Arc<dyn ObjectStore>,
        settings: Settings,
    ) -> Driver {
        Driver {
            store,
            objects,
            settings,
            name: format!("{}-{}", std::process::id(), crate::auth::random_base62(8)),
        }
    }

    /// Takes the right to drive `run`, waiting up to [`DRIVER_STALE`] for a
    /// killed driver to go silent.
    pub async fn claim(&self, run: &PrewarmRun) -> Result<(), PrewarmError> {
        let stale_ms = DRIVER_STALE.as_millis() as i64;
        let give_up = Instant::now() + DRIVER_STALE + Duration::from_secs(1);
        loop {
            if self
                .store
                .drive_prewarm(&run.id, &self.name, stale_ms)
                .await?
            {
                return Ok(());
            }
            let now = self
                .store
                .prewarm(&run.id)
                .await?
                .ok_or(StoreError::NotFound("prewarm job"))?;
            if !now.state.is_open() {
                return Err(PrewarmError::Ended(now.id, now.state.as_str()));
            }
            if Instant::now() >= give_up {
                let ago = now
                    .driver_beat
                    .map_or(0, |b| (crate::store::now_millis() - b) / 1000);
                return Err(PrewarmError::Busy(now.id, ago));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Drives a claimed job until it ends, `stop` is set (Ctrl-C: the job
    /// pauses), or its budget share runs out. Calls `progress` on every
    /// change and at least once a second.
    pub async fn drive(
        &self,
        run: &PrewarmRun,
        stop: &AtomicBool,
        mut progress: impl FnMut(&Progress),
    ) -> Result<Ended, PrewarmError> {
        let outputs = Output::list_from_str(&run.outputs)
            .map_err(|e| StoreError::Database(format!("prewarm outputs: {e}")))?;
        let started = Instant::now();
        let first = self.store.prewarm_counts(&run.id).await?;
        let mut last_beat = Instant::now();
        let mut last_shown: Option<(PrewarmCounts, Instant)> = None;
        let mut budget_out = false;
        loop {
            if stop.load(Ordering::Relaxed) {
                self.store
                    .end_prewarm(&run.id, PrewarmState::Paused, Some("interrupted"))
                    .await?;
                return Ok(Ended::Paused("interrupted".into()));
            }
            if last_beat.elapsed() >= BEAT_EVERY {
                last_beat = Instant::now();
                if !self
                    .store
                    .drive_prewarm(&run.id, &self.name, DRIVER_STALE.as_millis() as i64)
                    .await?
                {
                    // Cancelled, or taken over after this process stalled.
                    let now = self.store.prewarm(&run.id).await?;
                    return match now.map(|r| r.state) {
                        Some(PrewarmState::Cancelled) => Ok(Ended::Cancelled),
                        Some(state) => Err(PrewarmError::Ended(run.id.clone(), state.as_str())),
                        None => Err(StoreError::NotFound("prewarm job").into()),
                    };
                }
            }
            let queued = self.follow_queued(run, &outputs).await?;
            if !budget_out {
                let room = self.settings.window.saturating_sub(queued);
                if room > 0 {
                    budget_out = !self.queue_more(run, &outputs, room).await?;
                }
            }
            let counts = self.store.prewarm_counts(&run.id).await?;
            let changed = last_shown
                .is_none_or(|(c, at)| c != counts || at.elapsed() >= Duration::from_secs(1));
            if changed {
                let finished_here = (counts.finished() - first.finished()).max(0);
                let secs = started.elapsed().as_secs_f64().max(0.001);
                let rate = finished_here as f64 / secs;
                let eta =
                    (rate > 0.0).then(|| Duration::from_secs_f64(counts.remaining() as f64 / rate));
                progress(&Progress {
                    id: run.id.clone(),
                    total: run.total,
                    counts,
                    rate,
                    eta,
                });
                last_shown = Some((counts, Instant::now()));
            }
            if counts.queued == 0 && (counts.pending == 0 || budget_out) {
                return if counts.pending == 0 {
                    self.store
                        .end_prewarm(&run.id, PrewarmState::Done, None)
                        .await?;
                    Ok(Ended::Done)
                } else {
                    let reason = format!(
                        "the budget reserve was reached: prewarming spends at most {}% of today's budget",
                        100 - u32::from(self.settings.reserve_percent.min(100))
                    );
                    self.store
                        .end_prewarm(&run.id, PrewarmState::Paused, Some(&reason))
                        .await?;
                    Ok(Ended::Paused(reason))
                };
            }
            tokio::time::sleep(TICK).await;
        }
    }

    /// Looks at the queued items' render jobs; finishes those that ended.
    /// Returns how many are still queued.
    async fn follow_queued(
        &self,
        run: &PrewarmRun,
        outputs: &[Output],
    ) -> Result<usize, PrewarmError> {
        let limit = self.settings.window.max(1) as i64 * 4;
        let queued = self
            .store
            .prewarm_items(&run.id, ItemStatus::Queued, limit)
            .await?;
        let mut still = 0;
        for item in queued {
            let job = match &item.job_id {
                Some(id) => self.store.job_by_id(id).await?,
                None => None,
            };
            match job.map(|j| (j.status, j.error)) {
                // Withdrawn (a cancelled prewarm's job): queue it again.
                None => {
                    self.set(run, &item, ItemStatus::Pending, None, None)
                        .await?;
                }
                Some((JobStatus::Done, _)) => {
                    let (status, error) = match self.derive_outputs(&item, outputs).await {
                        Ok(()) => (ItemStatus::Done, None),
                        Err(e) => (ItemStatus::Failed, Some(e)),
                    };
                    self.set(run, &item, status, item.job_id.as_deref(), error.as_deref())
                        .await?;
                }
                Some((JobStatus::Failed, error)) => {
                    let error = error.unwrap_or_else(|| "the render failed".into());
                    self.set(
                        run,
                        &item,
                        ItemStatus::Failed,
                        item.job_id.as_deref(),
                        Some(&error),
                    )
                    .await?;
                }
                Some((JobStatus::Queued | JobStatus::Running, _)) => still += 1,
            }
        }
        Ok(still)
    }

    /// Queues up to `room` pending items (skipping cached ones for free).
    /// False when the budget reserve stopped it.
    async fn queue_more(
        &self,
        run: &PrewarmRun,
        outputs: &[Output],
        room: usize,
    ) -> Result<bool, PrewarmError> {
        let pending = self
            .store
            .prewarm_items(&run.id, ItemStatus::Pending, room as i64 * 2)
            .await?;
        let mut queued = 0;
        for item in pending {
            if queued >= room {
                break;
            }
            let Ok(variant) = item.variant.parse::<VariantKey>() else {
                let error = format!("{:?} is not a variant", item.variant);
                self.set(run, &item, ItemStatus::Failed, None, Some(&error))
                    .await?;
                continue;
            };
            let revision = u32::try_from(item.revision).unwrap_or(0);
            if self
                .objects
                .head(&source_key(&variant, revision))
                .await?
                .is_some()
            {
                let (status, error) = match self.derive_outputs(&item, outputs).await {
                    Ok(()) => (ItemStatus::Cached, None),
                    Err(e) => (ItemStatus::Failed, Some(e)),
                };
                self.set(run, &item, status, None, error.as_deref()).await?;
                continue;
            }
            match self.enqueue(&item).await? {
                Some(job_id) => {
                    self.set(run, &item, ItemStatus::Queued, Some(&job_id), None)
                        .await?;
                    queued += 1;
                }
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Queues `item`'s render job at prewarm priority, or joins a live one.
    /// None: the budget reserve is reached.
    async fn enqueue(&self, item: &PrewarmItem) -> Result<Option<String>, StoreError> {
        // A live job (a request's, or another prewarm's) costs nothing more.
        if let Some(live) = self.store.live_job(&item.variant, item.revision).await? {
            return Ok(Some(live.id));
        }
        let day = utc_day();
        let limit =
            crate::renders::daily_budget(&*self.store, self.settings.default_budget).await?;
        let reserve = i64::from(self.settings.reserve_percent.min(100));
        let cap = limit - limit * reserve / 100;
        if !self.store.take_budget(&day, cap).await? {
            return Ok(None);
        }
        let (record, claim) = self
            .store
            .claim_job(
                &item.variant,
                item.revision,
                &item.shape,
                JobPriority::Prewarm,
            )
            .await?;
        if claim == Claim::Joined {
            self.store.return_budget(&day).await?;
        }
        Ok(Some(record.id))
    }

    /// Makes the derived outputs `item` lacks from its source render.
    async fn derive_outputs(&self, item: &PrewarmItem, outputs: &[Output]) -> Result<(), String> {
        if outputs.is_empty() {
            return Ok(());
        }
        let variant: VariantKey = item.variant.parse()?;
        let revision = u32::try_from(item.revision).unwrap_or(0);
        let mut source: Option<Bytes> = None;
        for output in outputs {
            let key = output.key(&variant, revision).object_key();
            if self
                .objects
                .head(&key)
                .await
                .map_err(|e| e.to_string())?
                .is_some()
            {
                continue;
            }
            if source.is_none() {
                let found = self
                    .objects
                    .get(&source_key(&variant, revision))
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or("the render finished but its image is missing")?;
                source = Some(found.bytes);
            }
            let png = source.clone().unwrap_or_default();
            let (size, format) = (output.size, output.format);
            let encoded = tokio::task::spawn_blocking(move || {
                vis_render::image::derive(
                    vis_render::Source::Png(&png),
                    Some(size),
                    Some(size),
                    &vis_protocol::Framing::default(),
                    format,
                )
            })
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
            self.objects
                .put(&key, Bytes::from(encoded.bytes), format.mime())
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    async fn set(
        &self,
        run: &PrewarmRun,
        item: &PrewarmItem,
        status: ItemStatus,
        job_id: Option<&str>,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.store
            .set_prewarm_item(&run.id, item.seq, status, job_id, error)
            .await
    }
}

/// Cancels an open prewarm job: its still-queued render jobs are withdrawn
/// (their budget returned), its unfinished items marked cancelled. Render
/// jobs already running finish. Returns the items cancelled.
pub async fn cancel(
    store: &(impl PrewarmPorts + ?Sized),
    id: &str,
) -> Result<Option<i64>, StoreError> {
    if !store
        .end_prewarm(
            id,
            PrewarmState::Cancelled,
            Some("cancelled by an operator"),
        )
        .await?
    {
        return Ok(None);
    }
    let today = utc_day();
    let mut cancelled = 0;
    for status in [ItemStatus::Queued, ItemStatus::Pending] {
        loop {
            let items = store.prewarm_items(id, status, 500).await?;
            if items.is_empty() {
                break;
            }
            for item in items {
                if let Some(job_id) = &item.job_id
                    && let Some(day) = store.withdraw_job(job_id).await?
                    && day == today
                {
                    store.return_budget(&day).await?;
                }
                store
                    .set_prewarm_item(
                        id,
                        item.seq,
                        ItemStatus::Cancelled,
                        item.job_id.as_deref(),
                        None,
                    )
                    .await?;
                cancelled += 1;
            }
        }
    }
    Ok(Some(cancelled))
}

/// The JSON form of a job, for `prewarm status --json` and the final report.
pub fn report(run: &PrewarmRun, counts: &PrewarmCounts) -> serde_json::Value {
    let driver_alive = run.state == PrewarmState::Running
        && run
            .driver_beat
            .is_some_and(|b| crate::store::now_millis() - b < DRIVER_STALE.as_millis() as i64);
    serde_json::json!({
        "id": run.id,
        "state": if run.state == PrewarmState::Running && !driver_alive {
            "interrupted"
        } else {
            run.state.as_str()
        },
        "stopped_reason": run.stopped_reason,
        "total": run.total,
        "counts": counts,
        "finished": counts.finished(),
        "remaining": counts.remaining(),
        "outputs": run.outputs,
        "selection": serde_json::from_str::<serde_json::Value>(&run.selection).unwrap_or_default(),
        "created_at": run.created_at,
        "updated_at": run.updated_at,
    })
}
