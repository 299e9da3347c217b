//! `render-node run`: a remote render node. It registers with a control
//! plane, heartbeats, leases jobs by long poll, renders them with the wgpu
//! studio renderer, uploads each source render and reports failures
//! (docs/render-nodes.md; the wire types are `vis_protocol::nodes`).
//!
//! - **Slots.** `--slots N` renders run at once, each its own lease loop.
//! - **Batches.** A slot leases up to `--batch N` jobs at once (24): queued
//!   jobs of one vehicle and revision, drawn one after another from one
//!   mesh and uploaded each as it is drawn (a spin's frames).
//! - **Leases.** Every heartbeat names the jobs in hand, which renews their
//!   leases; a node that dies stops heartbeating, and its jobs go back to the
//!   queue when their leases run out (the control plane's `node_lease_secs`).
//! - **Drain.** When the control plane says `draining` (or on Ctrl-C /
//!   SIGTERM), the node finishes what it has in hand, takes no more, and
//!   exits.
//! - **The token** comes from `--token` or `VIS_NODE_TOKEN` and is only ever
//!   sent in the Authorization header; it is never printed or logged.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::Renderer;
use anyhow::Context;
use reqwest::StatusCode;
use tokio::sync::Mutex;
use vis_protocol::RenderJob;
use vis_protocol::nodes::{JobFailure, LeasedJob, NODE_API, NodeOrders, NodeReport};

/// How long a lease request waits for a job on the control plane.
const LEASE_WAIT_MS: u64 = 20_000;

pub struct NodeOptions {
    pub control_plane: String,
    pub token: String,
    pub slots: u32,
    /// The most jobs a slot leases at once.
    pub batch: u32,
}

struct Node {
    http: reqwest::Client,
    base: String,
    auth: String,
    slots: u32,
    batch: u32,
    adapter: String,
    renderer: Arc<Renderer>,
    in_flight: Mutex<HashSet<String>>,
    stopping: AtomicBool,
    /// Wakes slots waiting for a job when the node starts stopping.
    stop: tokio::sync::Notify,
}

/// Runs the node until it is drained or stopped.
pub async fn run(renderer: Renderer, options: NodeOptions) -> anyhow::Result<()> {
    // reqwest is built on rustls without a default provider (the workspace's
    // choice: ring, not aws-lc-rs).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_millis(LEASE_WAIT_MS) + Duration::from_secs(30))
        .build()
        .context("building the HTTP client")?;
    let adapter = renderer.adapter().name.clone();
    let node = Arc::new(Node {
        http,
        base: options.control_plane.trim_end_matches('/').to_owned(),
        auth: format!("Bearer {}", options.token),
        slots: options.slots.max(1),
        batch: options.batch.max(1),
        adapter,
        renderer: Arc::new(renderer),
        in_flight: Mutex::new(HashSet::new()),
        stopping: AtomicBool::new(false),
        stop: tokio::sync::Notify::new(),
    });
    let orders = node.register().await?;
    tracing::info!(node = %orders.name, slots = node.slots, adapter = %node.adapter, "registered with the control plane");

    let heartbeat = {
        let node = Arc::clone(&node);
        tokio::spawn(async move { node.heartbeats(orders).await })
    };
    let stop = {
        let node = Arc::clone(&node);
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("stopping: finishing the jobs in hand");
            node.begin_stopping();
        })
    };
    let mut slots = tokio::task::JoinSet::new();
    for slot in 0..node.slots {
        let node = Arc::clone(&node);
        slots.spawn(async move { node.slot(slot).await });
    }
    while slots.join_next().await.is_some() {}
    heartbeat.abort();
    stop.abort();
    tracing::info!("drained: no job in hand");
    Ok(())
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return std::future::pending().await,
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

impl Node {
    fn begin_stopping(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.stop.notify_waiters();
    }

    fn url(&self, path: &str) -> String {
        format!("{}{NODE_API}{path}", self.base)
    }

    async fn report(&self) -> NodeReport {
        NodeReport {
            slots: self.slots,
            adapter: self.adapter.clone(),
            in_flight: self.in_flight.lock().await.iter().cloned().collect(),
        }
    }

    async fn post_report(&self, path: &str) -> anyhow::Result<NodeOrders> {
        let body = serde_json::to_vec(&self.report().await)?;
        let response = self
            .http
            .post(self.url(path))
            .header(reqwest::header::AUTHORIZATION, &self.auth)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await?;
        let status = response.status();
        let bytes = response.bytes().await?;
        if !status.is_success() {
            anyhow::bail!("{path}: {status}: {}", String::from_utf8_lossy(&bytes));
        }
        Ok(serde_json::from_slice(&bytes)?)
    }

    /// Registers, retrying with backoff while the control plane is not up;
    /// a refused token is fatal.
    async fn register(&self) -> anyhow::Result<NodeOrders> {
        let mut wait = Duration::from_millis(250);
        loop {
            match self.post_report("/register").await {
                Ok(orders) => return Ok(orders),
                Err(e) if e.to_string().contains("401") => {
                    anyhow::bail!("the control plane refused this node's token: {e}")
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot register yet; retrying");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(10));
                }
            }
        }
    }

    async fn heartbeats(&self, mut orders: NodeOrders) {
        loop {
            tokio::time::sleep(Duration::from_secs(orders.heartbeat_secs.max(1))).await;
            match self.post_report("/heartbeat").await {
                Ok(next) => {
                    if next.draining && !orders.draining {
                        tracing::info!("the control plane drains this node");
                    }
                    if next.draining {
                        self.begin_stopping();
                    }
                    orders = next;
                }
                Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
            }
        }
    }

    /// One render slot: lease, render, upload, until stopping.
    async fn slot(&self, slot: u32) {
        let mut backoff = Duration::from_millis(250);
        loop {
            let stop = self.stop.notified();
            if self.stopping.load(Ordering::SeqCst) {
                break;
            }
            // A stop cuts the wait for a job short (a job leased in that
            // instant goes back to the queue when its lease runs out).
            let leased = tokio::select! {
                leased = self.lease() => leased,
                () = stop => break,
            };
            match leased {
                Ok(Some(leased)) => {
                    backoff = Duration::from_millis(250);
                    self.in_flight
                        .lock()
                        .await
                        .extend(leased.jobs().map(|j| j.id.clone()));
                    self.render_and_report(slot, &leased).await;
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "leasing a job failed");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                }
            }
        }
    }

    async fn lease(&self) -> anyhow::Result<Option<LeasedJob>> {
        let response = self
            .http
            .post(self.url(&format!(
                "/lease?wait_ms={LEASE_WAIT_MS}&batch={}",
                self.batch
            )))
            .header(reqwest::header::AUTHORIZATION, &self.auth)
            .send()
            .await?;
        match response.status() {
            StatusCode::NO_CONTENT => Ok(None),
            StatusCode::OK => Ok(Some(serde_json::from_slice(&response.bytes().await?)?)),
            status => anyhow::bail!("lease: {status}: {}", response.text().await?),
        }
    }

    /// Draws a leased batch from one mesh and reports each job as it is
    /// drawn; a job is in flight (its lease renewed by heartbeats) until
    /// its report.
    async fn render_and_report(&self, slot: u32, leased: &LeasedJob) {
        let jobs: Vec<&LeasedJob> = leased.jobs().collect();
        let batch: Vec<RenderJob> = jobs.iter().map(|j| j.job.clone()).collect();
        let renderer = Arc::clone(&self.renderer);
        let (done, mut drawn) = tokio::sync::mpsc::unbounded_channel();
        let render = tokio::task::spawn_blocking(move || {
            renderer.render_batch_png(&batch, |i, png, ms| {
                let _ = done.send((i, png, ms));
            });
        });
        let mut reported = vec![false; jobs.len()];
        while let Some((i, png, ms)) = drawn.recv().await {
            let Some(job) = jobs.get(i) else { continue };
            self.report_job(slot, job, png, ms).await;
            reported[i] = true;
        }
        let panicked = render
            .await
            .err()
            .map(|e| format!("render task failed: {e}"));
        for (i, job) in jobs.iter().enumerate() {
            if !reported[i] {
                let error = panicked
                    .clone()
                    .unwrap_or_else(|| "render task failed".into());
                self.report_job(slot, job, Err(error), 0).await;
            }
        }
    }

    /// Uploads a job's render, or reports why it failed, and takes it out
    /// of the jobs in flight.
    async fn report_job(
        &self,
        slot: u32,
        leased: &LeasedJob,
        drawn: Result<Vec<u8>, String>,
        ms: u64,
    ) {
        let sent = match drawn {
            Ok(png) => {
                tracing::info!(slot, job.id = %leased.id, job.variant = %leased.job.variant, duration_ms = ms, "rendered");
                self.http
                    .put(self.url(&format!("/jobs/{}/source?render_ms={ms}", leased.id)))
                    .header(reqwest::header::AUTHORIZATION, &self.auth)
                    .header(reqwest::header::CONTENT_TYPE, "image/png")
                    .body(png)
                    .send()
                    .await
            }
            Err(error) => {
                tracing::warn!(slot, job.id = %leased.id, error = %error, "render failed");
                self.http
                    .post(self.url(&format!("/jobs/{}/failure", leased.id)))
                    .header(reqwest::header::AUTHORIZATION, &self.auth)
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(serde_json::to_vec(&JobFailure { error }).unwrap_or_default())
                    .send()
                    .await
            }
        };
        match sent {
            Ok(r) if r.status().is_success() => {}
            Ok(r) => {
                let status = r.status();
                let body = r.text().await.unwrap_or_default();
                tracing::warn!(job.id = %leased.id, %status, body = %body, "the control plane did not take the result");
            }
            Err(e) => tracing::warn!(job.id = %leased.id, error = %e, "sending the result failed"),
        }
        self.in_flight.lock().await.remove(&leased.id);
    }
}
