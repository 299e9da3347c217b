-- `prewarm --top` flat as history grows (issue 33, docs/benchmarks.md
-- "History: cost as data grows").
--
-- variant_window   charges per variant over one span of closed UTC days,
--                  [from_day, to_day] as rollup_windows says. `top_variants`
--                  reads it beside today's variant_days rows and the
--                  ledger's live tail, so a 30-day window costs one row per
--                  variant, not 30 days x variants. Recomputed from
--                  variant_days when the span asked for moves (once a day
--                  for a given --top-days); between, the variant_days rollup
--                  adds the rows it rolls into those days, so it stays exact.
-- rollup_windows   the span variant_window holds; from_day > to_day is the
--                  empty span.
CREATE TABLE variant_window (
    variant  TEXT PRIMARY KEY,
    n        BIGINT NOT NULL
);
CREATE TABLE rollup_windows (
    name      TEXT PRIMARY KEY,
    from_day  BIGINT NOT NULL,
    to_day    BIGINT NOT NULL
);
INSERT INTO rollup_windows (name, from_day, to_day) VALUES ('variant_window', 1, 0);
