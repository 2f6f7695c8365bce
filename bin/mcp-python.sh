#!/usr/bin/env bash
# Sourced by ./run-tests (or run directly: bin/mcp-python.sh prints the path of its python).
# The official MCP Python SDK (PyPI `mcp`, pinned), the client nobody here wrote that McpIT drives
# `colony mcp` with: installed into a git-ignored venv under .tools/ with `python3 -m venv` + pip,
# never globally. On success exports COLONY_MCP_PYTHON (the venv's python); on failure prints one
# line saying why and returns 1.

COLONY_MCP_PYTHON_VERSION="2.3.0"

colony_find_mcp_python() {
  local root venv
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  venv="$root/.tools/mcp-python-$COLONY_MCP_PYTHON_VERSION"
  if [ -n "${COLONY_MCP_PYTHON:-}" ] && [ -x "$COLONY_MCP_PYTHON" ]; then
    export COLONY_MCP_PYTHON
    return 0
  fi
  if [ -x "$venv/bin/python" ]; then
    export COLONY_MCP_PYTHON="$venv/bin/python"
    return 0
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    echo "colony: python3 is not available to install the MCP Python SDK (mcp==$COLONY_MCP_PYTHON_VERSION) for McpIT." >&2
    return 1
  fi
  echo "colony: installing the MCP Python SDK (mcp==$COLONY_MCP_PYTHON_VERSION from PyPI) into $venv ..." >&2
  mkdir -p "$root/.tools"
  local log="$root/.tools/mcp-python-install.log"
  (
    if command -v flock >/dev/null 2>&1; then flock 8; fi
    [ -x "$venv/bin/python" ] && exit 0
    rm -rf "$venv.partial"
    python3 -m venv "$venv.partial" >"$log" 2>&1 \
      && "$venv.partial/bin/python" -m pip install --disable-pip-version-check -q \
           "mcp==$COLONY_MCP_PYTHON_VERSION" >>"$log" 2>&1 \
      && "$venv.partial/bin/python" -c "import mcp.client.stdio" >>"$log" 2>&1 \
      || exit 1
    # Only its python is used (never a script of its bin/, which would name the old path): moving it is safe.
    mv "$venv.partial" "$venv"
  ) 8>"$root/.tools/.install.lock"
  if [ -x "$venv/bin/python" ]; then
    export COLONY_MCP_PYTHON="$venv/bin/python"
    return 0
  fi
  echo "colony: could not install mcp==$COLONY_MCP_PYTHON_VERSION with python3 -m venv + pip (see $log)." >&2
  return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  colony_find_mcp_python
  echo "$COLONY_MCP_PYTHON"
fi
