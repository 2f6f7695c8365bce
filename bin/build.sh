# The launcher's one rule for "the CLI jar is out of date": the parent pom, or any module's pom or
# main source (every module the parent pom lists), is newer than the jar. Sourced by the launcher (bin/colony-jvm).
# colony_jar_stale ROOT JAR: success (0) when JAR is missing or out of date, or when a build the
# launcher began did not finish (JAR.building is still there: it was killed, by Ctrl-C or by an agent
# host that gave up waiting for `colony mcp`, or failed), which may have left Maven's plain jar, or
# one cut short, newer than every source.
colony_jar_stale() {
  local root="$1" jar="$2" modules=() m
  [ -f "$jar" ] || return 0
  [ -e "$jar.building" ] && return 0
  while IFS= read -r m; do
    [ -n "$m" ] && [ -d "$root/$m" ] && modules+=("$root/$m")
  done < <(sed -n 's:.*<module>[[:space:]]*\([^<[:space:]]*\)[[:space:]]*</module>.*:\1:p' "$root/pom.xml")
  [ -n "$(find "$root/pom.xml" "${modules[@]}" \( -name pom.xml -o -path '*/src/main/*' \) \
      -newer "$jar" -print -quit 2>/dev/null)" ]
}
