-- One row per billed image: a delivery's charge entry in the ledger carries
-- what it paid for, and the `deliveries` table goes. See the SQLite
-- migration of the same version for why; PostgreSQL keeps its identity
-- column, so the table is altered in place.
--
-- Columns added (null unless noted):
--   reference  on an image delivery charge: the request id (`X-Request-Id`)
--              of the request it billed, as URL mints already did;
--   key_id … source  on an image delivery charge: the key that paid and
--              the variant, revision, size, format and source delivered;
--   refund_of  on a refund of one delivery charge: that charge's id,
--              unique, so a delivery is refunded at most once.

ALTER TABLE ledger
    ADD COLUMN key_id     TEXT,
    ADD COLUMN variant    TEXT CHECK (variant IS NULL OR kind = 'charge'),
    ADD COLUMN revision   BIGINT,
    ADD COLUMN width      BIGINT,
    ADD COLUMN height     BIGINT,
    ADD COLUMN format     TEXT,
    ADD COLUMN source     TEXT CHECK (source IN ('cache', 'generated')),
    ADD COLUMN refund_of  BIGINT CHECK (refund_of IS NULL OR kind = 'refund');

CREATE INDEX ledger_reference ON ledger(reference);

-- Old delivery charges referenced their delivery's id; so did the refunds
-- of those deliveries. Refunds first, while charges still hold that id.
UPDATE ledger r SET refund_of = c.id
FROM deliveries d, ledger c
WHERE r.kind = 'refund' AND r.reference = d.id AND c.kind = 'charge' AND c.reference = d.id;

UPDATE ledger c SET reference = d.request_id, key_id = d.key_id, variant = d.variant,
    revision = d.revision, width = d.width, height = d.height, format = d.format, source = d.source
FROM deliveries d
WHERE c.kind = 'charge' AND c.reference = d.id;

DROP TABLE deliveries;

CREATE UNIQUE INDEX ledger_refund_of ON ledger(refund_of) WHERE refund_of IS NOT NULL;
