#!/usr/bin/env bash
# Render throughput of one remote render node: a control plane that only
# dispatches (--no-local-renderer; SQLite, filesystem objects), one
# `render-node run` with SLOTS slots, and a `control-plane prewarm` of
# 3 views x YEARS model years x COLORS of one model (source renders only, 1024x1024
# PNG, uploaded through the control plane). Prints the prewarm's last
# progress lines and its wall time; renders per second = variants / wall.
# The dev profile compiles the renderer and every dependency at opt-level 3
# (Cargo.toml), so render times match a release build's within noise.
# Usage: infra/bench-farm.sh [slots] [years] [colors, comma-separated; default red]
# VIS_BIN=DIR uses control-plane and render-node from DIR and builds nothing
# (a GPU host without Rust: infra/device-bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
SLOTS=${1:-1}
YEARS=${2:-27}
COLORS=${3:-red}
NCOLORS=$(echo "$COLORS" | tr ',' '\n' | wc -l)
if [ -n "${VIS_BIN:-}" ]; then
  BIN=$VIS_BIN
else
  ensure_rust
  ensure_packages mesa-vulkan-drivers
  cargo build --quiet -p control-plane -p vis-render --bins
  BIN="$CARGO_TARGET_DIR/debug"
fi
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
python3 - "$PORT" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/readyz", timeout=1)
        break
    except OSError:
        time.sleep(0.1)
PY
"$BIN/render-node" run --control-plane "http://127.0.0.1:$PORT" --slots "$SLOTS" 2>"$DATA/node.log" &
PIDS+=($!)
for _ in $(seq 1 100); do "$BIN/control-plane" --json nodes list | grep -q '"last_heartbeat":[0-9]' && break; sleep 0.1; done
LAST=$((2000 + YEARS - 1))
START=$(date +%s.%N)
"$BIN/control-plane" prewarm --make toyota --models camry --years "2000-$LAST" \
  --views front-3-4,side,rear --colors "$COLORS" --progress-every 2 2>&1 | tail -2
END=$(date +%s.%N)
python3 -c "import sys; n=3*$YEARS*$NCOLORS; w=$END-$START; print(f'slots $SLOTS: {n} renders in {w:.2f} s = {n/w:.2f} renders/s')"
