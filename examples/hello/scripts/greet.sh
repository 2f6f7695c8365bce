#!/bin/sh
# A stand-in agent: the prompt arrives on stdin (and in the file $COLONY_PROMPT_FILE).
prompt=$(cat)
echo "session $COLONY_SESSION of $COLONY_ANT in $COLONY_WORKSPACE"
sleep 2
printf '%s\n' "$prompt" | sed -n '/^## Messages from your humans/,$p' | tail -n +2 | while IFS= read -r line; do
  echo "working on: $line"
done
echo "hello from session $COLONY_SESSION"
# What the session cost (the console adds it to the ant's costs per day).
echo "COLONY_COST_USD=0.02"
