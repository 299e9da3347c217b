//! Claims on the idempotency keys of calls that charge after their work
//! (MCP `get_image`; `call_claims`).

use super::*;

#[async_trait]
impl CallClaimStore for SqlStore {
    async fn claim_call(
        &self,
        account_id: &str,
        key: &str,
        fingerprint: &str,
        request_id: &str,
    ) -> Result<Option<CallClaim>, StoreError> {
        let now = now_millis();
        sqlx::query("DELETE FROM call_claims WHERE account_id = $1 AND created_at < $2")
            .bind(account_id)
            .bind(now - IDEMPOTENCY_TTL_MS)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        // A claim released between the insert and the read is gone: try
        // again (twice is plenty; a third miss is a busy key, not a bug).
        for _ in 0..3 {
            let inserted = sqlx::query(
                "INSERT INTO call_claims (account_id, idem_key, fingerprint, request_id, created_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            )
            .bind(account_id)
            .bind(key)
            .bind(fingerprint)
            .bind(request_id)
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
            if inserted.rows_affected() == 1 {
                return Ok(None);
            }
            let held = sqlx::query_as::<_, CallClaim>(
                "SELECT fingerprint, request_id, created_at FROM call_claims \
                 WHERE account_id = $1 AND idem_key = $2",
            )
            .bind(account_id)
            .bind(key)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
            if held.is_some() {
                return Ok(held);
            }
        }
        Err(StoreError::Conflict("idempotency key"))
    }

    async fn retake_call(
        &self,
        account_id: &str,
        key: &str,
        from: &str,
        to: &str,
    ) -> Result<bool, StoreError> {
        let moved = sqlx::query(
            "UPDATE call_claims SET request_id = $4, created_at = $5 \
             WHERE account_id = $1 AND idem_key = $2 AND request_id = $3",
        )
        .bind(account_id)
        .bind(key)
        .bind(from)
        .bind(to)
        .bind(now_millis())
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(moved.rows_affected() == 1)
    }

    async fn release_call(
        &self,
        account_id: &str,
        key: &str,
        request_id: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "DELETE FROM call_claims WHERE account_id = $1 AND idem_key = $2 AND request_id = $3",
        )
        .bind(account_id)
        .bind(key)
        .bind(request_id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(())
    }
}
