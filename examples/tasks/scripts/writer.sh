#!/bin/sh
# A stand-in agent that works on the task in its prompt: it writes notes/<task id>.md in its
# workspace (a git repository it makes on its first session) and commits it. The prompt arrives
# on stdin and in $COLONY_PROMPT_FILE; the task is named by $COLONY_TASK_ID and $COLONY_TASK_TITLE.
# A task labelled "fail" fails every session (to see Blocked); WRITER_LINGER=N makes it take N s.
set -eu
prompt=$(cat)
cd "$COLONY_WORKSPACE"
if [ ! -d .git ]; then
  git init -q .
  git config user.name "Colony example"
  git config user.email "example@colony.invalid"
  git commit -q --allow-empty -m "start"
fi
if [ -z "${COLONY_TASK_ID:-}" ]; then
  echo "no task for $COLONY_ANT"
  exit 0
fi
# Every session on a task is logged for the tests: ant, task, and the comments it was given.
comments=$(printf '%s\n' "$prompt" | sed -n '/^- Comments so far/,/^When done/p' | grep '^  - ' | tr '\n' ' ' || true)
echo "$COLONY_ANT $COLONY_TASK_ID session $COLONY_SESSION comments: $comments" >> "$COLONY_DIR/logs/tasks.log"
sleep "${WRITER_LINGER:-2}"
if printf '%s\n' "$prompt" | grep -q '^- Labels: .*\bfail\b'; then
  echo "cannot write this one: the task is labelled fail" >&2
  exit 1
fi
mkdir -p notes
{
  echo "# $COLONY_TASK_TITLE"
  echo
  printf '%s\n' "$prompt" | sed -n '/^## Your task/,$p'
} > "notes/$COLONY_TASK_ID.md"
git add notes
git commit -q -m "notes: $COLONY_TASK_TITLE"
echo "COLONY_COST_USD=0.03"
echo "wrote notes/$COLONY_TASK_ID.md ($(wc -l < "notes/$COLONY_TASK_ID.md") lines) for: $COLONY_TASK_TITLE"
