#!/usr/bin/env bash
# The modules' checks (make modules): each module's go.mod and go.sum are what `go mod tidy`
# makes of them on their own, outside the workspace (GOWORK=off), as a user who requires one
# module gets it; and the weight of the core: a throwaway module that imports only pixretry/pix,
# through a replace to this checkout, has none of the heavy modules in its build list; a user of
# pix and OpenTelemetry (pix/pixotel) gets no River; and each of durable's engines compiles only
# its own database driver.
set -euo pipefail
cd "$(dirname "$0")/.."
failed=0
for dir in $(go list -m -f '{{.Dir}}'); do
  if ! (cd "$dir" && GOWORK=off go mod tidy -diff); then
    echo "modules: ${dir#"$PWD"/} is not tidy: run GOWORK=off go mod tidy there" >&2
    failed=1
  fi
done

user="$(mktemp -d)"
trap 'rm -rf "$user"' EXIT
cat >"$user/go.mod" <<MOD
module example.com/payer

go 1.26.0

require pixretry v0.0.0

replace pixretry => $PWD
MOD
cat >"$user/main.go" <<'GO'
package main

import "pixretry/pix"

func main() { _ = pix.Client{} }
GO
cp go.sum "$user/go.sum"
(cd "$user" && GOWORK=off GOFLAGS=-mod=mod go mod tidy)
all="$(cd "$user" && GOWORK=off go list -m all)"
echo "modules: a module that imports only pixretry/pix has $(wc -l <<<"$all") modules in its build list:"
sed 's/^/  /' <<<"$all"
heavy='github.com/riverqueue/|github.com/jackc/pgx|modernc.org/|go.opentelemetry.io/|github.com/prometheus/|github.com/getkin/kin-openapi|github.com/santhosh-tekuri/jsonschema|github.com/chromedp/|github.com/go-jose/'
if grep -E "$heavy" <<<"$all"; then
  echo "modules: the core is heavy: the modules above have no place in a pix user's build" >&2
  failed=1
fi

otel="$(cd pix/pixotel && GOWORK=off go list -m all)"
if grep -E 'github.com/riverqueue/|github.com/jackc/pgx|modernc.org/' <<<"$otel"; then
  echo "modules: pix/pixotel's build list holds the modules above: a user of pix and OpenTelemetry gets no River" >&2
  failed=1
fi

# compiles reports whether package $1 compiles a package whose path matches $2.
compiles() { go list -deps "$1" | grep -E "$2"; }
sqlite='^modernc.org/sqlite|/riversqlite$'
pgx='^github.com/jackc/pgx|/riverpgxv5$'
for check in "./durable $sqlite|$pgx" "./durable/durablesqlite $pgx" "./durable/durablepgx $sqlite"; do
  read -r pkg pattern <<<"$check"
  if compiles "$pkg" "$pattern"; then
    echo "modules: $pkg compiles the packages above, another engine's" >&2
    failed=1
  fi
done
echo "modules: durable compiles no database driver, durablesqlite no pgx, durablepgx no SQLite"
exit $failed
