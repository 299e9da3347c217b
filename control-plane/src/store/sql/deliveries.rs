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
        // One pass over the account's window of `ledger_account_sums`
        // (migration 29), read from the index alone. Image delivery charges
        // are the rows with a variant; a refund names the charge it refunds
        // (`refund_of`, unique), so a refunded image is counted off by its
        // refund row: only refund rows probe their charge (by primary key),
        // to keep the refunds of charges made before the window out. A
        // refund is written after its charge, so a charge in the window has
        // its refund in the window too. (Until session 29 every charge was
        // probed for a refund, twice: ~160 index probes a call on an account
        // with 80 charges in the window.)
        let row = sqlx::query(
            "SELECT CAST(COUNT(c.variant) AS BIGINT) AS requests, \
               CAST(COALESCE(SUM(CASE WHEN c.refund_of IS NULL THEN 0 \
                 WHEN EXISTS (SELECT 1 FROM ledger x WHERE x.id = c.refund_of AND x.created_at >= $2 AND x.variant IS NOT NULL) THEN 1 ELSE 0 END), 0) AS BIGINT) AS refunded_images, \
               CAST(COALESCE(SUM(CASE WHEN c.variant IS NOT NULL AND c.source = 'cache' THEN 1 ELSE 0 END), 0) AS BIGINT) AS cache, \
               CAST(COALESCE(SUM(CASE WHEN c.refund_of IS NULL THEN 0 \
                 WHEN EXISTS (SELECT 1 FROM ledger x WHERE x.id = c.refund_of AND x.created_at >= $2 AND x.variant IS NOT NULL AND x.source = 'cache') THEN 1 ELSE 0 END), 0) AS BIGINT) AS refunded_cache, \
               CAST(COALESCE(SUM(CASE WHEN c.kind = 'charge' THEN c.delta ELSE 0 END), 0) AS BIGINT) AS charged, \
               CAST(COALESCE(SUM(CASE WHEN c.kind = 'refund' THEN c.delta ELSE 0 END), 0) AS BIGINT) AS refunded \
             FROM ledger c \
             WHERE c.account_id = $1 AND c.created_at >= $2",
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
        let get = |name: &str| row.try_get::<i64, _>(name).map_err(map_err);
        let requests = get("requests")?;
        Ok(UsageCounts {
            requests,
            images: requests - get("refunded_images")?,
            cache_hits: get("cache")? - get("refunded_cache")?,
            charged: get("charged")?,
            refunded: get("refunded")?,
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
