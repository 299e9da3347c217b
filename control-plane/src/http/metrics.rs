//! GET /metrics: operator counters and gauges in the Prometheus text format.
//! It carries no secrets and no per-customer data.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::http::error::ApiError;
use crate::metrics::LabelledGauge;
use crate::renders::farm;

/// The most causes `/metrics` labels one by one; the rest add up in
/// `other`, so an error text with varying parts cannot flood the scrape.
const MAX_CAUSES: usize = 20;
/// A cause label is cut to this many characters.
const CAUSE_CHARS: usize = 100;

/// Today's failures by cause as label values: the commonest first, at
/// most [`MAX_CAUSES`] of them, the rest as `other`.
fn by_cause(causes: &std::collections::BTreeMap<String, i64>) -> Vec<(String, i64)> {
    let mut all: Vec<(String, i64)> = causes
        .iter()
        .map(|(cause, n)| (cause.chars().take(CAUSE_CHARS).collect::<String>(), *n))
        .collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut shown: Vec<(String, i64)> = Vec::new();
    let mut other = 0;
    for (cause, n) in all {
        if let Some(same) = shown.iter_mut().find(|(c, _)| *c == cause) {
            same.1 += n;
        } else if shown.len() < MAX_CAUSES {
            shown.push((cause, n));
        } else {
            other += n;
        }
    }
    if other > 0 {
        shown.push(("other".into(), other));
    }
    shown
}

pub async fn get(State(state): State<AppState>) -> Result<Response, ApiError> {
    // The render farm's numbers, as `control-plane status` and the operator
    // page show them (renders/farm.rs).
    let farm = super::operator::farm_status(&state).await?;
    let ledger = state.deliverer.ledger.stats();
    let count = |c: &std::sync::atomic::AtomicU64| {
        i64::try_from(c.load(std::sync::atomic::Ordering::Relaxed)).unwrap_or(i64::MAX)
    };
    let (c, q, b) = (&farm.capacity, &farm.queue, &farm.budget);
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
            q.queued + q.running,
        ),
        (
            "vis_render_jobs_queued",
            "Render jobs waiting for a node.",
            q.queued,
        ),
        (
            "vis_render_jobs_running",
            "Render jobs leased by a node.",
            q.running,
        ),
        (
            "vis_render_jobs_queued_prewarm",
            "Of the queued render jobs, prewarm ones (interactive jobs lease first).",
            q.queued_prewarm,
        ),
        (
            "vis_render_jobs_running_prewarm",
            "Of the running render jobs, prewarm ones.",
            q.running_prewarm,
        ),
        (
            "vis_render_jobs_failed",
            "Render jobs whose last attempt failed.",
            q.failed,
        ),
        (
            "vis_renders_today",
            "Cold renders started today (UTC).",
            b.used,
        ),
        (
            "vis_render_budget_daily",
            "Cold renders allowed per UTC day.",
            b.daily,
        ),
        (
            "vis_render_budget_left",
            "Cold renders left today (UTC).",
            b.left,
        ),
        (
            "vis_render_nodes_up",
            "Remote render nodes that heartbeated within one lease.",
            c.nodes_up as i64,
        ),
        (
            "vis_render_nodes_draining",
            "Remote render nodes draining (finishing their jobs, taking none).",
            c.nodes_draining as i64,
        ),
        (
            "vis_render_node_slots",
            "Render slots of the remote nodes that are up and not draining.",
            c.node_slots,
        ),
        (
            "vis_render_node_slots_busy",
            "Jobs leased by remote render nodes.",
            c.node_slots_busy,
        ),
        (
            "vis_render_in_process_busy",
            "Jobs leased by the in-process render nodes of every control plane.",
            c.in_process_busy,
        ),
        (
            "vis_render_node_failures",
            "Render jobs remote nodes reported failed, all time.",
            farm.nodes
                .iter()
                .map(|n| n.node.failures_total)
                .sum::<i64>(),
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
    let per_node = |pick: fn(&farm::NodeTimes) -> Option<i64>| {
        farm.render_times_today
            .iter()
            .filter_map(|t| pick(t).map(|v| (t.node.clone(), v)))
            .collect::<Vec<_>>()
    };
    let labelled = [
        LabelledGauge {
            name: "vis_render_time_today_p50_ms",
            help: "Median render time today (UTC) per node (`in-process` for control planes).",
            label: "node",
            values: per_node(|t| t.p50_ms),
        },
        LabelledGauge {
            name: "vis_render_time_today_p95_ms",
            help: "95th percentile render time today (UTC) per node.",
            label: "node",
            values: per_node(|t| t.p95_ms),
        },
        LabelledGauge {
            name: "vis_renders_finished_today",
            help: "Renders finished today (UTC) per node.",
            label: "node",
            values: per_node(|t| Some(t.renders as i64)),
        },
        LabelledGauge {
            name: "vis_render_failures_today",
            help: "Render jobs failed today (UTC) per node (`unknown`: its leases ran out).",
            label: "node",
            values: per_node(|t| Some(t.failures)),
        },
        LabelledGauge {
            name: "vis_render_failures_today_by_cause",
            help: "Render jobs failed today (UTC) by cause, as `control-plane status` shows them.",
            label: "cause",
            values: by_cause(&farm.failures_today_by_cause),
        },
    ];
    let mut response = state
        .metrics
        .render_text(&gauges, &labelled)
        .into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::metrics::CONTENT_TYPE),
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_bounded() {
        let mut causes = std::collections::BTreeMap::new();
        for i in 0..25 {
            causes.insert(format!("renderer crashed on job {i:02}"), i + 1);
        }
        causes.insert("x".repeat(150), 100);
        let shown = by_cause(&causes);
        assert_eq!(shown.len(), MAX_CAUSES + 1);
        assert_eq!(
            shown[0],
            ("x".repeat(CAUSE_CHARS), 100),
            "commonest first, cut"
        );
        assert_eq!(shown[1].1, 25);
        // 26 causes: 20 shown, the 6 rarest (1..=6 failures) are `other`.
        assert_eq!(shown.last().unwrap(), &("other".to_owned(), 21));
    }
}
