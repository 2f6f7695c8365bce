#!/bin/sh
# A stand-in agent for the example: it reports what woke it (the prompt arrives on stdin).
prompt=$(cat)
issue=$(printf '%s\n' "$prompt" | sed -n 's/^- Issue: \(#[0-9]*\).*/\1/p' | head -1)
if [ -n "$issue" ]; then
  echo "$COLONY_ANT worked on issue $issue in session $COLONY_SESSION"
else
  echo "$COLONY_ANT ran session $COLONY_SESSION"
fi
