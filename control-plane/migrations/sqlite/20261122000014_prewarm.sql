-- Job priorities and prewarm jobs (docs/render-nodes.md, Prewarm).
--
-- render_jobs.priority: 0 interactive (a request waits on it), 1 prewarm (no
-- one waits). Nodes lease by priority, then age, so interactive jobs always
-- overtake prewarm ones; a request that joins a queued prewarm job raises it
-- to 0.
ALTER TABLE render_jobs ADD COLUMN priority BIGINT NOT NULL DEFAULT 0;
DROP INDEX render_jobs_status;
CREATE INDEX render_jobs_queue ON render_jobs(status, priority, created_at);

-- A prewarm job: a list of variants to render ahead of demand, made by
-- `control-plane prewarm`, driven by that command, resumable.
--   selection       what was asked for, as canonical JSON; a re-run of the
--                   same selection resumes an unfinished job
--   outputs         derived outputs to make per variant ("256:webp,512:webp";
--                   empty: the source render only)
--   state           running | paused (stopped at the budget reserve, or
--                   interrupted) | done | cancelled
--   driver, driver_beat  the process driving it and its last sign of life;
--                   a second driver waits until the first is silent
CREATE TABLE prewarm_runs (
    id              TEXT PRIMARY KEY,
    selection       TEXT NOT NULL,
    selection_hash  TEXT NOT NULL,
    outputs         TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('running', 'paused', 'done', 'cancelled')),
    stopped_reason  TEXT,
    total           BIGINT NOT NULL,
    driver          TEXT,
    driver_beat     BIGINT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX prewarm_runs_selection ON prewarm_runs(selection_hash, created_at);

-- One variant of a prewarm job.
--   status  pending | queued (job_id is its render job) | done (rendered now)
--           | cached (its source existed: skipped, free) | failed | cancelled
CREATE TABLE prewarm_items (
    run_id    TEXT NOT NULL REFERENCES prewarm_runs(id),
    seq       BIGINT NOT NULL,
    variant   TEXT NOT NULL,
    revision  BIGINT NOT NULL,
    shape     TEXT NOT NULL,
    status    TEXT NOT NULL CHECK (status IN ('pending', 'queued', 'done', 'cached', 'failed', 'cancelled')),
    job_id    TEXT,
    error     TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX prewarm_items_status ON prewarm_items(run_id, status, seq);
