-- `prewarm --top` reads the window's first variants by rank instead of
-- grouping every variant of the window (docs/benchmarks.md, "History: cost
-- as data grows"): variant_window now holds today's rolled-up charges too
-- (its span runs through today, moved once a day), and this index ranks it.
CREATE INDEX variant_window_rank ON variant_window (n DESC, variant);
