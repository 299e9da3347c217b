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
use crate::store::{Millis, NodeRecord, StoreError, now_millis, utc_day_of};

use super::RenderStore;

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
    store: &(impl RenderStore + ?Sized),
    default_daily_budget: i64,
    node_lease: Duration,
) -> Result<FarmStatus, StoreError> {
    let now = now_millis();
    let day = utc_day_of(now);
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
    // Render times and failures per node today, failures by cause: from
    // the day's aggregates (a few rows per node), never today's jobs.
    let who = |owner: Option<&str>| match owner {
        Some(owner) => owner
            .strip_prefix("node:")
            .map_or_else(|| "in-process".to_owned(), str::to_owned),
        None => "unknown".to_owned(),
    };
    let finished = store.finishes_on(now.div_euclid(DAY_MS)).await?;
    let mut per_node: BTreeMap<String, (Vec<Bucket>, i64)> = BTreeMap::new();
    let mut causes: BTreeMap<String, i64> = BTreeMap::new();
    for b in &finished.renders {
        per_node
            .entry(who(b.owner.as_deref()))
            .or_default()
            .0
            .push(Bucket {
                lower_ms: b.bucket,
                count: b.renders,
                max_ms: b.max_ms,
            });
    }
    for f in &finished.failures {
        per_node.entry(who(f.owner.as_deref())).or_default().1 += f.failures;
        *causes.entry(f.cause.clone()).or_default() += f.failures;
    }
    let render_times_today = per_node
        .into_iter()
        .map(|(node, (mut buckets, failures))| {
            // Several in-process owners (one per control plane) share a
            // name: merge their buckets.
            buckets.sort_unstable_by_key(|b| b.lower_ms);
            NodeTimes {
                node,
                renders: usize::try_from(buckets.iter().map(|b| b.count).sum::<i64>()).unwrap_or(0),
                failures,
                p50_ms: bucket_percentile(&buckets, 50),
                p95_ms: bucket_percentile(&buckets, 95),
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

/// Renders in one duration bucket (migration 22's `render_buckets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    pub lower_ms: i64,
    pub count: i64,
    /// The longest render seen in the bucket.
    pub max_ms: i64,
}

/// The `p`-th percentile (0–100) of durations kept as `buckets` (sorted by
/// `lower_ms`; one bucket may appear several times), nearest rank: the
/// longest render seen in the bucket that holds the rank. Never below the
/// true value and less than 1/16 (6.25%) above it (buckets are that narrow;
/// below 32 ms, 1 ms wide, so exact); exact when the bucket holds one
/// duration (docs/OPERATIONS.md, "Status and metrics").
pub fn bucket_percentile(buckets: &[Bucket], p: usize) -> Option<i64> {
    let total: i64 = buckets.iter().map(|b| b.count).sum();
    if total <= 0 {
        return None;
    }
    let rank = i64::try_from(p).unwrap_or(100) * total;
    let rank = (rank + 99).div_euclid(100).max(1);
    let mut seen = 0;
    let mut i = 0;
    while i < buckets.len() {
        // Merge the entries of one bucket (several owners' rows).
        let lower = buckets[i].lower_ms;
        let mut max_ms = i64::MIN;
        while i < buckets.len() && buckets[i].lower_ms == lower {
            seen += buckets[i].count;
            max_ms = max_ms.max(buckets[i].max_ms);
            i += 1;
        }
        if seen >= rank {
            return Some(max_ms);
        }
    }
    buckets.last().map(|b| b.max_ms)
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

    /// Durations kept in migration 22's buckets give percentiles never
    /// below the exact nearest-rank value and less than 6.25% above it.
    #[test]
    fn bucket_percentiles_stay_within_a_sixteenth_of_the_exact_ones() {
        // The bucket lower bounds as the migration generates them.
        let mut bounds = vec![0i64];
        while *bounds.last().unwrap() < 86_400_000 {
            let lo = *bounds.last().unwrap();
            bounds.push(lo + (lo / 16).max(1));
        }
        let bucket_of = |ms: i64| *bounds.iter().rev().find(|&&b| b <= ms).unwrap();
        let mut seed = 7u64;
        for n in [1usize, 2, 5, 20, 333, 5000] {
            let mut ms: Vec<i64> = (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 33) % 120_000) as i64
                })
                .collect();
            ms.sort_unstable();
            let mut buckets: Vec<super::Bucket> = Vec::new();
            for &m in &ms {
                let lower_ms = bucket_of(m);
                match buckets.last_mut() {
                    Some(b) if b.lower_ms == lower_ms => {
                        b.count += 1;
                        b.max_ms = b.max_ms.max(m);
                    }
                    _ => buckets.push(super::Bucket {
                        lower_ms,
                        count: 1,
                        max_ms: m,
                    }),
                }
            }
            for p in [50, 95] {
                let exact = super::percentile(&ms, p).unwrap();
                let approx = super::bucket_percentile(&buckets, p).unwrap();
                assert!(approx >= exact, "n={n} p{p}: {approx} < {exact}");
                assert!(
                    approx < 32 || (approx as f64) < exact as f64 * 1.0625 + 1.0,
                    "n={n} p{p}: {approx} vs {exact}"
                );
            }
        }
        assert_eq!(super::bucket_percentile(&[], 50), None);
        let one = [super::Bucket {
            lower_ms: 1000,
            count: 1,
            max_ms: 1040,
        }];
        assert_eq!(super::bucket_percentile(&one, 95), Some(1040));
    }
}
