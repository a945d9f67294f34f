#!/usr/bin/env bash
# Drives Swagger UI (/docs) of a live server in Debian's headless Chromium with playwright-core
# (tests/browser/swagger.mjs): every operation listed, Authorize, Try it out on GET /teams.
#
#   bash scripts/browser.sh         (scripts/test.sh installs chromium and runs this)
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x /usr/bin/chromium ] || { echo "browser.sh: /usr/bin/chromium is missing; run scripts/test.sh" >&2; exit 1; }
if [ ! -d tests/browser/node_modules/playwright-core ]; then
  (cd tests/browser && npm ci --no-audit --no-fund --silent)
fi
binary=target/debug/locstore
[ -x "$binary" ] || cargo build --locked

work=$(mktemp -d)
token="browser-$(date +%s%N)"
LOCSTORE_API_TOKEN=$token RUST_LOG=warn "$binary" serve --data-dir "$work/data" --listen 127.0.0.1:0 > "$work/stdout" 2> "$work/stderr" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$work/stdout" && break; sleep 0.1; done
base=$(sed -n 's/^locstore listening on //p' "$work/stdout")
[ -n "$base" ] || { cat "$work/stderr"; echo "browser.sh: the server did not start" >&2; exit 1; }
curl -sf -X POST "$base/teams" -H "X-Api-Token: $token" -H 'Content-Type: application/json' \
  -d '{"name": "browser-team", "displayName": "Seen in the browser"}' > /dev/null

status=0
node tests/browser/swagger.mjs "$base" "$token" browser-team target/swagger.png || status=$?
if [ "$status" -eq 0 ]; then echo "browser: 1 passed, 0 failed"; else echo "browser: 0 passed, 1 failed"; fi
exit $status
