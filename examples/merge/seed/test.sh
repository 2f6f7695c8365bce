#!/bin/sh
# The app's tests: the merge queue runs them on each change rebased onto main, before it lands.
set -eu
if grep -rn --exclude-dir=.git -e '^<<<<<<< ' -e '^>>>>>>> ' .; then
  echo "conflict markers left in the files above" >&2
  exit 1
fi
grep -q '^greeting: ' app.txt || { echo "app.txt has no greeting" >&2; exit 1; }
echo "tests passed"
