#!/bin/bash
# Usage: bench/state-counts.sh [repo-root]: how the ant's state is held (fields that can be reassigned, classes that assign them)
# (1) reassignable fields: instance field declarations (2-space indent, ending in ';', no
#     'static'/'final'), in AntState and the state parts it owns (PARTS);
# (2) classes other than AntState (and its parts) that assign an AntState field directly:
#     ant.x = / += / -= / ++ / -- (collections mutated through their own methods not counted).
cd "${1:-$(dirname "$0")/..}/workflows/src/main/java/dev/colony"
# The state parts AntState owns (those that exist in this tree).
PARTS=$(ls ant/{SessionStats,ChatSequence,IssueIntake,CurrentSession,Conversation,Delivery,PauseRequest,WakeRequests,CardState}.java 2>/dev/null)
FILES="ant/AntState.java $PARTS"
echo "== reassignable fields (non-final, non-static) =="
grep -nE '^  [A-Za-z][A-Za-z0-9_.<>, ?]* [a-zA-Z_][a-zA-Z0-9_]*( = [^;]*)?;\s*$' $FILES /dev/null \
  | grep -vE '[ :](static|final|return|throw) ' | tee ${TMPDIR:-/tmp}/state-counts.fields.txt | sed 's/^/  /'
echo "count: $(wc -l < ${TMPDIR:-/tmp}/state-counts.fields.txt)"
echo "== classes assigning AntState fields directly =="
EXCL=$(for f in $FILES; do printf -- '-e ^%s: ' "$f"; done)
grep -rnE '\bant\.[a-zA-Z_]+[ ]*(=[^=]|\+=|-=|\+\+|--)' ant | grep -v $EXCL | tee ${TMPDIR:-/tmp}/state-counts.assign.txt | sed 's/^/  /'
echo "classes: $(cut -d: -f1 ${TMPDIR:-/tmp}/state-counts.assign.txt | sort -u | tr '\n' ' ')"
echo "count: $(cut -d: -f1 ${TMPDIR:-/tmp}/state-counts.assign.txt | sort -u | wc -l)"
