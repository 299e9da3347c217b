#!/usr/bin/env bash
# Holds the running server to its own interface description: schemathesis
# (PyPI) generates requests from /api/v1/openapi.json, valid and invalid, and
# runs every check (status codes, content types, headers, response schemas,
# positive and negative data, auth, methods) with a bounded example count.
# Usage: infra/schemathesis.sh [max-examples]   (default 40)
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
ensure_rust
ensure_packages ca-certificates curl python3 python3-venv mesa-vulkan-drivers
EXAMPLES="${1:-40}"
VENV="${VIS_SCHEMATHESIS_VENV:-$HOME/.cache/vis-schemathesis}"
if [ ! -x "$VENV/bin/st" ]; then
  echo "infra: installing schemathesis into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis==4.32.5"
fi
cargo build -q -p control-plane
CP="$CARGO_TARGET_DIR/debug/control-plane"
DATA=$(mktemp -d /tmp/vis-st.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export VIS_DATA_DIR="$DATA" VIS_LISTEN="127.0.0.1:$PORT"
"$CP" serve >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  kill -0 $SERVER 2>/dev/null || { cat "$DATA/server.log"; exit 1; }
  sleep 0.2
done
# A key that neither runs out of credits nor hits its rate limit, so that
# every answer is about the request itself.
"$CP" accounts create --email schemathesis@example.com --credits 100000000 >/dev/null
KEY=$("$CP" keys create --email schemathesis@example.com --name schemathesis --rate-limit 100000000 | tail -n 1)
# The full document (?scope=all): the public API and the site's pages, forms
# and operator routes. One worker: with two threads, Debian's Python 3.11 sometimes fails inside
# hypothesis with "AST constructor recursion depth mismatch" (a CPython race in
# concurrent ast parsing, fixed in later Pythons), which is no finding of ours.
"$VENV/bin/st" --config-file infra/schemathesis.toml run "http://127.0.0.1:$PORT/api/v1/openapi.json?scope=all" \
  --url "http://127.0.0.1:$PORT" \
  --checks all \
  --max-examples "$EXAMPLES" \
  --header "Authorization: Bearer $KEY" \
  --workers 1 \
  --request-timeout 180 \
  --seed 20261122 \
  --suppress-health-check too_slow,filter_too_much
