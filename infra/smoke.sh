#!/usr/bin/env bash
# Starts the service the way README says (./infra/run.sh) on a scratch data
# directory and a free port, then walks the operator path: create an account
# and a key, call the account endpoint (200), buy an image and a signed URL
# and load it, revoke the key (401, and its URL 403).
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
DATA=$(mktemp -d /tmp/vis-smoke.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export VIS_DATA_DIR="$DATA" VIS_LISTEN="127.0.0.1:$PORT"
# Build first (minutes on a cold 2-core machine), so the wait below is the
# start-up's alone; run.sh's own build is then a no-op.
cargo build --release --quiet -p control-plane
./infra/run.sh >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
up=""
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && { up=1; break; }
  kill -0 $SERVER 2>/dev/null || { cat "$DATA/server.log"; exit 1; }
  sleep 0.5
done
[ -n "$up" ] || { echo "smoke: the server did not answer /healthz within 300 s"; cat "$DATA/server.log"; exit 1; }
CP="$CARGO_TARGET_DIR/release/control-plane"
curl -fsS "http://127.0.0.1:$PORT/api/v1/images/options" | python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; assert len(d["views"])==6 and len(d["colors"])==15, d; print("options ok:", d["catalog"]["makes"], "makes")'
"$CP" accounts create --email smoke@example.com >/dev/null
KEY=$("$CP" keys create --email smoke@example.com --name smoke | tail -n 1)
KEY_ID=$("$CP" --json keys list --email smoke@example.com | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/api/v1/account")
[ "$code" = 200 ] || { echo "smoke: account with a fresh key gave $code"; exit 1; }
# A billed image (a cold render on this machine's renderer), then a signed URL and its first load.
Q="make=toyota&model=camry&year=2019&color=red&view=side&w=256"
curl -fsS -D "$DATA/h1" -o "$DATA/img" -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/api/v1/images/car?$Q&format=webp"
grep -qi '^content-type: image/webp' "$DATA/h1" && grep -qi '^x-credits-charged: 1' "$DATA/h1" \
  || { echo "smoke: the image endpoint did not bill one WebP"; cat "$DATA/h1"; exit 1; }
URL=$(curl -fsS -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/api/v1/images/car?$Q&response=url" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["url"])')
code=$(curl -s -o "$DATA/url-img" -w '%{http_code} %{content_type}' "$URL")
[ "$code" = "200 image/png" ] || { echo "smoke: first load of a signed URL gave $code"; exit 1; }
"$CP" keys revoke "$KEY_ID" >/dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/api/v1/account")
[ "$code" = 401 ] || { echo "smoke: account with a revoked key gave $code"; exit 1; }
# Every replica drops a revoked key's cached URLs within a second (docs/ledger.md).
for _ in $(seq 1 10); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$URL")
  [ "$code" = 403 ] && break
  sleep 0.1
done
[ "$code" = 403 ] || { echo "smoke: a revoked key's signed URL gave $code a second after the revocation"; exit 1; }
kill -TERM $SERVER; wait $SERVER || true
grep -q "shutdown requested" "$DATA/server.log" || { echo "smoke: no graceful shutdown"; cat "$DATA/server.log"; exit 1; }
echo "smoke: ok (options, key 200, billed image, signed URL load, revoked key 401 and its URL 403, graceful shutdown)"
