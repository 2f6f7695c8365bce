#!/bin/sh
# A stand-in agent that reports its turns to its overseer (COLONY_TURN lines) and reads the
# overseer's whispers from $COLONY_WHISPER_FILE. Its first session spirals: it reruns the same
# failing command and ignores the advice. Like a real agent, whose next turn comes after the model
# has read the last one, it waits (at most a minute) for the overseer's word after every third
# turn, so the overseer's evaluations keep pace however slow the model is. Later sessions (after
# /resume or /abort) behave.
set -eu
log="$COLONY_DIR/logs/whispers-received.log"
mkdir -p "$(dirname "$log")"
seen=0
turn() { echo "COLONY_TURN $1"; }
check_whispers() {
  n=$(wc -l < "$COLONY_WHISPER_FILE")
  if [ "$n" -gt "$seen" ]; then
    tail -n +"$((seen + 1))" "$COLONY_WHISPER_FILE" | while IFS= read -r w; do
      echo "session $COLONY_SESSION: $w" >> "$log"
    done
    seen=$n
  fi
}
if [ "$COLONY_SESSION" -gt 1 ]; then
  turn '{"tool":"Read","input":"build.log","result":"error: missing symbol Foo"}'
  turn '{"tool":"Edit","input":"src/Foo.java","result":"added class Foo"}'
  echo "fixed the missing class"
  exit 0
fi
i=0
while [ "$i" -lt 12 ]; do
  i=$((i + 1))
  turn '{"tool":"Bash","input":"make test","result":"FAILED: 3 tests","error":true}'
  sleep 0.5
  if [ $((i % 3)) -eq 0 ] && [ "$i" -le 9 ]; then
    waited=0 # the evaluation of these three turns: a whisper (twice), then the escalation
    while [ "$(wc -l < "$COLONY_WHISPER_FILE")" -lt $((i / 3)) ] && [ "$waited" -lt 600 ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
  fi
  check_whispers
done
sleep 1
check_whispers
echo "gave up after $i attempts"
