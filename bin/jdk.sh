# Sourced by the launcher (bin/colony-jvm), ./run-tests and .ci/run: exports JAVA_HOME pointing at a JDK 21+.
# Order: $JAVA_HOME, the java on PATH, then the usual JVM install directories (newest first).

colony_java_major() {
  # prints the feature version of the java binary given as $1 (e.g. 17, 21, 25). Read from the
  # JDK's release file when it has one (no JVM started: a tenth of a second off every command),
  # else asked of the binary itself.
  local release="${1%/bin/java}/release" v=""
  if [ -f "$release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9.]*\).*/\1/p' "$release" | head -n 1 | sed 's/^1\.//; s/\..*//')
  fi
  if [ -z "$v" ]; then
    v=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9.]*\).*/\1/p' | head -n 1 | sed 's/^1\.//')
  fi
  echo "$v"
}

colony_find_jdk() {
  local candidates=() c v
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    c=$(readlink -f "$(command -v java)" 2>/dev/null) && candidates+=("${c%/bin/java}")
  fi
  for c in $(ls -d /usr/lib/jvm/* /opt/java/* /opt/jdk* /Library/Java/JavaVirtualMachines/*/Contents/Home "$HOME"/.sdkman/candidates/java/* 2>/dev/null | sort -rV); do
    candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    v=$(colony_java_major "$c/bin/java")
    if [ -n "$v" ] && [ "$v" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$c"
      export COLONY_JAVA_MAJOR="$v"
      return 0
    fi
  done
  echo "colony: no JDK 21 or newer found (looked at \$JAVA_HOME, java on PATH and /usr/lib/jvm)." >&2
  echo "colony: install one (e.g. 'apt-get install openjdk-21-jdk' or https://adoptium.net) or set JAVA_HOME to it." >&2
  return 1
}

# JVM flags for running the Colony jar on the JDK found. Native access is granted by the jar's
# manifest; protobuf uses sun.misc.Unsafe, which JDK 24+ warn about unless allowed explicitly.
# $1 (optional): a class-data-sharing archive the JVM creates on first use and maps afterwards,
# which takes about a third off every CLI call (recreated by itself when the jar changes).
colony_jvm_flags() {
  # The JVM's own messages (a VM warning) go to stderr: stdout is the command's (status --json,
  # the MCP protocol of colony mcp).
  local flags="-XX:+DisplayVMOutputToStderr"
  if [ -n "${1:-}" ]; then
    flags="$flags -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=$1 -Xlog:cds=off -Xlog:cds+dynamic=off"
  fi
  if [ "${COLONY_JAVA_MAJOR:-21}" -ge 23 ] 2>/dev/null; then
    flags="$flags --sun-misc-unsafe-memory-access=allow"
  fi
  echo "$flags"
}

# Maven itself runs on the JDK found; keep JDK 24+ from warning about its use of Unsafe.
colony_maven_opts() {
  if [ "${COLONY_JAVA_MAJOR:-21}" -ge 23 ] 2>/dev/null; then
    case " ${MAVEN_OPTS:-} " in
      *sun-misc-unsafe-memory-access*) ;;
      *) export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" ;;
    esac
  fi
}
