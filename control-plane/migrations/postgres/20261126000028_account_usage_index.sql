-- `usage_30d` (GET /api/v1/account, the dashboard) reads an account's charges
-- of the last 30 days: with the columns it reads in the index, PostgreSQL
-- answers from the index alone instead of one heap page per charge
-- (docs/benchmarks.md, "Against a day of history"). It replaces
-- ledger_account_time, whose key it starts with, so a charge still updates
-- one index for its account.
CREATE INDEX ledger_account_usage ON ledger (account_id, created_at) INCLUDE (variant, source, id);
DROP INDEX ledger_account_time;
