//! The in-process render node: a pool of workers that lease jobs from the
//! job table (a batch of one vehicle's jobs at a time), draw them with a
//! [`RenderBackend`], store each source PNG and finish each job as it is
//! drawn. Remote nodes run the same loop over HTTP (`http/nodes.rs`).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use tokio::sync::Notify;
use tracing::Instrument;
use vis_protocol::{BodyShape, RenderJob, VariantKey};

use super::{Dispatcher, Drawn, RenderBackend, Rendered, source_key};
use crate::metrics::Metrics;
use crate::objects::ObjectStore;
use crate::store::{JobRecord, JobStore};

/// The wgpu studio renderer, in this process. Rendering and PNG encoding run
/// on the blocking pool; the renderer bounds its own in-flight renders.
#[derive(Debug)]
pub struct InProcessRenderer {
    renderer: Arc<vis_render::Renderer>,
}

impl InProcessRenderer {
    pub fn new(renderer: Arc<vis_render::Renderer>) -> InProcessRenderer {
        InProcessRenderer { renderer }
    }
}

#[async_trait]
impl RenderBackend for InProcessRenderer {
    async fn render_png(&self, job: &RenderJob) -> Result<Vec<u8>, String> {
        let renderer = Arc::clone(&self.renderer);
        let job = job.clone();
        tokio::task::spawn_blocking(move || {
            let rgba = renderer.render(&job).map_err(|e| e.to_string())?;
            vis_render::image::encode_png(&rgba).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| format!("render task failed: {e}"))?
    }

    async fn render_batch(&self, jobs: Vec<RenderJob>, done: Rendered) {
        let renderer = Arc::clone(&self.renderer);
        // A panic drops `done` with jobs unsent: the worker fails those.
        let _ = tokio::task::spawn_blocking(move || {
            renderer.render_batch_png(&jobs, |index, png, ms| {
                let _ = done.send(Drawn { index, png, ms });
            });
        })
        .await;
    }
}

/// Handles to the running workers.
#[derive(Debug)]
pub struct WorkerPool {
    stop: Arc<Stop>,
    handles: Vec<tokio::task::JoinHandle<()>>,
}

impl WorkerPool {
    /// Starts `count` workers that render with `backend`.
    pub fn start(
        count: usize,
        dispatcher: &Dispatcher,
        store: Arc<dyn JobStore>,
        objects: Arc<dyn ObjectStore>,
        backend: Arc<dyn RenderBackend>,
        metrics: Arc<Metrics>,
    ) -> WorkerPool {
        let stop = Arc::new(Stop::default());
        let lease_ms =
            i64::try_from(dispatcher.config().job_timeout.as_millis()).unwrap_or(i64::MAX);
        let handles = (0..count.max(1))
            .map(|i| {
                let w = Worker {
                    owner: format!("inproc-{}-{i}", std::process::id()),
                    store: Arc::clone(&store),
                    objects: Arc::clone(&objects),
                    backend: Arc::clone(&backend),
                    metrics: Arc::clone(&metrics),
                    queued: Arc::clone(&dispatcher.job_queued),
                    finished: Arc::clone(&dispatcher.job_finished),
                    stop: Arc::clone(&stop),
                    lease_ms,
                    batch: dispatcher.config().batch.max(1),
                    base_revision: dispatcher.config().revision,
                };
                tokio::spawn(w.run())
            })
            .collect();
        WorkerPool { stop, handles }
    }

    /// Stops leasing new jobs and waits for the ones in hand to finish.
    pub async fn shutdown(self) {
        self.stop
            .requested
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.stop.wake.notify_waiters();
        for h in self.handles {
            let _ = h.await;
        }
    }
}

/// A stop request: the flag is what counts (a worker busy rendering sees it
/// at the top of its next loop); the notification only cuts an idle wait short.
#[derive(Debug, Default)]
struct Stop {
    requested: std::sync::atomic::AtomicBool,
    wake: Notify,
}

struct Worker {
    owner: String,
    store: Arc<dyn JobStore>,
    objects: Arc<dyn ObjectStore>,
    backend: Arc<dyn RenderBackend>,
    metrics: Arc<Metrics>,
    queued: Arc<Notify>,
    finished: Arc<Notify>,
    stop: Arc<Stop>,
    lease_ms: i64,
    /// The most jobs leased at once (`[render] batch`).
    batch: usize,
    /// The deployment's render revision (`[render] revision`).
    base_revision: u32,
}

impl Worker {
    async fn run(self) {
        loop {
            let woken = self.queued.notified();
            let stopped = self.stop.wake.notified();
            if self
                .stop
                .requested
                .load(std::sync::atomic::Ordering::SeqCst)
            {
                return;
            }
            match self
                .store
                .lease_jobs(&self.owner, self.lease_ms, self.batch)
                .await
            {
                Ok(jobs) if !jobs.is_empty() => {
                    self.process(jobs).await;
                    continue;
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "leasing a render job failed"),
            }
            // Sleep until work is queued, a poll interval passes (jobs from
            // other replicas, expired leases), or shutdown.
            tokio::select! {
                () = woken => {}
                () = tokio::time::sleep(Duration::from_millis(500)) => {}
                () = stopped => return,
            }
        }
    }

    /// Draws a leased batch and finishes each job as its render is stored.
    async fn process(&self, records: Vec<JobRecord>) {
        let mut batch = Vec::with_capacity(records.len());
        for record in records {
            match render_job(&record, self.base_revision) {
                Ok(job) => batch.push((record, job)),
                // A row no node could draw fails rather than blocks the rest.
                Err(e) => self.finish(&record, Err(e)).await,
            }
        }
        if batch.is_empty() {
            return;
        }
        let span = tracing::info_span!("render_batch", jobs = batch.len(), vehicle = %batch[0].1.variant.vehicle());
        let jobs: Vec<RenderJob> = batch.iter().map(|(_, job)| job.clone()).collect();
        let (done, mut drawn) = tokio::sync::mpsc::unbounded_channel();
        let render = self.backend.render_batch(jobs, done);
        let keep = async {
            let mut finished = vec![false; batch.len()];
            while let Some(Drawn { index, png, ms }) = drawn.recv().await {
                let Some((record, job)) = batch.get(index) else {
                    continue;
                };
                let stored = match png {
                    Ok(png) => store_source(self.objects.as_ref(), job, Bytes::from(png)).await,
                    Err(e) => Err(e),
                };
                let ms = i64::try_from(ms).unwrap_or(i64::MAX);
                self.finish(record, stored.map(|()| ms)).await;
                finished[index] = true;
            }
            for (i, (record, _)) in batch.iter().enumerate() {
                if !finished[i] {
                    self.finish(record, Err("render task failed".into())).await;
                }
            }
        };
        tokio::join!(render, keep.instrument(span));
    }

    /// Records a job's end (its render time, or why it failed) and wakes
    /// its waiters.
    async fn finish(&self, record: &JobRecord, outcome: Result<i64, String>) {
        let span = tracing::info_span!("render_job", job.id = %record.id, job.variant = %record.variant, job.attempt = record.attempts);
        async {
            match &outcome {
                Ok(ms) => {
                    self.metrics.observe_render(*ms as f64);
                    tracing::info!(duration_ms = ms, "render finished");
                }
                Err(e) => {
                    self.metrics.renders_failed.inc();
                    tracing::warn!(error = %e, "render failed");
                }
            }
            let finish = outcome.as_ref().copied().map_err(String::as_str);
            match self.store.finish_job(&record.id, &self.owner, finish).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::warn!("lost the lease before finishing; another node owns the job")
                }
                Err(e) => tracing::error!(error = %e, "could not record the job's end"),
            }
        }
        .instrument(span)
        .await;
        self.finished.notify_waiters();
    }
}

/// What a node draws for a job row; `base_revision` is the deployment's
/// render revision (`[render] revision`).
pub fn render_job(record: &JobRecord, base_revision: u32) -> Result<RenderJob, String> {
    let variant: VariantKey = record.variant.parse()?;
    let shape: BodyShape = record
        .shape
        .parse()
        .map_err(|e: vis_protocol::ParseError| e.to_string())?;
    let revision = u32::try_from(record.revision).map_err(|_| "bad revision".to_owned())?;
    Ok(RenderJob {
        variant,
        shape,
        revision,
        // The n-th re-render of a variant is n revisions past the deployment's.
        variation: revision.saturating_sub(base_revision),
    })
}

/// Stores a job's source render where waiters and later requests find it.
pub async fn store_source(
    objects: &dyn ObjectStore,
    job: &RenderJob,
    png: Bytes,
) -> Result<(), String> {
    objects
        .put(&source_key(&job.variant, job.revision), png, "image/png")
        .await
        .map_err(|e| format!("storing the render failed: {e}"))?;
    Ok(())
}
