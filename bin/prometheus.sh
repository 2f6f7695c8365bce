#!/usr/bin/env bash
# Sourced by ./run-tests (or run directly: bin/prometheus.sh installs, then prints the two paths).
# Not needed by `./colony` itself: the tests of observability/ (the alert rules under
# `promtool test rules`, the dashboard's queries against a real Prometheus in ObservabilityIT)
# run Debian's `prometheus` package, whose /usr/bin/prometheus and /usr/bin/promtool they start
# themselves (a temporary directory, 127.0.0.1 and a free port); the package's own service is
# never used. When the binaries are missing and apt-get can run (as root, or with password-less
# sudo), the package is installed; otherwise one line says what to install.
# On success exports COLONY_TEST_PROMETHEUS and COLONY_TEST_PROMTOOL; else returns 1.

colony_find_prometheus() {
  local prom="${COLONY_TEST_PROMETHEUS:-/usr/bin/prometheus}" tool="${COLONY_TEST_PROMTOOL:-/usr/bin/promtool}" sudo=""
  if [ -x "$prom" ] && [ -x "$tool" ]; then
    export COLONY_TEST_PROMETHEUS="$prom" COLONY_TEST_PROMTOOL="$tool"
    return 0
  fi
  prom=/usr/bin/prometheus tool=/usr/bin/promtool
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    echo "colony: installing Prometheus for the observability tests (Debian's prometheus, apt-get)..." >&2
    local log="${TMPDIR:-/tmp}/colony-apt-prometheus.log"
    # The package's service is not wanted (the tests run their own Prometheus): no recommended
    # packages (the node exporter), and where systemd runs, the service the package enabled is
    # stopped and disabled again; where no init system runs (containers, CI) it never starts.
    if { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus \
        && { ! [ -d /run/systemd/system ] || $sudo systemctl disable --now prometheus || true; }; } >"$log" 2>&1 \
        && [ -x "$prom" ] && [ -x "$tool" ]; then
      export COLONY_TEST_PROMETHEUS="$prom" COLONY_TEST_PROMTOOL="$tool"
      return 0
    fi
    echo "colony: apt-get could not install prometheus (it ships /usr/bin/prometheus and /usr/bin/promtool); see $log" >&2
    return 1
  fi
  echo "colony: the observability tests need Prometheus and promtool: install Debian's prometheus package (sudo apt-get install prometheus), or set COLONY_TEST_PROMETHEUS and COLONY_TEST_PROMTOOL to the two binaries." >&2
  return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  colony_find_prometheus
  echo "$COLONY_TEST_PROMETHEUS"
  echo "$COLONY_TEST_PROMTOOL"
fi
