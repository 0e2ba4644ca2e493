#!/usr/bin/env bash
# `make bench-mcp`: the latency `leasekit mcp-guard` adds per tools/call (release build),
# against the real filesystem server, p50 and p99 in one run. Not part of `make test`.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tools="$root/target/mcp-tools"
mkdir -p "$tools"
if ! cmp -s cli/tests/mcp/package-lock.json "$tools/package-lock.json" || [ ! -d "$tools/node_modules" ]; then
  cp cli/tests/mcp/package.json cli/tests/mcp/package-lock.json "$tools/" || exit 1
  (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error) || exit 1
fi
cargo build -q --release -p leasekit-cli || exit 1
python3 bench/mcp_guard_latency.py "$root/target/release/leasekit" \
  "$tools/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" "${MCP_BENCH_CALLS:-200}" "${MCP_BENCH_ROUNDS:-5}"
