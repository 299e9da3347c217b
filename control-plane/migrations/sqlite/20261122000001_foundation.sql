-- Accounts, API keys, partner secrets and the credits ledger (SQLite dialect).
-- Timestamps are unix milliseconds; ids are UUID text; flags are 0/1 integers,
-- so the PostgreSQL twin of this file keeps the same column types.

CREATE TABLE accounts (
    id                  TEXT PRIMARY KEY,
    email               TEXT NOT NULL UNIQUE,
    balance             BIGINT NOT NULL DEFAULT 0 CHECK (balance >= 0),
    auto_reload         INTEGER NOT NULL DEFAULT 0,
    has_payment_method  INTEGER NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id                    TEXT PRIMARY KEY,
    account_id            TEXT NOT NULL REFERENCES accounts(id),
    name                  TEXT NOT NULL,
    display_prefix        TEXT NOT NULL,
    key_hash              TEXT NOT NULL UNIQUE,
    scopes                TEXT NOT NULL,
    rate_limit_per_minute INTEGER NOT NULL,
    created_at            BIGINT NOT NULL,
    revoked_at            BIGINT
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE partners (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts(id),
    secret      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);

-- Append-only: rows are inserted, never updated or deleted.
CREATE TABLE ledger (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    kind           TEXT NOT NULL CHECK (kind IN ('grant', 'purchase', 'charge', 'refund', 'adjustment')),
    delta          BIGINT NOT NULL,
    balance_after  BIGINT NOT NULL CHECK (balance_after >= 0),
    reason         TEXT NOT NULL,
    reference      TEXT,
    created_at     BIGINT NOT NULL
);
CREATE INDEX ledger_account_time ON ledger(account_id, created_at);
