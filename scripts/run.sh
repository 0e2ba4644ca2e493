#!/usr/bin/env bash
# `make run`: build the leasekit command (release) and show its main job on examples/:
# lint and inspect Agentfiles, then test leases (check, subset, narrow, explain).
# Findings (a deny, a violation, the deliberate-mistakes lint errors) are shown, not fatal;
# only a usage/input error (exit 2) or a crash fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"

cargo build --release -p leasekit-cli
lk="$CARGO_TARGET_DIR/release/leasekit"

# run TITLE ARGS...: print a heading and the command line, run it, tolerate exit 1.
run() {
  local title=$1; shift
  printf '\n\033[1m== %s\033[0m\n$ leasekit %s\n' "$title" "$*"
  local rc=0
  "$lk" "$@" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "leasekit exited $rc: this is a bug in the example run" >&2
    exit "$rc"
  fi
  [ "$rc" -eq 1 ] && echo "(exit 1: a finding, as expected)"
  return 0
}

A=examples/agentfiles
L=examples/leases

run "Lint the example Agentfiles" lint "$A/code-reviewer/Agentfile" "$A/github-triager/Agentfile" "$A/vault-backed/Agentfile"
run "Lint the Agentfile with deliberate mistakes" lint "$A/mistakes/Agentfile"
run "Inspect the code reviewer before running it" inspect "$A/vault-backed/Agentfile"
run "May the code reviewer read these files?" check --lease "$L/code-reviewer.json" fs.read \
  /workspace/src/main.rs /workspace/../etc/shadow
run "...and fetch these URLs?" check --lease "$L/code-reviewer.json" net.fetch \
  'HTTPS://API.GITHUB.COM:443/repos/acme/widgets/pulls/7' https://api.github.com/user
run "Evaluate the code reviewer's Cedar policy" policy "$A/code-reviewer/Agentfile" \
  --principal 'AgentRC::Agent::"code-reviewer"' --action 'AgentRC::Action::"tool.invoke"' \
  --resource 'AgentRC::Tool::"file_read"' --context '{"path": "/workspace/src/main.rs"}'
run "Can the reviewer delegate this child lease?" subset "$L/reviewer-child.json" "$L/code-reviewer.json"
run "...and this one?" subset "$L/too-wide-child.json" "$L/code-reviewer.json"
run "Narrow a triager's request to the org ceiling" narrow "$L/triager-request.json" "$L/org-ceiling.json"
run "What does this pattern match?" explain net.fetch 'https://*.example.com/**'
echo
echo "done: see cli/README.md for every command"
