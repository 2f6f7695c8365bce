# Sourced by the launcher (bin/colony-jvm) and ./run-tests (or run directly: bin/sandbox.sh installs and reports).
# Every agent session runs in a bubblewrap sandbox (docs/security.md); its network goes through
# the worker's proxy, bridged inside the sandbox by socat. Both are Debian packages: when one is
# missing and apt-get can run (as root, or with password-less sudo), they are installed; otherwise
# one line says what to install. Returns 1 when the sandbox's tools are still missing.

COLONY_SANDBOX_PACKAGES="bubblewrap socat"

colony_find_sandbox() {
  local missing="" sudo=""
  command -v bwrap >/dev/null 2>&1 || [ -x /usr/bin/bwrap ] || missing="$missing bubblewrap"
  command -v socat >/dev/null 2>&1 || [ -x /usr/bin/socat ] || missing="$missing socat"
  [ -z "$missing" ] && return 0
  case "$(uname -s)" in Linux) ;; *)
    echo "colony: agent sessions are sandboxed with bubblewrap, which needs Linux; on this system set sandbox: off (docs/security.md)." >&2
    return 1 ;;
  esac
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    echo "colony: installing the sandbox's tools ($missing ) with apt-get..." >&2
    local log="${TMPDIR:-/tmp}/colony-apt-sandbox.log"
    if { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing; } >"$log" 2>&1; then
      return 0
    fi
    echo "colony: apt-get could not install$missing; see $log" >&2
    return 1
  fi
  echo "colony: agent sessions run in a sandbox, and this machine lacks$missing: install it (sudo apt-get install$missing), or set sandbox: off for trusted agents (docs/security.md). Until then each ant pauses at its first session." >&2
  return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  colony_find_sandbox
fi
