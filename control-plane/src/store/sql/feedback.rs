//! Feedback on renders, the flags it raises and the re-render bumps of
//! variants (migration 10).

use super::*;

#[async_trait]
impl FeedbackStore for SqlStore {
    async fn record_feedback(
        &self,
        f: &NewFeedback,
        flag_after: i64,
    ) -> Result<FeedbackOutcome, StoreError> {
        let mut tx = self.begin_write().await?;
        let now = now_millis();
        let id = new_id();
        sqlx::query(
            "INSERT INTO feedback (id, account_id, key_id, variant, revision, request_id, rating, verdict, negative, reason, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(&id)
        .bind(&f.account_id)
        .bind(&f.key_id)
        .bind(&f.variant)
        .bind(f.revision)
        .bind(&f.request_id)
        .bind(f.rating)
        .bind(&f.verdict)
        .bind(i64::from(f.negative))
        .bind(&f.reason)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        let mut flagged = false;
        if f.negative {
            let reports: i64 = sqlx::query_scalar(
                "SELECT COUNT(DISTINCT account_id) FROM feedback \
                 WHERE variant = $1 AND revision = $2 AND negative = 1",
            )
            .bind(&f.variant)
            .bind(f.revision)
            .fetch_one(&mut *tx)
            .await
            .map_err(map_err)?;
            if reports >= flag_after {
                let done = sqlx::query(
                    "INSERT INTO render_flags (variant, revision, state, reports, flagged_at) \
                     VALUES ($1, $2, 'flagged', $3, $4) ON CONFLICT (variant, revision) DO NOTHING",
                )
                .bind(&f.variant)
                .bind(f.revision)
                .bind(reports)
                .bind(now)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
                flagged = done.rows_affected() == 1;
                if !flagged {
                    sqlx::query(
                        "UPDATE render_flags SET reports = $3 WHERE variant = $1 AND revision = $2",
                    )
                    .bind(&f.variant)
                    .bind(f.revision)
                    .bind(reports)
                    .execute(&mut *tx)
                    .await
                    .map_err(map_err)?;
                }
            }
        }
        tx.commit().await.map_err(map_err)?;
        Ok(FeedbackOutcome { id, flagged })
    }

    async fn rerender_variant(&self, variant: &str, revision: i64) -> Result<i64, StoreError> {
        let mut tx = self.begin_write().await?;
        let now = now_millis();
        let bump: i64 = sqlx::query_scalar(
            "INSERT INTO variant_revisions (variant, bump, updated_at) VALUES ($1, 1, $2) \
             ON CONFLICT (variant) DO UPDATE SET bump = variant_revisions.bump + 1, updated_at = $2 \
             RETURNING bump",
        )
        .bind(variant)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(map_err)?;
        sqlx::query(
            "UPDATE render_flags SET state = 'rerendered', resolved_at = $3 \
             WHERE variant = $1 AND revision = $2 AND state = 'flagged'",
        )
        .bind(variant)
        .bind(revision)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        announce_revocation(
            &mut tx,
            RevokedKind::Render,
            &format!("{variant}#{bump}"),
            now,
        )
        .await?;
        tx.commit().await.map_err(map_err)?;
        Ok(bump)
    }

    async fn dismiss_flag(&self, variant: &str, revision: i64) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE render_flags SET state = 'dismissed', resolved_at = $3 \
             WHERE variant = $1 AND revision = $2 AND state = 'flagged'",
        )
        .bind(variant)
        .bind(revision)
        .bind(now_millis())
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn render_flags(&self, limit: i64) -> Result<Vec<RenderFlag>, StoreError> {
        let rows = sqlx::query(
            "SELECT variant, revision, state, reports, flagged_at, resolved_at FROM render_flags \
             ORDER BY flagged_at DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let mut flags = Vec::with_capacity(rows.len());
        for row in &rows {
            let variant: String = row.try_get("variant").map_err(map_err)?;
            let revision: i64 = row.try_get("revision").map_err(map_err)?;
            let reasons: Vec<Option<String>> = sqlx::query_scalar(
                "SELECT reason FROM feedback WHERE variant = $1 AND revision = $2 AND negative = 1 \
                 ORDER BY created_at DESC LIMIT 20",
            )
            .bind(&variant)
            .bind(revision)
            .fetch_all(&self.pool)
            .await
            .map_err(map_err)?;
            flags.push(RenderFlag {
                variant,
                revision,
                state: row.try_get("state").map_err(map_err)?,
                reports: row.try_get("reports").map_err(map_err)?,
                flagged_at: row.try_get("flagged_at").map_err(map_err)?,
                resolved_at: row.try_get("resolved_at").map_err(map_err)?,
                reasons: reasons.into_iter().flatten().collect(),
            });
        }
        Ok(flags)
    }

    async fn variant_bumps(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query("SELECT variant, bump FROM variant_revisions")
            .fetch_all(&self.pool)
            .await
            .map_err(map_err)?;
        rows.iter()
            .map(|r| Ok((r.try_get("variant")?, r.try_get("bump")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(map_err)
    }
}
