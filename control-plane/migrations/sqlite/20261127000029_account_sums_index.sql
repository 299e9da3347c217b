-- `usage_30d` (GET /api/v1/account) reads an account's ledger rows of the
-- last 30 days in one pass: the counts, the charges' and refunds' sums, and
-- each refund's `refund_of`. With those columns in the index too (the row id
-- is in every SQLite index), SQLite answers from the index alone instead of
-- one table page per entry (docs/benchmarks.md, "Session 29"). It replaces
-- ledger_account_usage, whose key it starts with.
CREATE INDEX ledger_account_sums ON ledger (account_id, created_at, variant, source, kind, delta, refund_of);
DROP INDEX ledger_account_usage;
