#!/usr/bin/env bash
# Fails when src/vis_sdk/generated is not what openapi-python-client makes
# of docs/openapi.json today: regenerates into a temporary folder and diffs.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d /tmp/vis-sdk-py.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
"$here/scripts/generate.sh" "$tmp/generated" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
if ! diff -r -x __pycache__ "$tmp/generated" "$here/src/vis_sdk/generated" >"$tmp/diff"; then
  head -n 60 "$tmp/diff"
  echo "sdk/python/src/vis_sdk/generated does not match docs/openapi.json: run sdk/python/scripts/generate.sh" >&2
  exit 1
fi
echo "python: generated client matches docs/openapi.json"
