#!/usr/bin/env bash
# `napi build` always passes `--target <triple>`. For the host's own triple that puts every
# dependency in a second tree (target/<triple>/release) and compiles it all again, although
# `make run`, Python and the JVM build the same crates in target/release. napi runs $CARGO when
# it is set: scripts/test-node.sh and scripts/conformance-node.sh point it here. This drops
# `--target` when it names the host, builds into the shared tree, then links the libraries to
# where napi looks for them. Any other target, and every other cargo command, passes unchanged.
set -uo pipefail
real=$(command -v cargo)
host=$(rustc -vV | sed -n 's/^host: //p')
args=() triple='' profile=debug
while [ $# -gt 0 ]; do
  case "$1" in
    --target) triple=$2; shift 2; continue ;;
    --target=*) triple=${1#--target=}; shift; continue ;;
    --release | -r) profile=release ;;
    --profile) profile=$2 ;;
  esac
  args+=("$1"); shift
done
if [ -n "$triple" ] && [ "$triple" != "$host" ]; then
  exec "$real" "${args[@]}" --target "$triple"
fi
# LEASEKIT_ZIGBUILD (the bin directory of `make dist`'s release tools; scripts/test-all.sh sets
# it after the dist step): build with cargo-zigbuild for glibc 2.17 into the tree `make dist`
# built (target/<host>/release, where napi looks), with the same packages selected so that cargo
# resolves the same features and compiles only what changed (the addon, for napi's type defs).
if [ -n "${LEASEKIT_ZIGBUILD:-}" ] && [ -n "$triple" ] && [ "${args[0]:-}" = build ] &&
   [ "$profile" = release ]; then
  CARGO="$real" PATH="$LEASEKIT_ZIGBUILD:$PATH" exec "$LEASEKIT_ZIGBUILD/cargo-zigbuild" zigbuild "${args[@]:1}" \
    -p leasekit-ffi -p leasekit-jvm -p leasekit-node -p leasekit-cli --target "$triple.2.17"
fi
"$real" "${args[@]}" || exit $?
[ -n "$triple" ] || exit 0
[ "$profile" = dev ] && profile=debug
dir=${CARGO_TARGET_DIR:-$(pwd)/target}
mkdir -p "$dir/$triple/$profile"
for f in "$dir/$profile"/*.so; do
  [ -e "$f" ] || continue
  ln -f "$f" "$dir/$triple/$profile/" 2>/dev/null || cp -f "$f" "$dir/$triple/$profile/"
done
