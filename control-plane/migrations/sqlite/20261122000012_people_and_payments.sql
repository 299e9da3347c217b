-- People on the web (sign-in, sessions, password resets) and payments for
-- credit packs (issue 16). Secrets are stored as SHA-256 hashes only.
--
-- account_passwords  the argon2id hash (PHC string) of an account's password;
--                    accounts made by the operator have none until reset
-- web_sessions       a signed-in browser: SHA-256 of the session cookie
-- password_resets    one emailed link each: SHA-256 of its token, used once
-- purchases          a credit pack being bought: open → paid, once
-- payment_events     every provider webhook event handled, by event id, so a
--                    retried or replayed event changes nothing
CREATE TABLE account_passwords (
    account_id     TEXT PRIMARY KEY REFERENCES accounts(id),
    password_hash  TEXT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE TABLE web_sessions (
    token_hash  TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts(id),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX web_sessions_account ON web_sessions(account_id);

CREATE TABLE password_resets (
    token_hash  TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts(id),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);

CREATE TABLE purchases (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts(id),
    provider          TEXT NOT NULL,
    provider_session  TEXT UNIQUE,
    credits           BIGINT NOT NULL CHECK (credits > 0),
    amount_cents      BIGINT NOT NULL CHECK (amount_cents > 0),
    status            TEXT NOT NULL CHECK (status IN ('open', 'paid')),
    created_at        BIGINT NOT NULL,
    paid_at           BIGINT
);
CREATE INDEX purchases_account ON purchases(account_id, created_at);

CREATE TABLE payment_events (
    event_id     TEXT PRIMARY KEY,
    provider     TEXT NOT NULL,
    kind         TEXT NOT NULL,
    purchase_id  TEXT,
    outcome      TEXT NOT NULL,
    received_at  BIGINT NOT NULL
);

-- The provider's customer, once a purchase has been paid (the portal's subject).
ALTER TABLE accounts ADD COLUMN payment_customer TEXT;
CREATE INDEX accounts_payment_customer ON accounts(payment_customer);
