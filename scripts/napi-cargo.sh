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
"$real" "${args[@]}" || exit $?
[ -n "$triple" ] || exit 0
[ "$profile" = dev ] && profile=debug
dir=${CARGO_TARGET_DIR:-$(pwd)/target}
mkdir -p "$dir/$triple/$profile"
for f in "$dir/$profile"/*.so; do
  [ -e "$f" ] || continue
  ln -f "$f" "$dir/$triple/$profile/" 2>/dev/null || cp -f "$f" "$dir/$triple/$profile/"
done
