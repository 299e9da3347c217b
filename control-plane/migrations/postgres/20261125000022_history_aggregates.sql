-- Aggregates that keep status, the operator page, /metrics, a cold
-- admission and `prewarm --top` as cheap with a year of history as on day
-- one (docs/benchmarks.md, "History: cost as data grows").
--
-- render_job_counts  jobs per (status, priority): what `job_counts` used to
--                    count with a GROUP BY over every job ever queued.
-- render_buckets     fixed log-scale duration buckets by their lower bound
--                    (ms): 1 ms wide below 32 ms, then each 1/16 of its
--                    lower bound wide (a bucket's values are within 6.25%).
-- render_finish_days renders that finished, per UTC day (ms / 86400000), lease
--                    owner ('' for none) and duration bucket, with the
--                    smallest and largest duration seen in the bucket.
-- render_failure_days failures per UTC day, lease owner and cause.
--
-- All three are kept by triggers on render_jobs, in the transaction of the
-- write that moves a job, so no code path can forget them. On PostgreSQL
-- they are statement triggers over the statement's transition tables: each
-- statement's counts are folded into one upsert, whose rows are taken in
-- one order (sorted), after the statement's job rows, so two job writes
-- cannot deadlock on the counters. A finish is
-- counted on the day it happened; a job that fails and is then rendered
-- counts one failure and one render.
--
-- variant_days       charges with a variant per UTC day and variant, for
--                    `prewarm --top`. Not kept by a trigger: the charge path
--                    is the service's hottest and gets no per-charge work.
--                    `top_variants` rolls the ledger's new rows (by id,
--                    after `rollup_marks.through_id`) into it when asked.
-- rollup_marks       how far each lazy rollup has read the ledger.

CREATE TABLE render_job_counts (
    status    TEXT NOT NULL,
    priority  BIGINT NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (status, priority)
);
INSERT INTO render_job_counts (status, priority, n)
SELECT status, priority, COUNT(*) FROM render_jobs GROUP BY status, priority;

CREATE TABLE render_buckets (lo BIGINT PRIMARY KEY);
WITH RECURSIVE b(lo) AS (
    SELECT 0
    UNION ALL
    SELECT lo + CASE WHEN lo / 16 > 1 THEN lo / 16 ELSE 1 END FROM b WHERE lo < 86400000
)
INSERT INTO render_buckets (lo) SELECT lo FROM b;

CREATE TABLE render_finish_days (
    day     BIGINT NOT NULL,
    owner   TEXT NOT NULL,
    bucket  BIGINT NOT NULL,
    n       BIGINT NOT NULL,
    lo      BIGINT NOT NULL,
    hi      BIGINT NOT NULL,
    PRIMARY KEY (day, owner, bucket)
);
CREATE TABLE render_failure_days (
    day    BIGINT NOT NULL,
    owner  TEXT NOT NULL,
    cause  TEXT NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (day, owner, cause)
);
INSERT INTO render_finish_days (day, owner, bucket, n, lo, hi)
SELECT updated_at / 86400000, COALESCE(finished_by, ''),
       (SELECT MAX(b.lo) FROM render_buckets b WHERE b.lo <= COALESCE(duration_ms, 0)) AS bucket,
       COUNT(*), MIN(COALESCE(duration_ms, 0)), MAX(COALESCE(duration_ms, 0))
FROM render_jobs WHERE status = 'done' GROUP BY 1, 2, 3;
INSERT INTO render_failure_days (day, owner, cause, n)
SELECT updated_at / 86400000, COALESCE(finished_by, ''), COALESCE(error, 'unknown'), COUNT(*)
FROM render_jobs WHERE status = 'failed' GROUP BY 1, 2, 3;

CREATE FUNCTION render_jobs_aggregate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO render_job_counts (status, priority, n)
        SELECT status, priority, COUNT(*) FROM new_rows GROUP BY status, priority
        ORDER BY status, priority
        ON CONFLICT (status, priority) DO UPDATE SET n = render_job_counts.n + excluded.n;
        INSERT INTO render_finish_days (day, owner, bucket, n, lo, hi)
        SELECT j.updated_at / 86400000, COALESCE(j.finished_by, ''),
               (SELECT MAX(b.lo) FROM render_buckets b WHERE b.lo <= COALESCE(j.duration_ms, 0)),
               COUNT(*), MIN(COALESCE(j.duration_ms, 0)), MAX(COALESCE(j.duration_ms, 0))
        FROM new_rows j WHERE j.status = 'done' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (day, owner, bucket) DO UPDATE SET n = render_finish_days.n + excluded.n,
            lo = LEAST(render_finish_days.lo, excluded.lo), hi = GREATEST(render_finish_days.hi, excluded.hi);
        INSERT INTO render_failure_days (day, owner, cause, n)
        SELECT j.updated_at / 86400000, COALESCE(j.finished_by, ''), COALESCE(j.error, 'unknown'), COUNT(*)
        FROM new_rows j WHERE j.status = 'failed' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (day, owner, cause) DO UPDATE SET n = render_failure_days.n + excluded.n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO render_job_counts (status, priority, n)
        SELECT status, priority, -COUNT(*) FROM old_rows GROUP BY status, priority
        ORDER BY status, priority
        ON CONFLICT (status, priority) DO UPDATE SET n = render_job_counts.n + excluded.n;
    ELSE
        -- Only rows whose status or priority moved (a lease renewal moves
        -- neither and writes nothing here).
        IF NOT EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
                       WHERE o.status <> n.status OR o.priority <> n.priority) THEN
            RETURN NULL;
        END IF;
        INSERT INTO render_job_counts (status, priority, n)
        SELECT status, priority, SUM(d) FROM (
            SELECT status, priority, 1 AS d FROM (SELECT n.id, o.status AS old_status, o.priority AS old_priority, n.status, n.priority,
                    n.finished_by, n.error, n.duration_ms, n.updated_at
             FROM new_rows n JOIN old_rows o ON o.id = n.id
             WHERE o.status <> n.status OR o.priority <> n.priority) m1
            UNION ALL
            SELECT old_status, old_priority, -1 FROM (SELECT n.id, o.status AS old_status, o.priority AS old_priority, n.status, n.priority,
                    n.finished_by, n.error, n.duration_ms, n.updated_at
             FROM new_rows n JOIN old_rows o ON o.id = n.id
             WHERE o.status <> n.status OR o.priority <> n.priority) m2
        ) t GROUP BY status, priority HAVING SUM(d) <> 0 ORDER BY status, priority
        ON CONFLICT (status, priority) DO UPDATE SET n = render_job_counts.n + excluded.n;
        INSERT INTO render_finish_days (day, owner, bucket, n, lo, hi)
        SELECT j.updated_at / 86400000, COALESCE(j.finished_by, ''),
               (SELECT MAX(b.lo) FROM render_buckets b WHERE b.lo <= COALESCE(j.duration_ms, 0)),
               COUNT(*), MIN(COALESCE(j.duration_ms, 0)), MAX(COALESCE(j.duration_ms, 0))
        FROM (SELECT n.id, o.status AS old_status, o.priority AS old_priority, n.status, n.priority,
                    n.finished_by, n.error, n.duration_ms, n.updated_at
             FROM new_rows n JOIN old_rows o ON o.id = n.id
             WHERE o.status <> n.status OR o.priority <> n.priority) j WHERE j.status = 'done' AND j.old_status <> 'done'
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (day, owner, bucket) DO UPDATE SET n = render_finish_days.n + excluded.n,
            lo = LEAST(render_finish_days.lo, excluded.lo), hi = GREATEST(render_finish_days.hi, excluded.hi);
        INSERT INTO render_failure_days (day, owner, cause, n)
        SELECT j.updated_at / 86400000, COALESCE(j.finished_by, ''), COALESCE(j.error, 'unknown'), COUNT(*)
        FROM (SELECT n.id, o.status AS old_status, o.priority AS old_priority, n.status, n.priority,
                    n.finished_by, n.error, n.duration_ms, n.updated_at
             FROM new_rows n JOIN old_rows o ON o.id = n.id
             WHERE o.status <> n.status OR o.priority <> n.priority) j WHERE j.status = 'failed' AND j.old_status <> 'failed'
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (day, owner, cause) DO UPDATE SET n = render_failure_days.n + excluded.n;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER render_jobs_aggregate_insert AFTER INSERT ON render_jobs
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION render_jobs_aggregate();
CREATE TRIGGER render_jobs_aggregate_update AFTER UPDATE ON render_jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION render_jobs_aggregate();
CREATE TRIGGER render_jobs_aggregate_delete AFTER DELETE ON render_jobs
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION render_jobs_aggregate();

CREATE TABLE variant_days (
    day      BIGINT NOT NULL,
    variant  TEXT NOT NULL,
    n        BIGINT NOT NULL,
    PRIMARY KEY (day, variant)
);
CREATE TABLE rollup_marks (
    name        TEXT PRIMARY KEY,
    through_id  BIGINT NOT NULL
);
INSERT INTO variant_days (day, variant, n)
SELECT created_at / 86400000, variant, COUNT(*) FROM ledger
WHERE kind = 'charge' AND variant IS NOT NULL GROUP BY 1, 2;
INSERT INTO rollup_marks (name, through_id)
SELECT 'variant_days', COALESCE(MAX(id), 0) FROM ledger;
