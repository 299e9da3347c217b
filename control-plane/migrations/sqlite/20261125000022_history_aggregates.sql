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
-- write that moves a job, so no code path can forget them. A finish is
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

CREATE TRIGGER render_jobs_count_insert AFTER INSERT ON render_jobs
BEGIN
    INSERT INTO render_job_counts (status, priority, n) VALUES (NEW.status, NEW.priority, 1)
    ON CONFLICT (status, priority) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER render_jobs_count_update AFTER UPDATE OF status, priority ON render_jobs
WHEN OLD.status <> NEW.status OR OLD.priority <> NEW.priority
BEGIN
    UPDATE render_job_counts SET n = n - 1 WHERE status = OLD.status AND priority = OLD.priority;
    INSERT INTO render_job_counts (status, priority, n) VALUES (NEW.status, NEW.priority, 1)
    ON CONFLICT (status, priority) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER render_jobs_count_delete AFTER DELETE ON render_jobs
BEGIN
    UPDATE render_job_counts SET n = n - 1 WHERE status = OLD.status AND priority = OLD.priority;
END;

-- A job finishes when it becomes done or failed, by an update (a node's
-- finish, a lease run out too often) or, in tests and imports, an insert.
CREATE TRIGGER render_jobs_done_update AFTER UPDATE OF status ON render_jobs
WHEN NEW.status = 'done' AND OLD.status <> 'done'
BEGIN
    INSERT INTO render_finish_days (day, owner, bucket, n, lo, hi)
    SELECT NEW.updated_at / 86400000, COALESCE(NEW.finished_by, ''), MAX(lo), 1,
           COALESCE(NEW.duration_ms, 0), COALESCE(NEW.duration_ms, 0)
    FROM render_buckets WHERE lo <= COALESCE(NEW.duration_ms, 0)
    ON CONFLICT (day, owner, bucket) DO UPDATE
    SET n = n + 1, lo = MIN(lo, excluded.lo), hi = MAX(hi, excluded.hi);
END;

CREATE TRIGGER render_jobs_done_insert AFTER INSERT ON render_jobs
WHEN NEW.status = 'done'
BEGIN
    INSERT INTO render_finish_days (day, owner, bucket, n, lo, hi)
    SELECT NEW.updated_at / 86400000, COALESCE(NEW.finished_by, ''), MAX(lo), 1,
           COALESCE(NEW.duration_ms, 0), COALESCE(NEW.duration_ms, 0)
    FROM render_buckets WHERE lo <= COALESCE(NEW.duration_ms, 0)
    ON CONFLICT (day, owner, bucket) DO UPDATE
    SET n = n + 1, lo = MIN(lo, excluded.lo), hi = MAX(hi, excluded.hi);
END;

CREATE TRIGGER render_jobs_failed_update AFTER UPDATE OF status ON render_jobs
WHEN NEW.status = 'failed' AND OLD.status <> 'failed'
BEGIN
    INSERT INTO render_failure_days (day, owner, cause, n)
    VALUES (NEW.updated_at / 86400000, COALESCE(NEW.finished_by, ''), COALESCE(NEW.error, 'unknown'), 1)
    ON CONFLICT (day, owner, cause) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER render_jobs_failed_insert AFTER INSERT ON render_jobs
WHEN NEW.status = 'failed'
BEGIN
    INSERT INTO render_failure_days (day, owner, cause, n)
    VALUES (NEW.updated_at / 86400000, COALESCE(NEW.finished_by, ''), COALESCE(NEW.error, 'unknown'), 1)
    ON CONFLICT (day, owner, cause) DO UPDATE SET n = n + 1;
END;

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
