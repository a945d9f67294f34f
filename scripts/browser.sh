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
source scripts/lib.sh
token="browser-$(date +%s%N)"
start_server
call POST /teams '{"name": "browser-team", "displayName": "Seen in the browser"}'

status=0
node tests/browser/swagger.mjs "$base" "$token" browser-team target/swagger.png || status=$?
report browser "$status"
exit $status
