#!/usr/bin/env bash
# Fuzzes the live server from its own OpenAPI document with schemathesis (every check), then
# checks that the server still answers and its repository is sound.
#
#   bash scripts/fuzz.sh [EXAMPLES]     (per operation, default 100; needs scripts/test.sh's venv)
#
# The seed is fixed so that a run is reproducible: CI runs exactly what a developer ran. Set
# LOCSTORE_FUZZ_SEED to explore other inputs.
set -euo pipefail
cd "$(dirname "$0")/.."

examples=${1:-100}
seed=${LOCSTORE_FUZZ_SEED:-20261122}
python=${LOCSTORE_TEST_PYTHON:-target/test-venv/bin/python}
schemathesis="$(dirname "$python")/schemathesis"
[ -x "$schemathesis" ] || { echo "fuzz.sh: schemathesis is not installed; run scripts/test.sh" >&2; exit 1; }
binary=target/debug/locstore
[ -x "$binary" ] || cargo build --locked

work=$(mktemp -d)
export LOCSTORE_FUZZ_TOKEN="fuzz-$(date +%s%N)"
LOCSTORE_API_TOKEN=$LOCSTORE_FUZZ_TOKEN RUST_LOG=warn "$binary" serve --data-dir "$work/data" --listen 127.0.0.1:0 \
  --durability os > "$work/stdout" 2> "$work/stderr" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$work/stdout" && break; sleep 0.1; done
base=$(sed -n 's/^locstore listening on //p' "$work/stdout")
[ -n "$base" ] || { cat "$work/stderr"; echo "fuzz.sh: the server did not start" >&2; exit 1; }

# Some data for the fuzzer to find: a team with a project.
curl_json() { curl -sf -X "$1" "$base$2" -H "X-Api-Token: $LOCSTORE_FUZZ_TOKEN" -H 'Content-Type: application/json' -d "$3" > /dev/null; }
curl_json POST /teams '{"name": "acme", "displayName": "Acme"}'
curl_json POST /teams/acme/projects '{"name": "mobile", "displayName": "Mobile", "languagesISO": ["en", "pt-BR"]}'

status=0
"$schemathesis" --config-file fuzz/schemathesis.toml run "$base/openapi.json" --checks all \
  --max-examples "$examples" --seed "$seed" --workers 2 --suppress-health-check too_slow || status=$?

curl -sf "$base/healthz" > /dev/null || { echo "fuzz.sh: the server stopped answering" >&2; status=1; }
kill -TERM $server && wait $server || { echo "fuzz.sh: the server did not stop cleanly" >&2; status=1; }
git -C "$work/data/repo" fsck --strict || status=1
[ -z "$(git -C "$work/data/repo" status --porcelain)" ] || { echo "fuzz.sh: the repository is not clean" >&2; status=1; }
if [ "$status" -eq 0 ]; then echo "fuzz: 1 passed, 0 failed"; else echo "fuzz: 0 passed, 1 failed"; fi
exit $status
