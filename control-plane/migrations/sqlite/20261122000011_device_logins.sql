-- Device login (RFC 8628; POST /api/auth/device/code and /token).
--   device_code_hash  SHA-256 of the device code (a bearer secret: never stored)
--   user_code         what the person types (ABCD-EF12), unique among live codes
--   status            pending → approved | denied; approved → delivered once
--   last_poll_at      the last poll that was answered, for slow_down
CREATE TABLE device_logins (
    id                TEXT PRIMARY KEY,
    device_code_hash  TEXT NOT NULL UNIQUE,
    user_code         TEXT NOT NULL,
    client_name       TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'delivered')),
    account_id        TEXT REFERENCES accounts(id),
    key_id            TEXT REFERENCES api_keys(id),
    created_at        BIGINT NOT NULL,
    expires_at        BIGINT NOT NULL,
    last_poll_at      BIGINT
);
CREATE INDEX device_logins_user_code ON device_logins(user_code);
CREATE INDEX device_logins_expires ON device_logins(expires_at);
