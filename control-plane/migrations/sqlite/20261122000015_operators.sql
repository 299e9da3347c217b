-- Operators (issue 17): people who may see the render farm's page in the
-- dashboard (`/dashboard/operator`). A row is the role; granting twice
-- changes nothing and revoking deletes it. Only the CLI grants it:
-- `control-plane accounts operator --email E [--revoke]`.
CREATE TABLE operators (
    account_id  TEXT PRIMARY KEY REFERENCES accounts(id),
    granted_at  BIGINT NOT NULL
);
