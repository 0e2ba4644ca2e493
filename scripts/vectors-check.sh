#!/usr/bin/env bash
# `make vectors-check`: every vector file is what its generator writes. gen_vectors.py (lease,
# Agentfile, binding and bypass vectors) needs only Python; gen_governor_vectors.py (governor.json,
# frame_decode.json) needs `cryptography` (deterministic ECDSA), installed pinned into
# target/vectors-venv on first use. Last line: "vectors: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
if python3 conformance/tools/gen_vectors.py --check; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
venv=target/vectors-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import cryptography' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
    -r conformance/tools/requirements.txt || { echo "vectors: cannot install cryptography"; }
fi
for flag in --check --self-check; do
  if "$venv/bin/python" conformance/tools/gen_governor_vectors.py "$flag"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
  fi
done
echo "vectors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
