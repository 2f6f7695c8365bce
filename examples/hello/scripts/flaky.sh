#!/bin/sh
# Every third session the "provider" refuses, saying when the limit lifts (8 s from now).
cat >/dev/null
sleep 1
if [ $((COLONY_SESSION % 3)) -eq 2 ]; then
  echo "rate limited, resets at $(( $(date +%s) + 8 ))"
  exit 1
fi
echo "did some work in session $COLONY_SESSION"
echo "COLONY_COST_USD=0.01"
