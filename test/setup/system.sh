#!/usr/bin/env bash
# The machine the tests need, made ready: the first step of `npm test`.
#
# The tests use real system tools from Debian's packages: prometheus and
# promtool (prometheus), docker-compose v1 and the PyYAML it depends on
# (docker-compose, python3-yaml), a ZFS pool with its daemon running
# (zfs-fuse), headless Chromium (chromium), PgBouncer (pgbouncer), vmtouch
# (vmtouch: the evict-cache action; fincore comes with util-linux), and
# PostgreSQL 15's pgbench and server (postgresql-15), which must answer on
# 127.0.0.1:5432 with trust authentication and hold a database `test`.
#
# This script installs the packages that are missing (as root; without root
# it names them and fails), starts the zfs-fuse daemon when it does not
# answer, and starts (or, on a machine with none, creates) a PostgreSQL 15
# cluster on port 5432 when nothing answers there. It is idempotent: when
# everything is there it only looks, in a few hundredths of a second, and never calls
# apt-get. Any problem is one line on stderr and exit status 1.
#
# It stops nothing: no service starts during its install (a policy-rc.d
# that denies starts is put in place for the install when the machine has
# none, and removed afterwards), and the daemons it starts itself (zfs-fuse,
# PostgreSQL) are the ones the tests use, left running.
#
# kubectl (it builds deploy/k8s with kustomize) is no Debian package: when it
# is missing the script names it and fails, and installs nothing.
#
# PGLOADGEN_TEST_PG15_URL, when set, is the PostgreSQL the tests use: it is
# only checked, never started. PROMETHEUS_BIN / PROMTOOL_BIN and
# PGLOADGEN_CHROMIUM, when set, replace the packaged binaries.
set -euo pipefail
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
export PATH

say () { echo "test set-up: $*" >&2; }
die () { echo "test set-up: $*" >&2; exit 1; }
is_root () { [ "$(id -u)" -eq 0 ]; }
# A command's output goes to a log file, shown when it fails: a daemon it
# starts must not hold npm's stdout (a pipe, in CI) open.
log=$(mktemp "${TMPDIR:-/tmp}/pgloadgen-test-setup.XXXXXX")
policy_created=
cleanup () {
  if [ -n "$policy_created" ] && grep -q 'pgloadgen test set-up' /usr/sbin/policy-rc.d 2>/dev/null; then
    rm -f /usr/sbin/policy-rc.d
  fi
  rm -f "$log"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
show_log () { sed 's/^/  /' "$log" >&2; }

# --- system packages ---------------------------------------------------------

packages=()
need () { case " ${packages[*]} " in *" $1 "*) ;; *) packages+=("$1") ;; esac; }
find_missing () {
  packages=()
  if [ -z "${PROMETHEUS_BIN:-}" ] && [ ! -x /usr/bin/prometheus ]; then need prometheus; fi
  if [ -z "${PROMTOOL_BIN:-}" ] && [ ! -x /usr/bin/promtool ]; then need prometheus; fi
  command -v docker-compose >/dev/null || need docker-compose
  # test/helpers/compose.js reads YAML with Debian's python3 and PyYAML.
  [ -x /usr/bin/python3 ] && [ -f /usr/lib/python3/dist-packages/yaml/__init__.py ] || need python3-yaml
  for tool in zfs zpool zfs-fuse; do command -v "$tool" >/dev/null || need zfs-fuse; done
  if [ -z "${PGLOADGEN_CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-browser ] && [ ! -x /usr/bin/google-chrome ]; then
    need chromium
  fi
  [ -x /usr/sbin/pgbouncer ] || need pgbouncer
  # evict-cache drops pages from the page cache with vmtouch -e.
  command -v vmtouch >/dev/null || need vmtouch
  # the terminal test draws the progress line on a real terminal, tmux's.
  command -v tmux >/dev/null || need tmux
  # pgbench 15, and the server, psql, pg_isready and pg_ctlcluster with it.
  for tool in pgbench psql pg_isready; do [ -x "/usr/lib/postgresql/15/bin/$tool" ] || need postgresql-15; done
  for tool in pgbench pg_lsclusters pg_ctlcluster pg_createcluster; do command -v "$tool" >/dev/null || need postgresql-15; done
}

pg15_main_created=
install_missing () {
  find_missing
  [ ${#packages[@]} -eq 0 ] && return
  if ! is_root; then
    die "missing system packages: ${packages[*]}; install them as root: apt-get install -y --no-install-recommends ${packages[*]} (or run: sudo bash test/setup/system.sh)"
  fi
  # One install at a time (two `npm test` started together on a fresh machine).
  exec 9>/run/lock/pgloadgen-test-setup.lock
  flock 9
  find_missing
  [ ${#packages[@]} -eq 0 ] && return
  say "installing ${packages[*]} (apt-get; no service is started by the install)"
  # Debian starts a package's services on install (Prometheus, PgBouncer,
  # PostgreSQL, zfs-fuse): the tests run their own, so none is started. A
  # policy-rc.d the machine already has is left as it is.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy_created=1
    printf '#!/bin/sh\n# pgloadgen test set-up: no service starts during its apt-get install (removed afterwards).\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
  fi
  local had_pg15_main=
  [ -e /etc/postgresql/15/main/postgresql.conf ] && had_pg15_main=1
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >"$log" 2>&1 || { show_log; die "apt-get update failed"; }
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${packages[@]}" >"$log" 2>&1 \
    || { show_log; die "apt-get install ${packages[*]} failed"; }
  if [ -n "$policy_created" ]; then
    rm -f /usr/sbin/policy-rc.d
    policy_created=
  fi
  if [ -z "$had_pg15_main" ] && [ -e /etc/postgresql/15/main/postgresql.conf ]; then pg15_main_created=1; fi
  find_missing
  [ ${#packages[@]} -eq 0 ] || die "still missing after apt-get install: ${packages[*]}"
  flock -u 9
}

# --- zfs-fuse ----------------------------------------------------------------

zfs_answers () { timeout 10 zpool list >/dev/null 2>&1; }
ensure_zfs () {
  zfs_answers && return
  is_root || die "the zfs-fuse daemon does not answer (zpool list fails); start it as root: sudo bash test/setup/system.sh"
  local pidfile=/run/zfs-fuse.pid pid state
  if [ -s "$pidfile" ]; then
    pid=$(tr -dc '0-9' <"$pidfile")
    state=$( [ -n "$pid" ] && awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null || true)
    if [ -n "$state" ] && [ "$state" != Z ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = zfs-fuse ]; then
      # A live daemon that does not answer yet: it may be starting.
      for _ in $(seq 50); do zfs_answers && return; sleep 0.2; done
      die "the zfs-fuse daemon (pid $pid) runs but does not answer (zpool list fails): restart it"
    fi
    # A daemon killed with its machine (or a zombie) leaves its pid file, and
    # zfs-fuse refuses to start over it: whether it answers is the test.
    rm -f "$pidfile"
  fi
  say "starting the zfs-fuse daemon"
  setsid zfs-fuse --pidfile "$pidfile" </dev/null >"$log" 2>&1 || { show_log; die "cannot start the zfs-fuse daemon"; }
  for _ in $(seq 75); do zfs_answers && return; sleep 0.2; done
  show_log
  die "the zfs-fuse daemon does not answer (zpool list fails) 15 s after its start"
}

# --- PostgreSQL 15 -----------------------------------------------------------

# PostgreSQL 15's own client binaries: Debian's wrappers in /usr/bin (Perl)
# take a tenth of a second each to start.
PGBIN=/usr/lib/postgresql/15/bin
pg_isready () { "$PGBIN/pg_isready" "$@"; }
psql () { "$PGBIN/psql" "$@"; }

trust_hba () {
  local conf=$1
  printf '%s\n' \
    '# Written by pgloadgen'\''s test set-up (test/setup/system.sh) for the cluster' \
    '# its package install created: the tests connect as postgres without a password.' \
    'local   all          all                  trust' \
    'host    all          all   127.0.0.1/32   trust' \
    'host    all          all   ::1/128        trust' \
    'local   replication  all                  trust' \
    'host    replication  all   127.0.0.1/32   trust' \
    'host    replication  all   ::1/128        trust' >"$conf"
}

start_local_cluster () {
  is_root || die "nothing answers on 127.0.0.1:5432; start a PostgreSQL 15 there as root (sudo bash test/setup/system.sh), or set PGLOADGEN_TEST_PG15_URL"
  local cluster
  cluster=$(pg_lsclusters -h | awk '$1 == "15" && $3 == "5432" { print $2; exit }')
  if [ -z "$cluster" ]; then
    if pg_lsclusters -h | awk '$3 == "5432"' | grep -q .; then
      die "nothing answers on 127.0.0.1:5432 and the cluster set to that port is not PostgreSQL 15 ($(pg_lsclusters -h | awk '$3 == "5432" { print $1 "/" $2; exit }')); set PGLOADGEN_TEST_PG15_URL"
    fi
    if [ -n "$pg15_main_created" ]; then
      # The install made it on another port (5432 was taken then): ours to set.
      pg_conftool 15 main set port 5432 </dev/null >"$log" 2>&1 || { show_log; die "cannot set the port of PostgreSQL cluster 15/main"; }
    elif [ -e /etc/postgresql/15/main ]; then
      die "nothing answers on 127.0.0.1:5432 and PostgreSQL cluster 15/main is set to another port; set PGLOADGEN_TEST_PG15_URL"
    else
      say "creating PostgreSQL cluster 15/main on port 5432 (trust authentication)"
      pg_createcluster 15 main --port 5432 -- --auth=trust </dev/null >"$log" 2>&1 || { show_log; die "pg_createcluster 15 main failed"; }
    fi
    cluster=main
  fi
  if [ "$cluster" = main ] && [ -n "$pg15_main_created" ]; then
    trust_hba /etc/postgresql/15/main/pg_hba.conf
  fi
  say "starting PostgreSQL cluster 15/$cluster"
  pg_ctlcluster --skip-systemctl-redirect 15 "$cluster" start </dev/null >"$log" 2>&1 || { show_log; die "cannot start PostgreSQL cluster 15/$cluster"; }
  for _ in $(seq 150); do pg_isready -q -h 127.0.0.1 -p 5432 && return; sleep 0.2; done
  die "PostgreSQL cluster 15/$cluster started, but nothing answers on 127.0.0.1:5432 after 30 s"
}

ensure_postgres () {
  local url
  if [ -n "${PGLOADGEN_TEST_PG15_URL:-}" ]; then
    url=$PGLOADGEN_TEST_PG15_URL
    pg_isready -q -d "$url" || die "nothing answers at PGLOADGEN_TEST_PG15_URL ($url)"
  else
    url=postgres://postgres@127.0.0.1:5432/postgres
    if ! pg_isready -q -h 127.0.0.1 -p 5432; then
      start_local_cluster
    elif [ -n "$pg15_main_created" ] && [ "$(pg_lsclusters -h | awk '$1 == "15" && $2 == "main" { print $3 }')" = 5432 ]; then
      # Started by an install whose policy allowed it: trust, then reload.
      trust_hba /etc/postgresql/15/main/pg_hba.conf
      pg_ctlcluster --skip-systemctl-redirect 15 main reload </dev/null >"$log" 2>&1 || { show_log; die "cannot reload PostgreSQL cluster 15/main"; }
    fi
  fi
  local found
  found=$(psql -w -X -A -t -q -d "$url" -c "SELECT current_setting('server_version_num')::int / 10000, EXISTS (SELECT 1 FROM pg_database WHERE datname = 'test')" 2>"$log") \
    || { show_log; die "cannot connect to $url as the tests do (user postgres, no password: trust authentication)"; }
  [ "${found%%|*}" = 15 ] || die "the tests need PostgreSQL 15 at $url; it is PostgreSQL ${found%%|*}"
  if [ "${found#*|}" != t ]; then
    say "creating database test"
    psql -w -X -q -d "$url" -c 'CREATE DATABASE test' >"$log" 2>&1 || { show_log; die "cannot create database test"; }
  fi
}

# --- kubectl -----------------------------------------------------------------

check_kubectl () {
  command -v "${KUBECTL:-kubectl}" >/dev/null \
    || die "kubectl not found (test/k8s-*.test.js build deploy/k8s with kubectl kustomize); it is no Debian package: install it from the Kubernetes project's packages (https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/), or set KUBECTL to its path"
}

check_kubectl
install_missing
ensure_zfs
ensure_postgres
