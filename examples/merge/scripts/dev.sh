#!/bin/sh
# A stand-in coding agent. Its first session makes its ant's one change in the worktree and
# commits it; the merge queue lands it. When the queue sends the work back (the prompt holds a
# "[merge queue]" message: a conflict with main), it rebases onto main, keeps both sides of each
# conflict, and commits; if the tests it runs then fail (a stray conflict marker), it fixes that.
# A message "break the notes" makes it commit a change the app's tests refuse. Every session
# is logged to $COLONY_DIR/logs/merge.log (the tests read it; colony.yaml grants the ants logs/).
set -eu
prompt=$(cat)
cd "$COLONY_WORKSPACE"
me=$COLONY_ANT
log() { echo "$me session $COLONY_SESSION: $*" >> "$COLONY_DIR/logs/merge.log"; echo "$*"; }
if printf '%s\n' "$prompt" | grep -q '\[merge queue\]'; then
  if git rebase -q main >/dev/null 2>&1; then
    if ! sh test.sh >/dev/null 2>&1; then
      sed -i '/^<<<<<<< /d' notes/*.md
      git commit -q -am "$me: remove the stray marker"
      log "rework: the tests failed, removed the stray marker"
      exit 0
    fi
    log "rework: rebased onto main without a conflict"
    exit 0
  fi
  files=$(git diff --name-only --diff-filter=U)
  for f in $files; do
    sed -i '/^<<<<<<< /d;/^=======$/d;/^>>>>>>> /d' "$f"   # keep both sides
    git add "$f"
  done
  GIT_EDITOR=true git rebase --continue >/dev/null
  log "rework: resolved $files keeping both changes"
  exit 0
fi
if printf '%s\n' "$prompt" | grep -q 'break the notes'; then
  mkdir -p notes
  printf '<<<<<<< a stray conflict marker\n' >> "notes/$me.md"
  git add notes
  git commit -q -m "$me: a stray marker in the notes"
  log "committed: $me: a stray marker in the notes"
  exit 0
fi
if git log --format=%s | grep -q "^$me: "; then
  log "nothing to do: my change is on my branch"
  exit 0
fi
case $me in
  ada)
    mkdir -p notes
    printf '# Notes\n\nWritten by ada.\n' > notes/ada.md
    git add notes
    git commit -q -m "ada: the notes page"
    ;;
  *)
    sed -i "s/^greeting: .*/greeting: hello from $me/" app.txt
    git commit -q -am "$me: the greeting says $me"
    ;;
esac
echo "COLONY_COST_USD=0.02"
log "committed: $(git log -1 --format=%s)"
