#!/usr/bin/env python3
"""Writes every binding's typed governor methods from conformance/governor-commands.json.

conformance/governor-commands.json is core's governor `Command::ALL` (core's test
core/tests/governor_commands.rs holds it equal): per command its wire name, the snake_case and
camelCase method names, whether it takes a request (`none`, `optional`: the empty request is
meaningful, `required`) and a one-sentence doc. From it this script writes:
  Python  bindings-python/python/leasekit/governor.py   GovernorMethods' forwarders
  Node    bindings-node/governor.js                     GOVERNOR_COMMANDS (method -> command)
          bindings-node/governor.d.ts                   GovernorCommand, the GovernorMethods
                                                        and GovernorAsyncMethods declarations
  Java    bindings-jvm/.../GovernorApi.java             the default methods (Map and JSON forms,
                                                        a no-argument form for `optional`)
  C       ffi/src/governor.rs                    the typed `lk_governor_<snake>` functions
                                                        of the commands conformance/surface.json
                                                        gives a C name (cbindgen reads them into
                                                        include/leasekit.h)
Each method only names its command and forwards to the binding's strict call: nothing is
decided here. Generated parts sit between the lines `BEGIN generated
(scripts/gen-governor-methods.py)` and `END generated`.

Usage: gen-governor-methods.py [--check]   (--check: write nothing, exit 1 on any difference)
Binding-specific typing (Node's Acquire/Release request and response types) and the C doc
texts (the header is cbindgen's and stays as it was) are the tables below.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

from generated import splice_markers, write_or_check

ROOT = Path(__file__).resolve().parent.parent
TABLE_JSON = ROOT / "conformance" / "governor-commands.json"
SURFACE_JSON = ROOT / "conformance" / "surface.json"
PY_FILE = ROOT / "bindings-python/python/leasekit/governor.py"
NODE_JS = ROOT / "bindings-node/governor.js"
NODE_DTS = ROOT / "bindings-node/governor.d.ts"
JAVA_FILE = ROOT / "bindings-jvm/src/main/java/dev/leasekit/GovernorApi.java"
C_FILE = ROOT / "ffi/src/governor.rs"

TOOL = "scripts/gen-governor-methods.py"
REQUEST_KINDS = {"none", "optional", "required"}

# Node: (parameter, response type) where they are not the generic ones.
NODE_TYPES = {
    "Acquire": ("request?: AcquireRequest | string | null", "AcquireResponse"),
    "Release": ("request: ReleaseRequest | string", "ReleaseResponse"),
}
NODE_PARAM = "request?: GovernorRequest | string | null"
NODE_RESPONSE = "GovernorResponse"

# C: the typed functions, in header order, each with the text after "`Command`" in its doc
# (the header is cbindgen's output and keeps its text). The set must be the commands that
# conformance/surface.json gives a C name.
C_DOCS = {
    "Acquire": ": writes the `AcquireResponse` JSON (a grant or a denial with its reason) to\n"
    "`*out_json`.",
    "Release": ": writes the `ReleaseResponse` JSON (the receipt) to `*out_json`.",
    "RequestToolSubLease": ": writes the `ToolSubLeaseResponse` JSON to `*out_json`.",
    "ExecuteToolCall": ": writes the `ToolExecutionResponse` JSON to `*out_json`.",
    "Authorize": " (a target against a granted lease): writes the `AuthorizeResponse` JSON to\n"
    "`*out_json`.",
    "GetMetrics": " (`request_json` NULL or `{}`): writes the metrics snapshot JSON to\n"
    "`*out_json`.",
    "VerifyAudit": " (`request_json` NULL: the store's chain): writes `{\"ok\",\"records\",...}` to\n"
    "`*out_json`.",
}


def load_commands() -> list[dict]:
    """The rows of conformance/governor-commands.json, in order, checked for shape."""
    rows = json.loads(TABLE_JSON.read_text())["commands"]
    for row in rows:
        if set(row) != {"command", "snake", "camel", "request", "doc"}:
            sys.exit(f"{TOOL}: {TABLE_JSON.name}: {row}: unexpected keys")
        if row["request"] not in REQUEST_KINDS:
            sys.exit(f"{TOOL}: {row['command']}: request is one of {sorted(REQUEST_KINDS)}")
    return rows


def lower_first(text: str) -> str:
    """The doc sentence after "`Command`: " (its first letter lowercase)."""
    return text[:1].lower() + text[1:]


def wrap(text: str, first: str, rest: str, keep_code: bool = True) -> list[str]:
    """`text` filled to 100 columns, the first line after `first`, the others after `rest`;
    `keep_code`: never breaks inside a `code span` (Java's are left to google-java-format)."""
    nbsp = "\u00a0"
    if keep_code:
        text = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", nbsp), text)
    lines = textwrap.wrap(
        text, width=100, initial_indent=first, subsequent_indent=rest,
        break_long_words=False, break_on_hyphens=False,
    )
    return [line.replace(nbsp, " ") for line in lines]


# ---------- Python ----------


def py_methods(rows) -> str:
    out = []
    for r in rows:
        doc = re.sub(r"`([^`]*)`", r"``\1``", f"`{r['command']}`: {lower_first(r['doc'])}")
        lines = wrap(doc + '"""', '        """', "        ")
        if r["request"] == "none":
            head = f"    def {r['snake']}(self) -> Dict[str, Any]:"
            body = f'        return self._core.call("{r["command"]}", None)'
        else:
            head = (
                f"    def {r['snake']}(self, request: Optional[Mapping[str, Any]] = None, /,"
                " **fields: Any) -> Dict[str, Any]:"
            )
            body = f'        return self._core.call("{r["command"]}", _payload(request, fields))'
        out.append("\n".join([head, *lines, body]) + "\n")
    return "\n".join(out)


# ---------- Node ----------


def js_table(rows) -> str:
    entries = "".join(f"  {r['camel']}: '{r['command']}',\n" for r in rows)
    return f"const GOVERNOR_COMMANDS = {{\n{entries}}}\n"


def dts_command_type(rows) -> str:
    names = [f"'{r['command']}'" for r in rows]
    lines, line = [], "  |"
    for name in names:
        if len(line) + len(name) + 3 > 100:
            lines.append(line)
            line = "  |"
        line += f" {name}" if line == "  |" else f" | {name}"
    lines.append(line)
    return "/** The wire command names (SEMANTICS 13.1). */\nexport type GovernorCommand =\n" + (
        "\n".join(lines) + "\n"
    )


def dts_signature(r) -> tuple[str, str]:
    if r["request"] == "none":
        return "", NODE_RESPONSE
    return NODE_TYPES.get(r["command"], (NODE_PARAM, NODE_RESPONSE))


def dts_methods(rows) -> str:
    out = []
    for r in rows:
        doc = wrap(f"`{r['command']}`: {lower_first(r['doc'])} */", "  /** ", "   * ")
        param, response = dts_signature(r)
        out.append("\n".join(doc) + f"\n  {r['camel']}({param}): {response}\n")
    return "".join(out)


def dts_async_methods(rows) -> str:
    out = []
    for r in rows:
        param, response = dts_signature(r)
        out.append(f"  {r['camel']}Async({param}): Promise<{response}>\n")
    return "".join(out)


# ---------- Java ----------


def javadoc(summary: str, tags: list[str]) -> str:
    """A method's Javadoc as google-java-format writes it (100 columns)."""
    lines = ["  /**", *wrap(summary, "   * ", "   * ", keep_code=False)]
    if tags:
        lines.append("   *")
        lines += [f"   * {t}" for t in tags]
    return "\n".join(lines + ["   */"]) + "\n"


def java_methods(rows) -> str:
    out = []
    for r in rows:
        cmd, name = r["command"], r["camel"]
        doc = re.sub(r"`([^`]*)`", r"{@code \1}", f"`{cmd}`: {lower_first(r['doc'])}")
        if r["request"] == "none":
            out.append(
                javadoc(doc, ["@return the response payload"])
                + f"  default Map<String, Object> {name}() {{\n"
                f'    return call("{cmd}", (String) null);\n  }}\n'
            )
            continue
        out.append(
            javadoc(doc, ["@param request the request in protocol field names",
                          "@return the response payload"])
            + f"  default Map<String, Object> {name}(Map<String, ?> request) {{\n"
            f'    return call("{cmd}", request);\n  }}\n'
        )
        out.append(
            javadoc(f"{{@code {cmd}}} with a JSON request (see {{@link #{name}(Map)}}).",
                    ["@param requestJson the request as a JSON object",
                     "@return the response payload"])
            + f"  default Map<String, Object> {name}(String requestJson) {{\n"
            f'    return call("{cmd}", requestJson);\n  }}\n'
        )
        if r["request"] == "optional":
            out.append(
                javadoc(f"{{@code {cmd}}} with an empty request (see {{@link #{name}(Map)}}).",
                        ["@return the response payload"])
                + f"  default Map<String, Object> {name}() {{\n"
                f'    return call("{cmd}", (String) null);\n  }}\n'
            )
    return "\n".join(out)


# ---------- C ----------


def c_functions(rows) -> str:
    by_command = {r["command"]: r for r in rows}
    out = []
    for cmd, text in C_DOCS.items():
        r = by_command[cmd]
        doc = "".join(f"/// {line}\n" for line in f"`{cmd}`{text}".split("\n"))
        out.append(
            doc
            + "///\n"
            "/// # Safety\n"
            "/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;\n"
            "/// `out_json` points to a writable `char *`.\n"
            "#[unsafe(no_mangle)]\n"
            f"pub unsafe extern \"C\" fn lk_governor_{r['snake']}(\n"
            "    gov: *const LkGovernor,\n"
            "    request_json: *const c_char,\n"
            "    out_json: *mut *mut c_char,\n"
            ") -> LkStatus {\n"
            "    // SAFETY: forwarded contract.\n"
            f"    unsafe {{ lk_governor_call(gov, c\"{cmd}\".as_ptr(), request_json, out_json) }}\n"
            "}\n"
        )
    return "\n".join(out)


# ---------- checks against conformance/surface.json ----------


def surface_problems(rows) -> list[str]:
    """The surface manifest names the same methods, and gives a C name exactly to C_DOCS."""
    problems = []
    entries = json.loads(SURFACE_JSON.read_text())["entries"]
    by_rust = {e["rust"]: e for e in entries}
    for r in rows:
        for owner, concept in (("Governor", "governor command"),
                               ("GovernorClient", "daemon client command")):
            e = by_rust.get(f"governor::{owner}::{r['snake']}")
            if e is None or e.get("concept") != concept:
                problems.append(f"surface.json: no {concept} row for {owner}::{r['snake']}")
                continue
            want = {"python": f"{owner}.{r['snake']}",
                    "node": f"{owner}.prototype.{r['camel']}",
                    "java": f"{owner}#{r['camel']}"}
            for lang, name in want.items():
                if e.get(lang) != name:
                    problems.append(f"surface.json: {owner}::{r['snake']} {lang} is "
                                    f"{e.get(lang)!r}, the table's method is {name!r}")
        e = by_rust.get(f"governor::Governor::{r['snake']}")
        has_c = e is not None and isinstance(e.get("c"), str)
        if has_c != (r["command"] in C_DOCS):
            problems.append(f"{r['command']}: surface.json C name {e and e.get('c')!r} "
                            f"disagrees with C_DOCS")
        elif has_c and e["c"] != f"lk_governor_{r['snake']}":
            problems.append(f"{r['command']}: surface.json C name {e['c']!r}")
    return problems


# ---------- splicing ----------


def splice(path: Path, parts: list[str]) -> str:
    return splice_markers(TOOL, path, parts)


def expected_files(rows) -> dict[Path, str]:
    """Every file with generated parts as it must read."""
    files = {
        PY_FILE: splice(PY_FILE, [py_methods(rows)]),
        NODE_JS: splice(NODE_JS, [js_table(rows)]),
        JAVA_FILE: splice(JAVA_FILE, [java_methods(rows)]),
        C_FILE: splice(C_FILE, [c_functions(rows)]),
        NODE_DTS: splice(
            NODE_DTS, [dts_command_type(rows), dts_methods(rows), dts_async_methods(rows)]
        ),
    }
    return files


def main() -> int:
    rows = load_commands()
    return write_or_check(TOOL, __doc__, expected_files(rows), surface_problems(rows),
                          f"governor methods up to date ({len(rows)} commands)")


if __name__ == "__main__":
    sys.exit(main())
