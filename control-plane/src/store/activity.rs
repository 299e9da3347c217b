//! Usage per day, for the dashboard and the account endpoint.

use super::*;

/// One UTC day of an account's usage (the dashboard's chart).
#[derive(sqlx::FromRow, Debug, Clone, Default, PartialEq, Eq)]
pub struct DayUsage {
    /// Days since 1970-01-01 (UTC).
    pub day: i64,
    /// Billed requests: image deliveries and URL mints.
    pub requests: i64,
    /// Images delivered and not refunded.
    pub images: i64,
    pub cache_hits: i64,
    /// Credits charged, net of refunds.
    pub credits_spent: i64,
}

/// What the dashboard shows of an account's activity.
#[async_trait]
pub trait ActivityStore: Send + Sync + std::fmt::Debug {
    /// Days with activity since `since`, oldest first.
    async fn usage_by_day(
        &self,
        account_id: &str,
        since: Millis,
    ) -> Result<Vec<DayUsage>, StoreError>;
    /// The account's newest signed delivery URLs.
    async fn recent_delivery_urls(
        &self,
        account_id: &str,
        limit: i64,
    ) -> Result<Vec<DeliveryUrlRecord>, StoreError>;
}
