//! The render farm at a glance, computed once for everyone who shows it:
//! `control-plane status` (text and `--json`) and the operator page of the
//! dashboard (`/dashboard/operator` and its `.json`). Capacity (nodes up and
//! draining, node slots, how many are busy, in-process renders), the queue,
//! today's cold renders against the daily budget, render times per node
//! today (p50, p95), today's failures by cause, and every node.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use super::daily_budget;
use crate::store::{Millis, NodeRecord, Store, StoreError, now_millis, utc_day_of};

const DAY_MS: i64 = 86_400_000;

/// Everything an operator of the render farm watches, as of `generated_at`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FarmStatus {
    /// The UTC day "today" means (`YYYY-MM-DD`).
    pub day: String,
    /// When this was gathered (ms since the epoch), for "seen N s ago".
    pub generated_at: Millis,
    pub capacity: Capacity,
    pub queue: Queue,
    pub budget: Budget,
    /// Per lease owner that finished jobs today: a node's name,
    /// `in-process`, or `unknown` (failed with no owner: leases ran out).
    pub render_times_today: Vec<NodeTimes>,
    /// Failed jobs today by their error.
    pub failures_today_by_cause: BTreeMap<String, i64>,
    /// Every node, as `nodes list` shows them, with its jobs in flight.
    pub nodes: Vec<FarmNode>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Capacity {
    /// Nodes not removed whose last heartbeat is within one lease.
    pub nodes_up: usize,
    pub nodes_draining: usize,
    /// Slots of the active nodes that are up.
    pub node_slots: i64,
    /// Jobs leased by remote nodes.
    pub node_slots_busy: i64,
    /// Jobs leased by the in-process nodes of every control plane sharing
    /// the database.
    pub in_process_busy: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Queue {
    /// Jobs waiting for a slot, of both priorities.
    pub queued: i64,
    /// Jobs leased by a node (remote or in-process), of both priorities.
    pub running: i64,
    /// Of `queued`, interactive jobs: what a new request waits behind.
    pub queued_interactive: i64,
    /// Of `queued`, prewarm jobs: every interactive job overtakes them.
    pub queued_prewarm: i64,
    pub running_interactive: i64,
    pub running_prewarm: i64,
    /// Jobs whose last attempt failed (the next request re-queues them).
    pub failed: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// Cold renders allowed today: the operator's setting (`budget set`),
    /// else the configured default.
    pub daily: i64,
    pub used: i64,
    pub left: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeTimes {
    pub node: String,
    /// Renders that finished (with their durations).
    pub renders: usize,
    pub failures: i64,
    /// Nearest-rank percentiles of the durations; None without renders.
    pub p50_ms: Option<i64>,
    pub p95_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FarmNode {
    #[serde(flatten)]
    pub node: NodeRecord,
    pub in_flight: i64,
    /// Not removed, and heartbeating within one lease.
    pub up: bool,
}

/// Gathers the farm's numbers. `default_daily_budget` applies when the
/// operator set none; a node is up while its last heartbeat is within
/// `node_lease`.
pub async fn gather(
    store: &dyn Store,
    default_daily_budget: i64,
    node_lease: Duration,
) -> Result<FarmStatus, StoreError> {
    let now = now_millis();
    let day = utc_day_of(now);
    let midnight = now - now.rem_euclid(DAY_MS);
    let daily = daily_budget(store, default_daily_budget).await?;
    let used = store.budget_used(&day).await?;
    let jobs = store.job_counts().await?;
    let running = store.running_jobs_by_owner().await?;
    let lease_ms = i64::try_from(node_lease.as_millis()).unwrap_or(i64::MAX);
    let nodes = store.nodes().await?;
    let is_up = |n: &NodeRecord| {
        n.state != "removed" && n.last_heartbeat.is_some_and(|t| now - t <= lease_ms)
    };
    let up: Vec<_> = nodes.iter().filter(|n| is_up(n)).collect();
    let node_slots: i64 = up
        .iter()
        .filter(|n| n.state == "active")
        .map(|n| n.slots)
        .sum();
    let busy_where = |prefix: &str| -> i64 {
        running
            .iter()
            .filter(|(owner, _)| owner.starts_with(prefix))
            .map(|(_, n)| n)
            .sum()
    };
    let capacity = Capacity {
        nodes_up: up.len(),
        nodes_draining: up.iter().filter(|n| n.state == "draining").count(),
        node_slots,
        node_slots_busy: busy_where("node:"),
        in_process_busy: busy_where("inproc-"),
    };
    // Render times and failures per node today; failures by cause.
    let mut per_node: BTreeMap<String, (Vec<i64>, i64)> = BTreeMap::new();
    let mut causes: BTreeMap<String, i64> = BTreeMap::new();
    for job in store.finished_jobs(midnight).await? {
        let who = match job.finished_by.as_deref() {
            Some(owner) => owner
                .strip_prefix("node:")
                .map_or_else(|| "in-process".to_owned(), str::to_owned),
            None => "unknown".to_owned(),
        };
        let entry = per_node.entry(who).or_default();
        if job.ok {
            entry.0.extend(job.duration_ms);
        } else {
            entry.1 += 1;
            *causes
                .entry(job.error.unwrap_or_else(|| "unknown".into()))
                .or_default() += 1;
        }
    }
    let render_times_today = per_node
        .into_iter()
        .map(|(node, (mut ms, failures))| {
            ms.sort_unstable();
            NodeTimes {
                node,
                renders: ms.len(),
                failures,
                p50_ms: percentile(&ms, 50),
                p95_ms: percentile(&ms, 95),
            }
        })
        .collect();
    let in_flight = |n: &NodeRecord| {
        let owner = n.lease_owner();
        running
            .iter()
            .find(|(o, _)| *o == owner)
            .map_or(0, |(_, k)| *k)
    };
    let nodes = nodes
        .iter()
        .map(|n| FarmNode {
            in_flight: in_flight(n),
            up: is_up(n),
            node: n.clone(),
        })
        .collect();
    Ok(FarmStatus {
        day,
        generated_at: now,
        capacity,
        queue: Queue {
            queued: jobs.queued,
            running: jobs.running,
            queued_interactive: jobs.queued_interactive(),
            queued_prewarm: jobs.queued_prewarm,
            running_interactive: jobs.running - jobs.running_prewarm,
            running_prewarm: jobs.running_prewarm,
            failed: jobs.failed,
        },
        budget: Budget {
            daily,
            used,
            left: (daily - used).max(0),
        },
        render_times_today,
        failures_today_by_cause: causes,
        nodes,
    })
}

/// The `p`-th percentile (0–100) of sorted `values`, nearest rank.
pub fn percentile(sorted: &[i64], p: usize) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<i64> = (1..=20).collect();
        assert_eq!(super::percentile(&v, 50), Some(10));
        assert_eq!(super::percentile(&v, 95), Some(19));
        assert_eq!(super::percentile(&[7], 95), Some(7));
        assert_eq!(super::percentile(&[], 50), None);
    }
}
