#!/usr/bin/env bash
# A production-shaped Temporal on this machine, run by the project (see docs/operations.md,
# "Running on a Temporal cluster"):
#   - the full Temporal server built from its Go module (pinned below) into .tools/, git-ignored;
#   - PostgreSQL (Debian's packages; installed with apt-get when missing) for persistence and
#     SQL visibility;
#   - frontend, history, matching and worker as separate processes, 8 history shards, plus an
#     internal-frontend that the system worker uses, so public frontends may require credentials;
#   - mTLS on the frontend, with a CA and certificates generated here;
#   - a second frontend that takes API keys (JWTs checked against a local JWKS, server TLS only),
#     the way Temporal Cloud's API-key endpoint works;
#   - the Temporal Web UI pointed at the mTLS frontend.
#
# Usage: bin/cluster.sh build | up | postgres | down | status | env | config | token [PERMISSION...] |
#                       kill SERVICE | start SERVICE | logs SERVICE
# Settings (environment): COLONY_CLUSTER_DIR (state: certificates, database, logs; default
# .colony/cluster), COLONY_CLUSTER_PORT (the mTLS frontend's port; default 7433; every other port
# is derived from it, see ports()).
set -euo pipefail

COLONY_TEMPORAL_SERVER_VERSION="v1.32.2"
COLONY_TEMPORAL_UI_VERSION="v2.54.1"          # the Web UI the pinned temporal CLI embeds
COLONY_GO_TOOLCHAIN="go1.27.3"                # v1.32.2 needs Go >= 1.26.10
COLONY_CLUSTER_SHARDS=8
SERVICES="frontend internal-frontend history matching worker frontend-apikey"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools/temporal-server-$COLONY_TEMPORAL_SERVER_VERSION"
state="${COLONY_CLUSTER_DIR:-$root/.colony/cluster}"
base="${COLONY_CLUSTER_PORT:-7433}"

say() { echo "cluster: $*" >&2; }
die() { echo "cluster: $*" >&2; exit 1; }

ports() {
  FRONTEND_PORT=$base                   # mTLS, no authorizer
  HISTORY_PORT=$((base + 1))
  MATCHING_PORT=$((base + 2))
  INTERNAL_PORT=$((base + 3))           # internal-frontend: the system worker's way in
  APIKEY_PORT=$((base + 4))             # TLS + API keys (JWT)
  WORKER_PORT=$((base + 6))
  FRONTEND_HTTP=$((base + 10))
  APIKEY_HTTP=$((base + 14))
  MEMBERSHIP=$((base + 100))            # +0..+6, one per service
  PG_PORT=$((base + 50))
  UI_PORT=$((base + 1000))
}
ports

# ---------------------------------------------------------------- build
# Go: the one on PATH when it can fetch toolchains (>= 1.21), else the pinned toolchain itself,
# taken from the Go module proxy (the same zip the go command fetches) into .tools/.
go_env() {
  export GOTOOLCHAIN="$COLONY_GO_TOOLCHAIN"
  export GOFLAGS="${GOFLAGS:--mod=mod}"
  local v
  if command -v go >/dev/null 2>&1; then
    v=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
    [ -n "$v" ] && [ "$v" -ge 21 ] && return 0
  fi
  local gohome="$root/.tools/$COLONY_GO_TOOLCHAIN"
  if [ ! -x "$gohome/bin/go" ]; then
    local arch os url
    case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;; *) die "no Go toolchain for $(uname -m)" ;; esac
    os=$(uname -s | tr '[:upper:]' '[:lower:]')
    url="${GOPROXY_URL:-https://proxy.golang.org}/golang.org/toolchain/@v/v0.0.1-$COLONY_GO_TOOLCHAIN.$os-$arch.zip"
    say "no Go >= 1.21 here: fetching $COLONY_GO_TOOLCHAIN from the Go module proxy..."
    python3 - "$url" "$gohome" <<'PY' || die "could not fetch the Go toolchain from $url"
import io, os, stat, sys, urllib.request, zipfile
url, dest = sys.argv[1], sys.argv[2]
data = urllib.request.urlopen(url, timeout=300).read()
tmp = dest + ".partial"
with zipfile.ZipFile(io.BytesIO(data)) as z:
    for info in z.infolist():
        # entries are golang.org/toolchain@VERSION/...: keep what is below that
        parts = info.filename.split("/", 2)
        name = parts[2] if len(parts) == 3 else ""
        if not name or name.endswith("/"):
            continue
        path = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(z.read(info))
        mode = (info.external_attr >> 16) & 0o777
        os.chmod(path, mode or (0o755 if "/bin/" in "/" + name or "/tool/" in name else 0o644))
os.rename(tmp, dest)
PY
  fi
  export PATH="$gohome/bin:$PATH"
  export GOTOOLCHAIN=local
}

build() {
  if [ -x "$tools/bin/temporal-server" ] && [ -x "$tools/bin/temporal-sql-tool" ] && [ -x "$tools/bin/temporal-ui-server" ] \
      && [ -d "$tools/schema/postgresql" ]; then
    return 0
  fi
  mkdir -p "$root/.tools"
  (
    command -v flock >/dev/null 2>&1 && flock 8
    if [ -x "$tools/bin/temporal-server" ] && [ -x "$tools/bin/temporal-sql-tool" ] && [ -x "$tools/bin/temporal-ui-server" ] \
        && [ -d "$tools/schema/postgresql" ]; then
      exit 0
    fi
    go_env
    local_tmp="$tools.partial"
    rm -rf "$local_tmp"
    mkdir -p "$local_tmp/bin"
    log="$root/.tools/temporal-server-build.log"
    say "building Temporal server $COLONY_TEMPORAL_SERVER_VERSION and its SQL tool from the Go module (about 4 minutes the first time; log: $log)..."
    start=$(date +%s)
    if ! GOBIN="$local_tmp/bin" go install \
        "go.temporal.io/server/cmd/server@$COLONY_TEMPORAL_SERVER_VERSION" \
        "go.temporal.io/server/cmd/tools/sql@$COLONY_TEMPORAL_SERVER_VERSION" >"$log" 2>&1; then
      tail -n 5 "$log" >&2
      die "building the Temporal server failed (log: $log)"
    fi
    say "building the Temporal Web UI server $COLONY_TEMPORAL_UI_VERSION..."
    if ! GOBIN="$local_tmp/ui" go install "github.com/temporalio/ui-server/v2/cmd/server@$COLONY_TEMPORAL_UI_VERSION" >>"$log" 2>&1; then
      tail -n 5 "$log" >&2
      die "building the Temporal Web UI server failed (log: $log)"
    fi
    mv "$local_tmp/bin/server" "$local_tmp/bin/temporal-server"
    mv "$local_tmp/bin/sql" "$local_tmp/bin/temporal-sql-tool"
    mv "$local_tmp/ui/server" "$local_tmp/bin/temporal-ui-server"
    # The SQL schema ships with the module; keep a copy beside the binaries (the module cache
    # may be cleaned).
    modroot="$(go env GOMODCACHE)/go.temporal.io/server@$COLONY_TEMPORAL_SERVER_VERSION"
    mkdir -p "$local_tmp/schema"
    cp -r "$modroot/schema/postgresql" "$local_tmp/schema/"
    chmod -R u+w "$local_tmp/schema"
    rm -rf "$tools"
    mv "$local_tmp" "$tools"
    say "built in $(( $(date +%s) - start )) s: $tools/bin"
  ) 8>"$root/.tools/.server-build.lock"
}

# ---------------------------------------------------------------- PostgreSQL
pg_bin() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return 0
  fi
  return 1
}

# Machine-wide, one at a time: installing PostgreSQL and adding the postgres user. Several clusters
# may come up at once (the integration tests run in parallel JVMs; other clones on this machine),
# and a second apt-get or useradd at the same moment fails instead of waiting.
machine_lock() {
  command -v flock >/dev/null 2>&1 || return 0
  exec 7>>"${TMPDIR:-/tmp}/colony-cluster-setup.lock"
  flock 7
}
machine_unlock() {
  command -v flock >/dev/null 2>&1 || return 0
  flock -u 7
  exec 7>&-
}

ensure_postgres() {
  if PG_BIN=$(pg_bin); then return 0; fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    machine_lock
    if ! PG_BIN=$(pg_bin); then
      say "installing PostgreSQL (Debian's postgresql package, apt-get)..."
      { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql; } \
        >/tmp/colony-apt-postgresql.log 2>&1 || die "apt-get install postgresql failed; see /tmp/colony-apt-postgresql.log"
      PG_BIN=$(pg_bin) || die "PostgreSQL installed, but initdb/pg_ctl were not found under /usr/lib/postgresql"
    fi
    machine_unlock
  else
    die "PostgreSQL's server binaries (initdb, pg_ctl) are missing: install Debian's postgresql package first."
  fi
}

pg_password() {
  mkdir -p "$state/pg"
  if [ ! -s "$state/pg/password" ]; then
    head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$state/pg/password"
    chmod 600 "$state/pg/password"
  fi
}

# PostgreSQL refuses to run as root: as root, its files belong to the postgres user.
pg_user() {
  id postgres >/dev/null 2>&1 && return 0
  machine_lock
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
  machine_unlock
}

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    pg_user
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# Where PostgreSQL's own files live (data directory, socket, log): $state/pg, unless the postgres
# user cannot reach that (as root, with the state under a 0700 directory: a clone in root's home
# directory or in any mktemp -d folder; initdb then failed with "Permission denied"). Then they
# get a directory of their own under /var/lib/colony-cluster, one per state directory.
pg_dir() {
  if [ "$(id -u)" -eq 0 ]; then
    pg_user
    if ! runuser -u postgres -- test -x "$state" 2>/dev/null; then
      echo "/var/lib/colony-cluster/pg-$(printf '%s' "$state" | cksum | cut -d' ' -f1)"
      return 0
    fi
  fi
  echo "$state/pg"
}

pg_up() {
  ensure_postgres
  local pgd; pgd="$(pg_dir)"
  local data="$pgd/data" sock="$pgd/run"
  if [ "$pgd" != "$state/pg" ]; then
    install -d -m 0755 "$(dirname "$pgd")"
    install -d -m 0700 "$pgd"
    say "the postgres user cannot reach $state: PostgreSQL's files are in $pgd"
    # Those files outlive the state directory: a new clone at the same path (a CI checkout, a
    # "git clean") finds the database of the one before, whose password it no longer has. Without
    # the password here, they are that earlier checkout's: start them afresh.
    if [ -f "$data/PG_VERSION" ] && [ ! -s "$state/pg/password" ]; then
      say "$pgd belongs to an earlier checkout at this path (its password is gone): starting it afresh"
      as_pg "$PG_BIN/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
      rm -rf "$pgd"
      install -d -m 0700 "$pgd"
    fi
  fi
  if [ ! -f "$data/PG_VERSION" ]; then
    pg_password
    [ "$(id -u)" -eq 0 ] && chown -R postgres "$pgd"
    cp "$state/pg/password" "$pgd/superuser.pw"
    [ "$(id -u)" -eq 0 ] && chown postgres "$pgd/superuser.pw"
    as_pg "$PG_BIN/initdb" -D "$data" -U postgres --pwfile="$pgd/superuser.pw" \
      --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 >"$state/pg/initdb.log" 2>&1 \
      || die "initdb failed (see $state/pg/initdb.log)"
    rm -f "$pgd/superuser.pw"
    cat >>"$data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$sock'
max_connections = 300
shared_buffers = 256MB
EOF
  fi
  mkdir -p "$sock"
  [ "$(id -u)" -eq 0 ] && chown postgres "$sock"
  if ! as_pg "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_pg "$PG_BIN/pg_ctl" -D "$data" -l "$pgd/postgres.log" -w -t 60 start >/dev/null \
      || die "PostgreSQL did not start (see $pgd/postgres.log)"
  fi
  export PGPASSWORD; PGPASSWORD="$(cat "$state/pg/password")"
  if ! as_pg env PGPASSWORD="$PGPASSWORD" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_roles WHERE rolname='temporal'" | grep -q 1; then
    as_pg env PGPASSWORD="$PGPASSWORD" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -q -c \
      "CREATE ROLE temporal LOGIN CREATEDB PASSWORD '$PGPASSWORD'" >/dev/null
  fi
}

schema() {
  local sql=("$tools/bin/temporal-sql-tool" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u temporal --pw "$PGPASSWORD")
  local db dir
  for db in temporal temporal_visibility; do
    dir=temporal; [ "$db" = temporal_visibility ] && dir=visibility
    "${sql[@]}" --db "$db" create-database >/dev/null 2>&1 || true   # exists already on a second up
    if ! "${sql[@]}" --db "$db" update-schema -d "$tools/schema/postgresql/v12/$dir/versioned" >"$state/logs/schema-$db.log" 2>&1; then
      "${sql[@]}" --db "$db" setup-schema -v 0.0 >>"$state/logs/schema-$db.log" 2>&1 \
        && "${sql[@]}" --db "$db" update-schema -d "$tools/schema/postgresql/v12/$dir/versioned" >>"$state/logs/schema-$db.log" 2>&1 \
        || die "the $db schema could not be set up (see $state/logs/schema-$db.log)"
    fi
  done
}

# ---------------------------------------------------------------- certificates
certs() {
  local c="$state/certs"
  [ -f "$c/client.pem" ] && [ -f "$c/jwks.json" ] && return 0
  command -v openssl >/dev/null 2>&1 || die "openssl is needed to create the cluster's certificates"
  mkdir -p "$c"
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  openssl req -x509 "${ec[@]}" -keyout "$c/ca.key" -out "$c/ca.pem" -days 3650 -subj "/CN=Colony cluster CA" 2>/dev/null
  leaf() { # name, CN, extensions
    openssl req "${ec[@]}" -keyout "$c/$1.key" -out "$c/$1.csr" -subj "/CN=$2" 2>/dev/null
    printf '%s\n' "$3" >"$c/$1.ext"
    openssl x509 -req -in "$c/$1.csr" -CA "$c/ca.pem" -CAkey "$c/ca.key" -CAcreateserial -days 825 \
      -extfile "$c/$1.ext" -out "$c/$1.pem" 2>/dev/null
    rm -f "$c/$1.csr" "$c/$1.ext"
  }
  leaf frontend "localhost" "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
  leaf client "colony-worker" "extendedKeyUsage=clientAuth"
  leaf ui "temporal-ui" "extendedKeyUsage=clientAuth"
  # The API-key frontend checks JWTs signed by this key, published as a local JWKS.
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$c/jwt.key" 2>/dev/null
  local modulus
  modulus=$(openssl rsa -in "$c/jwt.key" -noout -modulus | cut -d= -f2)
  python3 - "$modulus" >"$c/jwks.json" <<'PY'
import base64, json, sys
n = bytes.fromhex(sys.argv[1])
enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
print(json.dumps({"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "colony-cluster", "n": enc(n), "e": "AQAB"}]}))
PY
  chmod 600 "$c"/*.key
}

b64url() { base64 | tr -d '\n=' | tr '+/' '-_'; }

# A JWT the API-key frontend accepts: token [PERMISSION...] (default: default:admin), valid 24 h.
token() {
  local perms=("$@") json now
  [ ${#perms[@]} -eq 0 ] && perms=("default:admin")
  json=$(printf '"%s",' "${perms[@]}"); json="[${json%,}]"
  now=$(date +%s)
  local header payload signature
  header=$(printf '{"alg":"RS256","typ":"JWT","kid":"colony-cluster"}' | b64url)
  payload=$(printf '{"sub":"colony","permissions":%s,"iat":%d,"exp":%d}' "$json" "$now" $((now + 86400)) | b64url)
  signature=$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -sign "$state/certs/jwt.key" | b64url)
  printf '%s.%s.%s\n' "$header" "$payload" "$signature"
}

# ---------------------------------------------------------------- configuration
write_config() {
  local file="$1" frontend_port="$2" frontend_http="$3" membership_frontend="$4" require_client="$5" auth="$6"
  local pw; pw="$(cat "$state/pg/password")"
  cat >"$file" <<EOF
# Written by bin/cluster.sh; the same topology as docker-compose.temporal.yml.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: $COLONY_CLUSTER_SHARDS
  datastores:
    postgres-default:
      sql:
        pluginName: postgres12
        databaseName: temporal
        connectAddr: "127.0.0.1:$PG_PORT"
        connectProtocol: tcp
        user: temporal
        password: "$pw"
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h
    postgres-visibility:
      sql:
        pluginName: postgres12
        databaseName: temporal_visibility
        connectAddr: "127.0.0.1:$PG_PORT"
        connectProtocol: tcp
        user: temporal
        password: "$pw"
        maxConns: 10
        maxIdleConns: 10
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  tls:
    frontend:
      server:
        certFile: $state/certs/frontend.pem
        keyFile: $state/certs/frontend.key
        requireClientAuth: $require_client
        clientCaFiles: [$state/certs/ca.pem]
      client:
        serverName: localhost
        rootCaFiles: [$state/certs/ca.pem]
EOF
  if [ "$auth" = jwt ]; then
    cat >>"$file" <<EOF
  authorization:
    authorizer: default
    claimMapper: default
    permissionsClaimName: permissions
    jwtKeyProvider:
      keySourceURIs: ["file://$state/certs/jwks.json"]
      refreshInterval: 1m
EOF
  fi
  cat >>"$file" <<EOF
services:
  frontend:
    rpc: {grpcPort: $frontend_port, membershipPort: $membership_frontend, bindOnLocalHost: true, httpPort: $frontend_http}
  internal-frontend:
    rpc: {grpcPort: $INTERNAL_PORT, membershipPort: $((MEMBERSHIP + 3)), bindOnLocalHost: true}
  history:
    rpc: {grpcPort: $HISTORY_PORT, membershipPort: $((MEMBERSHIP + 1)), bindOnLocalHost: true}
  matching:
    rpc: {grpcPort: $MATCHING_PORT, membershipPort: $((MEMBERSHIP + 2)), bindOnLocalHost: true}
  worker:
    rpc: {grpcPort: $WORKER_PORT, membershipPort: $((MEMBERSHIP + 6)), bindOnLocalHost: true}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "localhost:$FRONTEND_PORT"
      httpAddress: "localhost:$FRONTEND_HTTP"
dcRedirectionPolicy:
  policy: noop
archival:
  history: {state: disabled}
  visibility: {state: disabled}
namespaceDefaults:
  archival:
    history: {state: disabled}
    visibility: {state: disabled}
dynamicConfigClient:
  filepath: $state/dynamicconfig.yaml
  pollInterval: 10s
EOF
}

write_configs() {
  mkdir -p "$state/logs" "$state/pids"
  # Tasks reach matching as soon as they are written (the default, 20 reads a second, holds a
  # signal's workflow task up to 50 ms). Not set, unlike the dev server:
  # system.forceSearchAttributesCacheRefreshOnRead, which reads cluster metadata on every
  # visibility call and had listings of 10,000 ants refused ("System Persistence Max QPS Reached").
  cat >"$state/dynamicconfig.yaml" <<'EOF'
history.transferProcessorMaxPollRPS:
  - value: 1000
frontend.enableUpdateWorkflowExecution:
  - value: true
EOF
  write_config "$state/cluster.yaml" "$FRONTEND_PORT" "$FRONTEND_HTTP" "$MEMBERSHIP" true none
  write_config "$state/frontend-apikey.yaml" "$APIKEY_PORT" "$APIKEY_HTTP" $((MEMBERSHIP + 4)) false jwt
  mkdir -p "$state/ui"
  cat >"$state/ui/development.yaml" <<EOF
temporalGrpcAddress: 127.0.0.1:$FRONTEND_PORT
host: 127.0.0.1
port: $UI_PORT
enableUi: true
cors:
  allowOrigins: ["http://localhost:$UI_PORT"]
tls:
  caFile: $state/certs/ca.pem
  certFile: $state/certs/ui.pem
  keyFile: $state/certs/ui.key
  serverName: localhost
  enableHostVerification: true
defaultNamespace: default
auth:
  enabled: false
EOF
  # A temporal.toml profile for the colony CLI and the temporal CLI alike.
  cat >"$state/temporal.toml" <<EOF
[profile.cluster]
address = "localhost:$FRONTEND_PORT"
namespace = "default"
[profile.cluster.tls]
client_cert_path = "$state/certs/client.pem"
client_key_path = "$state/certs/client.key"
server_ca_cert_path = "$state/certs/ca.pem"

[profile.cluster-apikey]
address = "localhost:$APIKEY_PORT"
namespace = "default"
[profile.cluster-apikey.tls]
server_ca_cert_path = "$state/certs/ca.pem"
EOF
}

# ---------------------------------------------------------------- processes
pid_of() { local f="$state/pids/$1.pid"; [ -f "$f" ] && cat "$f"; }
# Alive, and still ours: after a reboot the recorded pid may belong to another program.
alive() {
  local p; p=$(pid_of "$1") && [ -n "$p" ] && kill -0 "$p" 2>/dev/null \
    && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "temporal-"
}

start_service() {
  local svc="$1" config="$state/cluster.yaml" as="$1"
  alive "$svc" && return 0
  case "$svc" in
    frontend-apikey) config="$state/frontend-apikey.yaml"; as=frontend ;;
    ui) start_ui; return 0 ;;
    frontend|internal-frontend|history|matching|worker) ;;
    *) die "unknown service '$svc' (one of: $SERVICES ui)" ;;
  esac
  # setsid: the services outlive this script and a Ctrl-C in its terminal.
  setsid "$tools/bin/temporal-server" --config-file "$config" --allow-no-auth start --service "$as" \
    >>"$state/logs/$svc.log" 2>&1 </dev/null &
  echo $! >"$state/pids/$svc.pid"
}

start_ui() {
  alive ui && return 0
  (cd "$state/ui" && exec setsid "$tools/bin/temporal-ui-server" --root "$state/ui" --config . --env development start) \
    >>"$state/logs/ui.log" 2>&1 </dev/null &
  echo $! >"$state/pids/ui.pid"
}

stop_service() { # name, signal
  local p; p=$(pid_of "$1") || return 0
  [ -n "$p" ] && kill "-${2:-TERM}" "$p" 2>/dev/null || true
  if [ "${2:-TERM}" = TERM ]; then
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null || true
  fi
  rm -f "$state/pids/$1.pid"
}

temporal_cli() {
  . "$root/bin/temporal.sh"
  colony_find_temporal >/dev/null || die "the temporal CLI is needed to set up the namespace (bin/temporal.sh)"
  "$COLONY_TEMPORAL_CLI" "$@" --address "localhost:$FRONTEND_PORT" --tls-ca-path "$state/certs/ca.pem" \
    --tls-cert-path "$state/certs/client.pem" --tls-key-path "$state/certs/client.key" --disable-config-file
}

# The first service to meet an empty database writes the cluster's metadata record (its id, shard
# count, search attributes). Several doing it at once race for that one row, and the losers exit
# ("duplicate key ... cluster_metadata_info_pkey"): history goes first, alone, until the row is there.
await_metadata() {
  local deadline=$(( $(date +%s) + ${1:-120} ))
  until PGPASSWORD="$(cat "$state/pg/password")" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U temporal -d temporal \
      -tAc "SELECT 1 FROM cluster_metadata_info LIMIT 1" 2>/dev/null | grep -q 1; do
    alive history || { tail -n 20 "$state/logs/history.log" >&2; die "the history service exited (log: $state/logs/history.log)"; }
    [ "$(date +%s)" -ge "$deadline" ] && die "the history service wrote no cluster metadata within ${1:-120} s (log: $state/logs/history.log)"
    sleep 0.5
  done
}

# A service that exits while the cluster comes up is started again, at most twice, as a process
# supervisor (systemd, Kubernetes) would; a third exit fails 'up' with the service's log.
await_ready() {
  local deadline=$(( $(date +%s) + ${1:-120} )) svc
  declare -A restarts=()
  while :; do
    for svc in $SERVICES; do
      alive "$svc" && continue
      if [ "${restarts[$svc]:-0}" -ge 2 ]; then
        tail -n 20 "$state/logs/$svc.log" >&2
        die "the $svc service exited (log: $state/logs/$svc.log)"
      fi
      restarts[$svc]=$(( ${restarts[$svc]:-0} + 1 ))
      say "the $svc service exited while starting; starting it again (${restarts[$svc]} of 2; log: $state/logs/$svc.log)"
      start_service "$svc"
    done
    if temporal_cli operator namespace describe --namespace default >/dev/null 2>&1; then
      return 0
    fi
    if temporal_cli operator namespace create --namespace default --retention 72h >/dev/null 2>&1; then
      continue
    fi
    [ "$(date +%s)" -ge "$deadline" ] && die "the cluster did not answer within ${1:-120} s (logs: $state/logs)"
    sleep 1
  done
}

up() {
  build
  mkdir -p "$state/logs" "$state/pids"
  certs
  pg_up
  write_configs
  schema
  local svc
  start_service history
  await_metadata 120
  for svc in matching internal-frontend frontend worker frontend-apikey; do
    start_service "$svc"
  done
  await_ready 180
  start_ui
  print_summary
}

print_summary() {
  cat <<EOF
cluster: up. PostgreSQL 127.0.0.1:$PG_PORT (databases temporal, temporal_visibility), $COLONY_CLUSTER_SHARDS history shards
  frontend (mTLS):      localhost:$FRONTEND_PORT
  frontend (API keys):  localhost:$APIKEY_PORT   (key: bin/cluster.sh token)
  Web UI:               http://localhost:$UI_PORT
  profile:              TEMPORAL_CONFIG_FILE=$state/temporal.toml ./colony status --profile cluster
  state and logs:       $state
EOF
}

down() {
  local svc
  for svc in ui frontend-apikey frontend worker matching history internal-frontend; do
    stop_service "$svc" TERM
  done
  local pgd; pgd="$(pg_dir)"
  if [ -f "$pgd/data/PG_VERSION" ] && PG_BIN=$(pg_bin); then
    as_pg "$PG_BIN/pg_ctl" -D "$pgd/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ "$pgd" = "$state/pg" ]; then
    say "down (state kept in $state; 'rm -rf $state' forgets it)"
  else
    say "down (state kept in $state and $pgd; 'rm -rf $state $pgd' forgets it)"
  fi
}

status() {
  local svc rc=0
  for svc in $SERVICES ui; do
    if alive "$svc"; then printf '  %-18s running (pid %s)\n' "$svc" "$(pid_of "$svc")"; else printf '  %-18s stopped\n' "$svc"; rc=1; fi
  done
  local pgd; pgd="$(pg_dir)"
  if [ -f "$pgd/data/PG_VERSION" ] && PG_BIN=$(pg_bin) && as_pg "$PG_BIN/pg_ctl" -D "$pgd/data" status >/dev/null 2>&1; then
    printf '  %-18s running (127.0.0.1:%s)\n' postgresql "$PG_PORT"
  else
    printf '  %-18s stopped\n' postgresql; rc=1
  fi
  return $rc
}

env_lines() {
  cat <<EOF
export TEMPORAL_ADDRESS=localhost:$FRONTEND_PORT
export TEMPORAL_NAMESPACE=default
export TEMPORAL_TLS_CLIENT_CERT_PATH=$state/certs/client.pem
export TEMPORAL_TLS_CLIENT_KEY_PATH=$state/certs/client.key
export TEMPORAL_TLS_SERVER_CA_CERT_PATH=$state/certs/ca.pem
EOF
}

case "${1:-}" in
  build) build; echo "$tools/bin" ;;
  config) mkdir -p "$state/logs"; certs; pg_password; write_configs; echo "$state" ;;   # for docker-compose.temporal.yml
  up) up ;;
  postgres) mkdir -p "$state/logs"; pg_up; say "PostgreSQL up on 127.0.0.1:$PG_PORT (data in $(pg_dir)/data)" ;;
  down) down ;;
  status) status ;;
  env) env_lines ;;
  token) shift; token "$@" ;;
  kill) [ -n "${2:-}" ] || die "kill SERVICE"; stop_service "$2" KILL ;;
  start) [ -n "${2:-}" ] || die "start SERVICE"; start_service "$2" ;;
  logs) [ -n "${2:-}" ] || die "logs SERVICE"; tail -n 50 "$state/logs/$2.log" ;;
  *) echo "usage: bin/cluster.sh build | up | postgres | down | status | env | config | token [PERMISSION...] | kill SERVICE | start SERVICE | logs SERVICE" >&2; exit 2 ;;
esac
