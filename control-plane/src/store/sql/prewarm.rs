//! Prewarm jobs and their items (migration 14).

use super::*;
use crate::store::prewarm::{
    ItemStatus, NewPrewarmItem, PrewarmCounts, PrewarmItem, PrewarmRun, PrewarmState, PrewarmStore,
};

macro_rules! run_cols {
    () => {
        "id, selection, outputs, state, stopped_reason, total, driver_beat, created_at, updated_at"
    };
}

/// Items per INSERT statement.
const ITEMS_PER_INSERT: usize = 1000;
/// A chunk of items in one statement with one bound value, a JSON object of
/// the rows by their sequence number, expanded by `jsonb_each` in both
/// databases (as the ledger's charge batches are, `sql/charges.rs`).
const INSERT_ITEMS: &str = "INSERT INTO prewarm_items (run_id, seq, variant, revision, shape, status) \
     SELECT $1, CAST(key AS BIGINT), value ->> 'v', CAST(value ->> 'r' AS BIGINT), value ->> 's', 'pending' \
     FROM jsonb_each(jsonb($2))";

#[async_trait]
impl PrewarmStore for SqlStore {
    async fn create_prewarm(
        &self,
        selection: &str,
        selection_hash: &str,
        outputs: &str,
        items: &[NewPrewarmItem],
    ) -> Result<PrewarmRun, StoreError> {
        let now = now_millis();
        let id = format!("pw_{}", crate::auth::random_base62(16));
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(concat!(
            "INSERT INTO prewarm_runs (id, selection, selection_hash, outputs, state, total, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, 'running', $5, $6, $6) RETURNING ",
            run_cols!()
        ))
        .bind(&id)
        .bind(selection)
        .bind(selection_hash)
        .bind(outputs)
        .bind(items.len() as i64)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(map_err)?;
        for (chunk_no, chunk) in items.chunks(ITEMS_PER_INSERT).enumerate() {
            let rows: serde_json::Map<String, serde_json::Value> = chunk
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    (
                        (chunk_no * ITEMS_PER_INSERT + i).to_string(),
                        serde_json::json!({ "v": item.variant, "r": item.revision, "s": item.shape }),
                    )
                })
                .collect();
            sqlx::query(INSERT_ITEMS)
                .bind(&id)
                .bind(serde_json::Value::Object(rows).to_string())
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
        }
        tx.commit().await.map_err(map_err)?;
        PrewarmRun::from_row(&row).map_err(map_err)
    }

    async fn prewarm(&self, id: &str) -> Result<Option<PrewarmRun>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            run_cols!(),
            " FROM prewarm_runs WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(PrewarmRun::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn open_prewarm(&self, selection_hash: &str) -> Result<Option<PrewarmRun>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            run_cols!(),
            " FROM prewarm_runs WHERE selection_hash = $1 AND state IN ('running', 'paused') \
             ORDER BY created_at DESC LIMIT 1"
        ))
        .bind(selection_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(PrewarmRun::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn prewarms(&self, limit: i64) -> Result<Vec<PrewarmRun>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            run_cols!(),
            " FROM prewarm_runs ORDER BY created_at DESC, id LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(PrewarmRun::from_row)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn prewarm_items(
        &self,
        id: &str,
        status: ItemStatus,
        limit: i64,
    ) -> Result<Vec<PrewarmItem>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, variant, revision, shape, status, job_id, error FROM prewarm_items \
             WHERE run_id = $1 AND status = $2 ORDER BY seq LIMIT $3",
        )
        .bind(id)
        .bind(status.as_str())
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(PrewarmItem::from_row)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn set_prewarm_item(
        &self,
        id: &str,
        seq: i64,
        status: ItemStatus,
        job_id: Option<&str>,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE prewarm_items SET status = $1, job_id = $2, error = $3 WHERE run_id = $4 AND seq = $5",
        )
        .bind(status.as_str())
        .bind(job_id)
        .bind(error)
        .bind(id)
        .bind(seq)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(())
    }

    async fn prewarm_counts(&self, id: &str) -> Result<PrewarmCounts, StoreError> {
        let rows = sqlx::query(
            "SELECT status, CAST(COUNT(*) AS BIGINT) AS n FROM prewarm_items WHERE run_id = $1 GROUP BY status",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let mut counts = PrewarmCounts::default();
        for row in rows {
            let status: String = row.try_get("status").map_err(map_err)?;
            let n: i64 = row.try_get("n").map_err(map_err)?;
            if let Some(s) = ItemStatus::parse(&status) {
                counts.add(s, n);
            }
        }
        Ok(counts)
    }

    async fn retry_failed_prewarm_items(&self, id: &str) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE prewarm_items SET status = 'pending', job_id = NULL, error = NULL \
             WHERE run_id = $1 AND status = 'failed'",
        )
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected())
    }

    async fn drive_prewarm(
        &self,
        id: &str,
        driver: &str,
        stale_ms: i64,
    ) -> Result<bool, StoreError> {
        let now = now_millis();
        let done = sqlx::query(
            "UPDATE prewarm_runs SET driver = $1, driver_beat = $2, state = 'running', stopped_reason = NULL, updated_at = $2 \
             WHERE id = $3 AND state IN ('running', 'paused') \
             AND (driver IS NULL OR driver = $1 OR driver_beat IS NULL OR driver_beat < $4)",
        )
        .bind(driver)
        .bind(now)
        .bind(id)
        .bind(now - stale_ms)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn end_prewarm(
        &self,
        id: &str,
        state: PrewarmState,
        reason: Option<&str>,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE prewarm_runs SET state = $1, stopped_reason = $2, driver = NULL, updated_at = $3 \
             WHERE id = $4 AND state IN ('running', 'paused')",
        )
        .bind(state.as_str())
        .bind(reason)
        .bind(now_millis())
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn top_variants(
        &self,
        since: Millis,
        limit: i64,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        // Whole UTC days from the day `since` falls in, through today:
        // `variant_window` holds them as rolled up (one row per variant,
        // ranked by an index), and the ledger's rows after the rollup's
        // mark (at most ROLLUP_MARGIN_MS of them, read by primary key) are
        // added live. The first `limit` of the window by rank, merged with
        // the live rows' variants (and their window counts), is exact: a
        // variant with no live rows ranks as it does in the window. One
        // transaction, so a replica rolling up meanwhile cannot count a row
        // twice. The cost is `limit` rows and the live tail, not the
        // window's variants.
        let first_day = since.div_euclid(DAY_MS);
        let today = now_millis().div_euclid(DAY_MS);
        let mut tx = self.begin_write().await?;
        let rolled = roll_up_variant_days(&mut tx).await?;
        hold_window(&mut tx, first_day, today).await?;
        // One row, not `limit`: the ranks come back as one text
        // (`variant n variant n …`; a variant's text has no space), since
        // each row through the driver costs more than reading it (on
        // SQLite ten times more: docs/benchmarks.md).
        let ranked: Option<String> = sqlx::query_scalar(
            "SELECT string_agg(variant || ' ' || CAST(n AS TEXT), ' ') FROM ( \
               SELECT variant, n FROM variant_window ORDER BY n DESC, variant LIMIT $1 \
             ) t",
        )
        .bind(limit)
        .fetch_one(&mut *tx)
        .await
        .map_err(map_err)?;
        let ranked = parse_ranks(ranked.as_deref())?;
        let live = sqlx::query_as::<_, (String, i64, i64)>(
            "SELECT t.variant, CAST(t.n AS BIGINT) AS n, COALESCE(w.n, 0) AS held FROM ( \
               SELECT variant, COUNT(*) AS n FROM ledger \
               WHERE id > $1 AND kind = 'charge' AND variant IS NOT NULL AND created_at >= $2 \
               GROUP BY variant \
             ) t LEFT JOIN variant_window w ON w.variant = t.variant",
        )
        .bind(rolled)
        .bind(first_day * DAY_MS)
        .fetch_all(&mut *tx)
        .await
        .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(merge_live(ranked, live, limit))
    }
}

/// `variant n variant n …` as (variant, n), by count then name (the
/// aggregate's order is not the subquery's).
fn parse_ranks(text: Option<&str>) -> Result<Vec<(String, i64)>, StoreError> {
    let mut ranks = Vec::new();
    let mut words = text
        .unwrap_or_default()
        .split(' ')
        .filter(|w| !w.is_empty());
    while let Some(variant) = words.next() {
        let n: i64 = words
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| StoreError::Database("variant_window: an unreadable rank".into()))?;
        ranks.push((variant.to_owned(), n));
    }
    ranks.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(ranks)
}

/// The window's first variants by rank, with the live rows' counts added
/// (`live`: variant, live count, its count in the window): ranked again by
/// count, then name, and cut to `limit`.
fn merge_live(
    ranked: Vec<(String, i64)>,
    live: Vec<(String, i64, i64)>,
    limit: i64,
) -> Vec<(String, i64)> {
    if live.is_empty() {
        return ranked;
    }
    let mut counts: std::collections::HashMap<String, i64> = ranked.into_iter().collect();
    for (variant, n, held) in live {
        *counts.entry(variant).or_insert(held) += n;
    }
    let mut top: Vec<(String, i64)> = counts.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(usize::try_from(limit).unwrap_or(0));
    top
}

const DAY_MS: i64 = 86_400_000;

/// The ledger's newest rows are left out of a rollup for this long: a row's
/// id is taken when it is inserted, so a row with a smaller id than one
/// rolled up could still be uncommitted on PostgreSQL; no charge
/// transaction stays open this long (a charge is one short transaction).
/// Those rows are read live instead.
const ROLLUP_MARGIN_MS: i64 = 60_000;

/// Adds the ledger's charges after the `variant_days` mark, up to the
/// newest row older than [`ROLLUP_MARGIN_MS`], to `variant_days` (and to
/// `variant_window` where they fall in its span) and moves the mark;
/// returns the mark. The work is the rows since the last rollup, read by
/// primary key, never the history; the charge path is untouched. The mark's
/// row is locked by the first statement, so replicas roll up one at a time.
async fn roll_up_variant_days(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
) -> Result<i64, StoreError> {
    let mark: Option<i64> = sqlx::query_scalar(
        "UPDATE rollup_marks SET through_id = through_id WHERE name = 'variant_days' RETURNING through_id",
    )
    .fetch_optional(&mut **tx)
    .await
    .map_err(map_err)?;
    let Some(mark) = mark else {
        return Err(StoreError::Database(
            "rollup_marks has no variant_days row".into(),
        ));
    };
    let upto: Option<i64> =
        sqlx::query_scalar("SELECT MAX(id) FROM ledger WHERE id > $1 AND created_at < $2")
            .bind(mark)
            .bind(now_millis() - ROLLUP_MARGIN_MS)
            .fetch_one(&mut **tx)
            .await
            .map_err(map_err)?;
    let Some(upto) = upto else {
        return Ok(mark);
    };
    // `WHERE` before `ON CONFLICT` (SQLite's rule for an upsert fed by a
    // SELECT); `excluded` is the proposed row in both databases.
    sqlx::query(
        "INSERT INTO variant_days (day, variant, n) \
         SELECT created_at / 86400000, variant, COUNT(*) FROM ledger \
         WHERE id > $1 AND id <= $2 AND kind = 'charge' AND variant IS NOT NULL \
         GROUP BY created_at / 86400000, variant \
         ON CONFLICT (day, variant) DO UPDATE SET n = variant_days.n + excluded.n",
    )
    .bind(mark)
    .bind(upto)
    .execute(&mut **tx)
    .await
    .map_err(map_err)?;
    let (from, to) = window_span(tx).await?;
    if from <= to {
        sqlx::query(
            "INSERT INTO variant_window (variant, n) \
             SELECT variant, COUNT(*) FROM ledger \
             WHERE id > $1 AND id <= $2 AND kind = 'charge' AND variant IS NOT NULL \
             AND created_at >= $3 AND created_at < $4 \
             GROUP BY variant \
             ON CONFLICT (variant) DO UPDATE SET n = variant_window.n + excluded.n",
        )
        .bind(mark)
        .bind(upto)
        .bind(from * DAY_MS)
        .bind((to + 1) * DAY_MS)
        .execute(&mut **tx)
        .await
        .map_err(map_err)?;
    }
    sqlx::query("UPDATE rollup_marks SET through_id = $1 WHERE name = 'variant_days'")
        .bind(upto)
        .execute(&mut **tx)
        .await
        .map_err(map_err)?;
    Ok(upto)
}

/// The span of days `variant_window` holds (`from > to`: none); it runs
/// through today.
async fn window_span(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
) -> Result<(i64, i64), StoreError> {
    sqlx::query_as::<_, (i64, i64)>(
        "SELECT from_day, to_day FROM rollup_windows WHERE name = 'variant_window'",
    )
    .fetch_optional(&mut **tx)
    .await
    .map_err(map_err)?
    .ok_or_else(|| StoreError::Database("rollup_windows has no variant_window row".into()))
}

/// Makes `variant_window` hold the days `from..=to` (none when `from > to`),
/// summed from `variant_days` when its span differs: once a day for a given
/// `--top-days` (the span ends today), a read of the span's days x
/// variants; every other call reads one row.
async fn hold_window(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    from: i64,
    to: i64,
) -> Result<(), StoreError> {
    let held = window_span(tx).await?;
    if held == (from, to) || (held.0 > held.1 && from > to) {
        return Ok(());
    }
    sqlx::query("DELETE FROM variant_window")
        .execute(&mut **tx)
        .await
        .map_err(map_err)?;
    sqlx::query(
        "INSERT INTO variant_window (variant, n) \
         SELECT variant, CAST(SUM(n) AS BIGINT) FROM variant_days \
         WHERE day >= $1 AND day <= $2 GROUP BY variant",
    )
    .bind(from)
    .bind(to)
    .execute(&mut **tx)
    .await
    .map_err(map_err)?;
    sqlx::query(
        "UPDATE rollup_windows SET from_day = $1, to_day = $2 WHERE name = 'variant_window'",
    )
    .bind(from)
    .bind(to)
    .execute(&mut **tx)
    .await
    .map_err(map_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_ranks;

    #[test]
    fn ranks_read_back_by_count_then_name() {
        assert_eq!(parse_ranks(None).unwrap(), vec![]);
        assert_eq!(
            parse_ranks(Some(
                "b/x/2020/red/side 3 a/x/2020/red/side 3 c/y/2019/blue/front 9"
            ))
            .unwrap(),
            vec![
                ("c/y/2019/blue/front".to_owned(), 9),
                ("a/x/2020/red/side".to_owned(), 3),
                ("b/x/2020/red/side".to_owned(), 3),
            ]
        );
        assert!(parse_ranks(Some("a/x/2020/red/side")).is_err());
        assert!(parse_ranks(Some("a/x/2020/red/side many")).is_err());
    }
}
