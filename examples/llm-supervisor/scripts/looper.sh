#!/bin/sh
# A stand-in agent that reports its turns to its overseer (COLONY_TURN lines) and reads the
# overseer's whispers from $COLONY_WHISPER_FILE. Its first session spirals: it reruns the same
# failing command and ignores the advice. Later sessions (after /resume or /abort) behave.
set -eu
log="$COLONY_DIR/.colony/whispers-received.log"
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
  check_whispers
done
sleep 1
check_whispers
echo "gave up after $i attempts"
