#!/usr/bin/env bash
# The crash demonstration (make crash): cmd/psp, then pixpay killed with SIGKILL after the PSP
# settled a payment and before pixpay recorded the outcome, then pixpay started again. It ends
# by checking that the PSP's ledger holds exactly one settlement per settled intent, and none
# for the refused one.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="$(mktemp -d)"
psp_pid=""
pay_pid=""
cleanup() {
  [ -z "$pay_pid" ] || kill "$pay_pid" 2>/dev/null || true
  [ -z "$psp_pid" ] || kill "$psp_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

go build -o "$dir/psp" ./cmd/psp
go build -o "$dir/pixpay" ./cmd/pixpay

# control METHOD PATH [BODY]: one request to the PSP's control API over bash's /dev/tcp.
control() {
  local body="${3:-}"
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$1" "$2" "$port" "${#body}" "$body" >&3
  sed '1,/^\r$/d' <&3
  exec 3<&-
}

"$dir/psp" -addr 127.0.0.1:0 -log off >"$dir/psp.out" &
psp_pid=$!
until grep -q listening "$dir/psp.out" 2>/dev/null; do sleep 0.05; done
url="$(awk '{print $NF}' "$dir/psp.out")"
port="${url##*:}"
echo "== cmd/psp on $url"

db="$dir/pay.db"
pixpay() { "$dir/pixpay" -db "$db" "$@"; }
echo "== five intents stored (nothing sent), one above the payer's balance of 1000.00"
pixpay add -id order-1 -valor 150.00 -chave pix@example.com -info "order 1"
pixpay add -id order-2 -valor 20.00 -chave +5511987654321
pixpay add -id order-3 -valor 35.50 -chave 12345678901
pixpay add -id order-4 -valor 5000.00 -chave pix@example.com
pixpay add -id order-5 -valor 0.99 -chave pix@example.com

echo "== the PSP will settle the next payment at once and hold its answer for 3 s"
control POST /_psp/faults '{"faults":[{"kind":"late","delay_ms":3000}]}' >/dev/null
"$dir/pixpay" -db "$db" -psp "$url" -workers 1 run >"$dir/run1.log" 2>&1 &
pay_pid=$!
until control GET /_psp/settlements | grep -q '"count":1'; do sleep 0.02; done
kill -KILL "$pay_pid"
wait "$pay_pid" 2>/dev/null || true
pay_pid=""
echo "== pixpay killed with SIGKILL: the PSP settled a payment whose answer pixpay never read"
control GET /_psp/settlements
pixpay list

echo "== pixpay started again: it resumes every pending intent with its stored key"
pixpay -psp "$url" run -until-done
pixpay list | tee "$dir/list"
ledger="$(control GET /_psp/settlements)"
echo "$ledger"

fail=0
while read -r line; do
  key="$(sed 's/.*"key":"\([^"]*\)".*/\1/' <<<"$line")"
  status="$(sed 's/.*"status":"\([^"]*\)".*/\1/' <<<"$line")"
  n="$({ grep -o "\"$key\"" <<<"$ledger" || true; } | wc -l)"
  want=0
  [ "$status" != settled ] || want=1
  if [ "$n" -ne "$want" ]; then echo "FAIL: intent with key $key is $status and has $n settlements, want $want"; fail=1; fi
done <"$dir/list"
[ "$(grep -c '"status":"settled"' "$dir/list")" -eq 4 ] || { echo "FAIL: want 4 settled intents"; fail=1; }
grep -q '"count":4,' <<<"$ledger" || { echo "FAIL: want 4 settlements in the ledger, no more"; fail=1; }
[ "$fail" -eq 0 ] || exit 1
echo "== the ledger holds exactly one settlement per settled intent, none for the refused one"
