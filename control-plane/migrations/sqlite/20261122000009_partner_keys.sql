-- Partner secrets belong to an API key (spec §5: revoking a key invalidates
-- the partner signatures issued by it). Partners created before this
-- migration name no key and are never honoured; revoke them and create new
-- ones with `control-plane partners create --key KEY_ID`.
ALTER TABLE partners ADD COLUMN key_id TEXT REFERENCES api_keys(id);
CREATE INDEX partners_key ON partners(key_id);
CREATE INDEX partners_account ON partners(account_id);
