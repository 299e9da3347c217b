-- Signed delivery URLs (spec §3 "Signed delivery URL"). A row is written,
-- with its account's one ledger charge, when the URL is minted; the token
-- handed out is the row id plus an HMAC, so the id alone is useless.
-- Timestamps are unix milliseconds, like every other table.

CREATE TABLE delivery_urls (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    -- The minting key: revoking it invalidates the URL (403).
    key_id       TEXT NOT NULL REFERENCES api_keys(id),
    -- request_id of the minting request (the ledger charge's reference).
    request_id   TEXT NOT NULL,
    -- VariantKey text form (make/model/year/color/view) and body shape, so a
    -- load needs no catalog lookup.
    variant      TEXT NOT NULL,
    shape        TEXT NOT NULL,
    revision     BIGINT NOT NULL,
    -- The requested box (NULL when not given) and the output it serves.
    box_width    BIGINT,
    box_height   BIGINT,
    width        BIGINT NOT NULL,
    height       BIGINT NOT NULL,
    format       TEXT NOT NULL,
    -- 0 = unlimited until expiry.
    max_uses     BIGINT NOT NULL CHECK (max_uses >= 0),
    uses         BIGINT NOT NULL DEFAULT 0 CHECK (uses >= 0),
    expires_at   BIGINT NOT NULL,
    -- Set when the first load failed: the URL is consumed and its credit
    -- refunded in the same transaction (once).
    failed_at    BIGINT,
    created_at   BIGINT NOT NULL
);
CREATE INDEX delivery_urls_account_time ON delivery_urls(account_id, created_at);
CREATE INDEX delivery_urls_key ON delivery_urls(key_id);
