-- Deliveries (what each charge paid for), render jobs (one per variant and
-- revision, leased by render nodes), and the daily generation budget.

CREATE TABLE deliveries (
    id           TEXT PRIMARY KEY,
    request_id   TEXT NOT NULL,
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    key_id       TEXT,
    variant      TEXT NOT NULL,
    revision     BIGINT NOT NULL,
    width        BIGINT NOT NULL,
    height       BIGINT NOT NULL,
    format       TEXT NOT NULL,
    source       TEXT NOT NULL CHECK (source IN ('cache', 'generated')),
    credits      BIGINT NOT NULL,
    refunded_at  BIGINT,
    created_at   BIGINT NOT NULL
);
CREATE INDEX deliveries_account_time ON deliveries(account_id, created_at);
CREATE INDEX deliveries_request ON deliveries(request_id);

CREATE TABLE render_jobs (
    id                TEXT PRIMARY KEY,
    variant           TEXT NOT NULL,
    revision          BIGINT NOT NULL,
    shape             TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    attempts          BIGINT NOT NULL DEFAULT 0,
    lease_owner       TEXT,
    lease_expires_at  BIGINT,
    error             TEXT,
    duration_ms       BIGINT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    UNIQUE (variant, revision)
);
CREATE INDEX render_jobs_status ON render_jobs(status, created_at);

-- Cold renders started per UTC day (YYYY-MM-DD).
CREATE TABLE render_budget (
    day   TEXT PRIMARY KEY,
    used  BIGINT NOT NULL
);

-- Operator settings (daily_render_budget, …).
CREATE TABLE settings (
    name   TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
