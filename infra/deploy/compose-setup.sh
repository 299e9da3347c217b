#!/bin/sh
# The one-shot `setup` service of compose.yaml: applies migrations, then makes
# sure every render node named in VIS_COMPOSE_NODES has a token. A token is
# created once, with `control-plane nodes add NAME` (which prints it on its last
# line), and written to the node-tokens volume, readable only by uid 10001;
# tokens are never printed. Runs on every `docker compose up`; nodes that have a
# token are left alone.
set -eu
TOKENS=/var/lib/vis-node-tokens
control-plane migrate
umask 077
for name in ${VIS_COMPOSE_NODES:-}; do
  if [ -s "$TOKENS/$name" ]; then
    echo "setup: render node $name has a token"
    continue
  fi
  # Names are never reused: a node whose token file was lost while the
  # database kept it must be removed (nodes remove) and added under a new name.
  control-plane nodes add "$name" >"$TOKENS/.$name.out"
  tail -n 1 "$TOKENS/.$name.out" >"$TOKENS/.$name.new"
  rm -f "$TOKENS/.$name.out"
  mv "$TOKENS/.$name.new" "$TOKENS/$name"
  echo "setup: render node $name added; its token is in the node-tokens volume"
done
