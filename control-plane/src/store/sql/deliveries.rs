//! `DeliveryStore`: the image charges' rows, read back for usage, receipts
//! and refunds. The charges themselves are written by charges.rs.

use super::*;

#[async_trait]
impl DeliveryStore for SqlStore {
    async fn usage_since(
        &self,
        account_id: &str,
        since: Millis,
    ) -> Result<UsageCounts, StoreError> {
        // Image delivery charges are the ledger rows with a variant; a
        // refund names the charge it refunds (at most one, by a unique index).
        // The refund is probed per charge (`ledger_refund_of`), never joined:
        // PostgreSQL merge-joined the whole refund index, O(every refund).
        let row = sqlx::query(
            "SELECT CAST(COUNT(*) AS BIGINT) AS requests, \
               CAST(COALESCE(SUM(CASE WHEN NOT EXISTS (SELECT 1 FROM ledger r WHERE r.refund_of = c.id) THEN 1 ELSE 0 END), 0) AS BIGINT) AS images, \
               CAST(COALESCE(SUM(CASE WHEN c.source = 'cache' AND NOT EXISTS (SELECT 1 FROM ledger r WHERE r.refund_of = c.id) THEN 1 ELSE 0 END), 0) AS BIGINT) AS cache_hits \
             FROM ledger c \
             WHERE c.account_id = $1 AND c.created_at >= $2 AND c.variant IS NOT NULL",
        )
        .bind(account_id)
        .bind(since)
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        let urls = sqlx::query(
            "SELECT CAST(COUNT(DISTINCT request_id) AS BIGINT) AS requests, \
               CAST(COALESCE(SUM(CASE WHEN uses > 0 AND failed_at IS NULL THEN 1 ELSE 0 END), 0) AS BIGINT) AS loaded \
             FROM delivery_urls WHERE account_id = $1 AND created_at >= $2",
        )
        .bind(account_id)
        .bind(since)
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(UsageCounts {
            requests: row.try_get("requests").map_err(map_err)?,
            images: row.try_get("images").map_err(map_err)?,
            cache_hits: row.try_get("cache_hits").map_err(map_err)?,
            url_requests: urls.try_get("requests").map_err(map_err)?,
            urls_loaded: urls.try_get("loaded").map_err(map_err)?,
        })
    }

    async fn delivery_by_request_id(
        &self,
        request_id: &str,
    ) -> Result<Option<DeliveryRecord>, StoreError> {
        Ok(self.deliveries_by_request_id(request_id).await?.pop())
    }

    async fn deliveries_by_request_id(
        &self,
        request_id: &str,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        sqlx::query_as::<_, DeliveryRecord>(
            "SELECT c.id, c.reference, c.account_id, c.variant, c.revision, c.width, c.height, c.format, \
             r.created_at AS refunded_at, c.created_at \
             FROM ledger c LEFT JOIN ledger r ON r.refund_of = c.id \
             WHERE c.reference = $1 AND c.kind = 'charge' AND c.variant IS NOT NULL \
             ORDER BY c.id",
        )
        .bind(request_id)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }
}
