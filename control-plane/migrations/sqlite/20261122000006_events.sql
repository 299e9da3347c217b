-- The telemetry sink (spec §6, POST /api/v1/events): product events as
-- clients send them, written after the 202 in batches. Never billed, never
-- tied to an account; the sender's address is not kept.
-- Objects (properties, utm) are JSON text. Timestamps are unix milliseconds.

CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    received_at   BIGINT NOT NULL,
    -- UTC day of received_at (YYYY-MM-DD), for counts by day.
    day           TEXT NOT NULL,
    name          TEXT NOT NULL,
    source        TEXT,
    anonymous_id  TEXT,
    session_id    TEXT,
    url           TEXT,
    referrer      TEXT,
    properties    TEXT,
    utm           TEXT
);

CREATE INDEX events_by_day_and_name ON events (day, name);
