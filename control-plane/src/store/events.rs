//! Funnel events (spec §9) and their daily counts.

use super::*;

/// One telemetry event as stored (spec §6); objects are JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    pub received_at: Millis,
    pub name: String,
    pub source: Option<String>,
    pub anonymous_id: Option<String>,
    pub session_id: Option<String>,
    pub url: Option<String>,
    pub referrer: Option<String>,
    pub properties: Option<String>,
    pub utm: Option<String>,
}

/// How many events of one name arrived on one UTC day.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct EventCount {
    pub day: String,
    pub name: String,
    pub count: i64,
}

/// The telemetry sink's table.
#[async_trait]
pub trait EventStore: Send + Sync + std::fmt::Debug {
    /// Writes a batch in one transaction: all of it or none.
    async fn insert_events(&self, events: &[NewEvent]) -> Result<(), StoreError>;
    /// Counts by day and name from `since_day` (`YYYY-MM-DD`, UTC) on,
    /// oldest day first, then by name.
    async fn event_counts(&self, since_day: &str) -> Result<Vec<EventCount>, StoreError>;
}
