#!/usr/bin/env bash
# Starts the service on the embedded default: SQLite + filesystem objects under
# ./data, listening on 127.0.0.1:8080. Extra arguments go to `control-plane serve`
# (e.g. --listen 0.0.0.0:8080). Installs what is missing and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
ensure_rust
# The in-process render node draws with wgpu; without a GPU it uses Mesa's lavapipe.
ensure_packages ca-certificates mesa-vulkan-drivers
# Cargo's own progress stays on: the first release build takes minutes.
echo "infra: building control-plane (release; the first build takes several minutes, later ones seconds)" >&2
cargo build --release -p control-plane
echo "infra: starting control-plane serve (data in ./data; Ctrl-C stops it)" >&2
exec "$CARGO_TARGET_DIR/release/control-plane" serve "$@"
