#!/bin/sh
# A stand-in agent. The builder fails its first three sessions, then works.
set -eu
if [ "$COLONY_ANT" = builder ]; then
  count_file="$COLONY_DIR/logs/builder-sessions"
  mkdir -p "$(dirname "$count_file")"
  n=$(( $(cat "$count_file" 2>/dev/null || echo 0) + 1 ))
  echo "$n" > "$count_file"
  if [ "$n" -le 3 ]; then
    echo "builder: the toolchain is broken (attempt $n)" >&2
    exit 1
  fi
fi
echo "$COLONY_ANT did its part (session $COLONY_SESSION)"
