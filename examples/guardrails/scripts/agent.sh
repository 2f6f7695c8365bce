#!/bin/sh
# A stand-in agent whose behaviour $MODE picks. The prompt is in $COLONY_PROMPT_FILE.
set -eu
case "$MODE" in
  long)
    if grep -q '^1\. ' "$COLONY_PROMPT_FILE"; then
      echo "session $COLONY_SESSION starts with: $(grep '^1\. ' "$COLONY_PROMPT_FILE" | head -1)"
      exit 0
    fi
    trap 'echo "interrupted: saving my notes"; exit 0' TERM
    i=0
    while [ $i -lt 600 ]; do echo "working ($i)"; i=$((i + 1)); sleep 1; done
    echo "backlog done" ;;
  spend)
    echo "did a small task"
    echo "COLONY_COST_USD=0.02" ;;   # how a command agent reports what the session cost
  fail)
    echo "cannot do the impossible" >&2
    exit 3 ;;
  hang)
    echo "waiting for an answer that never comes"
    exec sleep 3600 ;;
esac
