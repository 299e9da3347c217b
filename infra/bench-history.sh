#!/usr/bin/env bash
# Cost as history grows (docs/benchmarks.md, "History: cost as data grows"):
# the real app on an empty database, each read path that history could slow
# timed (GET /api/v1/account, /dashboard, /dashboard/operator.json, /metrics,
# `control-plane status`, a cold admission's reads, `prewarm --top`'s
# selection), then again after a day of history and again after the year
# it ends (10 million ledger rows over 10,000 accounts, 2 million render
# jobs: two set-based transactions). Prints the medians and their ratios,
# year/day and year/empty (tests/src/bin/bench-history.rs), then the query
# plans of the reads that touch the big tables.
# Usage: infra/bench-history.sh [sqlite|postgres] [iterations]
# postgres needs VIS_DATABASE_URL=postgres://… (a database it may fill; it
# creates a fresh one beside it and drops it after).
# Sizes: VIS_BENCH_LEDGER_ROWS, VIS_BENCH_ACCOUNTS, VIS_BENCH_JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
ensure_rust
ensure_packages sqlite3 postgresql-client
DB=${1:-sqlite}
ITER=${2:-30}
# Release, as deployed: `prewarm --top --dry-run` expands its ranks
# through the catalog, work the dev profile leaves unoptimised in the
# workspace's own crates (the other paths are the databases' work and HTTP).
cargo build --quiet --release -p vis-tests --bin bench-history
DATA=$(mktemp -d /tmp/vis-history.XXXXXX)
URL=""
cleanup() {
  if [ -n "$URL" ] && [ "$DB" = postgres ]; then
    psql -q "$VIS_DATABASE_URL" -c "DROP DATABASE IF EXISTS $NAME" >/dev/null 2>&1 || true
  fi
  rm -rf "$DATA"
}
trap cleanup EXIT
ARGS=(--iterations "$ITER" --ledger-rows "${VIS_BENCH_LEDGER_ROWS:-10000000}"
      --accounts "${VIS_BENCH_ACCOUNTS:-10000}" --jobs "${VIS_BENCH_JOBS:-2000000}")
if [ "$DB" = postgres ]; then
  : "${VIS_DATABASE_URL:?set VIS_DATABASE_URL=postgres://… for the postgres run}"
  NAME=vis_history_$$
  psql -q "$VIS_DATABASE_URL" -c "CREATE DATABASE $NAME" >/dev/null
  URL="${VIS_DATABASE_URL%/*}/$NAME"
  ARGS+=(--database-url "$URL")
fi
RUST_LOG=warn "$CARGO_TARGET_DIR/release/bench-history" "$DATA" "${ARGS[@]}"

# The plans of the reads that touch the big tables, on the seeded data.
ACCT=seed-42
NOW=$(($(date +%s) * 1000))
SINCE=$((NOW - 30 * 86400000))
DAY=$((NOW / 86400000))
QUERIES=(
  "SELECT COUNT(c.variant), SUM(CASE WHEN c.refund_of IS NULL THEN 0 WHEN EXISTS (SELECT 1 FROM ledger x WHERE x.id = c.refund_of AND x.created_at >= $SINCE AND x.variant IS NOT NULL) THEN 1 ELSE 0 END), SUM(CASE WHEN c.kind = 'charge' THEN c.delta ELSE 0 END) FROM ledger c WHERE c.account_id = '$ACCT' AND c.created_at >= $SINCE"
  "SELECT c.created_at / 86400000, COUNT(*) FROM ledger c LEFT JOIN ledger r ON r.refund_of = c.id WHERE c.account_id = '$ACCT' AND c.created_at >= $SINCE GROUP BY 1"
  "SELECT status, priority, n FROM render_job_counts"
  "SELECT owner, bucket, n, lo, hi FROM render_finish_days WHERE day = $DAY"
  "SELECT MAX(id) FROM ledger WHERE id > 9990000 AND created_at < $NOW"
  "SELECT variant, SUM(n) FROM variant_days WHERE day >= $((DAY - 30)) GROUP BY variant"
  "SELECT id FROM render_jobs WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $NOW AND attempts < 3) ORDER BY priority, created_at LIMIT 1"
)
echo
echo "query plans ($DB):"
for q in "${QUERIES[@]}"; do
  echo "-- $q"
  if [ "$DB" = postgres ]; then
    psql -q -At "$URL" -c "EXPLAIN $q"
  else
    sqlite3 "$DATA/vis.db" "EXPLAIN QUERY PLAN $q"
  fi
done
