#!/usr/bin/env bash
# Sourced by ./run-tests (or run directly: bin/claude.sh prints the path). Not needed by
# `./colony` itself: an ant with `engine: claude` uses the CLI its worker finds (COLONY_CLAUDE_BIN
# or `claude` on PATH); this is the pinned copy the tests run against the fake Anthropic API.
# Finds the Claude Code CLI:
#   1. $COLONY_CLAUDE_BIN when it points at an executable,
#   2. the project-local copy under .tools/ (git-ignored),
#   3. otherwise installs the pinned @anthropic-ai/claude-code from the npm registry into
#      .tools/claude-code-<version>/ with `npm install --prefix`. Never a global install.
# The package ships the CLI as one native program (an optional dependency per platform), so
# npm (Node.js) is needed to install it, not to run it.
# On success exports COLONY_CLAUDE_BIN; on failure prints one line saying why and returns 1.

COLONY_CLAUDE_CODE_VERSION="2.1.332"

colony_find_claude() {
  local root prefix bin
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  prefix="$root/.tools/claude-code-$COLONY_CLAUDE_CODE_VERSION"
  bin="$prefix/node_modules/.bin/claude"
  if [ -n "${COLONY_CLAUDE_BIN:-}" ] && [ -x "$COLONY_CLAUDE_BIN" ]; then
    export COLONY_CLAUDE_BIN
    return 0
  fi
  if [ -x "$bin" ]; then
    export COLONY_CLAUDE_BIN="$bin"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "colony: no Claude Code CLI: npm is not available to install @anthropic-ai/claude-code@$COLONY_CLAUDE_CODE_VERSION (install Node.js 22+ with npm, e.g. Debian's nodejs and npm packages, or point COLONY_CLAUDE_BIN at a claude CLI)." >&2
    return 1
  fi
  echo "colony: installing the Claude Code CLI (@anthropic-ai/claude-code@$COLONY_CLAUDE_CODE_VERSION from npm) into $prefix ..." >&2
  mkdir -p "$root/.tools"
  local log="$root/.tools/claude-code-install.log"
  # One installer at a time (run-tests and a test may race on a fresh clone).
  (
    if command -v flock >/dev/null 2>&1; then flock 8; fi
    [ -x "$bin" ] && exit 0
    rm -rf "$prefix.partial"
    mkdir -p "$prefix.partial" \
      && npm install --prefix "$prefix.partial" --no-audit --no-fund --no-save --loglevel=error \
           "@anthropic-ai/claude-code@$COLONY_CLAUDE_CODE_VERSION" >"$log" 2>&1 \
      && "$prefix.partial/node_modules/.bin/claude" --version >>"$log" 2>&1 \
      || exit 1
    # npm's links under node_modules/.bin are relative: the finished tree moves as a whole.
    mv "$prefix.partial" "$prefix" && { [ -x "$bin" ] || exit 1; }
  ) 8>"$root/.tools/.install-claude.lock"
  if [ -x "$bin" ]; then
    export COLONY_CLAUDE_BIN="$bin"
    echo "colony: installed Claude Code $("$COLONY_CLAUDE_BIN" --version 2>/dev/null | head -n 1)" >&2
    return 0
  fi
  echo "colony: could not install @anthropic-ai/claude-code@$COLONY_CLAUDE_CODE_VERSION with npm (see $log: the npm registry unreachable, or no build for this platform)." >&2
  return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  colony_find_claude
  echo "$COLONY_CLAUDE_BIN"
fi
