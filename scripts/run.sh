#!/usr/bin/env bash
# `make run`: build the leasekit command (release) and show its main job on examples/:
# lint and inspect Agentfiles, then test leases (check, subset, narrow, explain).
# Findings (a deny, a violation, the deliberate-mistakes lint errors) are shown, not fatal;
# only a usage/input error (exit 2) or a crash fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"

# LEASEKIT_RELEASE_DIR: a release tree that holds the CLI already (`make test` passes the one
# `make dist` built); otherwise build it.
if [ -n "${LEASEKIT_RELEASE_DIR:-}" ] && [ -x "$LEASEKIT_RELEASE_DIR/leasekit" ]; then
  lk="$LEASEKIT_RELEASE_DIR/leasekit"
else
  cargo build --release -p leasekit-cli
  lk="$CARGO_TARGET_DIR/release/leasekit"
fi

bold='' reset=''
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' reset=$'\033[0m'; fi

# run TITLE ARGS...: print a heading and the command line, run it, tolerate exit 1.
run() {
  local title=$1; shift
  printf '\n%s== %s%s\n$ leasekit' "$bold" "$title" "$reset"
  local arg
  for arg in "$@"; do
    # Quote for copy-paste only when needed (none of the examples contains a single quote).
    if [[ $arg =~ ^[A-Za-z0-9_./:@=+-]+$ ]]; then printf ' %s' "$arg"; else printf " '%s'" "$arg"; fi
  done
  printf '\n'
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
run "Review the vault-backed agent before running it" inspect "$A/vault-backed/Agentfile"
run "May the code reviewer read these files?" check --lease "$L/code-reviewer.json" fs.read \
  /workspace/src/main.rs /workspace/../etc/shadow
run "...and fetch these URLs?" check --lease "$L/code-reviewer.json" net.fetch \
  'HTTPS://API.GITHUB.COM:443/repos/acme/widgets/pulls/7' https://api.github.com/user
run "Test the code reviewer's own lease (derived from its Agentfile)" check --agentfile "$A/code-reviewer/Agentfile" \
  fs.write /workspace/src/main.rs
run "Evaluate the code reviewer's Cedar policy" policy "$A/code-reviewer/Agentfile" \
  --principal 'AgentRC::Agent::"code-reviewer"' --action 'AgentRC::Action::"tool.invoke"' \
  --resource 'AgentRC::Tool::"file_read"' --context '{"path": "/workspace/src/main.rs"}'
run "Pin the triager: its lockfile" lock "$A/github-triager/Agentfile"
run "Can the reviewer delegate this child lease?" subset "$L/reviewer-child.json" "$L/code-reviewer.json"
run "...and this one?" subset "$L/too-wide-child.json" "$L/code-reviewer.json"
run "Narrow a triager's request to the org ceiling" narrow "$L/triager-request.json" "$L/org-ceiling.json"
run "What does this pattern match?" explain net.fetch 'https://*.example.com/**'
# The governor as a daemon, briefly: start `leasekit serve` on a throwaway state directory,
# acquire and release one lease over its socket, show the status, stop it with SIGTERM.
demo=$(mktemp -d)
# The trap must not fail the script once the daemon is gone (serve_pid empty): `kill ""` exits 1.
trap 'if [ -n "${serve_pid:-}" ]; then kill "$serve_pid" 2>/dev/null || true; fi; rm -rf "$demo"' EXIT
printf '\n%s== Start the governor daemon (leasekit serve) on a throwaway state directory%s\n' "$bold" "$reset"
printf '$ leasekit serve --state %s --socket %s &\n' '$STATE' '$STATE/leasekit.sock'
"$lk" serve --state "$demo/state" --socket "$demo/leasekit.sock" 2>"$demo/serve.log" &
serve_pid=$!
for _ in $(seq 1 200); do
  "$lk" gov --socket "$demo/leasekit.sock" status >/dev/null 2>&1 && break
  sleep 0.05
done
gov() { run "$1" gov --socket "$demo/leasekit.sock" "${@:2}"; }
gov "Acquire a lease before a model call" call Acquire \
  '{"actorId": "agent-7", "workspaceId": "demo", "modelId": "gpt-4o-mini", "estimatedPromptTokens": 800, "maxOutputTokens": 200, "estimatedCostCents": 3, "idempotencyKey": "demo-1"}'
lease=$("$lk" gov --socket "$demo/leasekit.sock" call Acquire \
  '{"actorId": "agent-7", "workspaceId": "demo", "modelId": "gpt-4o-mini", "estimatedPromptTokens": 800, "maxOutputTokens": 200, "estimatedCostCents": 3, "idempotencyKey": "demo-1"}' |
  sed -n 's/.*"leaseId": "\([^"]*\)".*/\1/p')
gov "...and release it with the actual cost" call Release "{\"leaseId\": \"$lease\", \"actualPromptTokens\": 750, \"actualOutputTokens\": 120, \"actualCostCents\": 2}"
gov "The daemon's status" status
printf '\n$ kill -TERM <leasekit serve>\n'
kill -TERM "$serve_pid"
wait "$serve_pid"
cat "$demo/serve.log"
serve_pid=

echo
echo "done: see cli/README.md for every command, docs/daemon.md for the daemon"
