#!/usr/bin/env bash
# Runs every test: the workspace's unit and black-box tests on SQLite; the
# render node's onnx feature on tiny generated models (ONNX Runtime and onnx
# from PyPI in a venv); the black-box suite again on a throwaway PostgreSQL
# server this script starts (and stops), where the store conformance suite and
# the two-replica test also run; then schemathesis; then the SDKs' drift
# checks and live tests (sdk/test.sh). An S3-compatible server
# (moto, from PyPI in a venv) runs throughout for the object-store tests.
# Installs what is missing and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
ensure_rust
# chromium + chromium-driver: the browser tests; nodejs, python3, openssl: the
# signing recipes of docs/embeds.md, run as written.
ensure_packages ca-certificates postgresql mesa-vulkan-drivers chromium chromium-driver fonts-dejavu-core nodejs python3 openssl

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PG_DIR=$(mktemp -d /tmp/vis-pg.XXXXXX)
PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg() {
  # PostgreSQL refuses to run as root: use its own system user then.
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
stop_pg() { as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$PG_DIR"; }
S3_PID=""
stop_all() {
  stop_pg
  if [ -n "$S3_PID" ]; then kill "$S3_PID" 2>/dev/null || true; fi
}
trap stop_all EXIT
as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 >/dev/null
# TLS on, with a certificate for localhost and 127.0.0.1 signed by a CA made
# here (the test of sslmode=verify-full reads VIS_TEST_POSTGRES_CA).
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=vis test CA" \
  -keyout "$PG_DIR/ca.key" -out "$PG_DIR/ca.crt" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
  -keyout "$PG_DIR/server.key" -out "$PG_DIR/server.csr" >/dev/null 2>&1
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$PG_DIR/san.ext"
openssl x509 -req -in "$PG_DIR/server.csr" -CA "$PG_DIR/ca.crt" -CAkey "$PG_DIR/ca.key" \
  -CAcreateserial -days 2 -extfile "$PG_DIR/san.ext" -out "$PG_DIR/server.crt" >/dev/null 2>&1
chmod 600 "$PG_DIR/server.key"
[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR/server.key" "$PG_DIR/server.crt"
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
  -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300 -c ssl=on -c ssl_cert_file=$PG_DIR/server.crt -c ssl_key_file=$PG_DIR/server.key" start >/dev/null
export VIS_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
export VIS_TEST_POSTGRES_CA="$PG_DIR/ca.crt"
echo "infra: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT (fsync off: tests kill servers, never the database)" >&2

# The official Python MCP SDK (PyPI), the client of the MCP session test.
MCP_VENV="${VIS_MCP_CLIENT_VENV:-$HOME/.cache/vis-mcp-client}"
ensure_packages python3-venv
if ! "$MCP_VENV/bin/python" -c 'import mcp' 2>/dev/null; then
  echo "infra: installing the MCP client SDK into $MCP_VENV" >&2
  python3 -m venv "$MCP_VENV"
  "$MCP_VENV/bin/pip" install -q -r tests/mcp/requirements.txt
fi
export VIS_TEST_MCP_PYTHON="$MCP_VENV/bin/python"

# An SMTP server for the mail tests (tests/tests/blackbox/mail.rs): aiosmtpd
# (PyPI), started by the tests themselves with STARTTLS required
# (tests/src/smtp.rs); VIS_TEST_SMTP_PYTHON names its interpreter.
SMTP_VENV="${VIS_SMTP_SERVER_VENV:-$HOME/.cache/vis-smtp-server}"
if ! "$SMTP_VENV/bin/python" -c 'import aiosmtpd' 2>/dev/null; then
  echo "infra: installing aiosmtpd, an SMTP test server, into $SMTP_VENV" >&2
  python3 -m venv "$SMTP_VENV"
  "$SMTP_VENV/bin/pip" install -q -r tests/smtp/requirements.txt
fi
export VIS_TEST_SMTP_PYTHON="$SMTP_VENV/bin/python"

# An S3-compatible server for the object-store conformance suite and the
# control plane on S3: moto (PyPI), in memory, on a free port.
S3_VENV="${VIS_S3_SERVER_VENV:-$HOME/.cache/vis-moto}"
if ! "$S3_VENV/bin/python" -c 'import moto.server' 2>/dev/null; then
  echo "infra: installing moto, an S3-compatible test server, into $S3_VENV" >&2
  python3 -m venv "$S3_VENV"
  "$S3_VENV/bin/pip" install -q -r tests/s3/requirements.txt
fi
S3_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
S3_LOG=$(mktemp /tmp/vis-moto.XXXXXX)
"$S3_VENV/bin/moto_server" -H 127.0.0.1 -p "$S3_PORT" >"$S3_LOG" 2>&1 &
S3_PID=$!
export VIS_TEST_S3_ENDPOINT="http://127.0.0.1:$S3_PORT"
if ! python3 - "$VIS_TEST_S3_ENDPOINT" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1)
        sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit(1)
PY
then
  echo "infra: moto did not answer at $VIS_TEST_S3_ENDPOINT; its log:" >&2
  cat "$S3_LOG" >&2
  exit 1
fi
# The S3 store takes credentials from the standard AWS chain; moto accepts
# any, so these test ones stand in for (and hide) a developer's own.
unset AWS_SESSION_TOKEN AWS_PROFILE
export AWS_ACCESS_KEY_ID=moto-test-key AWS_SECRET_ACCESS_KEY=moto-test-secret AWS_EC2_METADATA_DISABLED=true
echo "infra: moto $("$S3_VENV/bin/python" -c 'import moto; print(moto.__version__)') (S3) on $VIS_TEST_S3_ENDPOINT" >&2

cargo test --workspace --no-fail-fast "$@"

# The ONNX refinement stage (render-node's onnx feature) end to end on tiny
# generated models, with ONNX Runtime from its PyPI wheel; its unit tests too.
ensure_onnx_runtime
echo "infra: the onnx feature's tests (ONNX Runtime $VIS_ORT_DYLIB)" >&2
cargo test -p vis-render --features onnx --lib --test onnx --no-fail-fast "$@"

# The whole black-box suite again, every app on a fresh PostgreSQL database.
echo "infra: the black-box suite on PostgreSQL" >&2
VIS_TEST_BACKEND=postgres cargo test -p vis-tests --test blackbox --no-fail-fast "$@"

# The running server against its own interface description (all checks).
./infra/schemathesis.sh

# The SDKs: drift checks against docs/openapi.json, their live tests and the
# document's code samples against a running server (docs/sdks.md).
./sdk/test.sh
