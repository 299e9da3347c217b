//! What replicas share besides the ledger: the revocation feed and the
//! rate-limit windows.

use super::*;

/// Writes a revocation's feed entry inside the revocation's transaction.
pub(super) async fn announce_revocation(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    kind: RevokedKind,
    subject_id: &str,
    at: Millis,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO revocations (kind, subject_id, revoked_at) VALUES ($1, $2, $3)")
        .bind(kind.as_str())
        .bind(subject_id)
        .bind(at)
        .execute(&mut **tx)
        .await
        .map_err(map_err)?;
    Ok(())
}

#[async_trait]
impl RevocationStore for SqlStore {
    async fn revocations(
        &self,
        after: i64,
        since: Millis,
        limit: i64,
    ) -> Result<Vec<Revocation>, StoreError> {
        sqlx::query_as::<_, Revocation>(
            "SELECT seq, kind, subject_id, revoked_at FROM revocations \
             WHERE seq > $1 OR revoked_at >= $2 ORDER BY seq LIMIT $3",
        )
        .bind(after)
        .bind(since)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }

    async fn revocation_head(&self) -> Result<i64, StoreError> {
        sqlx::query_scalar("SELECT CAST(COALESCE(MAX(seq), 0) AS BIGINT) FROM revocations")
            .fetch_one(&self.pool)
            .await
            .map_err(map_err)
    }
}

/// Opens the subject's window when none is open (the last one started a
/// window or more ago: `$3` is now less the window's length) and locks its
/// row for the rest of the transaction (the upsert writes it either way).
/// `$1` subject, `$2` now.
const OPEN_WINDOW: &str = "INSERT INTO rate_subject_windows (subject, window_start, used) \
     VALUES ($1, $2, 0) \
     ON CONFLICT (subject) DO UPDATE SET \
       window_start = CASE WHEN rate_subject_windows.window_start <= $3 THEN $2 \
                      ELSE rate_subject_windows.window_start END, \
       used = CASE WHEN rate_subject_windows.window_start <= $3 THEN 0 \
              ELSE rate_subject_windows.used END \
     RETURNING window_start, used";

#[async_trait]
impl RateStore for SqlStore {
    async fn take_rate_block(&self, t: &RateTake<'_>) -> Result<RateGrant, StoreError> {
        let mut tx = self.begin_write().await?;
        let (window_start, used): (i64, i64) = sqlx::query_as(OPEN_WINDOW)
            .bind(t.subject)
            .bind(t.now)
            .bind(t.now.saturating_sub(t.window))
            .fetch_one(&mut *tx)
            .await
            .map_err(map_err)?;
        // The leases of the subject: the holder's own (what it returns of
        // it, at most what it was granted), other holders' expired ones
        // (returned in full), and leases of an earlier window (that window's
        // count is gone: nothing to return).
        let leases: Vec<(String, i64, i64, i64)> = sqlx::query_as(
            "SELECT holder, window_start, outstanding, expires_at FROM rate_leases \
             WHERE subject = $1",
        )
        .bind(t.subject)
        .fetch_all(&mut *tx)
        .await
        .map_err(map_err)?;
        let mut back = 0i64;
        let mut stale = false;
        for (holder, lease_window, outstanding, expires_at) in &leases {
            if *lease_window != window_start {
                stale = true;
            } else if holder == t.holder {
                if t.returned_window == window_start {
                    back += t.returned.clamp(0, *outstanding);
                }
                stale = true;
            } else if *expires_at < t.now {
                back += (*outstanding).max(0);
                stale = true;
            }
        }
        if stale {
            sqlx::query(
                "DELETE FROM rate_leases WHERE subject = $1 \
                 AND (holder = $2 OR window_start <> $3 OR expires_at < $4)",
            )
            .bind(t.subject)
            .bind(t.holder)
            .bind(window_start)
            .bind(t.now)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        }
        let used = (used - back).max(0);
        let granted = t.want.min(t.limit - used).max(0);
        let used = used + granted;
        if back != 0 || granted != 0 {
            sqlx::query("UPDATE rate_subject_windows SET used = $1 WHERE subject = $2")
                .bind(used)
                .bind(t.subject)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
        }
        if granted > 0 {
            sqlx::query(
                "INSERT INTO rate_leases (subject, holder, window_start, outstanding, expires_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(t.subject)
            .bind(t.holder)
            .bind(window_start)
            .bind(granted)
            .bind(t.now.saturating_add(t.lease))
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        }
        tx.commit().await.map_err(map_err)?;
        Ok(RateGrant {
            granted,
            used,
            window_start,
        })
    }

    async fn prune_rate_windows(&self, before: Millis) -> Result<u64, StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query("DELETE FROM rate_leases WHERE window_start < $1")
            .bind(before)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        let done = sqlx::query("DELETE FROM rate_subject_windows WHERE window_start < $1")
            .bind(before)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(done.rows_affected())
    }
}
