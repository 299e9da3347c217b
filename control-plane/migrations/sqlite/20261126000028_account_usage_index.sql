-- `usage_30d` (GET /api/v1/account, the dashboard) reads an account's charges
-- of the last 30 days: with the columns it reads in the index (the row id is
-- in every SQLite index), it is answered from the index alone instead of one
-- table page per charge (docs/benchmarks.md, "Against a day of history"). It
-- replaces ledger_account_time, whose key it starts with.
CREATE INDEX ledger_account_usage ON ledger (account_id, created_at, variant, source);
DROP INDEX ledger_account_time;
