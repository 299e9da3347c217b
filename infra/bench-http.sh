#!/usr/bin/env bash
# HTTP load benchmark of GET /api/v1/images/car on cache hits, billed, against
# the same bytes from three unbilled routes of the same server: the bare
# bytes and the image endpoint's whole path minus the ledger (both in
# tests/src/bin/bench-server.rs), and a signed delivery URL (the product's
# own unbilled path); and nginx serving the same bytes from disk, the bar
# DESIGN sets for cached delivery. wrk on loopback. Prints requests/s,
# p50/p99 latency, the ratios of the medians and the server's RSS.
# Usage: infra/bench-http.sh [seconds] [connections] [rounds]
# With VIS_DATABASE_URL=postgres://… the server and its CLI use that database.
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
ensure_rust
ensure_packages wrk curl nginx-light mesa-vulkan-drivers
SECS=${1:-10}
CONNS=${2:-32}
ROUNDS=${3:-3}
cargo build --release --quiet -p vis-tests --bin bench-server
DATA=$(mktemp -d /tmp/vis-bench.XXXXXX)
"$CARGO_TARGET_DIR/release/bench-server" "$DATA" >"$DATA/out" 2>"$DATA/err" &
PID=$!
NGINX_CONF="$DATA/nginx.conf"
stop_all() {
  kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true
  [ -f "$DATA/nginx.pid" ] && nginx -c "$NGINX_CONF" -s stop 2>/dev/null || true
  rm -rf "$DATA"
}
trap stop_all EXIT
for _ in $(seq 1 300); do grep -q READY "$DATA/out" 2>/dev/null && break; sleep 0.2; done
BASE=$(awk '/READY/ {print $2}' "$DATA/out")
[ -n "$BASE" ] || { cat "$DATA/err"; exit 1; }
KEY=$(cat "$DATA/bench.key")
Q="make=toyota&model=camry&year=2019&color=red&view=side&w=512&format=webp"
rss() { awk '/VmRSS/ {print $2}' /proc/$PID/status; }
hwm() { awk '/VmHWM/ {print $2}' /proc/$PID/status; }
echo "server RSS before: $(rss) KiB"
run() { # name url [header]
  local out
  if [ $# -eq 3 ]; then out=$(wrk -t1 -c"$CONNS" -d"${SECS}s" --latency -H "$3" "$2"); else out=$(wrk -t1 -c"$CONNS" -d"${SECS}s" --latency "$2"); fi
  local rps p50 p99 non2xx
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  printf '%-10s %10s req/s  p50 %-9s p99 %-9s non-2xx %s\n' "$1" "$rps" "$p50" "$p99" "${non2xx:-0}" >&2
  echo "$rps"
}
AUTH="Authorization: Bearer $KEY"
# Warm every path briefly, then measure them in turn, ROUNDS times: this VM
# drifts by ±10% from one minute to the next, and interleaving puts every
# route through the same drift. Ratios are of the medians.
wrk -t1 -c4 -d1s "$BASE/bench/unbilled?$Q" >/dev/null
wrk -t1 -c4 -d1s -H "$AUTH" "$BASE/bench/unbilled-keyed?$Q" >/dev/null
wrk -t1 -c4 -d1s -H "$AUTH" "$BASE/api/v1/images/car?$Q" >/dev/null
# The product's own unbilled path for the same bytes: a signed delivery URL
# (billed once, when minted; its loads are free and read the URL's row).
SIGNED=$(curl -fsS -H "$AUTH" "$BASE/api/v1/images/car?$Q&response=url" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["url"])')
wrk -t1 -c4 -d1s "$SIGNED" >/dev/null
# DESIGN's bar for cached delivery: nginx serving the same bytes from disk.
mkdir -p "$DATA/www"
curl -fsS -o "$DATA/www/car.webp" "$BASE/bench/unbilled?$Q"
# nginx workers run as an unprivileged user: let them reach the file.
chmod 0755 "$DATA" "$DATA/www"; chmod 0644 "$DATA/www/car.webp"
NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$NGINX_CONF" <<CONF
worker_processes auto;
pid $DATA/nginx.pid;
error_log $DATA/nginx.err;
events { worker_connections 1024; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path $DATA/ngx-body; proxy_temp_path $DATA/ngx-proxy;
  fastcgi_temp_path $DATA/ngx-fcgi; uwsgi_temp_path $DATA/ngx-uwsgi; scgi_temp_path $DATA/ngx-scgi;
  types { image/webp webp; }
  server { listen 127.0.0.1:$NGINX_PORT; root $DATA/www; }
}
CONF
nginx -c "$NGINX_CONF"
NGINX_URL="http://127.0.0.1:$NGINX_PORT/car.webp"
wrk -t1 -c4 -d1s "$NGINX_URL" >/dev/null
BARES=(); KEYEDS=(); BILLEDS=(); SIGNEDS=(); NGINXS=()
for _ in $(seq 1 "$ROUNDS"); do
  BARES+=("$(run bare "$BASE/bench/unbilled?$Q")")
  KEYEDS+=("$(run no-ledger "$BASE/bench/unbilled-keyed?$Q" "$AUTH")")
  BILLEDS+=("$(run billed "$BASE/api/v1/images/car?$Q" "$AUTH")")
  SIGNEDS+=("$(run signed-url "$SIGNED")")
  NGINXS+=("$(run nginx "$NGINX_URL")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
BARE=$(median "${BARES[@]}"); KEYED=$(median "${KEYEDS[@]}"); BILLED=$(median "${BILLEDS[@]}"); SIGNEDM=$(median "${SIGNEDS[@]}"); NGINXM=$(median "${NGINXS[@]}")
echo "medians of $ROUNDS at $CONNS connections: bare $BARE  no-ledger $KEYED  billed $BILLED  signed-url $SIGNEDM  nginx $NGINXM req/s"
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
echo "billed/no-ledger: $(ratio "$BILLED" "$KEYED")  billed/bare: $(ratio "$BILLED" "$BARE")  billed/signed-url: $(ratio "$BILLED" "$SIGNEDM")"
echo "signed-url/nginx: $(ratio "$SIGNEDM" "$NGINXM")  (DESIGN: cached delivery at least 0.5 of nginx)"
echo "server RSS after: $(rss) KiB (peak $(hwm) KiB)"
