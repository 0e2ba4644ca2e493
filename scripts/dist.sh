#!/usr/bin/env bash
# `make dist`: every release artifact into dist/, from the one version of the workspace Cargo.toml.
#   dist/python/  leasekit-V-cp310-abi3-manylinux_2_17_x86_64.whl and the sdist (maturin --zig)
#   dist/npm/     leasekit-V.tgz (JS, types, no binary) and leasekit-linux-x64-gnu-V.tgz
#   dist/maven/   dev/leasekit/leasekit/V/ jar (native library inside), sources, javadoc, POM
#   dist/c/       leasekit-V-linux-x86_64-gnu.tar.gz (header, .so, .a, relocatable .pc files)
#   dist/cli/     leasekit-cli-V-linux-x86_64-gnu.tar.gz (the `leasekit` binary, daemon included)
#   dist/SHA256SUMS
# Two release builds of the core: one `cargo zigbuild` for the C, JVM, Node and CLI artifacts,
# one maturin build for the wheel; both link against glibc 2.17, which is checked on every ELF.
# The release tools (scripts/dist-requirements.txt, pinned) go into target/dist-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
started=$(date +%s)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
triple=x86_64-unknown-linux-gnu
export CARGO_TARGET_DIR="$root/target"
rel="$CARGO_TARGET_DIR/$triple/release"
dist="$root/dist"
stage="$CARGO_TARGET_DIR/dist-stage"
export PIP_DISABLE_PIP_VERSION_CHECK=1

step() { echo "==> dist: $* ($(($(date +%s) - started)) s)"; }

step "release tools (pinned) into target/dist-venv"
venv="$CARGO_TARGET_DIR/dist-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r scripts/dist-requirements.txt
export PATH="$venv/bin:$PATH"

step "every manifest at version $version"
python3 scripts/check-versions.py

rm -rf "$dist" "$stage"
mkdir -p "$dist"/{python,npm,maven,c,cli} "$stage"

step "one zig release build (glibc 2.17): C library, JNI library, Node addon, CLI"
cargo zigbuild --release --target "$triple.2.17" \
  -p leasekit-ffi -p leasekit-jvm -p leasekit-node -p leasekit-cli

step "Python wheel (abi3, manylinux2014) and sdist"
# Its own target directory: the zig wrappers maturin sets up differ from cargo-zigbuild's, so the
# shared one would rebuild the core back and forth between the two.
CARGO_TARGET_DIR="$CARGO_TARGET_DIR/wheel" maturin build --release --zig --compatibility manylinux2014 \
  --strip --target "$triple" --manifest-path bindings-python/Cargo.toml --out "$dist/python"
maturin sdist --manifest-path bindings-python/Cargo.toml --out "$dist/python"
wheel=$(ls "$dist"/python/leasekit-"$version"-*.whl)
shown=$(auditwheel show "$wheel")
echo "$shown"
grep -q 'manylinux_2_17_x86_64' <<<"$shown" || { echo "the wheel is not manylinux_2_17 (manylinux2014)"; exit 1; }
abi3audit --strict --report "$wheel"
twine check --strict "$dist"/python/*

step "C tarball"
c="$stage/leasekit-$version-linux-x86_64-gnu"
mkdir -p "$c/include" "$c/lib/pkgconfig"
cp ffi/include/leasekit.h "$c/include/"
cp "$rel/libleasekit_ffi.so" "$rel/libleasekit_ffi.a" "$c/lib/"
strip --strip-unneeded "$c/lib/libleasekit_ffi.so"
# Debug sections only: the archive's symbol table and relocations stay, so it still links (the
# static build in dist-test). Without this the archive was ~10x its stripped size.
strip --strip-debug "$c/lib/libleasekit_ffi.a"
for pc in leasekit leasekit-static; do
  # ${pcfiledir}: the .pc files stay right wherever the tarball is unpacked.
  sed -e 's|@INCLUDEDIR@|${pcfiledir}/../../include|' -e 's|@LIBDIR@|${pcfiledir}/..|' \
      -e "s|@VERSION@|$version|" "ffi/$pc.pc.in" > "$c/lib/pkgconfig/$pc.pc"
done
cp LICENSE "$c/"
cp examples/c/authorize.c "$c/"
cat > "$c/README.md" <<TXT
# leasekit $version C library (Linux x86_64, glibc >= 2.17)

Unpack anywhere; pkg-config finds the paths relative to its .pc files:

    export PKG_CONFIG_PATH=\$PWD/leasekit-$version-linux-x86_64-gnu/lib/pkgconfig
    cc authorize.c \$(pkg-config --cflags --libs leasekit) -o authorize          # shared
    cc authorize.c \$(pkg-config --cflags --libs leasekit-static) -o authorize   # static
TXT
tar -C "$stage" -czf "$dist/c/leasekit-$version-linux-x86_64-gnu.tar.gz" "$(basename "$c")"

step "CLI tarball"
cli="$stage/leasekit-cli-$version-linux-x86_64-gnu"
mkdir -p "$cli/bin"
cp "$rel/leasekit" "$cli/bin/"
strip "$cli/bin/leasekit"
cp LICENSE cli/README.md "$cli/"
got=$("$cli/bin/leasekit" --version)
[ "$got" = "leasekit $version" ] || { echo "CLI --version says '$got', expected 'leasekit $version'"; exit 1; }
tar -C "$stage" -czf "$dist/cli/leasekit-cli-$version-linux-x86_64-gnu.tar.gz" "$(basename "$cli")"

step "npm packages (napi-rs layout)"
plat="$stage/npm/linux-x64-gnu"
mkdir -p "$plat"
cp bindings-node/npm/linux-x64-gnu/package.json bindings-node/npm/linux-x64-gnu/README.md LICENSE "$plat/"
cp "$rel/libleasekit_node.so" "$plat/leasekit.linux-x64-gnu.node"
strip --strip-unneeded "$plat/leasekit.linux-x64-gnu.node"
main="$stage/npm/leasekit"
mkdir -p "$main"
# The main package: package.json's "files" without the binary, with the platform package as an
# optional dependency (npm installs it only where os/cpu/libc match).
node - "$root/bindings-node" "$main" "$version" <<'JS'
const fs = require('fs'), path = require('path')
const [src, out, version] = process.argv.slice(2)
const pkg = JSON.parse(fs.readFileSync(path.join(src, 'package.json'), 'utf8'))
pkg.files = pkg.files.filter((f) => !f.endsWith('.node'))
for (const f of pkg.files) fs.copyFileSync(path.join(src, f), path.join(out, f))
fs.copyFileSync(path.join(src, 'README.md'), path.join(out, 'README.md'))
delete pkg.devDependencies
delete pkg.scripts
pkg.optionalDependencies = { 'leasekit-linux-x64-gnu': version }
pkg.repository = { type: 'git', url: 'https://example.invalid/leasekit.git' }
fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify(pkg, null, 2) + '\n')
JS
cp LICENSE "$main/"
(cd "$dist/npm" && npm pack --silent "$plat" && npm pack --silent "$main") >/dev/null
ls "$dist/npm/leasekit-$version.tgz" "$dist/npm/leasekit-linux-x64-gnu-$version.tgz"

step "Maven: jar with the native library, sources, javadoc, POM into dist/maven"
(cd bindings-jvm && mvn -B -q --no-transfer-progress -Dstyle.color=never clean)
res=bindings-jvm/target/native-resources/native/linux-x86_64
mkdir -p "$res"
cp "$rel/libleasekit_jvm.so" "$res/"
strip --strip-unneeded "$res/libleasekit_jvm.so"
(cd bindings-jvm && mvn -B -q --no-transfer-progress -Dstyle.color=never -P dist \
  -Dmaven.test.skip=true -Dfmt.skip=true \
  -Dmaven.install.skip=true -DaltDeploymentRepository="dist::file://$dist/maven" deploy)
# The next host build of the JVM tests stages its own library again.
rm -rf bindings-jvm/target/native-resources
python3 scripts/check-pom.py "$dist/maven/dev/leasekit/leasekit/$version/leasekit-$version.pom"

step "glibc <= 2.17 on every ELF of every artifact"
python3 scripts/check-elf-glibc.py --max 2.17 "$dist"

step "SHA256SUMS"
(cd "$dist" && find . -type f ! -name SHA256SUMS | sort | sed 's|^\./||' | xargs sha256sum > SHA256SUMS)

step "done"
(cd "$dist" && find . -type f ! -path './maven/*' -printf '%s\t%p\n' | sort -k2 | awk -F'\t' '{ printf "%10.1f KiB  %s\n", $1 / 1024, $2 }')
du -sk "$dist/maven" | awk '{ printf "%10d KiB  maven/ (jar, sources, javadoc, POM, checksums)\n", $1 }'
echo "make dist took $(($(date +%s) - started)) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
