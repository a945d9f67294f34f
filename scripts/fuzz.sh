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
source scripts/lib.sh
token="fuzz-$(date +%s%N)"
export LOCSTORE_FUZZ_TOKEN=$token
start_server --durability os

# Some data for the fuzzer to find: a team with a project.
call POST /teams '{"name": "acme", "displayName": "Acme"}'
call POST /teams/acme/projects '{"name": "mobile", "displayName": "Mobile", "languagesISO": ["en", "pt-BR"]}'

status=0
# One worker: with two, hypothesis parses lambdas' source on both threads at once, and
# CPython 3.11.7's AST constructor keeps its recursion depth per interpreter, not per thread
# (fixed in later releases), so a run fails now and then with "SystemError: AST constructor
# recursion depth mismatch", an error of the tool, not of the API.
"$schemathesis" --config-file fuzz/schemathesis.toml run "$base/openapi.json" --checks all \
  --max-examples "$examples" --seed "$seed" --workers 1 --suppress-health-check too_slow || status=$?

curl -sf "$base/healthz" > /dev/null || { echo "fuzz.sh: the server stopped answering" >&2; status=1; }
kill -TERM $server && wait $server || { echo "fuzz.sh: the server did not stop cleanly" >&2; status=1; }
git -C "$work/data/repo" fsck --strict || status=1
[ -z "$(git -C "$work/data/repo" status --porcelain)" ] || { echo "fuzz.sh: the repository is not clean" >&2; status=1; }
report fuzz "$status"
exit $status
