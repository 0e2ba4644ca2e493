#!/usr/bin/env bash
# Installs what the C side needs (cJSON headers, pkg-config, valgrind; Debian packages,
# only when missing), builds the leasekit-ffi library with cargo and the C programs
# with ffi/Makefile. Used by scripts/test-c.sh and scripts/conformance-c.sh.
#   LEASEKIT_PROFILE=release  build the release library instead of the debug one.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"
profile=${LEASEKIT_PROFILE:-debug}

missing=()
[ -f /usr/include/cjson/cJSON.h ] || missing+=(libcjson-dev)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v cc >/dev/null || missing+=(gcc)
command -v make >/dev/null || missing+=(make)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing ${missing[*]} (apt)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$profile" = release ]; then
  cargo build -p leasekit-ffi --release
else
  cargo build -p leasekit-ffi
fi
make -s -C ffi PROFILE="$profile" all
