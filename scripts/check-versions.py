#!/usr/bin/env python3
"""Every manifest carries the one release version, the workspace `Cargo.toml`'s.

    python3 scripts/check-versions.py              check the repository; exit 1 on a mismatch
    python3 scripts/check-versions.py --cli BIN    also compare `BIN --version`
    python3 scripts/check-versions.py --self-test  prove that each manifest's mismatch is caught

Checked: the workspace version and its path dependencies' `version =`, every member crate
(`version.workspace = true`), pyproject.toml and `leasekit.__version__` (PEP 440 spelling),
package.json, package-lock.json (both places), the linux-x64-gnu platform package, the
napi loader's expected version, pom.xml, the pkg-config template (filled from Cargo.toml), and
optionally the CLI's `--version`. Standard library only.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = ["core", "ffi", "bindings-python", "bindings-node", "bindings-jvm", "cli", "serve"]
PLATFORM_PACKAGE = "bindings-node/npm/linux-x64-gnu/package.json"
# Every file the check reads (the self-test copies these).
FILES = (
    ["Cargo.toml"]
    + [f"{m}/Cargo.toml" for m in MEMBERS]
    + [
        "bindings-python/pyproject.toml",
        "bindings-python/python/leasekit/__init__.py",
        "bindings-node/package.json",
        "bindings-node/package-lock.json",
        PLATFORM_PACKAGE,
        "bindings-node/native.js",
        "bindings-jvm/pom.xml",
        "ffi/leasekit.pc.in",
    ]
)


def pep440(version: str) -> str:
    """The PEP 440 spelling of a semver version (1.2.0-rc.1 -> 1.2.0rc1)."""
    m = re.fullmatch(r"(\d+\.\d+\.\d+)(?:-(alpha|beta|rc)\.?(\d+))?", version)
    if not m:
        return version
    base, kind, num = m.groups()
    return base if kind is None else base + {"alpha": "a", "beta": "b", "rc": "rc"}[kind] + num


def workspace_version(root: Path) -> str:
    return tomllib.loads((root / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def check(root: Path, cli: str | None = None) -> list[str]:
    """Returns one message per manifest that disagrees with the workspace version."""
    errors: list[str] = []
    want = workspace_version(root)

    def expect(where: str, got: object, wanted: str = want) -> None:
        if got != wanted:
            errors.append(f"{where}: version {got!r}, expected {wanted!r} (workspace Cargo.toml)")

    ws = tomllib.loads((root / "Cargo.toml").read_text())["workspace"]
    for name, dep in ws.get("dependencies", {}).items():
        if isinstance(dep, dict) and "path" in dep and "version" in dep:
            expect(f"Cargo.toml [workspace.dependencies] {name}", dep["version"])
    for member in MEMBERS:
        manifest = tomllib.loads((root / member / "Cargo.toml").read_text())
        v = manifest["package"].get("version")
        if v != {"workspace": True}:
            expect(f"{member}/Cargo.toml", v)
        for section in ("dependencies", "dev-dependencies", "build-dependencies"):
            for name, dep in manifest.get(section, {}).items():
                if isinstance(dep, dict) and "path" in dep and "version" in dep:
                    expect(f"{member}/Cargo.toml [{section}] {name}", dep["version"])

    py = tomllib.loads((root / "bindings-python/pyproject.toml").read_text())["project"]
    if "version" in py.get("dynamic", []):
        pass  # maturin takes Cargo.toml's version
    else:
        expect("bindings-python/pyproject.toml", py.get("version"), pep440(want))
    init = (root / "bindings-python/python/leasekit/__init__.py").read_text()
    m = re.search(r'^__version__ = "([^"]*)"', init, re.M)
    expect("bindings-python/python/leasekit/__init__.py __version__", m and m.group(1), pep440(want))

    pkg = json.loads((root / "bindings-node/package.json").read_text())
    expect("bindings-node/package.json", pkg.get("version"))
    for dep, v in pkg.get("optionalDependencies", {}).items():
        if dep.startswith("leasekit-"):
            expect(f"bindings-node/package.json optionalDependencies {dep}", v)
    lock = json.loads((root / "bindings-node/package-lock.json").read_text())
    expect("bindings-node/package-lock.json", lock.get("version"))
    expect('bindings-node/package-lock.json packages[""]', lock.get("packages", {}).get("", {}).get("version"))
    plat = json.loads((root / PLATFORM_PACKAGE).read_text())
    expect(PLATFORM_PACKAGE, plat.get("version"))
    loader = (root / "bindings-node/native.js").read_text()
    for got in sorted(set(re.findall(r"bindingPackageVersion !== '([^']*)'", loader))):
        expect("bindings-node/native.js (regenerate with `npm run build`)", got)

    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    pom = ET.parse(root / "bindings-jvm/pom.xml").getroot()
    expect("bindings-jvm/pom.xml", pom.findtext("m:version", namespaces=ns))

    pc = (root / "ffi/leasekit.pc.in").read_text()
    if not re.search(r"^Version: @VERSION@$", pc, re.M):
        errors.append("ffi/leasekit.pc.in: Version must be @VERSION@ (filled from Cargo.toml)")

    if cli:
        out = subprocess.run([cli, "--version"], capture_output=True, text=True, check=False).stdout.strip()
        expect(f"{cli} --version", out.split()[-1] if out else out)
    return errors


def self_test() -> int:
    """Bumps each manifest in a copy of the tree and asserts that the check names it."""
    edits = {
        "Cargo.toml": ('leasekit = { path = "core", version = "{v}" }', 'leasekit = { path = "core", version = "9.9.9" }'),
        "cli/Cargo.toml": ('leasekit-serve = { version = "{v}"', 'leasekit-serve = { version = "9.9.9"'),
        "core/Cargo.toml": ("version.workspace = true", 'version = "9.9.9"'),
        "bindings-python/pyproject.toml": ('version = "{p}"', 'version = "9.9.9"'),
        "bindings-python/python/leasekit/__init__.py": ('__version__ = "{p}"', '__version__ = "9.9.9"'),
        "bindings-node/package.json": ('"version": "{v}"', '"version": "9.9.9"'),
        "bindings-node/package-lock.json": ('"version": "{v}"', '"version": "9.9.9"'),
        PLATFORM_PACKAGE: ('"version": "{v}"', '"version": "9.9.9"'),
        "bindings-node/native.js": ("bindingPackageVersion !== '{v}'", "bindingPackageVersion !== '9.9.9'"),
        "bindings-jvm/pom.xml": ("<version>{v}</version>", "<version>9.9.9</version>"),
        "ffi/leasekit.pc.in": ("Version: @VERSION@", "Version: 9.9.9"),
    }
    want = workspace_version(ROOT)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for f in FILES:
            (base / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / f, base / f)
        if check(base):
            print("self-test: the unmodified copy already disagrees", file=sys.stderr)
            return 1
        for f, (old, new) in edits.items():
            old = old.replace("{v}", want).replace("{p}", pep440(want))
            text = (ROOT / f).read_text()
            if old not in text:
                print(f"self-test: {f} does not contain {old!r}", file=sys.stderr)
                failures += 1
                continue
            (base / f).write_text(text.replace(old, new, 1))
            errs = check(base)
            if not any(e.startswith(f) for e in errs):
                print(f"self-test: a changed version in {f} was not caught: {errs}", file=sys.stderr)
                failures += 1
            shutil.copy(ROOT / f, base / f)
    print(f"check-versions self-test: {len(edits) - failures} of {len(edits)} manifests caught")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["--self-test"]:
        return self_test()
    cli = argv[argv.index("--cli") + 1] if "--cli" in argv else None
    errors = check(ROOT, cli)
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print(f"every manifest is at version {workspace_version(ROOT)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
