-- Feedback on renders (POST /api/v1/feedback) and what it leads to.
--
-- feedback           one row per report: the render it is about (variant and
--                    the revision delivered), who sent it, rating or verdict,
--                    negative (0/1), reason.
-- render_flags       a render (variant, revision) that enough distinct
--                    accounts reported as bad: flagged, then rerendered or
--                    dismissed by the service or an operator.
-- variant_revisions  how many times a variant was re-rendered: its render
--                    revision is the deployment's plus this bump, so a
--                    re-render has new object keys, new bytes and a new ETag.
CREATE TABLE feedback (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts(id),
    key_id      TEXT,
    variant     TEXT NOT NULL,
    revision    BIGINT NOT NULL,
    request_id  TEXT,
    rating      BIGINT,
    verdict     TEXT,
    negative    BIGINT NOT NULL,
    reason      TEXT,
    created_at  BIGINT NOT NULL
);
CREATE INDEX feedback_render ON feedback(variant, revision);

CREATE TABLE render_flags (
    variant      TEXT NOT NULL,
    revision     BIGINT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('flagged', 'rerendered', 'dismissed')),
    reports      BIGINT NOT NULL,
    flagged_at   BIGINT NOT NULL,
    resolved_at  BIGINT,
    PRIMARY KEY (variant, revision)
);

CREATE TABLE variant_revisions (
    variant     TEXT PRIMARY KEY,
    bump        BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
