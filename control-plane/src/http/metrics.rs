//! GET /metrics: operator counters and gauges in the Prometheus text format.
//! It carries no secrets and no per-customer data.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::error::ApiError;
use crate::renders::utc_day;

pub async fn get(State(state): State<AppState>) -> Result<Response, ApiError> {
    let jobs = state.store.job_counts().await?;
    let dispatcher = &state.deliverer.dispatcher;
    let budget = dispatcher.daily_budget().await?;
    let used = state.store.budget_used(&utc_day()).await?;
    let ledger = state.deliverer.ledger.stats();
    // Remote render nodes (docs/render-nodes.md): a node counts as up while
    // its last heartbeat is within one lease.
    let nodes = state.store.nodes().await?;
    let lease_ms = i64::try_from(dispatcher.config().node_lease.as_millis()).unwrap_or(i64::MAX);
    let now = crate::store::now_millis();
    let up: Vec<_> = nodes
        .iter()
        .filter(|n| n.state != "removed")
        .filter(|n| n.last_heartbeat.is_some_and(|t| now - t <= lease_ms))
        .collect();
    let count = |c: &std::sync::atomic::AtomicU64| {
        i64::try_from(c.load(std::sync::atomic::Ordering::Relaxed)).unwrap_or(i64::MAX)
    };
    let gauges = [
        (
            "vis_ledger_charge_batches",
            "Image charge batches this server committed (one transaction each).",
            count(&ledger.batches),
        ),
        (
            "vis_ledger_charges",
            "Image charges this server committed.",
            count(&ledger.charges),
        ),
        (
            "vis_ledger_failed_batches",
            "Image charge batches whose transaction failed (nothing of them was charged).",
            count(&ledger.failed_batches),
        ),
        (
            "vis_render_queue_depth",
            "Render jobs queued or running.",
            (jobs.queued + jobs.running) as i64,
        ),
        (
            "vis_render_jobs_queued",
            "Render jobs waiting for a node.",
            jobs.queued as i64,
        ),
        (
            "vis_render_jobs_running",
            "Render jobs leased by a node.",
            jobs.running as i64,
        ),
        (
            "vis_render_jobs_queued_prewarm",
            "Of the queued render jobs, prewarm ones (interactive jobs lease first).",
            jobs.queued_prewarm,
        ),
        (
            "vis_render_jobs_running_prewarm",
            "Of the running render jobs, prewarm ones.",
            jobs.running_prewarm,
        ),
        (
            "vis_render_jobs_failed",
            "Render jobs whose last attempt failed.",
            jobs.failed as i64,
        ),
        (
            "vis_renders_today",
            "Cold renders started today (UTC).",
            used as i64,
        ),
        (
            "vis_render_budget_daily",
            "Cold renders allowed per UTC day.",
            budget as i64,
        ),
        (
            "vis_render_budget_left",
            "Cold renders left today (UTC).",
            (budget - used).max(0) as i64,
        ),
        (
            "vis_render_nodes_up",
            "Remote render nodes that heartbeated within one lease.",
            up.len() as i64,
        ),
        (
            "vis_render_nodes_draining",
            "Remote render nodes draining (finishing their jobs, taking none).",
            up.iter().filter(|n| n.state == "draining").count() as i64,
        ),
        (
            "vis_render_node_slots",
            "Render slots of the remote nodes that are up and not draining.",
            up.iter()
                .filter(|n| n.state == "active")
                .map(|n| n.slots)
                .sum::<i64>(),
        ),
        (
            "vis_render_node_failures",
            "Render jobs remote nodes reported failed, all time.",
            nodes.iter().map(|n| n.failures_total).sum::<i64>(),
        ),
        (
            "vis_derived_cache_bytes",
            "Bytes in the in-memory cache of derived outputs.",
            state.deliverer.derived.bytes() as i64,
        ),
        (
            "vis_rate_limit_subjects",
            "Keys and addresses counted in the current rate window.",
            state.limiter.tracked() as i64,
        ),
    ];
    let mut response = state.metrics.render_text(&gauges).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::metrics::CONTENT_TYPE),
    );
    Ok(response)
}
