-- Idempotent minting (POST /api/v1/image-urls with an Idempotency-Key
-- header): the key's first successful mint, written in the mint's own
-- transaction, so a retried request replays it and is never billed twice.
-- `fingerprint` is a hash of the request body; `url_ids` lists the minted
-- URLs in order (comma-separated) to rebuild the same answer. A row older
-- than 24 hours no longer counts and is deleted when its account mints with
-- a key again.

CREATE TABLE idempotency_keys (
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    idem_key       TEXT NOT NULL,
    fingerprint    TEXT NOT NULL,
    request_id     TEXT NOT NULL,
    balance_after  BIGINT NOT NULL,
    url_ids        TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (account_id, idem_key)
);
