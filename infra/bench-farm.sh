#!/usr/bin/env bash
# Render throughput of one remote render node: a control plane that only
# dispatches (--no-local-renderer; SQLite, filesystem objects), one
# `render-node run` with SLOTS slots, and a `control-plane prewarm` of
# 3 views x YEARS model years of one model (source renders only, 1024x1024
# PNG, uploaded through the control plane). Prints the prewarm's last
# progress lines and its wall time; renders per second = variants / wall.
# The dev profile compiles the renderer and every dependency at opt-level 3
# (Cargo.toml), so render times match a release build's within noise.
# Usage: infra/bench-farm.sh [slots] [years]
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
ensure_rust
ensure_packages curl mesa-vulkan-drivers
SLOTS=${1:-1}
YEARS=${2:-27}
cargo build --quiet -p control-plane -p vis-render --bins
BIN="$CARGO_TARGET_DIR/debug"
DATA=$(mktemp -d /tmp/vis-farm.XXXXXX)
export VIS_DATA_DIR="$DATA" VIS_LOCAL_RENDERER=false RUST_LOG=warn
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PIDS=()
stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$DATA"
}
trap stop_all EXIT
"$BIN/control-plane" migrate >/dev/null
# The token is the last line; it goes to the node's environment, never to the terminal.
VIS_NODE_TOKEN=$("$BIN/control-plane" nodes add bench | tail -1)
export VIS_NODE_TOKEN
VIS_LISTEN=127.0.0.1:$PORT "$BIN/control-plane" serve 2>"$DATA/cp.log" &
PIDS+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
"$BIN/render-node" run --control-plane "http://127.0.0.1:$PORT" --slots "$SLOTS" 2>"$DATA/node.log" &
PIDS+=($!)
for _ in $(seq 1 100); do "$BIN/control-plane" --json nodes list | grep -q '"last_heartbeat":[0-9]' && break; sleep 0.1; done
LAST=$((2000 + YEARS - 1))
START=$(date +%s.%N)
"$BIN/control-plane" prewarm --make toyota --models camry --years "2000-$LAST" \
  --views front-3-4,side,rear --colors red --progress-every 2 2>&1 | tail -2
END=$(date +%s.%N)
python3 -c "import sys; n=3*$YEARS; w=$END-$START; print(f'slots $SLOTS: {n} renders in {w:.2f} s = {n/w:.2f} renders/s')"
