#!/usr/bin/env bash
# The sandbox's tools, Debian packages (docs/security.md):
#   - bubblewrap (/usr/bin/bwrap): the walls around every session;
#   - socat (/usr/bin/socat): inside a session, the bridge from the proxy port on the sandbox's own
#     loopback to the worker's egress proxy.
# Sourced by ./colony (colony_check_sandbox: one line saying what to install when they are missing)
# and ./run-tests (colony_install_sandbox: installs them with apt-get, as root or with sudo).
# Run directly (bin/sandbox.sh) it installs them.

COLONY_SANDBOX_PACKAGES="bubblewrap socat"

# The packages missing on this machine (empty when none, or when this is not Linux).
colony_sandbox_missing() {
  local missing=""
  [ "$(uname -s)" = Linux ] || return 0
  [ -x /usr/bin/bwrap ] || missing="bubblewrap"
  [ -x /usr/bin/socat ] || missing="${missing:+$missing }socat"
  echo "$missing"
}

# Says what to install when something is missing; never fails (the worker refuses sandboxed
# sessions itself, with the same fix, and an ant with sandbox: off needs neither).
colony_check_sandbox() {
  local missing
  missing="$(colony_sandbox_missing)"
  [ -z "$missing" ] && return 0
  echo "colony: the session sandbox needs $missing (Debian packages): run 'sudo apt-get install $missing'" \
    "or bin/sandbox.sh; until then sandboxed sessions are refused (sandbox: off opts out, docs/security.md)." >&2
  return 0
}

# Installs what is missing with apt-get (root, or sudo without a password); returns 1 otherwise.
colony_install_sandbox() {
  local missing sudo=""
  missing="$(colony_sandbox_missing)"
  [ -z "$missing" ] && return 0
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    echo "colony: installing $missing for the session sandbox (apt-get)..." >&2
    # shellcheck disable=SC2086
    { $sudo apt-get install -y -qq $missing || { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing; }; } \
      >/tmp/colony-apt-sandbox.log 2>&1 || { echo "colony: apt-get install $missing failed; see /tmp/colony-apt-sandbox.log" >&2; return 1; }
    return 0
  fi
  echo "colony: the session sandbox needs $missing (Debian packages); install them first (sudo apt-get install $missing)." >&2
  return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  colony_install_sandbox
fi
