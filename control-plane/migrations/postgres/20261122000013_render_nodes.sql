-- Remote render nodes (docs/render-nodes.md). A node is added by an operator
-- (`control-plane nodes add NAME`), which prints its token once; only the
-- token's SHA-256 is kept. Nodes register, heartbeat and lease render jobs
-- over HTTP; a job leased by a node is owned by `node:<name>`.
--   state           active | draining (finishes in-flight work, takes none)
--                   | removed (its token no longer works)
--   slots, adapter  what the node said at its last register or heartbeat
--   renders_day     renders finished on `day` (UTC); failures_total ever
CREATE TABLE render_nodes (
    name            TEXT PRIMARY KEY,
    token_hash      TEXT NOT NULL UNIQUE,
    state           TEXT NOT NULL CHECK (state IN ('active', 'draining', 'removed')),
    slots           BIGINT NOT NULL DEFAULT 0,
    adapter         TEXT,
    last_heartbeat  BIGINT,
    day             TEXT,
    renders_day     BIGINT NOT NULL DEFAULT 0,
    renders_total   BIGINT NOT NULL DEFAULT 0,
    failures_total  BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL
);

-- Who finished a render job (its lease owner then: `node:<name>`, or
-- `inproc-<pid>-<n>` for the in-process node), for render times per node in
-- `control-plane status`.
ALTER TABLE render_jobs ADD COLUMN finished_by TEXT;
CREATE INDEX render_jobs_updated ON render_jobs(updated_at);
