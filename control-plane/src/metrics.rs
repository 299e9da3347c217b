//! Counters for operators, exposed at `GET /metrics` (OpenMetrics text, by
//! `prometheus-client`). Gauges that live in the database (queue depth,
//! budget) are read at scrape time by the HTTP handler and encoded with the
//! rest.

use parking_lot::Mutex;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Upper bounds of the render-time histogram, milliseconds.
const BUCKETS_MS: [f64; 10] = [
    50.0, 100.0, 250.0, 500.0, 1_000.0, 2_500.0, 5_000.0, 10_000.0, 30_000.0, 120_000.0,
];

/// The content type of [`Metrics::render_text`].
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A gauge read at scrape time with one label: `name{label="…"} value`
/// per entry of `values`.
#[derive(Debug)]
pub struct LabelledGauge {
    pub name: &'static str,
    pub help: &'static str,
    pub label: &'static str,
    pub values: Vec<(String, i64)>,
}

#[derive(Debug)]
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
    pub renders_flagged: Counter,
    /// Images served by `GET /images/car.png`, by grant.
    legacy_images: Family<[(&'static str, &'static str); 1], Counter>,
    /// Payment-provider events handled, by outcome.
    payment_events: Family<[(&'static str, &'static str); 1], Counter>,
    render_ms: Histogram,
    /// Sum and count of render times, for the queue-wait estimate.
    render_totals: Mutex<(f64, u64)>,
    registry: Registry,
}

impl Metrics {
    /// Counts one image of `GET /images/car.png` served under `grant`.
    pub fn legacy_image(&self, grant: &'static str) {
        self.legacy_images.get_or_create(&[("grant", grant)]).inc();
    }

    /// Counts one payment-provider event, by what it did.
    pub fn payment_event(&self, outcome: &'static str) {
        self.payment_events
            .get_or_create(&[("outcome", outcome)])
            .inc();
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut m = Metrics {
            renders_queued: Counter::default(),
            renders_failed: Counter::default(),
            render_waits_failed: Counter::default(),
            budget_refusals: Counter::default(),
            queue_refusals: Counter::default(),
            images_delivered_cache: Counter::default(),
            images_delivered_generated: Counter::default(),
            not_modified: Counter::default(),
            rate_limited: Counter::default(),
            insufficient_credits: Counter::default(),
            delivery_urls_minted: Counter::default(),
            delivery_url_loads: Counter::default(),
            delivery_url_refusals: Counter::default(),
            delivery_url_refunds: Counter::default(),
            renders_flagged: Counter::default(),
            legacy_images: Family::default(),
            payment_events: Family::default(),
            render_ms: Histogram::new(BUCKETS_MS),
            render_totals: Mutex::new((0.0, 0)),
            registry: Registry::default(),
        };
        let mut registry = Registry::default();
        registry.register(
            "vis_renders_queued",
            "Cold renders queued (new or retried jobs).",
            m.renders_queued.clone(),
        );
        registry.register(
            "vis_renders_failed",
            "Renders that failed on this node.",
            m.renders_failed.clone(),
        );
        registry.register(
            "vis_render_waits_failed",
            "Requests whose cold render failed or timed out.",
            m.render_waits_failed.clone(),
        );
        registry.register(
            "vis_budget_refusals",
            "Cold renders refused because the daily budget was spent.",
            m.budget_refusals.clone(),
        );
        registry.register(
            "vis_queue_refusals",
            "Cold renders refused because the queue was too deep.",
            m.queue_refusals.clone(),
        );
        registry.register(
            "vis_images_delivered_cache",
            "Billed images served from cache.",
            m.images_delivered_cache.clone(),
        );
        registry.register(
            "vis_images_delivered_generated",
            "Billed images that needed a cold render.",
            m.images_delivered_generated.clone(),
        );
        registry.register(
            "vis_not_modified",
            "304 answers (not billed).",
            m.not_modified.clone(),
        );
        registry.register(
            "vis_rate_limited",
            "429 answers (not billed).",
            m.rate_limited.clone(),
        );
        registry.register(
            "vis_insufficient_credits",
            "402 answers.",
            m.insufficient_credits.clone(),
        );
        registry.register(
            "vis_delivery_urls_minted",
            "Signed delivery URLs minted (each billed 1 credit at creation).",
            m.delivery_urls_minted.clone(),
        );
        registry.register(
            "vis_delivery_url_loads",
            "Images served through signed delivery URLs (free).",
            m.delivery_url_loads.clone(),
        );
        registry.register(
            "vis_delivery_url_refusals",
            "Delivery URL loads refused: invalid, expired, revoked or spent (403/410).",
            m.delivery_url_refusals.clone(),
        );
        registry.register(
            "vis_delivery_url_refunds",
            "Delivery URLs whose first load failed: consumed and refunded.",
            m.delivery_url_refunds.clone(),
        );
        registry.register(
            "vis_renders_flagged",
            "Renders flagged by negative feedback from enough distinct accounts.",
            m.renders_flagged.clone(),
        );
        registry.register(
            "vis_legacy_images",
            "Images served by GET /images/car.png, by grant (signed, cached, example, key, playground).",
            m.legacy_images.clone(),
        );
        registry.register(
            "vis_payment_events",
            "Payment-provider webhook events, by outcome (credited, duplicate, already_paid, unknown_purchase, amount_mismatch, ignored).",
            m.payment_events.clone(),
        );
        registry.register(
            "vis_render_duration_ms",
            "Render time on this node, milliseconds.",
            m.render_ms.clone(),
        );
        m.registry = registry;
        m
    }
}

impl Metrics {
    pub fn observe_render(&self, ms: f64) {
        self.render_ms.observe(ms);
        let mut t = self.render_totals.lock();
        t.0 += ms;
        t.1 += 1;
    }

    pub fn render_mean_ms(&self) -> Option<f64> {
        let (sum, count) = *self.render_totals.lock();
        (count > 0).then(|| sum / count as f64)
    }

    /// The exposition: every counter and the histogram, then `gauges`
    /// (name, help, value) read at scrape time.
    pub fn render_text(&self, gauges: &[(&str, &str, i64)], labelled: &[LabelledGauge]) -> String {
        let mut out = String::new();
        let _ = encode(&mut out, &self.registry);
        let mut scrape = Registry::default();
        for (name, help, value) in gauges {
            let gauge: Gauge = Gauge::default();
            gauge.set(*value);
            scrape.register(*name, *help, gauge);
        }
        for g in labelled {
            let family = Family::<Vec<(&'static str, String)>, Gauge>::default();
            for (label, value) in &g.values {
                family
                    .get_or_create(&vec![(g.label, label.clone())])
                    .set(*value);
            }
            scrape.register(g.name, g.help, family);
        }
        let mut more = String::new();
        let _ = encode(&mut more, &scrape);
        // One exposition ends with one `# EOF`.
        let mut text = out.strip_suffix("# EOF\n").unwrap_or(&out).to_owned();
        text.push_str(&more);
        text
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
        let text = m.render_text(
            &[("vis_queue_depth", "Jobs queued or running.", 3)],
            &[LabelledGauge {
                name: "vis_node_things",
                help: "Things per node.",
                label: "node",
                values: vec![("gpu-1".into(), 7), ("in-process".into(), 2)],
            }],
        );
        assert!(text.contains("vis_node_things{node=\"gpu-1\"} 7"), "{text}");
        assert!(
            text.contains("vis_node_things{node=\"in-process\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("vis_render_duration_ms_bucket{le=\"100.0\"} 1"),
            "{text}"
        );
        assert!(text.contains("vis_render_duration_ms_count 2"), "{text}");
        assert!(text.contains("# TYPE vis_renders_failed counter"), "{text}");
        assert!(text.contains("vis_renders_failed_total 1"), "{text}");
        assert!(text.contains("vis_queue_depth 3"), "{text}");
        assert_eq!(text.matches("# EOF").count(), 1);
        assert!(text.ends_with("# EOF\n"));
    }
}
