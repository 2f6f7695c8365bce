#!/bin/sh
# A stand-in agent: records every message a peer sent it (in order) in inbox.log.
set -eu
grep -o '\[message from ant [^]]*\] .*' "$COLONY_PROMPT_FILE" >> "$COLONY_DIR/logs/inbox.log" || true
echo "builder read $(grep -c '\[message from ant' "$COLONY_PROMPT_FILE" || true) message(s) from peers"
