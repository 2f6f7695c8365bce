#!/bin/sh
# A stand-in agent: sends three findings to the builder, then works on a while.
# The session's environment says who it is and how to reach its peers:
#   COLONY_ANT, COLONY_SESSION, COLONY_PEERS, COLONY_BIN, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE.
set -eu
echo "scout (session $COLONY_SESSION) sees peers: $COLONY_PEERS"
for n in 1 2 3; do
  # The same sender, session and text give the same message id: if this session is retried
  # after a worker crash, the builder still gets each finding once.
  "$COLONY_BIN" send --from "$COLONY_ANT" builder "finding $n from session $COLONY_SESSION"
  echo "sent finding $n in session $COLONY_SESSION" >> "$COLONY_DIR/logs/scout-sent.log"
done
sleep "${SCOUT_LINGER:-0}"
echo "scout sent 3 findings to the builder"
