#!/usr/bin/env bash
# `make dist-test`: installs every artifact of dist/ (`make dist`) the way a user would and runs
# its examples, with no Rust toolchain reachable and no network:
#   - in a private mount and network namespace (unshare -m -n): tmpfs over ~/.cargo, ~/.rustup
#     and the release tools' venv, PATH without them; cargo, rustc, rustup, maturin, zig and
#     cargo-zigbuild are asserted absent; only loopback exists (where namespaces are refused, a
#     container without CAP_SYS_ADMIN, PATH and cargo's homes only, and the namespace checks say
#     SKIP);
#   - Python: a fresh venv per CPython 3.10+ on the machine, `pip install --no-index
#     --only-binary=:all:` (the README's commands), the README's quick example and governor;
#   - Node: a fresh npm project, both tarballs installed with the registry on an unreachable
#     loopback port; the addon must come from the platform package; the main package alone
#     installs too, and then fails to load naming the platform package;
#   - JVM: a Maven project offline against dist/maven with a local repository holding no
#     leasekit; the library must come from the jar (and from the extraction directory given);
#   - C: the tarball, `cc $(pkg-config ...)` shared and static; CLI: the tarball, `--version`,
#     `leasekit serve` on a SQLite state directory with one acquire and release.
# Ends with "dist-test: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
root=$(pwd)

if [ -z "${LEASEKIT_DIST_SANDBOX:-}" ]; then
  [ -f dist/SHA256SUMS ] || { echo "dist/ is empty: run make dist first"; echo "dist-test: 0 passed, 1 failed"; exit 1; }
  started=$(date +%s)
  # A Maven user's local repository holds the build plugins and third-party dependencies already;
  # fetch those (online, before the sandbox) into target/dist-m2-seed, then drop leasekit from it
  # so that the offline build can only take leasekit from dist/maven.
  version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
  seed="$root/target/dist-m2-seed" prep="$root/target/dist-m2-project"
  rm -rf "$prep" && cp -r scripts/dist-test/maven "$prep"
  sed -i -e "s|@DIST@|$root/dist|" -e "s|@VERSION@|$version|" "$prep/pom.xml"
  (cd "$prep" && mvn -B -q --no-transfer-progress -Dmaven.repo.local="$seed" package \
     dependency:build-classpath -Dmdep.outputFile=cp.txt) >/dev/null ||
    echo "warning: seeding the Maven local repository failed; the JVM part will fail offline"
  rm -rf "$seed/dev/leasekit" "$prep"
  # LEASEKIT_DIST_NO_UNSHARE=1 takes the fallback below on purpose (to test it).
  if [ -z "${LEASEKIT_DIST_NO_UNSHARE:-}" ] && unshare --mount --net --propagation private true 2>/dev/null; then
    LEASEKIT_DIST_SANDBOX=1 unshare --mount --net --propagation private bash "$0" "$@"
  else
    # A container without CAP_SYS_ADMIN refuses namespaces: hide the toolchain from PATH and
    # cargo/rustup's homes only, and say that the two checks that need the namespaces did not run.
    echo "SKIP: unshare --mount --net is refused here (not root, or a container without"
    echo "      CAP_SYS_ADMIN): the toolchain is hidden from PATH only and the network stays up"
    LEASEKIT_DIST_SANDBOX=path bash "$0" "$@"
  fi
  rc=$?
  echo "make dist-test took $(($(date +%s) - started)) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  exit $rc
fi

# ---- inside the sandbox ----
hidden=("$HOME/.cargo" "$HOME/.rustup" "$root/target/dist-venv")
if [ "$LEASEKIT_DIST_SANDBOX" = 1 ]; then
  ip link set lo up 2>/dev/null || true
  for d in "${hidden[@]}"; do
    [ -d "$d" ] && mount -t tmpfs -o ro,size=64k tmpfs "$d"
  done
else
  empty=$(mktemp -d)
  export CARGO_HOME="$empty" RUSTUP_HOME="$empty"
fi
PATH=$(echo "$PATH" | tr ':' '\n' | grep -vE '/\.cargo/|/\.rustup/|/dist-venv/' | paste -sd:)
export PATH
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
export npm_config_registry=http://127.0.0.1:9/ npm_config_fetch_retries=0 npm_config_audit=false \
  npm_config_fund=false npm_config_update_notifier=false
export DIST="$root/dist"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
work=$(mktemp -d /tmp/leasekit-dist-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
# run NAME LOG CMD...: runs CMD with its output in LOG; shows the log on failure.
run() {
  local name=$1 log=$2
  shift 2
  if "$@" >"$log" 2>&1; then ok "$name"; else cat "$log"; bad "$name"; return 1; fi
}
# expect NAME LOG REGEX...: every extended regex matches a line of LOG.
expect() {
  local name=$1 log=$2 re
  shift 2
  for re in "$@"; do
    if ! grep -qE -- "$re" "$log"; then
      echo "--- $log lacks /$re/:"; cat "$log"; bad "$name"; return 1
    fi
  done
  ok "$name"
}
block() { python3 "$root/scripts/readme-block.py" "$@"; }

echo "--- no Rust toolchain, no network"
absent=1
for t in cargo rustc rustup maturin zig cargo-zigbuild cargo-zigbuild; do
  if command -v "$t" >/dev/null 2>&1; then echo "$t is reachable: $(command -v "$t")"; absent=0; fi
done
if [ "$LEASEKIT_DIST_SANDBOX" = 1 ]; then
  for d in "${hidden[@]}"; do
    [ -z "$(ls -A "$d" 2>/dev/null)" ] || { echo "$d is visible"; absent=0; }
  done
fi
python3 -c 'import ziglang' 2>/dev/null && { echo "the ziglang module is importable"; absent=0; }
[ "$absent" -eq 1 ] && ok "toolchain absent" || bad "toolchain absent"
if [ "$LEASEKIT_DIST_SANDBOX" != 1 ]; then
  echo "SKIP offline (no network namespace; pip --no-index and the unreachable npm registry still hold)"
elif python3 -c 'import socket; socket.create_connection(("pypi.org", 443), timeout=3)' 2>/dev/null; then
  bad "offline (a registry is reachable)"
else
  ok "offline"
fi
run "SHA256SUMS" "$work/sums.log" bash -c 'cd "$DIST" && sha256sum --quiet -c SHA256SUMS'

echo "--- Python"
# Every CPython 3.10+ on the machine: /usr/bin, /usr/local/bin, pyenv's versions (not its shims).
declare -A seen=()
pys=()
for exe in /usr/bin/python3.* /usr/local/bin/python3.* "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3; do
  [ -x "$exe" ] && [[ "$exe" != *-config ]] || continue
  real=$(readlink -f "$exe")
  [ -z "${seen[$real]:-}" ] || continue
  seen[$real]=1
  "$exe" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10) or sys.implementation.name != "cpython")' 2>/dev/null &&
    pys+=("$exe")
done
[ ${#pys[@]} -gt 0 ] && ok "CPython 3.10+ found: ${#pys[@]}" || bad "a CPython 3.10+ on the machine"
for exe in "${pys[@]}"; do
  py=python$("$exe" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  d="$work/$py-$(echo "$exe" | md5sum | cut -c1-6)" && mkdir -p "$d/state" && cd "$d"
  # The README's install block, with this interpreter.
  block "$root/README.md" python | sed "s|^python3 -m venv|$exe -m venv|" > install.sh
  if run "$py: README install (pip --no-index --only-binary)" install.log bash -e install.sh; then
    expect "$py: version $version" install.log "^leasekit $version\$"
    block "$root/bindings-python/README.md" quick-example > quick.py
    run "$py: README quick example" quick.log .venv/bin/python quick.py &&
      expect "$py: quick example output (authorized, denied as PermissionDenied)" quick.log \
        "^\{'USD': Decimal\('0\.7'\)\}$" "^PERMISSION_DENIED False "
    { block "$root/bindings-python/README.md" governor
      cat <<'PY'
print("granted", lease["granted"])
with lk.Governor.open("state/gov.db") as again:
    print("reopened activeLeases", again.metrics()["activeLeases"])
print("native from", lk._native.__file__)
PY
    } > governor.py
    run "$py: README governor on a SQLite file" gov.log .venv/bin/python governor.py &&
      expect "$py: governor acquire, release, reopen" gov.log "^granted True$" "^reopened activeLeases 0$" \
        "^native from $d/\.venv/lib/$py/site-packages/leasekit/_native\.abi3\.so$"
  fi
  cd "$root"
done

echo "--- Node"
d="$work/node" && mkdir -p "$d" && cd "$d"
block "$root/README.md" node > install.sh
if run "node: README install (registry unreachable)" install.log bash -e install.sh; then
  expect "node: README install output" install.log '^/data/q1\.csv$'
  cd app
  run "node: the addon is the platform package's" where.log node -e "
    const p = require.resolve('leasekit-linux-x64-gnu'); require('leasekit');
    const loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
    if (loaded.length !== 1 || !loaded[0].includes('/node_modules/leasekit-linux-x64-gnu/')) throw new Error(String(loaded));
    if (require('fs').readdirSync('node_modules/leasekit').some((f) => f.endsWith('.node'))) throw new Error('binary in the main package');
    console.log(loaded[0])"
  block "$root/bindings-node/README.md" quick-example > quick.mjs
  run "node: README quick example" quick.log node quick.mjs &&
    expect "node: quick example output (denied as PermissionDeniedError)" quick.log "^PERMISSION_DENIED "
  { block "$root/bindings-node/README.md" governor | sed "s|sqlite:/var/lib/app/governor.db|sqlite:./governor.db|"
    cat <<'JS'
const again = Governor.open('sqlite:./governor.db')
console.log('granted', grant.granted, 'reopened activeLeases', again.metrics().activeLeases)
again.close()
JS
  } > governor.mjs
  run "node: README governor on a SQLite file" gov.log node governor.mjs &&
    expect "node: governor acquire, release, reopen" gov.log "^granted true reopened activeLeases 0$"
fi
# The main package alone: npm cannot reach the registry for the optional dependency, still exits
# 0 (optional), and leasekit then fails at load naming the package to install.
d="$work/node-main-only" && mkdir -p "$d" && cd "$d" && npm init -y >/dev/null
if run "node: main package alone installs (npm exits 0)" install.log npm install "$DIST/npm/leasekit-$version.tgz"; then
  node -e "try { require('leasekit'); console.log('loaded') } catch (e) { console.log(e.code, e.message) }" > load.log 2>&1
  expect "node: missing platform package named in the error" load.log \
    '^LEASEKIT_NATIVE_MISSING .*"leasekit-linux-x64-gnu" is missing'
fi
cd "$root"

echo "--- JVM"
seed="$root/target/dist-m2-seed"
d="$work/maven" && mkdir -p "$d" && cp -r "$root/scripts/dist-test/maven/." "$d/" && cd "$d"
sed -i -e "s|@DIST@|$DIST|" -e "s|@VERSION@|$version|" pom.xml
m2="$work/m2"
if [ -d "$seed" ]; then cp -al "$seed" "$m2" 2>/dev/null || cp -a "$seed" "$m2"; else mkdir -p "$m2"; fi
if [ -e "$m2/dev/leasekit" ]; then bad "jvm: the local repository holds no leasekit"; else ok "jvm: the local repository holds no leasekit"; fi
mvnq=(mvn -B -o -q --no-transfer-progress -Dstyle.color=never -Dmaven.repo.local="$m2" -Daether.offline.protocols=file)
if run "jvm: mvn -o package against dist/maven" mvn.log "${mvnq[@]}" package dependency:build-classpath -Dmdep.outputFile=cp.txt; then
  jar="$m2/dev/leasekit/leasekit/$version/leasekit-$version.jar"
  grep -q "$jar" cp.txt && ok "jvm: leasekit resolved from dist/maven" || { cat cp.txt; bad "jvm: leasekit resolved from dist/maven"; }
  cmp -s "$jar" "$DIST/maven/dev/leasekit/leasekit/$version/leasekit-$version.jar" &&
    ok "jvm: the resolved jar is the release's" || bad "jvm: the resolved jar is the release's"
  mkdir -p extract
  run "jvm: examples/java/QuickStart.java" quick.log \
    java -Dleasekit.native.extract.dir="$d/extract" -cp "$(cat cp.txt)" "$root/examples/java/QuickStart.java" &&
    expect "jvm: QuickStart output, library from the jar into the extraction directory" quick.log \
      "^denied: PERMISSION_DENIED retryable=false$" "^QuickStart OK$" \
      "^native library from: resource /native/linux-x86_64/libleasekit_jvm\.so \(extracted to $d/extract/"
  run "jvm: governor on a SQLite file" gov.log env LEASEKIT_NATIVE_EXTRACT_DIR="$d/extract" \
    java -cp "target/classes:$(cat cp.txt)" example.GovernorOnSqlite "$d/gov.db" &&
    expect "jvm: governor acquire, release, reopen (extraction directory from the environment)" gov.log \
      "^acquired and released " "^reopened: activeLeases=0 " "extracted to $d/extract/"
fi
cd "$root"

echo "--- C"
d="$work/c" && mkdir -p "$d" && cd "$d"
block "$root/README.md" c > install.sh
if run "c: README build, shared and static, and run" install.log bash -e install.sh; then
  expect "c: example output (authorized, denied)" install.log \
    '^allow fs.read /data/reports/../2026/q1.csv -> /data/2026/q1.csv$' \
    '^deny  net.fetch https://evil.example.com/steal: PERMISSION_DENIED '
  lk=$(ls -d "$d"/leasekit-*-linux-x86_64-gnu)
  [ "$(PKG_CONFIG_PATH=$lk/lib/pkgconfig pkg-config --modversion leasekit)" = "$version" ] &&
    ok "c: pkg-config --modversion $version" || bad "c: pkg-config --modversion $version"
  [ "$(readlink -f "$(ldd authorize | awk '/libleasekit_ffi/ { print $3 }')")" = "$lk/lib/libleasekit_ffi.so" ] && ok "c: shared build uses the tarball's library" ||
    { ldd authorize; bad "c: shared build uses the tarball's library"; }
  ldd authorize-static | grep -q libleasekit_ffi && bad "c: static build needs no libleasekit_ffi.so" ||
    ok "c: static build needs no libleasekit_ffi.so"
fi
cd "$root"

echo "--- CLI"
d="$work/cli" && mkdir -p "$d" && cd "$d"
block "$root/README.md" cli > install.sh
if run "cli: README install" install.log bash -e install.sh; then
  expect "cli: --version $version" install.log "^leasekit $version\$"
  lk=$(ls -d "$d"/leasekit-cli-*-linux-x86_64-gnu)/bin/leasekit
  "$lk" serve --state "$d/state" --socket "$d/lk.sock" 2>serve.log &
  serve_pid=$!
  for _ in $(seq 1 200); do "$lk" gov --socket "$d/lk.sock" status >/dev/null 2>&1 && break; sleep 0.05; done
  req='{"actorId": "agent-7", "workspaceId": "demo", "modelId": "gpt-4o-mini", "estimatedPromptTokens": 800, "maxOutputTokens": 200, "estimatedCostCents": 3}'
  lease=$("$lk" gov --socket "$d/lk.sock" call Acquire "$req" 2>&1 | tee acquire.log | sed -n 's/.*"leaseId": *"\([^"]*\)".*/\1/p' | head -n 1)
  if [ -n "$lease" ] && "$lk" gov --socket "$d/lk.sock" call Release \
       "{\"leaseId\": \"$lease\", \"actualCostCents\": 2}" > release.log 2>&1; then
    ok "cli: leasekit serve, acquire and release over the socket"
  else
    cat acquire.log release.log serve.log 2>/dev/null; bad "cli: leasekit serve, acquire and release over the socket"
  fi
  kill -TERM "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null
  [ -s "$d/state/governor.db" ] && ok "cli: state kept in a SQLite file" || { ls -la "$d/state"; bad "cli: state kept in a SQLite file"; }
fi
cd "$root"

echo
echo "dist-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
