# Shared by the scripts that test a live server (fuzz.sh, client.sh, browser.sh); source it.

# Starts target/debug/locstore on a free port with a fresh data directory under $work and the
# token $token, stops it on exit, and sets $base to its address.
start_server() {
  local binary=target/debug/locstore
  [ -x "$binary" ] || cargo build --locked
  work=$(mktemp -d)
  LOCSTORE_API_TOKEN=$token RUST_LOG=warn "$binary" serve --data-dir "$work/data" --listen 127.0.0.1:0 "$@" \
    > "$work/stdout" 2> "$work/stderr" &
  server=$!
  # The server is waited for before its folder goes (it may still be writing its repository
  # as it stops), and a failing clean-up never fails the check.
  trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work" || true' EXIT
  for _ in $(seq 100); do grep -q "listening on" "$work/stdout" && break; sleep 0.1; done
  base=$(sed -n 's/^locstore listening on //p' "$work/stdout")
  [ -n "$base" ] || { cat "$work/stderr"; echo "$0: the server did not start" >&2; exit 1; }
}

# Sends a JSON request with the token; fails on an error status.
call() {
  curl -sf -X "$1" "$base$2" -H "X-Api-Token: $token" -H 'Content-Type: application/json' -d "$3" > /dev/null
}

# Prints the closing line CI reads: "NAME: 1 passed, 0 failed" or the reverse.
report() {
  if [ "$2" -eq 0 ]; then echo "$1: 1 passed, 0 failed"; else echo "$1: 0 passed, 1 failed"; fi
}
