//! Prices, packs and what an account has spent (spec §1), and the ledger
//! port every credit movement goes through (`ledger.rs`). No HTTP, no SQL.

pub mod ledger;

pub use ledger::Ledger;

use serde::Serialize;

use crate::store::{DeliveryStore, Millis, StoreError};

pub const CREDITS_PER_DOLLAR: i64 = 1000;
pub const CREDITS_PER_IMAGE: i64 = 1;
/// Credits granted to every new account.
pub const FREE_CREDITS: i64 = 100;

/// A credit pack (spec §2 Pack).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct Pack {
    pub credits: i64,
    pub cents: i64,
    pub label: &'static str,
}

/// The pack of `credits`, if it is one of [`PACKS`].
pub fn pack(credits: i64) -> Option<Pack> {
    PACKS.iter().copied().find(|p| p.credits == credits)
}

/// Credit packs (spec §1): 5000 / $5, 10000 / $10, 25000 / $25, 100000 / $100.
pub const PACKS: [Pack; 4] = [
    Pack {
        credits: 5_000,
        cents: 500,
        label: "5,000 credits ($5)",
    },
    Pack {
        credits: 10_000,
        cents: 1_000,
        label: "10,000 credits ($10)",
    },
    Pack {
        credits: 25_000,
        cents: 2_500,
        label: "25,000 credits ($25)",
    },
    Pack {
        credits: 100_000,
        cents: 10_000,
        label: "100,000 credits ($100)",
    },
];

/// The dollar value of a balance.
pub fn credits_value_usd(credits: i64) -> f64 {
    credits as f64 / CREDITS_PER_DOLLAR as f64
}

/// An account's use of the service over a period (spec §2 Account usage_30d).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Usage {
    pub requests: i64,
    pub images: i64,
    pub cache_hit_rate: Option<f64>,
    pub credits_spent: i64,
}

pub const THIRTY_DAYS_MS: Millis = 30 * 24 * 60 * 60 * 1000;

/// Usage since `since`: billed requests (image deliveries and URL mints),
/// delivered images (direct deliveries not refunded, and minted URLs whose
/// first load succeeded), the cache hit rate among direct deliveries (null
/// before the first; a URL's loads are served to browsers and CDNs, not
/// attributed), and credits spent as charges net of refunds.
pub async fn usage_since(
    store: &(impl DeliveryStore + ?Sized),
    account_id: &str,
    since: Millis,
) -> Result<Usage, StoreError> {
    let counts = store.usage_since(account_id, since).await?;
    Ok(Usage {
        requests: counts.requests + counts.url_requests,
        images: counts.images + counts.urls_loaded,
        cache_hit_rate: (counts.images > 0)
            .then(|| counts.cache_hits as f64 / counts.images as f64),
        credits_spent: (-counts.charged - counts.refunded).max(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_cost_a_dollar_per_thousand() {
        for p in PACKS {
            assert_eq!(p.credits * 100 / CREDITS_PER_DOLLAR, p.cents);
        }
        assert_eq!(credits_value_usd(100), 0.1);
    }
}
