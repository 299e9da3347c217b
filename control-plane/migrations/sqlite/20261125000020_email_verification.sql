-- Free credits on a verified email (issue 33, docs/accounts.md "Verified
-- sign-up"). A sign-up on the web opens its account with no credits and one
-- row in unverified_accounts; the link mailed to the address (one row in
-- email_verifications, SHA-256 of its token) deletes that row and posts the
-- free-credit grant in one transaction, so the grant lands once per account
-- whichever link is opened, however often, on however many replicas.
-- Accounts without a row (every account made before this migration, and
-- those `control-plane accounts create` makes) count as verified.
--
-- unverified_accounts  a web sign-up whose address is not proven yet
-- email_verifications  one mailed link each: used once, expires (24 h)
-- signup_counts        sign-ups per client address and per email domain
--                      per UTC day (subject `addr:…` or `domain:…`); the
--                      conditional upsert is what enforces the limits
CREATE TABLE unverified_accounts (
    account_id  TEXT PRIMARY KEY REFERENCES accounts(id),
    created_at  BIGINT NOT NULL
);

CREATE TABLE email_verifications (
    token_hash  TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts(id),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX email_verifications_account ON email_verifications(account_id, created_at);

CREATE TABLE signup_counts (
    subject  TEXT NOT NULL,
    day      BIGINT NOT NULL,
    count    BIGINT NOT NULL,
    PRIMARY KEY (subject, day)
);
CREATE INDEX signup_counts_day ON signup_counts(day);
