#!/usr/bin/env bash
# Runs the quick start of docs/mcp.md (the ```sh block after `<!-- quickstart -->`) as
# written, with this build's `leasekit` first on PATH, and checks what it prints: the allowed
# read's text, the denial, and a verifying audit chain.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
script=$(awk '/<!-- quickstart -->/{f=1; next} f && /^```sh/{in_=1; next} in_ && /^```/{exit} in_{print}' "$root/docs/mcp.md")
[ -n "$script" ] || { echo "quick start: no block found"; exit 1; }
out=$(PATH="$root/target/debug:$PATH" bash -c "$script" 2>&1)
echo "$out"
for want in '"text":"hello' 'PERMISSION_DENIED' 'ok: 3 records verify'; do
  grep -qF "$want" <<<"$out" || { echo "quick start: missing $want"; exit 1; }
done
echo "quick start: ok"
