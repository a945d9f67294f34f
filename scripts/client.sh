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
source scripts/lib.sh
token="client-$(date +%s%N)"
start_server

# The generator formats its output with ruff when it finds it on PATH.
PATH="$bin:$PATH" "$bin/openapi-python-client" generate --path openapi/openapi.json --meta none --config tests/client/generator.yaml \
  --output-path "$work/client/locstore_client" > "$work/generate.log" 2>&1 || { cat "$work/generate.log"; exit 1; }
if grep -q "WARNING" "$work/generate.log"; then
  cat "$work/generate.log"; echo "client.sh: the generator could not use part of the document" >&2; exit 1
fi

status=0
"$python" tests/client/roundtrip.py "$work/client" "$base" "$token" || status=$?
report client "$status"
exit $status
