#!/usr/bin/env bash
# The Postgres tests on a throwaway cluster: installs Debian's postgresql if pg_ctl is missing,
# runs initdb as the postgres user into a temporary directory, starts the cluster on a free
# loopback port with trust authentication, runs every test named Postgres with
# PIXRETRY_POSTGRES_URL pointing at it, and stops the cluster and removes it on exit.
#
#   bash scripts/postgres.sh                 # make test-postgres
#   bash scripts/postgres.sh CMD [ARGS...]   # CMD instead, with the cluster and the variable
set -euo pipefail
cd "$(dirname "$0")/.."

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pgbin)" ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
fi
bin="$(pgbin)"

# as_pg runs a command as the postgres user when we are root (initdb refuses root).
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# A free loopback port: one that nothing answers on.
port=""
for _ in $(seq 1 50); do
  candidate=$((20000 + RANDOM % 30000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "postgres.sh: no free port found" >&2; exit 1; }

dir="$(mktemp -d)"
chmod 755 "$dir"
[ "$(id -u)" -ne 0 ] || chown postgres "$dir"
stop() {
  as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT

as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off" start >/dev/null
echo "postgres.sh: cluster on 127.0.0.1:$port"

export PIXRETRY_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
if [ "$#" -gt 0 ]; then
  "$@"
else
  go test -race -count=1 -timeout 10m -run Postgres -v ./durable/ ./cmd/pixpay/
fi
