#!/bin/sh
# A controllable stand-in agent. Behaviour per session comes from control/<ant>/mode-<n>
# (or control/<ant>/mode): ok, block, crash, ratelimit, billing, auth, budget, paid (reports a
# cost: control/<ant>/cost dollars, 0.25 by default), hostile (fails saying markup and escapes).
here=$(cd "$(dirname "$0")" && pwd)
ctl="$here/control/$COLONY_ANT"
mkdir -p "$ctl"
cat > "$ctl/prompt-$COLONY_SESSION.txt"
echo "$COLONY_SESSION $(date +%s%3N) ${COLONY_RETRY_OF:-first}" >> "$ctl/starts.log"
mode=$(cat "$ctl/mode-$COLONY_SESSION" 2>/dev/null || cat "$ctl/mode" 2>/dev/null || echo ok)
case "$mode" in
  ok) echo "work done in session $COLONY_SESSION" ;;
  block)
    while [ ! -f "$ctl/release-$COLONY_SESSION" ]; do sleep 0.1; done
    # A last stretch of work after the release: control/<ant>/finish-in seconds (none by default).
    [ -f "$ctl/finish-in" ] && sleep "$(cat "$ctl/finish-in")"
    # Work a real agent does in the workspace, whether or not anyone reads its output.
    echo "$COLONY_SESSION $(date +%s%3N)" >> "$ctl/worked.log"
    echo "released session $COLONY_SESSION" ;;
  crash) echo "boom in session $COLONY_SESSION"; exit 1 ;;
  paid)
    echo "paid work in session $COLONY_SESSION"
    echo "COLONY_COST_USD=$(cat "$ctl/cost" 2>/dev/null || echo 0.25)" ;;
  hostile)
    printf '%s\033[31m red \033]0;title\007 %s\n' '<img src=x onerror=alert(1)><script>alert(2)</script>' '</td></tr></table><b>bold</b>'
    exit 1 ;;
  ratelimit) echo "rate limited, resets at $(( $(date +%s) + $(cat "$ctl/reset-in" 2>/dev/null || echo 12) ))"; exit 1 ;;
  billing) echo "card declined in session $COLONY_SESSION"; exit 3 ;;
  auth) echo "bad key in session $COLONY_SESSION"; exit 4 ;;
  budget) echo "over budget in session $COLONY_SESSION"; exit 5 ;;
  *) echo "unknown mode $mode"; exit 9 ;;
esac
echo "$COLONY_SESSION $(date +%s%3N)" >> "$ctl/ends.log"
