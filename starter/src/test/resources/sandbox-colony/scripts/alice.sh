#!/bin/sh
cat >/dev/null
echo "alice's private notes" > "$COLONY_WORKSPACE/notes.txt"
echo "alice wrote her notes (session $COLONY_SESSION)"
