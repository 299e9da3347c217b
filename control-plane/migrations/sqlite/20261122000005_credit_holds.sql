-- Credit holds: a running server reserves part of an account's balance and
-- charges image deliveries against it in memory, each charge written to a
-- journal file before its response (the journal is the durability point),
-- then moved into the ledger in large batches (docs/ledger.md).
--
--   accounts.held   credits reserved by running servers: spent from the
--                   holds but not yet in the ledger, or not yet spent.
--                   Every other debit may spend only `balance - held`.
--   holds           who holds what: one row per (server, account).
--   journal_marks   per server, the last journal sequence number already
--                   in the ledger (replay after a crash starts after it).

ALTER TABLE accounts ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= balance);

CREATE TABLE holds (
    owner       TEXT NOT NULL,
    account_id  TEXT NOT NULL REFERENCES accounts(id),
    amount      BIGINT NOT NULL CHECK (amount >= 0),
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (owner, account_id)
);

CREATE TABLE journal_marks (
    owner       TEXT PRIMARY KEY,
    seq         BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
