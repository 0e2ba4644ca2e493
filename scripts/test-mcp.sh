#!/usr/bin/env bash
# MCP guard: `leasekit mcp-guard` in front of the real @modelcontextprotocol/server-filesystem,
# driven by the real Python `mcp` SDK client and the real MCP TypeScript SDK client, with a real
# `leasekit serve` as governor; and the Python and Node libraries (leasekit.mcp, leasekit/mcp)
# wrapping those SDK clients in front of the same server. Installs its pinned parts into target/
# (npm ci from cli/tests/mcp/package-lock.json into target/mcp-tools; a venv with mcp and pytest
# in target/mcp-venv), builds the CLI and both bindings, runs the tests and the quick start of
# docs/mcp.md.
# Last line: "mcp: N passed, N failed".
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
tools="$root/target/mcp-tools"
venv="$root/target/mcp-venv"
fail_summary() { echo "mcp: 0 passed, 1 failed"; exit 1; }

mkdir -p "$tools"
if ! cmp -s cli/tests/mcp/package-lock.json "$tools/package-lock.json" || [ ! -d "$tools/node_modules" ]; then
  cp cli/tests/mcp/package.json cli/tests/mcp/package-lock.json "$tools/" || fail_summary
  (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error) || fail_summary
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || fail_summary
"$venv/bin/pip" install -q mcp==2.3.0 pytest==8.3.4 || fail_summary
# The proxy is the CLI binary: $LEASEKIT_BIN when the caller built it (scripts/test-all.sh
# passes the Rust step's), else the debug build of this workspace.
if [ -z "${LEASEKIT_BIN:-}" ]; then
  cargo build -q -p leasekit-cli || fail_summary
  LEASEKIT_BIN="$root/target/debug/leasekit"
fi
# The Python and Node libraries (leasekit.mcp, leasekit/mcp), installed and built as
# scripts/test-python.sh and scripts/test-node.sh do ($LEASEKIT_WHEEL and the release tree of
# `make dist` under `make test`).
export CARGO_TARGET_DIR="$root/target"
"$venv/bin/pip" install -q --force-reinstall --no-deps "${LEASEKIT_WHEEL:-./bindings-python}" || fail_summary
(cd bindings-node && npm ci --no-audit --no-fund --loglevel=error \
  && CARGO="$root/scripts/napi-cargo.sh" npm run --silent build) || fail_summary

export LEASEKIT_BIN MCP_TOOLS="$tools"
export MCP_FS_SERVER="$tools/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
pass=0 fail=0 status=0
out=$(mktemp)
(cd cli/tests/mcp && "$venv/bin/python" -m pytest -p no:cacheprovider -q .) 2>&1 | tee "$out"
[ "${PIPESTATUS[0]}" -ne 0 ] && status=1
summary=$(grep -E '(passed|failed|errors?|no tests ran).* in [0-9.]+s' "$out" | tail -n 1)
num() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
pass=$((pass + $(num passed))); fail=$((fail + $(num failed) + $(num 'errors?')))

node --test cli/tests/mcp/*.test.mjs 2>&1 | tee "$out"
[ "${PIPESTATUS[0]}" -ne 0 ] && status=1
pass=$((pass + $(grep -E '^# pass ' "$out" | grep -oE '[0-9]+' || echo 0)))
fail=$((fail + $(grep -E '^# fail ' "$out" | grep -oE '[0-9]+' || echo 1)))

# The quick start of docs/mcp.md, run as written (with this build's leasekit on PATH).
if bash scripts/mcp-quickstart-check.sh; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi

rm -f "$out"
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "mcp: $pass passed, $fail failed"
exit $status
