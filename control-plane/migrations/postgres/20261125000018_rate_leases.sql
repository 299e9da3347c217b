-- Rate-limit windows, second form (ratelimit.rs; docs/ledger.md, "Several
-- control planes"):
-- * a subject's 60 s window opens at its first request, not at the clock
--   minute, so requests less than a minute apart always share a window (with
--   clock minutes, a limit of 2 gave a second request a fresh window when the
--   minute turned between the two);
-- * the blocks replicas take of a window are leases: a replica that dies
--   (kill -9) with part of a block unspent has it returned to the window when
--   its lease expires, instead of stranding it until the window ends.
--
-- rate_subject_windows  one row per subject: its open window
--   window_start  ms; the window is [window_start, window_start + 60 s)
--   used          requests granted to replicas in the window, less returns
-- rate_leases  one row per (subject, replica) holding a block
--   holder        the replica's id (random, per process)
--   window_start  the window the block belongs to
--   outstanding   what the block granted (returned in full when it expires)
--   expires_at    ms; after it, any replica taking a block returns it
--
-- rate_windows (migration 8) is no longer read or written by this version;
-- replicas of the earlier version keep their own windows there during a
-- rolling upgrade. A later migration drops it.
CREATE TABLE rate_subject_windows (
    subject       TEXT PRIMARY KEY,
    window_start  BIGINT NOT NULL,
    used          BIGINT NOT NULL
);
CREATE INDEX rate_subject_windows_start ON rate_subject_windows(window_start);
CREATE TABLE rate_leases (
    subject       TEXT NOT NULL,
    holder        TEXT NOT NULL,
    window_start  BIGINT NOT NULL,
    outstanding   BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    PRIMARY KEY (subject, holder)
);
CREATE INDEX rate_leases_window ON rate_leases(window_start);
