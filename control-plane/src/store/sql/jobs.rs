//! The render queue and the daily budget: `JobStore` and `BudgetStore`.
//! Jobs are leased (one dialect branch: PostgreSQL's `FOR UPDATE SKIP
//! LOCKED`) and finished by their lease owner; the budget is a per-day
//! counter taken and returned conditionally.

use super::*;

/// Interactive jobs first (priority 0), then prewarm ones; oldest first
/// within a priority. SQLite has one writer at a time, so a plain sub-select
/// is race-free there; PostgreSQL skips rows another transaction is leasing.
const LEASE_SQLITE: &str = concat!(
    "UPDATE render_jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1, updated_at = $3 \
     WHERE id = (SELECT id FROM render_jobs WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $3 AND attempts < $4) \
     ORDER BY priority, created_at LIMIT 1) RETURNING ",
    job_cols!()
);
const LEASE_POSTGRES: &str = concat!(
    "UPDATE render_jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1, updated_at = $3 \
     WHERE id = (SELECT id FROM render_jobs WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $3 AND attempts < $4) \
     ORDER BY priority, created_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING ",
    job_cols!()
);

/// The rest of a batch: queued interactive jobs of the first one's vehicle
/// and revision ($4, $5), at most $6, oldest first.
const LEASE_BATCH_SQLITE: &str = concat!(
    "UPDATE render_jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1, updated_at = $3 \
     WHERE id IN (SELECT id FROM render_jobs WHERE status = 'queued' AND vehicle = $4 AND revision = $5 \
     AND priority = 0 ORDER BY created_at LIMIT $6) RETURNING ",
    job_cols!()
);
const LEASE_BATCH_POSTGRES: &str = concat!(
    "UPDATE render_jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1, updated_at = $3 \
     WHERE id IN (SELECT id FROM render_jobs WHERE status = 'queued' AND vehicle = $4 AND revision = $5 \
     AND priority = 0 ORDER BY created_at LIMIT $6 FOR UPDATE SKIP LOCKED) RETURNING ",
    job_cols!()
);

#[async_trait]
impl JobStore for SqlStore {
    async fn claim_jobs(
        &self,
        jobs: &[NewJob<'_>],
        priority: JobPriority,
    ) -> Result<Vec<(JobRecord, Claim)>, StoreError> {
        let now = now_millis();
        // Rows are claimed in one order, whatever the caller's: two
        // transactions claiming overlapping jobs on PostgreSQL then wait on
        // each other's rows one way round, never deadlock. The answers come
        // back in the caller's order.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&i| (jobs[i].variant, jobs[i].revision));
        let mut tx = self.begin_write().await?;
        let mut claimed: Vec<Option<(JobRecord, Claim)>> = vec![None; jobs.len()];
        for i in order {
            claimed[i] = Some(claim_in(&mut tx, &jobs[i], priority, now).await?);
        }
        tx.commit().await.map_err(map_err)?;
        Ok(claimed.into_iter().flatten().collect())
    }

    async fn promote_job(&self, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE render_jobs SET priority = 0 WHERE id = $1 AND status IN ('queued', 'running')",
        )
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn withdraw_job(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "DELETE FROM render_jobs WHERE id = $1 AND status = 'queued' AND priority > 0 RETURNING created_at",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.map(|r| r.try_get::<i64, _>("created_at").map(utc_day_of))
            .transpose()
            .map_err(map_err)
    }

    async fn live_job(
        &self,
        variant: &str,
        revision: i64,
    ) -> Result<Option<JobRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            job_cols!(),
            " FROM render_jobs WHERE variant = $1 AND revision = $2 AND status IN ('queued', 'running')"
        ))
        .bind(variant)
        .bind(revision)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(JobRecord::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn lease_jobs(
        &self,
        owner: &str,
        lease_ms: i64,
        max: usize,
    ) -> Result<Vec<JobRecord>, StoreError> {
        let now = now_millis();
        let (first_sql, batch_sql) = match self.dialect {
            Dialect::Sqlite => (LEASE_SQLITE, LEASE_BATCH_SQLITE),
            Dialect::Postgres => (LEASE_POSTGRES, LEASE_BATCH_POSTGRES),
        };
        // A job whose lease ran out MAX_JOB_ATTEMPTS times fails: each time
        // its node died (or lost the database) mid-render.
        sqlx::query(
            "UPDATE render_jobs SET status = 'failed', error = 'render node lost', finished_by = lease_owner, \
             lease_owner = NULL, lease_expires_at = NULL, updated_at = $1 \
             WHERE status = 'running' AND lease_expires_at < $1 AND attempts >= $2",
        )
        .bind(now)
        .bind(MAX_JOB_ATTEMPTS)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        let mut tx = self.begin_write().await?;
        let first = sqlx::query(first_sql)
            .bind(owner)
            .bind(now + lease_ms)
            .bind(now)
            .bind(MAX_JOB_ATTEMPTS)
            .fetch_optional(&mut *tx)
            .await
            .map_err(map_err)?;
        let Some(first) = first else {
            tx.commit().await.map_err(map_err)?;
            return Ok(Vec::new());
        };
        let first = JobRecord::from_row(&first).map_err(map_err)?;
        // Only interactive jobs batch: a prewarm job is leased alone, so an
        // interactive request queued behind it waits for one render at most.
        let more = match first.priority {
            JobPriority::Interactive => i64::try_from(max.saturating_sub(1)).unwrap_or(i64::MAX),
            JobPriority::Prewarm => 0,
        };
        let mut batch = if more > 0 {
            sqlx::query(batch_sql)
                .bind(owner)
                .bind(now + lease_ms)
                .bind(now)
                .bind(vis_protocol::vehicle_of(&first.variant))
                .bind(first.revision)
                .bind(more)
                .fetch_all(&mut *tx)
                .await
                .map_err(map_err)?
                .iter()
                .map(JobRecord::from_row)
                .collect::<Result<Vec<_>, _>>()
                .map_err(map_err)?
        } else {
            Vec::new()
        };
        tx.commit().await.map_err(map_err)?;
        // RETURNING keeps no order: the batch is drawn in the queue's.
        batch.sort_by(|a, b| {
            (a.priority, a.created_at, &a.id).cmp(&(b.priority, b.created_at, &b.id))
        });
        batch.insert(0, first);
        Ok(batch)
    }

    async fn finish_job(
        &self,
        id: &str,
        owner: &str,
        outcome: Result<i64, &str>,
    ) -> Result<bool, StoreError> {
        let (status, error, duration) = match outcome {
            Ok(ms) => ("done", None, Some(ms)),
            Err(e) => ("failed", Some(e), None),
        };
        let done = sqlx::query(
            "UPDATE render_jobs SET status = $1, error = $2, duration_ms = $3, lease_owner = NULL, lease_expires_at = NULL, \
             updated_at = $4, finished_by = $6 \
             WHERE id = $5 AND lease_owner = $6 AND status = 'running'",
        )
        .bind(status)
        .bind(error)
        .bind(duration)
        .bind(now_millis())
        .bind(id)
        .bind(owner)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn job_by_id(&self, id: &str) -> Result<Option<JobRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            job_cols!(),
            " FROM render_jobs WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(JobRecord::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn running_jobs_by_owner(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT lease_owner, COUNT(*) AS n FROM render_jobs \
             WHERE status = 'running' AND lease_owner IS NOT NULL GROUP BY lease_owner",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(|r| Ok((r.try_get("lease_owner")?, r.try_get("n")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(map_err)
    }

    async fn renew_leases(
        &self,
        owner: &str,
        ids: &[String],
        until: Millis,
    ) -> Result<u64, StoreError> {
        let mut held = 0;
        for id in ids {
            let renewed = sqlx::query(
                "UPDATE render_jobs SET lease_expires_at = $1 \
                 WHERE id = $2 AND lease_owner = $3 AND status = 'running'",
            )
            .bind(until)
            .bind(id)
            .bind(owner)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
            held += renewed.rows_affected();
        }
        Ok(held)
    }

    async fn finishes_on(&self, day: i64) -> Result<DayFinishes, StoreError> {
        // One row, not one per node and bucket: each row through the driver
        // costs more than reading it (on SQLite several times more:
        // docs/benchmarks.md, "History"), and a busy day has hundreds. Each
        // aggregate is one text of records (RS-separated) of fields
        // (US-separated); '' is how the aggregates key "no owner" (a key
        // column is never NULL). Neither separator can occur in a node's
        // name or a cause (both are printable).
        let (renders, failures): (Option<String>, Option<String>) = sqlx::query_as(
            "SELECT                (SELECT string_agg(owner || $2 || CAST(bucket AS TEXT) || $2 || CAST(n AS TEXT)                   || $2 || CAST(lo AS TEXT) || $2 || CAST(hi AS TEXT), $3)                 FROM render_finish_days WHERE day = $1),                (SELECT string_agg(owner || $2 || cause || $2 || CAST(n AS TEXT), $3)                 FROM render_failure_days WHERE day = $1)",
        )
        .bind(day)
        .bind(FIELD_SEP)
        .bind(RECORD_SEP)
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        parse_finishes(renders.as_deref(), failures.as_deref())
    }

    async fn job_counts(&self) -> Result<JobCounts, StoreError> {
        let rows = sqlx::query("SELECT status, priority, n FROM render_job_counts")
            .fetch_all(&self.pool)
            .await
            .map_err(map_err)?;
        let mut counts = JobCounts::default();
        for row in rows {
            let status: String = row.try_get("status").map_err(map_err)?;
            let prewarm = JobPriority::from_rank(row.try_get("priority").map_err(map_err)?)
                == JobPriority::Prewarm;
            let n: i64 = row.try_get("n").map_err(map_err)?;
            match JobStatus::parse(&status) {
                Some(JobStatus::Queued) => {
                    counts.queued += n;
                    if prewarm {
                        counts.queued_prewarm += n;
                    }
                }
                Some(JobStatus::Running) => {
                    counts.running += n;
                    if prewarm {
                        counts.running_prewarm += n;
                    }
                }
                Some(JobStatus::Done) => counts.done += n,
                Some(JobStatus::Failed) => counts.failed += n,
                None => {}
            }
        }
        Ok(counts)
    }
}

#[async_trait]
impl BudgetStore for SqlStore {
    async fn take_budgets(&self, day: &str, limit: i64, n: i64) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO render_budget (day, used) VALUES ($1, 0) ON CONFLICT (day) DO NOTHING",
        )
        .bind(day)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        let used: Option<i64> = sqlx::query_scalar(
            "UPDATE render_budget SET used = used + $3 WHERE day = $1 AND used + $3 <= $2 RETURNING used",
        )
        .bind(day)
        .bind(limit)
        .bind(n)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(used.is_some())
    }

    async fn return_budgets(&self, day: &str, n: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE render_budget SET used = CASE WHEN used > $2 THEN used - $2 ELSE 0 END WHERE day = $1")
            .bind(day)
            .bind(n)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(())
    }

    async fn budget_used(&self, day: &str) -> Result<i64, StoreError> {
        let used: Option<i64> = sqlx::query_scalar("SELECT used FROM render_budget WHERE day = $1")
            .bind(day)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(used.unwrap_or(0))
    }

    async fn setting(&self, name: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)
    }

    async fn set_setting(&self, name: &str, value: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
            .bind(name)
            .bind(value)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(())
    }
}

/// Claims one job inside the caller's write transaction (`claim_jobs`).
async fn claim_in(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    job: &NewJob<'_>,
    priority: JobPriority,
    now: Millis,
) -> Result<(JobRecord, Claim), StoreError> {
    let created = sqlx::query(concat!(
        "INSERT INTO render_jobs (id, variant, revision, shape, status, priority, attempts, created_at, updated_at, vehicle) \
         VALUES ($1, $2, $3, $4, 'queued', $6, 0, $5, $5, $7) ON CONFLICT (variant, revision) DO NOTHING RETURNING ",
        job_cols!()
    ))
    .bind(new_id())
    .bind(job.variant)
    .bind(job.revision)
    .bind(job.shape)
    .bind(now)
    .bind(priority.rank())
    .bind(vis_protocol::vehicle_of(job.variant))
    .fetch_optional(&mut **tx)
    .await
    .map_err(map_err)?;
    if let Some(row) = created {
        return Ok((JobRecord::from_row(&row).map_err(map_err)?, Claim::Created));
    }
    let requeued = sqlx::query(concat!(
        "UPDATE render_jobs SET status = 'queued', error = NULL, lease_owner = NULL, lease_expires_at = NULL, \
         priority = $4, created_at = $1, updated_at = $1, vehicle = $5 \
         WHERE variant = $2 AND revision = $3 AND status = 'failed' RETURNING ",
        job_cols!()
    ))
    .bind(now)
    .bind(job.variant)
    .bind(job.revision)
    .bind(priority.rank())
    .bind(vis_protocol::vehicle_of(job.variant))
    .fetch_optional(&mut **tx)
    .await
    .map_err(map_err)?;
    if let Some(row) = requeued {
        return Ok((JobRecord::from_row(&row).map_err(map_err)?, Claim::Requeued));
    }
    let row = sqlx::query(concat!(
        "SELECT ",
        job_cols!(),
        " FROM render_jobs WHERE variant = $1 AND revision = $2"
    ))
    .bind(job.variant)
    .bind(job.revision)
    .fetch_one(&mut **tx)
    .await
    .map_err(map_err)?;
    let mut joined = JobRecord::from_row(&row).map_err(map_err)?;
    if priority < joined.priority && matches!(joined.status, JobStatus::Queued | JobStatus::Running)
    {
        // A request now waits on it: raise it (as `promote_job`).
        sqlx::query("UPDATE render_jobs SET priority = $2 WHERE id = $1")
            .bind(&joined.id)
            .bind(priority.rank())
            .execute(&mut **tx)
            .await
            .map_err(map_err)?;
        joined.priority = priority;
    }
    Ok((joined, Claim::Joined))
}

const FIELD_SEP: &str = "\u{1f}";
const RECORD_SEP: &str = "\u{1e}";

/// The two aggregates of [`JobStore::finishes_on`] as rows, ordered by
/// owner (no owner first) then bucket or cause, as the table's key orders
/// them (the aggregate's order is unspecified).
fn parse_finishes(
    renders: Option<&str>,
    failures: Option<&str>,
) -> Result<DayFinishes, StoreError> {
    fn records(text: Option<&str>) -> impl Iterator<Item = Vec<&str>> {
        text.unwrap_or_default()
            .split(RECORD_SEP)
            .filter(|r| !r.is_empty())
            .map(|r| r.split(FIELD_SEP).collect())
    }
    fn owner(field: &str) -> Option<String> {
        (!field.is_empty()).then(|| field.to_owned())
    }
    fn int(field: &str) -> Result<i64, StoreError> {
        field
            .parse()
            .map_err(|_| StoreError::Database(format!("render_finish_days: unreadable {field:?}")))
    }
    let mut out = DayFinishes {
        renders: Vec::new(),
        failures: Vec::new(),
    };
    for f in records(renders) {
        let [o, bucket, n, lo, hi] = f[..] else {
            return Err(StoreError::Database(
                "render_finish_days: an unreadable row".into(),
            ));
        };
        out.renders.push(RenderBucket {
            owner: owner(o),
            bucket: int(bucket)?,
            renders: int(n)?,
            min_ms: int(lo)?,
            max_ms: int(hi)?,
        });
    }
    for f in records(failures) {
        let [o, cause, n] = f[..] else {
            return Err(StoreError::Database(
                "render_failure_days: an unreadable row".into(),
            ));
        };
        out.failures.push(FailureCount {
            owner: owner(o),
            cause: cause.to_owned(),
            failures: int(n)?,
        });
    }
    out.renders
        .sort_by(|a, b| (&a.owner, a.bucket).cmp(&(&b.owner, b.bucket)));
    out.failures
        .sort_by(|a, b| (&a.owner, &a.cause).cmp(&(&b.owner, &b.cause)));
    Ok(out)
}
