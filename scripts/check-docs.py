#!/usr/bin/env python3
"""The documentation names only what exists: CLI commands and flags, Makefile targets, stores.

    python3 scripts/check-docs.py              check the docs; exit 1 on any drift
    python3 scripts/check-docs.py --cli BIN    use another leasekit binary (default target/debug/leasekit)
    python3 scripts/check-docs.py --self-test  prove that each kind of drift is caught
    python3 scripts/check-docs.py --quickstart-only [--python PY]
                                               run docs/quickstart.md only; with PY (importing the
                                               leasekit binding) its ```python blocks too

Scanned: README.md, docs/*.md, bindings-*/README.md, the READMEs of ffi/, cli/, conformance/,
bench/ and fuzz/, examples/**/README*. In fenced code blocks
and inline code spans:
  - every `make TARGET` (or `make -C DIR TARGET`) names a target of that Makefile, read from
    `make -pRrq` (the real make database, pattern and phony targets included);
  - every `leasekit SUB... --flag` names subcommands and flags the built CLI has, read from
    `leasekit SUB... --help` (the real binary; clap prints every visible flag there);
  - every store string names a store the code accepts: for `leasekit serve --store S` the real
    CLI parses S (an unknown store is refused by clap before anything starts); for
    `Governor.open(S, ...)` in the bindings, `Governor::open(S, ...)` in Rust and
    `leasekit audit verify S`, a store keyword (`memory`, `:memory:`) or scheme (`sqlite:`,
    `postgres://`, ...) must be one that function's source in core recognises (the rest of what
    they take is a file path, so a keyword they do not know would silently become a file name);
  - `leasekit gov call COMMAND` names one of the governor's commands;
  - every repository file a code span names exists (`scripts/x.sh`, `core/tests/y.rs`), and
    every LEASEKIT_* environment variable a document names is read by some code or script.
Also runs every ```sh block of docs/quickstart.md, in order, in an empty temporary directory with
the built CLI first on PATH, and checks what they print (QUICKSTART_EXPECT). Standard library only.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CLI = ROOT / "target" / "debug" / "leasekit"
QUICKSTART = "docs/quickstart.md"


def doc_files(root: Path) -> list[Path]:
    files = [root / "README.md"]
    files += sorted((root / "docs").glob("*.md"))
    files += sorted(root.glob("bindings-*/README.md"))
    files += [root / d / "README.md" for d in ("ffi", "cli", "conformance", "bench", "fuzz")]
    files += sorted(p for p in (root / "examples").rglob("README*") if p.is_file())
    return [f for f in files if f.is_file()]


# --- Markdown: code blocks and code spans ---------------------------------------------------


@dataclass
class Snippet:
    """A piece of code from a document: a fenced block (its language) or an inline span."""

    path: Path
    line: int
    text: str
    lang: str  # "" for an inline span or a block without a language


def snippets(path: Path) -> list[Snippet]:
    out: list[Snippet] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*(```+|~~~+)\s*([\w+-]*)", lines[i])
        if m:
            fence, lang = m.group(1), m.group(2).lower()
            start = i + 1
            j = start
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            out.append(Snippet(path, start + 1, "\n".join(lines[start:j]), lang or "block"))
            i = j + 1
            continue
        for s in re.finditer(r"(`+)(.+?)\1", lines[i]):
            # A pipe inside a code span of a table is written `\|`.
            out.append(Snippet(path, i + 1, s.group(2).strip().replace("\\|", "|"), ""))
        i += 1
    return out


SHELL_LANGS = {"", "block", "sh", "bash", "shell", "console", "text"}


def commands(snippet: Snippet) -> list[list[str]]:
    """The simple commands of a shell snippet, each as its words (operators split them)."""
    if snippet.lang not in SHELL_LANGS:
        return []
    text = re.sub(r"\\\n", " ", snippet.text)
    out: list[list[str]] = []
    for line in text.splitlines():
        line = re.sub(r"^\s*\$ ", "", line)
        try:
            lex = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
            lex.whitespace_split = True
            lex.commenters = "#"
            words = list(lex)
        except ValueError:
            words = line.split()
        current: list[str] = []
        for w in words:
            if w and set(w) <= set(";&|()<>"):
                if current:
                    out.append(current)
                current = []
            else:
                current.append(w)
        if current:
            out.append(current)
    return out


def brace_expand(word: str) -> list[str]:
    """Bash brace expansion of one word (`conformance-{c,jvm}` -> both names)."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", word)
    if not m:
        return [word]
    out = []
    for alt in m.group(1).split(","):
        out += brace_expand(word[: m.start()] + alt + word[m.end() :])
    return out


def strip_prefix_words(words: list[str]) -> list[str]:
    """Drops `VAR=value`, `sudo`, `exec`, `env`, `time` before the command name."""
    words = [x for w in words for x in brace_expand(w)]
    i = 0
    while i < len(words) and (
        re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[i]) or words[i] in ("sudo", "exec", "env", "time", "nohup")
    ):
        i += 1
    return words[i:]


# --- The CLI, from its --help ---------------------------------------------------------------


@dataclass
class CliNode:
    """One command of the CLI: its flags and subcommands."""

    path: list[str]
    flags: set[str] = field(default_factory=set)
    subcommands: dict[str, "CliNode"] = field(default_factory=dict)
    needs_subcommand: bool = False


def help_text(cli: Path, path: list[str]) -> str:
    r = subprocess.run([str(cli), *path, "--help"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit(f"check-docs: `leasekit {' '.join(path)} --help` failed: {r.stderr.strip()}")
    return r.stdout


def cli_tree(cli: Path, path: list[str] | None = None) -> CliNode:
    path = path or []
    text = help_text(cli, path)
    node = CliNode(path)
    section = ""
    sections = set()
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            section = line[:-1]
            sections.add(section)
            continue
        if section == "Commands":
            m = re.match(r"^  ([a-z][\w-]*)(\s|$)", line)
            if m and m.group(1) != "help":
                node.subcommands[m.group(1)] = None  # type: ignore[assignment]
        elif section == "Options":
            m = re.match(r"^ {2,6}(?:(-\w), )?(--[\w-]+)", line)
            if m:
                node.flags.update(x for x in m.groups() if x)
            else:
                m = re.match(r"^ {2,6}(-\w)\b", line)
                if m:
                    node.flags.add(m.group(1))
    # With subcommands and no positional arguments, a bare word must name a subcommand.
    node.needs_subcommand = bool(node.subcommands) and "Arguments" not in sections
    for name in list(node.subcommands):
        node.subcommands[name] = cli_tree(cli, path + [name])
    return node


def governor_commands(root: Path) -> set[str]:
    """The governor's command names (core's `Command::ALL`, held equal to this file by a test)."""
    import json

    table = json.loads((root / "conformance" / "governor-commands.json").read_text())
    return {c["command"] for c in table["commands"]}


def check_cli_command(tree: CliNode, words: list[str], commands: set[str] | None = None) -> list[str]:
    node, i = tree, 1
    while i < len(words) and words[i] in node.subcommands:
        node = node.subcommands[words[i]]
        i += 1
    shown = " ".join(["leasekit", *node.path])
    problems = []
    # `leasekit gov call COMMAND ...`: COMMAND is one of the governor's.
    if commands and node.path == ["gov", "call"]:
        named = [w for w in words[i:] if not w.startswith("-")][:1]
        if named and re.fullmatch(r"[A-Z][A-Za-z]+", named[0]) and named[0] not in commands:
            problems.append(f"`leasekit gov call {named[0]}`: the governor has no such command")
    if node.needs_subcommand and i < len(words):
        w = words[i].strip("[]{}")
        if re.fullmatch(r"[a-z][a-z-]*", w):
            problems.append(f"`{shown} {w}`: no such subcommand (has: {', '.join(sorted(node.subcommands))})")
    for w in words[i:]:
        if w == "--":  # what follows is another program's command line (mcp-guard)
            break
        w = w.strip("[]{}")
        if w.startswith("--") and len(w) > 2:
            name = w.split("=", 1)[0]
            if re.fullmatch(r"--[a-z][\w-]*", name) and name not in node.flags:
                problems.append(f"`{shown}` has no flag {name}")
        elif re.fullmatch(r"-[A-Za-z]", w) and w not in node.flags:
            problems.append(f"`{shown}` has no flag {w}")
    return problems


# Flags of other programs that the docs name alone in a code span (not after a command).
OTHER_PROGRAMS_FLAGS = {
    "--check": "the generators under scripts/ and conformance/tools/",
    "--self-check": "conformance/tools/gen_governor_vectors.py",
    "--self-test": "the checks under scripts/",
    "--target": "napi build",
    "--features": "cargo",
    "--bench": "cargo",
    "--release": "cargo",
    "--restart": "bench/governor_bloat.py",
    "--leak-check": "valgrind",
}


def all_flags(tree: CliNode) -> set[str]:
    out = set(tree.flags)
    for child in tree.subcommands.values():
        out |= all_flags(child)
    return out


def hidden_flags(root: Path) -> set[str]:
    """Flags clap hides from --help (test hooks), from `#[arg(long, hide = true ...)]`."""
    out = set()
    for src in (root / "cli" / "src").rglob("*.rs"):
        text = src.read_text()
        for m in re.finditer(r"#\[arg\(long[^]]*hide = true[^]]*\)\]\s*pub (\w+):", text):
            out.add("--" + m.group(1).replace("_", "-"))
    return out


def check_lone_flag(span: str, known: set[str]) -> list[str]:
    """A code span that starts with a flag (`--store memory`) names a flag some command has."""
    m = re.match(r"^(--[a-z][\w-]*)", span)
    if not m or m.group(1) in known or m.group(1) in OTHER_PROGRAMS_FLAGS:
        return []
    return [f"`{m.group(1)}`: no leasekit command has this flag"]


# --- Repository paths and environment variables --------------------------------------------

GENERATED_DIRS = ("target/", "dist/")


def check_paths(root: Path, doc: Path, span: str) -> list[str]:
    """Files a code span names (a word starting with a top-level directory of the repository
    and ending in a file extension) exist, from the root or from the document's directory."""
    tops = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}
    problems = []
    for w in re.findall(r"[A-Za-z0-9_./-]+", span):
        if w.startswith(GENERATED_DIRS) or "/" not in w or w.split("/")[0] not in tops:
            continue
        if not re.search(r"\.[a-z]{1,5}$", w) or re.search(r"-V[-.]", w):
            continue  # a directory, a prefix or a release artifact's name pattern
        if not (root / w).exists() and not (doc.parent / w).exists():
            problems.append(f"`{w}`: no such file")
    return problems


def code_env_vars(root: Path) -> set[str]:
    """Every LEASEKIT_* name the code, scripts and Makefile use."""
    r = subprocess.run(
        ["git", "grep", "-ohE", r"LEASEKIT_[A-Z0-9_]+", "--", ":!*.md", ":!scripts/check-docs.py"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if r.returncode not in (0, 1):
        raise SystemExit(f"check-docs: git grep failed: {r.stderr.strip()}")
    return set(r.stdout.split())


def check_env_vars(text: str, known: set[str]) -> list[str]:
    """Every LEASEKIT_* variable a document names is read somewhere, except a name the reader
    chooses (`env:NAME` of `--store`, in any document: `known` holds those too)."""
    named = set(re.findall(r"\bLEASEKIT_[A-Z0-9_]+\b", text))
    return [f"`{v}`: no code reads this environment variable" for v in sorted(named - known)]


# --- Makefiles ------------------------------------------------------------------------------


def make_targets(makefile_dir: Path) -> set[str]:
    r = subprocess.run(
        ["make", "-pRrq", "-f", "Makefile", ":"],
        cwd=makefile_dir,
        capture_output=True,
        text=True,
        timeout=60,
    )
    # A target counts when it has prerequisites or a recipe (a name only listed in .PHONY
    # has neither, and `make NAME` would do nothing).
    targets = set()
    lines = r.stdout.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^([A-Za-z0-9][^$#/\t=:]*):(?!=)(.*)$", line)
        if not m:
            continue
        j = i + 1
        while j < len(lines) and lines[j].startswith("#"):
            j += 1
        if m.group(2).strip() or (j < len(lines) and lines[j].startswith("\t")):
            targets.update(m.group(1).split())
    return targets - {"Makefile", ".PHONY"}


def check_make_command(root: Path, words: list[str], cwd: Path, cache: dict) -> list[str]:
    directory, targets_given, i = cwd, [], 1
    while i < len(words):
        w = words[i]
        if w == "-C" and i + 1 < len(words):
            directory = cwd / words[i + 1]
            i += 2
            continue
        if w.startswith("-") or "=" in w or "$" in w:
            i += 1
            continue
        targets_given.append(w)
        i += 1
    if not targets_given:
        return []
    if not (directory / "Makefile").is_file():
        return [f"`make -C {directory.relative_to(root)}`: no Makefile there"]
    if directory not in cache:
        cache[directory] = make_targets(directory)
    rel = directory.relative_to(root)
    where = "Makefile" if str(rel) == "." else f"{rel}/Makefile"
    return [f"`make {t}`: no such target in {where}" for t in targets_given if t not in cache[directory]]


# --- Stores ---------------------------------------------------------------------------------

PLACEHOLDER_ENV = "postgres://probe@localhost/probe"


def serve_accepts(cli: Path, store: str) -> bool:
    """Whether `leasekit serve --store STORE` parses STORE: an invalid --socket-mode after it
    makes clap stop with an error either way, and the error names the first bad value."""
    env = dict(os.environ)
    m = re.fullmatch(r"env:(\w+)", store)
    if m:
        env[m.group(1)] = PLACEHOLDER_ENV
    r = subprocess.run(
        [str(cli), "serve", "--store", store, "--socket-mode", "not-octal"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    if "'--store" in r.stderr:
        return False
    if "'--socket-mode" in r.stderr:
        return True
    raise SystemExit(f"check-docs: cannot probe `leasekit serve --store {store}`: {r.stderr.strip()}")


def rust_function(root: Path, file: str, signature: str) -> str:
    """The source of one function (from its signature to the next line that closes it)."""
    text = (root / file).read_text()
    start = text.find(signature)
    if start < 0:
        raise SystemExit(f"check-docs: {file}: `{signature}` not found (the store grammar moved?)")
    indent = text.rfind("\n", 0, start)
    pad = text[indent + 1 : start]
    end = text.find("\n" + pad + "}", start)
    return text[start:end]


@dataclass
class StoreGrammar:
    """The keywords (whole strings) and schemes (prefixes) one store-opening function knows;
    anything else it takes as a SQLite file path."""

    name: str
    keywords: set[str]
    schemes: set[str]

    def accepts(self, store: str) -> bool:
        if store in self.keywords:
            return True
        if any(store.lower().startswith(s) for s in self.schemes):
            return True
        # A path is accepted, but a word without a path separator or extension that looks like a
        # keyword (`memory`) or a scheme (`env:NAME`) would silently become a file name.
        looks_like_path = "/" in store or "." in store or store.startswith("~")
        return looks_like_path and not re.match(r"^[a-z]+:(?!/)", store)


def grammar_of(root: Path, name: str, file: str, signature: str) -> StoreGrammar:
    src = rust_function(root, file, signature)
    if "StoreSpec::parse(" in src:  # reads store strings as the bindings do
        spec = grammar_of(root, name, "core/src/governor/open.rs", "pub fn parse(text: &str)")
        return StoreGrammar(name, spec.keywords, spec.schemes)
    keywords = set(re.findall(r'==\s*"([^"]+)"', src))
    schemes = set(re.findall(r'(?:starts_with|strip_prefix)\("([^"]+)"\)', src))
    return StoreGrammar(name, keywords, {s.lower() for s in schemes})


def store_grammars(root: Path) -> dict[str, StoreGrammar]:
    return {
        "binding": grammar_of(root, "Governor.open (bindings)", "core/src/governor/open.rs", "pub fn parse(text: &str)"),
        "rust": grammar_of(root, "Governor::open (Rust)", "core/src/governor/store/mod.rs", "pub fn open_location("),
        "audit": grammar_of(root, "leasekit audit verify", "core/src/governor/store/mod.rs", "pub fn open_audit_snapshot("),
    }


STORE_WORD = re.compile(r"^(?:memory|:memory:|sqlite|sqlite:\S*|postgres(?:ql)?://\S*|env:\S*)$", re.I)


def store_strings_in(snippet: Snippet) -> list[tuple[str, str]]:
    """(grammar, store) of every store string a snippet shows, by the call it is given to."""
    found = []
    for m in re.finditer(r"Governor(\.|::)open\s*\(\s*(['\"])([^'\"]*)\2", snippet.text):
        found.append(("rust" if m.group(1) == "::" else "binding", m.group(3)))
    return found


def prose_store_strings(path: Path, root: Path) -> list[tuple[int, str, str]]:
    """Store strings listed in prose about `Governor.open(store, ...)`: a line that names
    `Governor.open` or `open(store` and quotes store strings (`"memory"`, `"sqlite:PATH"`)."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not re.search(r"Governor\.open|`open\(store|`store` is", line):
            continue
        for m in re.finditer(r"`\"([^\"`]+)\"`", line):
            if STORE_WORD.match(m.group(1)):
                out.append((n, "binding", m.group(1)))
    return out


# --- The check ------------------------------------------------------------------------------


def check(root: Path, cli: Path) -> list[str]:
    tree = cli_tree(cli)
    grammars = store_grammars(root)
    known_flags = all_flags(tree) | hidden_flags(root)
    gov_commands = governor_commands(ROOT)
    env_vars = code_env_vars(ROOT)  # the code itself, also when the self-test checks a copy
    for path in doc_files(root):  # and the names readers choose for `--store env:NAME`
        env_vars |= set(re.findall(r"env:(LEASEKIT_[A-Z0-9_]+)", path.read_text()))
    make_cache: dict = {}
    serve_cache: dict[str, bool] = {}
    problems = []
    for path in doc_files(root):
        rel = path.relative_to(root)
        problems += [f"{rel}: {p}" for p in check_env_vars(path.read_text(), env_vars)]
        for sn in snippets(path):
            where = f"{rel}:{sn.line}"
            problems += [f"{where}: {p}" for p in check_paths(ROOT, path, sn.text)]
            cwd = root
            for words in commands(sn):
                words = strip_prefix_words(words)
                if not words:
                    continue
                if words[0] == "cd" and len(words) == 2 and (root / words[1]).is_dir():
                    cwd = root / words[1]
                    continue
                if words[0] == "make":
                    problems += [f"{where}: {p}" for p in check_make_command(root, words, cwd, make_cache)]
                elif re.fullmatch(r"(?:\S*/(?:target/\w+|bin)/|\./)?leasekit", words[0]):
                    problems += [f"{where}: {p}" for p in check_cli_command(tree, words, gov_commands)]
                    problems += [f"{where}: {p}" for p in check_cli_stores(words, grammars, cli, serve_cache)]
            if sn.lang == "":
                problems += [f"{where}: {p}" for p in check_lone_flag(sn.text, known_flags)]
                if sn.text.startswith("--store"):  # the daemon's flag, shown alone
                    words = ["leasekit", "serve", *sn.text.split()]
                    problems += [f"{where}: {p}" for p in check_cli_stores(words, grammars, cli, serve_cache)]
            for gname, store in store_strings_in(sn):
                if not grammars[gname].accepts(store):
                    problems.append(f"{where}: {grammars[gname].name} does not know the store {store!r}")
        for n, gname, store in prose_store_strings(path, root):
            if not grammars[gname].accepts(store):
                problems.append(f"{rel}:{n}: {grammars[gname].name} does not know the store {store!r}")
    return problems


def check_cli_stores(words: list[str], grammars: dict, cli: Path, cache: dict) -> list[str]:
    problems = []
    if len(words) >= 2 and words[1] == "serve":
        for i, w in enumerate(words):
            value = None
            if w == "--store" and i + 1 < len(words):
                value = words[i + 1]
            elif w.startswith("--store="):
                value = w.split("=", 1)[1]
            if value is None:
                continue
            for store in value.split("|"):
                if store.startswith(("<", "$")) or re.fullmatch(r"[A-Z_]+", store):
                    continue  # a placeholder (STORE, S, <url>, $URL)
                if store not in cache:
                    cache[store] = serve_accepts(cli, store)
                if not cache[store]:
                    problems.append(f"`leasekit serve --store {store}`: the CLI refuses this store")
    audit_store = None
    if words[1:3] == ["audit", "verify"] and len(words) >= 4:
        audit_store = words[3]
    elif words[1:3] == ["audit", "export"] and "--store" in words[:-1]:
        audit_store = words[words.index("--store") + 1]
    if audit_store and STORE_WORD.match(audit_store) and not grammars["audit"].accepts(audit_store):
        problems.append(f"`leasekit {' '.join(words[1:3])} {audit_store}`: not a store it opens")
    return problems


# --- The quickstart ------------------------------------------------------------------------

# What the quickstart's blocks must print (its ```text blocks show these).
QUICKSTART_EXPECT = [
    "1 file: 0 errors, 0 warnings",
    "allow  fs.read /workspace/src/main.rs",
    "deny   fs.read /workspace/../etc/passwd  (canonical: /etc/passwd)",
    "deny   fs.write /workspace/src/main.rs",
    "denied (exit status 1)",
    "healthy",
    "granted lease ",
    '"classification": "recorded"',
    '"deniedReason": "daily_budget_exceeded"',
    "records verify",
]


def run_quickstart(root: Path, cli: Path, python: str | None = None) -> list[str]:
    """Runs every ```sh block of docs/quickstart.md, in order, as one bash script in an empty
    directory with `cli` first on PATH; a failing command fails it (set -e). With `python` (an
    interpreter that imports the leasekit binding), then every ```python block there too."""
    path = root / QUICKSTART
    if not path.is_file():
        return []
    blocks = [s.text for s in snippets(path) if s.lang == "sh"]
    if not blocks:
        return [f"{QUICKSTART}: no ```sh block to run"]
    script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + "\n".join(blocks) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LEASEKIT_", "XDG_"))}
        env["PATH"] = f"{cli.resolve().parent}:{env.get('PATH', '')}"
        env["HOME"] = tmp
        try:
            r = subprocess.run(["bash", "-c", script], cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return [f"{QUICKSTART}: its commands did not finish in 120 s"]
        out = r.stdout + r.stderr
        if r.returncode != 0:
            return [f"{QUICKSTART}: its commands failed (exit {r.returncode}):\n{out}"]
        missing = [w for w in QUICKSTART_EXPECT if w not in out]
        if missing:
            return [f"{QUICKSTART}: the commands ran but did not print {missing}:\n{out}"]
        if python:
            for sn in snippets(path):
                if sn.lang != "python":
                    continue
                r = subprocess.run([python, "-c", sn.text], cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
                if r.returncode != 0:
                    return [f"{QUICKSTART}:{sn.line}: the Python block failed:\n{r.stdout}{r.stderr}"]
    return []


# --- Self-test ------------------------------------------------------------------------------

MUTATIONS = [
    ("an unknown flag", "```sh\nleasekit check --no-such-flag --lease l.json fs.read /a\n```\n", "has no flag --no-such-flag"),
    ("an unknown flag of a nested command", "`leasekit gov approvals list --bogus`\n", "has no flag --bogus"),
    ("an unknown flag named alone", "The `--no-such-option` flag.\n", "no leasekit command has this flag"),
    ("a file that does not exist", "See `scripts/no-such-script.sh`.\n", "no such file"),
    ("an environment variable no code reads", "Set LEASEKIT_NO_SUCH_VAR=1.\n", "no code reads this environment variable"),
    ("an unknown governor command", "```sh\nleasekit gov call AcquireLease '{}'\n```\n", "the governor has no such command"),
    ("an unknown subcommand", "```\nleasekit gov frobnicate\n```\n", "no such subcommand"),
    ("an unknown Makefile target", "Run `make no-such-target`.\n", "no such target"),
    ("an unknown target of another Makefile", "```\nmake -C examples/c nope\n```\n", "no such target in examples/c/Makefile"),
    ("a store the daemon refuses", "```\nleasekit serve --store mysql://x\n```\n", "refuses this store"),
    ("a store the daemon refuses, in a table", "| `--store sqlite\\|mem` | x |\n", "--store mem`: the CLI refuses"),
    ("a store keyword audit verify takes for a path", "`leasekit audit verify memory`\n", "not a store it opens"),
    ("a store keyword the bindings do not know", "```python\ngov = Governor.open(\"sqlite\", {})\n```\n", "does not know the store 'sqlite'"),
    ("a keyword Rust's Governor::open takes for a path", "```rust\nGovernor::open(\"sqlite\", p, o)?;\n```\n", "does not know the store 'sqlite'"),
]


def self_test(cli: Path) -> int:
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        copy.mkdir()
        for name in ["Makefile", "README.md"]:
            shutil.copy(ROOT / name, copy / name)
        for d in ["docs", "core/src/governor", "examples/c", "ffi"]:
            (copy / d).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(ROOT / "core/src/governor", copy / "core/src/governor")
        (copy / "examples/c").mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "examples/c/Makefile", copy / "examples/c/Makefile")
        (copy / "docs").mkdir(exist_ok=True)
        clean = check(copy, cli)
        if clean:
            print("self-test: the README alone already fails:\n  " + "\n  ".join(clean))
            return 1
        for what, text, expect in MUTATIONS:
            (copy / "docs" / "mutated.md").write_text(text)
            found = check(copy, cli)
            if any(expect in p for p in found):
                print(f"self-test: caught {what}")
            else:
                print(f"self-test: NOT caught: {what} (found: {found})")
                failures += 1
        # A quickstart command that fails when run.
        (copy / "docs" / "mutated.md").unlink()
        (copy / QUICKSTART).write_text("```sh\nleasekit policy lint no-such-policy.json\n```\n")
        found = run_quickstart(copy, cli)
        if any("its commands failed" in p for p in found):
            print("self-test: caught a quickstart command that fails")
        else:
            print(f"self-test: NOT caught: a quickstart command that fails (found: {found})")
            failures += 1
        (copy / QUICKSTART).unlink()
        (copy / "docs" / "mutated.md").write_text("")
        # And removing a target the README names is caught too.
        (copy / "docs" / "mutated.md").unlink()
        mk = (copy / "Makefile").read_text()
        (copy / "Makefile").write_text(re.sub(r"(?m)^vectors-check:", "vectors-chek:", mk))
        found = check(copy, cli)
        if any("`make vectors-check`: no such target" in p for p in found):
            print("self-test: caught a documented target removed from the Makefile")
        else:
            print(f"self-test: NOT caught: a target removed from the Makefile (found: {found})")
            failures += 1
    print(f"check-docs self-test: {len(MUTATIONS) + 2 - failures} of {len(MUTATIONS) + 2} mutations caught")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    cli = DEFAULT_CLI
    if "--cli" in argv:
        cli = Path(argv[argv.index("--cli") + 1])
    if not cli.is_file():
        print(f"check-docs: {cli} not found (cargo build -p leasekit-cli first)")
        return 1
    if "--self-test" in argv:
        return self_test(cli)
    if "--quickstart-only" in argv:
        python = argv[argv.index("--python") + 1] if "--python" in argv else None
        problems = run_quickstart(ROOT, cli, python)
        for p in problems:
            print(p)
        if not problems:
            print(f"check-docs: {QUICKSTART} runs as written" + (" (Python blocks included)" if python else ""))
        return 1 if problems else 0
    problems = check(ROOT, cli) + run_quickstart(ROOT, cli)
    for p in problems:
        print(p)
    n = len(doc_files(ROOT))
    if problems:
        print(f"check-docs: {len(problems)} drift(s) between the docs and the code")
        return 1
    print(f"check-docs: {n} documents name only flags, targets and stores that exist")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
