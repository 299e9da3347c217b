-- When each API key was last used (a request it authenticated), in Unix
-- milliseconds; NULL: never. Written at most about once a minute per key
-- (`http::auth::KeyUse` throttles in memory, and the UPDATE only moves it
-- forward by a minute or more), off the request path; shown on the
-- dashboard (docs/accounts.md).

ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
