#!/bin/sh
# Entrypoint of the render-node image: runs `render-node "$@"` (default: run).
# compose and Kubernetes hand the node its token as a file; render-node reads it
# from VIS_NODE_TOKEN only, so when that is unset and VIS_NODE_TOKEN_FILE names
# a file, the token is read from there. It never reaches a command line or a log.
set -eu
if [ -z "${VIS_NODE_TOKEN:-}" ] && [ -n "${VIS_NODE_TOKEN_FILE:-}" ]; then
  if [ ! -r "$VIS_NODE_TOKEN_FILE" ]; then
    echo "vis-render-node: no readable node token at $VIS_NODE_TOKEN_FILE;" \
      "create one with control-plane nodes add NAME (docs/deployment.md)" >&2
    exit 78
  fi
  VIS_NODE_TOKEN=$(cat "$VIS_NODE_TOKEN_FILE")
  export VIS_NODE_TOKEN
fi
unset VIS_NODE_TOKEN_FILE
exec /usr/local/bin/render-node "$@"
