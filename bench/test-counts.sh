#!/bin/bash
# Usage: bench/test-counts.sh   (from the repository root): polling helpers, sleeps and timeouts in the test sources
echo "eventually definitions: $(grep -rnE --include=*.java '^\s*(public |private |protected )?(static )?void eventually\(' */src/test | wc -l)"
echo "Thread.sleep in test sources: $(grep -rn --include=*.java 'Thread\.sleep' */src/test | wc -l)"
tc=0; to=0; jq=0
for f in $(grep -rlE --include=*.java '@(Test|Property|ParameterizedTest|RepeatedTest|TestFactory|Example)\b' */src/test); do
  tc=$((tc+1))
  # class-level: @Timeout appears before the first top-level "class " line
  if ! grep -qE '@(Test|ParameterizedTest|RepeatedTest|TestFactory)\b' "$f"; then
    # jqwik only: Jupiter's @Timeout does not reach it; bounded by assertTimeoutPreemptively in its properties
    if grep -q 'assertTimeoutPreemptively(' "$f"; then jq=$((jq+1)); to=$((to+1)); else echo "  unbounded jqwik: $f" >&2; fi
    continue
  fi
  if awk '/^(public |final |abstract )*(class|record) /{exit} /^@(org\.junit\.jupiter\.api\.)?Timeout/{found=1} END{exit !found}' "$f"; then to=$((to+1)); else echo "  no class @Timeout: $f" >&2; fi
done
echo "test classes: $tc, under a class-level @Timeout: $((to-jq)) (+ $jq jqwik classes bounded per property)"
