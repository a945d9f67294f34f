#!/usr/bin/env bash
# Generates a Python client from openapi/openapi.json with openapi-python-client and uses it
# against a live server (tests/client/roundtrip.py): teams, projects, keys, query, export,
# download.
#
#   bash scripts/client.sh          (scripts/test.sh installs the generator and runs this)
set -euo pipefail
cd "$(dirname "$0")/.."

python=${LOCSTORE_TEST_PYTHON:-target/test-venv/bin/python}
# An absolute path (without resolving the venv's symlink), as the generator runs tools elsewhere.
bin="$(cd "$(dirname "$python")" && pwd)"
python="$bin/$(basename "$python")"
[ -x "$bin/openapi-python-client" ] || { echo "client.sh: openapi-python-client is missing; run scripts/test.sh" >&2; exit 1; }
binary=target/debug/locstore
[ -x "$binary" ] || cargo build --locked

work=$(mktemp -d)
# The generator formats its output with ruff when it finds it on PATH.
PATH="$bin:$PATH" "$bin/openapi-python-client" generate --path openapi/openapi.json --meta none \
  --output-path "$work/client/locstore_client" > "$work/generate.log" 2>&1 || { cat "$work/generate.log"; exit 1; }
if grep -q "WARNING" "$work/generate.log"; then
  cat "$work/generate.log"; echo "client.sh: the generator could not use part of the document" >&2; exit 1
fi

token="client-$(date +%s%N)"
LOCSTORE_API_TOKEN=$token RUST_LOG=warn "$binary" serve --data-dir "$work/data" --listen 127.0.0.1:0 > "$work/stdout" 2> "$work/stderr" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$work/stdout" && break; sleep 0.1; done
base=$(sed -n 's/^locstore listening on //p' "$work/stdout")
[ -n "$base" ] || { cat "$work/stderr"; echo "client.sh: the server did not start" >&2; exit 1; }

status=0
"$python" tests/client/roundtrip.py "$work/client" "$base" "$token" || status=$?
if [ "$status" -eq 0 ]; then echo "client: 1 passed, 0 failed"; else echo "client: 0 passed, 1 failed"; fi
exit $status
