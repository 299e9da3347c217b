//! The telemetry sink's table: batched inserts and counts by day and name.

use super::*;

const INSERT_EVENT: &str = "INSERT INTO events \
     (received_at, day, name, source, anonymous_id, session_id, url, referrer, properties, utm) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// `YYYY-MM-DD` (UTC) of a unix-milliseconds time.
pub fn utc_day_of(ms: Millis) -> String {
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .map(|t| format!("{:04}-{:02}-{:02}", t.year(), u8::from(t.month()), t.day()))
        .unwrap_or_else(|_| "1970-01-01".into())
}

#[async_trait]
impl EventStore for SqlStore {
    async fn insert_events(&self, events: &[NewEvent]) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin_write().await?;
        for e in events {
            sqlx::query(INSERT_EVENT)
                .bind(e.received_at)
                .bind(utc_day_of(e.received_at))
                .bind(&e.name)
                .bind(e.source.as_deref())
                .bind(e.anonymous_id.as_deref())
                .bind(e.session_id.as_deref())
                .bind(e.url.as_deref())
                .bind(e.referrer.as_deref())
                .bind(e.properties.as_deref())
                .bind(e.utm.as_deref())
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
        }
        tx.commit().await.map_err(map_err)
    }

    async fn event_counts(&self, since_day: &str) -> Result<Vec<EventCount>, StoreError> {
        sqlx::query_as::<_, EventCount>(
            "SELECT day, name, CAST(COUNT(*) AS BIGINT) AS count FROM events \
             WHERE day >= $1 GROUP BY day, name ORDER BY day, name",
        )
        .bind(since_day)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn days_are_utc() {
        assert_eq!(super::utc_day_of(0), "1970-01-01");
        assert_eq!(super::utc_day_of(1_795_305_600_000), "2026-11-22");
    }
}
