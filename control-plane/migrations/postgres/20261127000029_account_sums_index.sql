-- `usage_30d` (GET /api/v1/account) reads an account's ledger rows of the
-- last 30 days in one pass: the counts, the charges' and refunds' sums, and
-- each refund's `refund_of`. With those columns in the index too, PostgreSQL
-- answers from the index alone instead of one heap page per entry
-- (docs/benchmarks.md, "Session 29"). It replaces ledger_account_usage,
-- whose key it keeps, so a charge still updates one index for its account.
CREATE INDEX ledger_account_sums ON ledger (account_id, created_at) INCLUDE (variant, source, id, kind, delta, refund_of);
DROP INDEX ledger_account_usage;
