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
        let rows = sqlx::query(
            "SELECT seq, kind, subject_id, revoked_at FROM revocations \
             WHERE seq > $1 OR revoked_at >= $2 ORDER BY seq LIMIT $3",
        )
        .bind(after)
        .bind(since)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(|row| -> Result<Revocation, sqlx::Error> {
                let kind: String = row.try_get("kind")?;
                Ok(Revocation {
                    seq: row.try_get("seq")?,
                    kind: RevokedKind::parse(&kind).ok_or_else(|| {
                        sqlx::Error::Decode(format!("unknown revocation kind {kind}").into())
                    })?,
                    subject_id: row.try_get("subject_id")?,
                    revoked_at: row.try_get("revoked_at")?,
                })
            })
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn revocation_head(&self) -> Result<i64, StoreError> {
        sqlx::query_scalar("SELECT CAST(COALESCE(MAX(seq), 0) AS BIGINT) FROM revocations")
            .fetch_one(&self.pool)
            .await
            .map_err(map_err)
    }
}

/// Grants `min(want, what is left)` of the window in one statement: the
/// right-hand sides all read the row as it was, so `last_grant` is what
/// this call added to `used`. A spent window matches no row and returns
/// none. `$1` subject, `$2` window start, `$3` want, `$4` limit.
const TAKE_BLOCK: &str = "INSERT INTO rate_windows (subject, window_start, used, last_grant) \
     VALUES ($1, $2, CASE WHEN $3 < $4 THEN $3 ELSE $4 END, CASE WHEN $3 < $4 THEN $3 ELSE $4 END) \
     ON CONFLICT (subject, window_start) DO UPDATE SET \
       last_grant = CASE WHEN rate_windows.used + $3 <= $4 THEN $3 ELSE $4 - rate_windows.used END, \
       used = CASE WHEN rate_windows.used + $3 <= $4 THEN rate_windows.used + $3 ELSE $4 END \
     WHERE rate_windows.used < $4 \
     RETURNING last_grant, used";

#[async_trait]
impl RateStore for SqlStore {
    async fn take_rate_block(
        &self,
        subject: &str,
        window_start: Millis,
        want: i64,
        limit: i64,
    ) -> Result<(i64, i64), StoreError> {
        if want <= 0 || limit <= 0 {
            return Ok((0, limit.max(0)));
        }
        let granted: Option<(i64, i64)> = sqlx::query_as(TAKE_BLOCK)
            .bind(subject)
            .bind(window_start)
            .bind(want)
            .bind(limit)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
        // No row: the window is spent.
        Ok(granted.map_or((0, limit), |(g, used)| (g.max(0), used)))
    }

    async fn prune_rate_windows(&self, before: Millis) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM rate_windows WHERE window_start < $1")
            .bind(before)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(done.rows_affected())
    }
}
