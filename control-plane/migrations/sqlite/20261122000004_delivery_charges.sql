-- One row per billed image: a delivery's charge entry in the ledger carries
-- what it paid for, and the `deliveries` table goes.
--
-- Until now each billed image wrote two rows in one transaction: a ledger
-- charge and a delivery record, in two tables with five B-trees between
-- them. Each group commit wrote every touched page to the WAL, and those
-- pages, not SQL, were most of what a charge cost (docs/benchmarks.md).
-- Now the charge is the delivery record, so it is trivially written in the
-- same transaction as the delivery it pays for.
--
-- Also dropped: AUTOINCREMENT. The ledger never deletes a row, so plain
-- rowids are never reused, and SQLite no longer updates `sqlite_sequence`
-- on every commit. The table is rebuilt for it; ids are kept.
--
-- Columns added (null unless noted):
--   reference  on an image delivery charge: the request id (`X-Request-Id`)
--              of the request it billed, as URL mints already did;
--   key_id … source  on an image delivery charge: the key that paid and
--              the variant, revision, size, format and source delivered;
--   refund_of  on a refund of one delivery charge: that charge's id,
--              unique, so a delivery is refunded at most once.

CREATE TABLE ledger_v4 (
    id             INTEGER PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    kind           TEXT NOT NULL CHECK (kind IN ('grant', 'purchase', 'charge', 'refund', 'adjustment')),
    delta          BIGINT NOT NULL,
    balance_after  BIGINT NOT NULL CHECK (balance_after >= 0),
    reason         TEXT NOT NULL,
    reference      TEXT,
    created_at     BIGINT NOT NULL,
    key_id         TEXT,
    variant        TEXT CHECK (variant IS NULL OR kind = 'charge'),
    revision       BIGINT,
    width          BIGINT,
    height         BIGINT,
    format         TEXT,
    source         TEXT CHECK (source IN ('cache', 'generated')),
    refund_of      BIGINT CHECK (refund_of IS NULL OR kind = 'refund')
);

-- Old delivery charges referenced their delivery's id; so did the refunds
-- of those deliveries.
CREATE INDEX ledger_old_reference ON ledger(reference);
INSERT INTO ledger_v4 (id, account_id, kind, delta, balance_after, reason, reference, created_at,
                       key_id, variant, revision, width, height, format, source, refund_of)
SELECT l.id, l.account_id, l.kind, l.delta, l.balance_after, l.reason,
       COALESCE(d.request_id, l.reference), l.created_at,
       d.key_id, d.variant, d.revision, d.width, d.height, d.format, d.source,
       c.id
FROM ledger l
LEFT JOIN deliveries d ON l.kind = 'charge' AND d.id = l.reference
LEFT JOIN deliveries rd ON l.kind = 'refund' AND rd.id = l.reference
LEFT JOIN ledger c ON rd.id IS NOT NULL AND c.kind = 'charge' AND c.reference = rd.id;

DROP TABLE ledger;
ALTER TABLE ledger_v4 RENAME TO ledger;
DELETE FROM sqlite_sequence WHERE name = 'ledger';
DROP TABLE deliveries;

CREATE INDEX ledger_account_time ON ledger(account_id, created_at);
CREATE INDEX ledger_reference ON ledger(reference);
CREATE UNIQUE INDEX ledger_refund_of ON ledger(refund_of) WHERE refund_of IS NOT NULL;
