#!/usr/bin/env python3
"""An independent, deliberately naive reading of docs/semantics.md sections 1-6 and 9, used only
to cross-check the hand-written expectations of `vectors_bypass.py` (`--check`). It never
runs leasekit and it is not the source of any expectation: when it disagrees with a vector,
one of the two misreads the semantics and a person decides which.

- canonicalize (S5): fs paths, net.fetch URLs with the 5.2 ambiguity and empty-label rules,
  the 16 384-byte target bound;
- match (S4): the pattern translated to a Python regex (`*` -> `[^S]*`, in-segment `**` ->
  `.*`, whole-segment `**` -> optional groups), anchored;
- subset (S9): refuted by sampling strings of the child's language (each `*`/`**` replaced
  by short fillers) and checking every parent pattern; a "true" expectation is only
  sanity-checked this way, never proven;
- budget_parse (S6): a regex and two digit counts.
"""
import ipaddress
import re

RESERVED = {"fs.read", "fs.write", "net.fetch", "tool.call", "agent.delegate", "model.use",
            "cost.budget"}
VENDOR = re.compile(r"x-vendor(\.[a-z0-9_-]+){2,}")
REG_NAME = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=")
UNRESERVED = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
HEX = set("0123456789abcdefABCDEF")
DEFAULT_PORT = {"http": 80, "ws": 80, "https": 443, "wss": 443}


class Invalid(Exception):
    """INVALID_REQUEST."""


def valid_name(n):
    return n in RESERVED or VENDOR.fullmatch(n) is not None


def has_control(s):
    return any(ord(c) < 0x20 or ord(c) == 0x7F for c in s)


def seps(cap):
    return "./" if cap == "tool.call" else "/"


def canonicalize(cap, t):
    if not valid_name(cap) or cap == "cost.budget":
        raise Invalid(cap)
    if t == "" or has_control(t) or len(t.encode()) > 16384:
        raise Invalid("target")
    if cap in ("fs.read", "fs.write"):
        return fs_path(t)
    if cap == "net.fetch":
        return url(t)
    return t


def fs_path(t):
    if not t.startswith("/"):
        raise Invalid("relative")
    out = []
    for s in t.split("/"):
        if s in ("", "."):
            continue
        if s == "..":
            if out:
                out.pop()
            continue
        out.append(s)
    return "/" + "/".join(out)


def split_scheme(t):
    i = t.find("://")
    if i < 0 or not SCHEME.fullmatch(t[:i]):
        return None
    return t[:i].lower(), t[i + 3:]


def authority(scheme, a):
    if "@" in a:
        raise Invalid("userinfo")
    if a.startswith("["):
        close = a.find("]")
        if close < 0:
            raise Invalid("unterminated")
        lit, after = a[1:close], a[close + 1:]
        if "%" in lit:
            raise Invalid("zone")
        try:
            ipaddress.IPv6Address(lit)
        except ValueError:
            raise Invalid("ip literal")
        host = "[" + lit.lower() + "]"
        if after == "":
            port = None
        elif after.startswith(":"):
            port = after[1:]
        else:
            raise Invalid("after literal")
    else:
        host, _, port = a.partition(":")
        if ":" not in a:
            port = None
        if host.endswith("."):
            host = host[:-1]
        if host == "":
            raise Invalid("empty host")
        if host.startswith(".") or ".." in host or host.endswith("."):
            raise Invalid("empty label")
        if not all(c in REG_NAME for c in host):
            raise Invalid("host bytes")
        host = host.lower()
    if port is not None:
        if not re.fullmatch(r"[0-9]{1,5}", port) or int(port) > 65535:
            raise Invalid("port")
        n = int(port)
        if DEFAULT_PORT.get(scheme) != n:
            host += ":%d" % n
    return host


def remove_dot_segments(inp):
    out = ""
    while inp:
        if inp.startswith("../"):
            inp = inp[3:]
        elif inp.startswith("./"):
            inp = inp[2:]
        elif inp.startswith("/./"):
            inp = inp[2:]
        elif inp == "/.":
            inp = "/"
        elif inp.startswith("/../"):
            inp = inp[3:]
            out = out[:max(out.rfind("/"), 0)]
        elif inp == "/..":
            inp = "/"
            out = out[:max(out.rfind("/"), 0)]
        elif inp in (".", ".."):
            inp = ""
        else:
            start = 1 if inp.startswith("/") else 0
            j = inp.find("/", start)
            j = len(inp) if j < 0 else j
            out += inp[:j]
            inp = inp[j:]
    return out


def url_path(p):
    dec = ""
    i = 0
    while i < len(p):
        if p[i] == "%":
            h = p[i + 1:i + 3]
            if len(h) != 2 or not all(c in HEX for c in h):
                raise Invalid("escape")
            c = chr(int(h, 16))
            dec += c if c in UNRESERVED else "%" + h.upper()
            i += 3
        else:
            dec += p[i]
            i += 1
    path = re.sub("/+", "/", remove_dot_segments(dec)) or "/"
    if "\\" in path:
        raise Invalid("backslash")
    for piece in re.split(r"/|%2[Ff]|%5[Cc]", path):
        q = re.sub("%2[Ee]", ".", piece.replace("%25", "%"))
        if q in (".", "..") or q.startswith(".;") or q.startswith("..;"):
            raise Invalid("ambiguous path")
    return path


def url(t):
    sp = split_scheme(t)
    if sp is None:
        raise Invalid("not scheme://")
    scheme, rest = sp
    m = re.search(r"[/?#]", rest)
    end = m.start() if m else len(rest)
    auth = authority(scheme, rest[:end])
    tail = rest[end:]
    m = re.search(r"[?#]", tail)
    pend = m.start() if m else len(tail)
    path = url_path(tail[:pend])
    after = tail[pend:]
    query = after.split("#", 1)[0] if after.startswith("?") else ""
    return scheme + "://" + auth + path + query


def stored_pattern(cap, p):
    if not valid_name(cap) or cap == "cost.budget":
        raise Invalid(cap)
    if p == "" or has_control(p) or len(p.encode()) > 4096 or "***" in p:
        raise Invalid("pattern")
    if cap in ("fs.read", "fs.write") and not p.startswith(("/", "*")):
        raise Invalid("relative pattern")
    if cap == "net.fetch":
        sp = split_scheme(p)
        if sp:
            scheme, rest = sp
            m = re.search(r"[/?#]", rest)
            end = m.start() if m else len(rest)
            if "*" in rest[:end]:
                return scheme + "://" + rest
            tail = rest[end:]
            return scheme + "://" + authority(scheme, rest[:end]) + ("" if tail.startswith("/") else "/") + tail
    return p


def to_regex(cap, p):
    s = seps(cap)
    cls = "[^" + re.escape(s) + "]*"
    segs, sep_list, cur = [], [], ""
    for c in p:
        if c in s:
            segs.append(cur)
            sep_list.append(c)
            cur = ""
        else:
            cur += c
    segs.append(cur)
    if segs == ["**"]:
        return ".*"
    for a, b in zip(segs, segs[1:]):
        if a == b == "**":
            raise ValueError("the model does not read consecutive whole-segment **: " + p)

    def seg_re(g):
        out, j = "", 0
        while j < len(g):
            if g.startswith("**", j):
                out += ".*"
                j += 2
            elif g[j] == "*":
                out += cls
                j += 1
            else:
                out += re.escape(g[j])
                j += 1
        return out

    out, consumed = "", False
    for i, g in enumerate(segs):
        before = None if i == 0 or consumed else sep_list[i - 1]
        consumed = False
        if g == "**":
            if i + 1 < len(segs):        # ** s Q  -> (anything s)? Q
                out += (re.escape(before) if before else "") + "(?:.*" + re.escape(sep_list[i]) + ")?"
                consumed = True
            else:                        # P s **  -> P (s anything)?
                out += "(?:" + re.escape(before) + ".*)?"
            continue
        out += (re.escape(before) if before else "") + seg_re(g)
    return out


def matches(cap, pattern, target):
    """`match` op: validate and store the pattern, canonicalize the target, match."""
    stored = stored_pattern(cap, pattern)
    t = canonicalize(cap, target)
    return re.fullmatch(to_regex(cap, stored), t, re.S) is not None


FILLERS = ["", "x", "/", ".", "..", "x/y", "x.y", "evil.example/", "a/../b", "/x", "x/",
           "\u00e9"]


def samples(cap, p):
    """Strings of the language of stored pattern `p` (stars replaced by fillers)."""
    parts = re.split(r"(\*\*|\*)", p)
    res = [""]
    for part in parts:
        if part == "**":
            res = [r + f for r in res for f in FILLERS]
        elif part == "*":
            res = [r + f for r in res for f in FILLERS if not any(c in seps(cap) for c in f)]
        else:
            res = [r + part for r in res]
        res = res[:4000]
    return res


def subset_witness(cap, child, parent):
    """A string of some child pattern no parent pattern matches, or None."""
    rx = [re.compile(to_regex(cap, stored_pattern(cap, q)), re.S) for q in parent]
    for c in child:
        own = re.compile(to_regex(cap, stored_pattern(cap, c)), re.S)
        for s in samples(cap, stored_pattern(cap, c)):
            if own.fullmatch(s) and not any(r.fullmatch(s) for r in rx):
                return s
    return None


AMOUNT = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,31}):([0-9]+)(?:\.([0-9]+))?")


def budget_parse(e):
    m = AMOUNT.fullmatch(e)
    if not m:
        raise Invalid("syntax")
    cur, ip, fp = m.group(1), m.group(2), m.group(3) or ""
    if len(ip.lstrip("0")) > 15 or len(fp) > 9:
        raise Invalid("digits")
    ip = ip.lstrip("0") or "0"
    fp = fp.rstrip("0")
    return {"currency": cur, "amount": ip + ("." + fp if fp else "")}
