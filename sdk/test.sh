#!/usr/bin/env bash
# The SDKs' tests: checks that each SDK's generated code is what its
# generator makes of docs/openapi.json today (the drift check), then starts
# the server on the embedded default (SQLite, a scratch data directory, a
# free loopback port), makes an account with credits and one with none, and
# runs both SDKs' tests against it over HTTP, and every TypeScript and
# Python code sample of docs/openapi.json (x-codeSamples) against it too.
# Stops the server at the end.
# Installs what is missing and says so: Debian's nodejs, npm, python3-venv
# and mesa-vulkan-drivers (renders on lavapipe without a GPU), the npm
# packages into sdk/typescript/node_modules (package-lock.json) and a Python
# venv under ~/.cache/vis-sdk-venv (sdk/python/requirements-dev.txt).
# Usage: sdk/test.sh            exit status non-zero on any failure
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
ensure_rust
ensure_packages ca-certificates curl python3 python3-venv mesa-vulkan-drivers
# Debian's nodejs and npm, unless a Node.js with npm is already installed
# (NodeSource's nodejs bundles npm and conflicts with Debian's npm package).
command -v node >/dev/null 2>&1 || ensure_packages nodejs
command -v npm >/dev/null 2>&1 || ensure_packages npm

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "sdk: Node.js 18 or later is needed (found $(node --version))" >&2
  exit 1
fi

# TypeScript: the lock file's packages, then the drift check.
(
  cd sdk/typescript
  if ! cmp -s package-lock.json node_modules/.vis-installed-lock.json 2>/dev/null; then
    echo "sdk: installing the TypeScript SDK's npm packages" >&2
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.vis-installed-lock.json
  fi
  node scripts/check-generated.mjs
  rm -rf dist
  npm run --silent build
)

# Python: a venv with the SDK's dependencies, its generator and pytest
# (requirements-dev.txt, rebuilt when that file changes); the tests import
# the SDK from this checkout. Then the drift check.
VENV="${VIS_SDK_VENV:-$HOME/.cache/vis-sdk-venv}"
if ! cmp -s sdk/python/requirements-dev.txt "$VENV/requirements-dev.txt"; then
  echo "sdk: installing the Python SDK's dependencies and test tools into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r sdk/python/requirements-dev.txt
  cp sdk/python/requirements-dev.txt "$VENV/requirements-dev.txt"
fi
VIS_SDK_PYTHON="$VENV/bin/python" sdk/python/scripts/check-generated.sh

# The server.
cargo build -q -p control-plane
CP="$CARGO_TARGET_DIR/debug/control-plane"
DATA=$(mktemp -d /tmp/vis-sdk.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export VIS_DATA_DIR="$DATA" VIS_LISTEN="127.0.0.1:$PORT"
"$CP" serve >"$DATA/server.log" 2>&1 &
SERVER=$!
stop() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  rm -rf "$DATA"
}
trap stop EXIT
up=""
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && { up=1; break; }
  kill -0 "$SERVER" 2>/dev/null || { cat "$DATA/server.log"; exit 1; }
  sleep 0.2
done
[ -n "$up" ] || { echo "sdk: the server did not answer /healthz within 120 s" >&2; cat "$DATA/server.log"; exit 1; }

"$CP" accounts create --email sdk@example.com --credits 1000 >/dev/null
VIS_API_KEY=$("$CP" keys create --email sdk@example.com --name sdk-tests | tail -n 1)
"$CP" accounts create --email broke@example.com >/dev/null
"$CP" credits adjust --email broke@example.com --delta -100 --reason "sdk tests: an account with no credits" >/dev/null
VIS_BROKE_KEY=$("$CP" keys create --email broke@example.com --name sdk-tests | tail -n 1)
export VIS_BASE_URL="http://127.0.0.1:$PORT" VIS_API_KEY VIS_BROKE_KEY

# A signed URL for the delivery samples.
DELIVERY_URL=$(curl -fsS -H "Authorization: Bearer $VIS_API_KEY" -H 'content-type: application/json' \
  -d '{"make": "toyota", "model": "camry", "year": 2019}' "$VIS_BASE_URL/api/v1/image-urls" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["url"])')
export DELIVERY_URL

status=0
echo "sdk: TypeScript SDK against $VIS_BASE_URL" >&2
(cd sdk/typescript && node --test dist/test/) || status=1
echo "sdk: the TypeScript samples of docs/openapi.json" >&2
(cd sdk/typescript && node scripts/run-samples.mjs) || status=1
echo "sdk: Python SDK against $VIS_BASE_URL" >&2
(cd sdk/python && PYTHONPATH=src "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests) || status=1
if [ "$status" -ne 0 ]; then
  echo "sdk: FAILED; the server's log:" >&2
  tail -n 40 "$DATA/server.log" >&2
fi
exit "$status"
