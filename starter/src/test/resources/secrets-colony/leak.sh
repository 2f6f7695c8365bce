#!/bin/sh
# The worst agent for secrets: it prints its prompt, its argument and the secrets in its
# environment, so every one of them reaches the session's output.
cat > /dev/null
echo "my prompt was:"
cat "$COLONY_PROMPT_FILE"
echo "env: $(env | grep '^S_' | tr '\n' ' ')"
echo "secrets: $1 $DB_PASS $S_TOKEN $S_BRANCH $S_DANGER $S_TOOL $S_PATTERN $S_MODEL $S_DESC $S_INSTR $S_GIT_NAME $S_GIT_MAIL $S_GH_TOKEN"
