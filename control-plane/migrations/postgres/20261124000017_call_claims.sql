-- Idempotent tool calls that charge after their work (MCP get_image with an
-- idempotency_key): the call claims (account, key) before it charges, so
-- exactly one call per key ever charges. `request_id` is the claiming call's
-- own request id, in a namespace a client cannot choose (it contains '/'),
-- and the charge it makes carries it as its ledger reference: a retry finds
-- that charge and replays it for free. A claim with no charge is in progress
-- until it is released (the call failed) or abandoned (older than the
-- longest call); a claim older than 24 hours no longer counts and is deleted
-- when its account claims again.

CREATE TABLE call_claims (
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    idem_key     TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    request_id   TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (account_id, idem_key)
);
