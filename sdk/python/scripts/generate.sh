#!/usr/bin/env bash
# Regenerates src/vis_sdk/generated from docs/openapi.json with
# openapi-python-client (and formats it with ruff), both pinned in
# pyproject.toml's dev extra. Usage: scripts/generate.sh [OUTPUT_DIR]
# (default: the package's own generated/ folder).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/src/vis_sdk/generated}"
PY="${VIS_SDK_PYTHON:-python3}"
bin="$(dirname "$(command -v "$PY")")"
export PATH="$bin:$PATH"   # the post hooks run the venv's python and ruff
export VIS_SDK_SCRIPTS="$here/scripts"
"$bin/openapi-python-client" generate \
  --path "$here/../../docs/openapi.json" \
  --config "$here/openapi-python-client.yaml" \
  --meta none \
  --output-path "$out" \
  --overwrite
