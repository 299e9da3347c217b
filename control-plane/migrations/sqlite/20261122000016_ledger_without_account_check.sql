-- Nothing changes on SQLite. PostgreSQL's migration 16 drops the ledger's
-- foreign key to accounts, whose per-row trigger was a fifth of that
-- database's work per charge batch; SQLite keeps the constraint, where it
-- costs an in-process index probe. This file keeps the two folders on the
-- same versions (a test checks it: store::sql::tests).
SELECT 1;
