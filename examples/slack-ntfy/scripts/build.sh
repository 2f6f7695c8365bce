#!/usr/bin/env bash
# One session of the example's ant: counts its sessions; the second one ends with a billing
# error (exit 3, classified as billing_error in ants/builder.yaml), which pauses the ant until a
# human resumes it: that is what the Slack mention and the ntfy notice are about.
set -euo pipefail
prompt=$(cat)
printf '%s\n' "$prompt" | sed -n '/^## Messages from your humans/,$p' | tail -n +2 | while IFS= read -r line; do
  echo "working on: $line"
done
state="${COLONY_DIR:-.}/logs/builder-sessions"
mkdir -p "$(dirname "$state")"
n=$(( $(cat "$state" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$state"
if [ "$n" -eq 2 ]; then
  echo "billing error: the card on file was declined"
  exit 3
fi
echo "built step $n"
