//! Counters for operators, exposed at `GET /metrics` in the Prometheus text
//! format. Gauges that live in the database (queue depth, budget) are read at
//! scrape time by the HTTP handler.

use std::fmt::Write;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Render duration buckets, milliseconds.
const BUCKETS_MS: [f64; 10] = [
    50.0, 100.0, 250.0, 500.0, 1_000.0, 2_500.0, 5_000.0, 10_000.0, 30_000.0, 120_000.0,
];

#[derive(Debug, Default)]
struct Histogram {
    counts: [u64; BUCKETS_MS.len()],
    count: u64,
    sum_ms: f64,
}

#[derive(Debug, Default)]
pub struct Metrics {
    pub renders_queued: Counter,
    pub renders_failed: Counter,
    pub render_waits_failed: Counter,
    pub budget_refusals: Counter,
    pub queue_refusals: Counter,
    pub images_delivered_cache: Counter,
    pub images_delivered_generated: Counter,
    pub not_modified: Counter,
    pub rate_limited: Counter,
    pub insufficient_credits: Counter,
    pub delivery_urls_minted: Counter,
    pub delivery_url_loads: Counter,
    pub delivery_url_refusals: Counter,
    pub delivery_url_refunds: Counter,
    render_ms: Mutex<Histogram>,
}

impl Metrics {
    pub fn observe_render(&self, ms: f64) {
        let mut h = self.render_ms.lock();
        for (i, le) in BUCKETS_MS.iter().enumerate() {
            if ms <= *le {
                h.counts[i] += 1;
            }
        }
        h.count += 1;
        h.sum_ms += ms;
    }

    /// Mean render time so far, if any render finished.
    pub fn render_mean_ms(&self) -> Option<f64> {
        let h = self.render_ms.lock();
        (h.count > 0).then(|| h.sum_ms / h.count as f64)
    }

    /// The Prometheus text exposition, with the database gauges given.
    pub fn render_text(&self, gauges: &[(&str, &str, f64)]) -> String {
        let mut out = String::new();
        let counters: [(&str, &str, &Counter); 14] = [
            (
                "vis_renders_queued_total",
                "Cold renders queued (new or retried jobs).",
                &self.renders_queued,
            ),
            (
                "vis_renders_failed_total",
                "Renders that failed on this node.",
                &self.renders_failed,
            ),
            (
                "vis_render_waits_failed_total",
                "Requests whose cold render failed or timed out.",
                &self.render_waits_failed,
            ),
            (
                "vis_budget_refusals_total",
                "Cold renders refused because the daily budget was spent.",
                &self.budget_refusals,
            ),
            (
                "vis_queue_refusals_total",
                "Cold renders refused because the queue was too deep.",
                &self.queue_refusals,
            ),
            (
                "vis_images_delivered_cache_total",
                "Billed images served from cache.",
                &self.images_delivered_cache,
            ),
            (
                "vis_images_delivered_generated_total",
                "Billed images that needed a cold render.",
                &self.images_delivered_generated,
            ),
            (
                "vis_not_modified_total",
                "304 answers (not billed).",
                &self.not_modified,
            ),
            (
                "vis_rate_limited_total",
                "429 answers (not billed).",
                &self.rate_limited,
            ),
            (
                "vis_insufficient_credits_total",
                "402 answers.",
                &self.insufficient_credits,
            ),
            (
                "vis_delivery_urls_minted_total",
                "Signed delivery URLs minted (each billed 1 credit at creation).",
                &self.delivery_urls_minted,
            ),
            (
                "vis_delivery_url_loads_total",
                "Images served through signed delivery URLs (free).",
                &self.delivery_url_loads,
            ),
            (
                "vis_delivery_url_refusals_total",
                "Delivery URL loads refused: invalid, expired, revoked or spent (403/410).",
                &self.delivery_url_refusals,
            ),
            (
                "vis_delivery_url_refunds_total",
                "Delivery URLs whose first load failed: consumed and refunded.",
                &self.delivery_url_refunds,
            ),
        ];
        for (name, help, c) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                c.get()
            );
        }
        {
            let h = self.render_ms.lock();
            let name = "vis_render_duration_ms";
            let _ = writeln!(
                out,
                "# HELP {name} Render time on this node, milliseconds.\n# TYPE {name} histogram"
            );
            for (i, le) in BUCKETS_MS.iter().enumerate() {
                let _ = writeln!(out, "{name}_bucket{{le=\"{le}\"}} {}", h.counts[i]);
            }
            let _ = writeln!(
                out,
                "{name}_bucket{{le=\"+Inf\"}} {}\n{name}_sum {}\n{name}_count {}",
                h.count, h.sum_ms, h.count
            );
        }
        for (name, help, value) in gauges {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_and_text() {
        let m = Metrics::default();
        assert_eq!(m.render_mean_ms(), None);
        m.observe_render(80.0);
        m.observe_render(120.0);
        m.renders_failed.inc();
        assert_eq!(m.render_mean_ms(), Some(100.0));
        let text = m.render_text(&[("vis_queue_depth", "Jobs queued or running.", 3.0)]);
        assert!(
            text.contains("vis_render_duration_ms_bucket{le=\"100\"} 1"),
            "{text}"
        );
        assert!(text.contains("vis_render_duration_ms_count 2"));
        assert!(text.contains("vis_renders_failed_total 1"));
        assert!(text.contains("vis_queue_depth 3"));
    }
}
