-- One ledger for both databases (docs/ledger.md). Every image charge now
-- commits before its response, so the credit holds of migration 5, their
-- journal marks and accounts.held are gone: whether credits suffice is
-- decided by one conditional UPDATE of accounts.balance.
DROP TABLE holds;
DROP TABLE journal_marks;
ALTER TABLE accounts DROP COLUMN held;

-- The revocation feed: every control plane sharing the database reads it a
-- few times a second and drops what it cached of a revoked key (or partner),
-- so a revocation holds on every replica within a second.
CREATE TABLE revocations (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL,
    subject_id  TEXT NOT NULL,
    revoked_at  BIGINT NOT NULL
);
CREATE INDEX revocations_revoked_at ON revocations(revoked_at);

-- Rate-limit windows shared by replicas: a replica takes a key's (or an
-- address's) requests in blocks with one conditional upsert.
--   used        requests granted to replicas in this window
--   last_grant  what the last upsert granted (its RETURNING value)
CREATE TABLE rate_windows (
    subject       TEXT NOT NULL,
    window_start  BIGINT NOT NULL,
    used          BIGINT NOT NULL,
    last_grant    BIGINT NOT NULL,
    PRIMARY KEY (subject, window_start)
);
CREATE INDEX rate_windows_start ON rate_windows(window_start);
