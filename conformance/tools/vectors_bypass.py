#!/usr/bin/env python3
"""The public bypass corpus, `conformance/vectors/bypass.json`: known tricks for
escaping a lease, each with the expectation docs/semantics.md gives and, in `comment`, where the
trick comes from (OWASP, PortSwigger research, published CVEs of URL parsers, language
docs) and why the answer is what it is.

Families (the id says which): `bypass-path-*` path traversal, `bypass-url-*` URL confusion
and SSRF, `bypass-glob-*` glob edge cases, `bypass-delegation-*` delegation escalation,
`bypass-amount-*` amount parsing tricks, `bypass-name-*` capability name confusion.

Every expectation was written by reading docs/semantics.md (with the 5.2 ambiguity
and empty-label rules and the section 2 and 5 bounds), never by running leasekit.
`bypass_model.py` is a second, independent reading used to cross-check them:

    python3 conformance/tools/vectors_bypass.py --check   # model vs expectations
    python3 conformance/tools/gen_vectors.py              # writes bypass.json with the rest

Ids are positional within a family: append new vectors at the end of a family.
"""
import json
import os
import sys

IR = {"error": "INVALID_REQUEST"}
PD = {"error": "PERMISSION_DENIED"}
BX = {"error": "BUDGET_EXHAUSTED"}
LX = {"error": "LEASE_EXPIRED"}
T, F = True, False

# Sources, cited by key in the comments.
SRC = {
    "owasp-pt": "OWASP Path Traversal (owasp.org/www-community/attacks/Path_Traversal)",
    "wstg-ath": "OWASP WSTG-ATHZ-01 Testing Directory Traversal File Include",
    "cwe22": "CWE-22 Path Traversal",
    "cwe41": "CWE-41 Improper Resolution of Path Equivalence",
    "cwe158": "CWE-158 Null Byte in a path (PHP CVE-2006-7243)",
    "cwe176": "CWE-176 Improper Handling of Unicode Encoding; Unicode UTR #36",
    "apache1": "CVE-2021-41773 Apache httpd 2.4.49 `.%2e/` traversal",
    "apache2": "CVE-2021-42013 Apache httpd 2.4.50 double-encoded `%%32%65` traversal",
    "iis": "CVE-2000-0884 IIS overlong UTF-8 `..%c0%af` traversal",
    "offslash": "Orange Tsai, Breaking Parser Logic (Black Hat USA 2018): nginx off-by-slash `/static../`",
    "tomcat": "Orange Tsai, Breaking Parser Logic (Black Hat USA 2018): Tomcat `..;/` path parameters",
    "ssrf-era": "Orange Tsai, A New Era of SSRF (Black Hat USA 2017): userinfo, `#@`, `\\@`, `&@` parser confusion",
    "ps-cheat": "PortSwigger Web Security Academy, URL validation bypass cheat sheet",
    "ps-ssrf": "PortSwigger Web Security Academy, SSRF: blacklist bypass with alternative IP forms",
    "claroty": "Claroty Team82 and Snyk, Exploiting URL Parsing Confusion (2022)",
    "whatwg": "WHATWG URL Standard: special schemes read `\\` as `/`",
    "urlparse-bs": "CVE-2021-27515 url-parse (npm) mishandles backslashes",
    "urlparse-at": "CVE-2022-0512 / CVE-2022-0639 url-parse (npm) userinfo and `@` handling",
    "urlparse-port": "CVE-2022-0686 url-parse (npm) port handling",
    "urlparse-ctl": "CVE-2022-0691 url-parse (npm) leading control characters",
    "py-blank": "CVE-2023-24329 Python urllib.parse blocklist bypass with leading blanks",
    "py-nfkc": "CVE-2019-9636 Python urlsplit NFKC normalization of netloc",
    "py-ip": "CVE-2021-29921 Python ipaddress leading-zero octets",
    "netmask": "CVE-2021-28918 netmask (npm) octal IPv4 parsing",
    "spring": "CVE-2024-22243 / CVE-2024-22259 Spring UriComponentsBuilder host confusion",
    "rfc3986": "RFC 3986 5.2.4 remove_dot_segments, 3.2.1 userinfo, 3.2.3 port",
    "rfc6874": "RFC 6874 IPv6 zone identifiers in URIs",
    "dns-dot": "RFC 1034 3.1 absolute names (trailing dot); PortSwigger cheat sheet",
    "crlf": "CWE-93 CRLF injection in request targets",
    "minimatch": "CVE-2022-3517 minimatch ReDoS; CVE-2024-4067 micromatch ReDoS",
    "glob": "POSIX glob / bash / minimatch syntax (`?`, `[..]`, `{..}`, `\\`, `!(..)`, dotfiles)",
    "dos": "CWE-400 / CWE-1333 resource exhaustion (SEMANTICS 2, 5, 8, 9 bounds)",
    "cwe269": "CWE-269 Improper Privilege Management; ARCP delegation (SEMANTICS 9)",
    "oauth": "RFC 8693 token exchange / RFC 6749 3.3 scope escalation",
    "cwe1339": "CWE-1339 Insufficient Precision of Real Numbers (binary floating point)",
    "py-dec": "Python decimal.Decimal accepts `1_000`, Unicode digits, `NaN`, `Infinity`, exponents",
    "java-bd": "Java BigDecimal(String) accepts `+1`, `1e3`",
    "js-num": "ECMAScript Number(): `0x10`, `0b1`, `0o7`, `Infinity`, surrounding whitespace",
    "wstg-busl": "OWASP WSTG-BUSL-01 Business Logic Data Validation",
    "lint": "lease lint (valid but widening lease-writing mistakes; the semantics still decide)",
}


def cite(*keys):
    return "; ".join(SRC[k] for k in keys)


class Family:
    """Collects the vectors of one family."""

    def __init__(self, name):
        self.name = name
        self.vectors = []

    def add(self, op, inp, expect, why, *src):
        comment = why + (" [" + cite(*src) + "]" if src else "")
        self.vectors.append({"op": op, "input": inp, "expect": expect, "comment": comment})

    def canon(self, cap, target, expect, why, *src):
        self.add("canonicalize", {"capability": cap, "target": target}, expect, why, *src)

    def match(self, cap, pattern, target, expect, why, *src):
        self.add("match", {"capability": cap, "pattern": pattern, "target": target}, expect, why, *src)

    def lease(self, lease, expect, why, *src):
        self.add("validate_lease", {"lease": lease}, expect, why, *src)

    def subset(self, child, parent, expect, why, *src, **extra):
        inp = {"child": child, "parent": parent}
        inp.update(extra)
        self.add("subset", inp, expect, why, *src)

    def narrow(self, requested, ceiling, expect, why, *src):
        self.add("narrow", {"requested": requested, "ceiling": ceiling}, expect, why, *src)

    def authorize(self, lease, steps, expect, why, *src, constraints=None):
        inp = {"lease": lease}
        if constraints is not None:
            inp["constraints"] = constraints
        inp["steps"] = steps
        self.add("authorize", inp, expect, why, *src)


def A(cap, target):
    return {"authorize": [cap, target]}


def M(value, unit="USD", name="cost.llm"):
    return {"metric": {"name": name, "value": value, "unit": unit}}


def RES(cur, amount):
    return {"reserve": [cur, amount]}


def R(remaining, *emitted):
    return {"remaining": remaining,
            "emitted": [{"name": "cost.budget.remaining", "value": v, "unit": u} for v, u in emitted]}


# ---------------------------------------------------------------- path traversal (S5.1, S4)
def path():
    f = Family("path")
    c = f.canon
    why_pop = "`..` removes the previous segment and stays at root (POSIX), so the canonical target leaves the granted tree"
    c("fs.read", "/safe/../etc/shadow", "/etc/shadow", why_pop, "owasp-pt")
    c("fs.read", "/safe/a/../../etc/shadow", "/etc/shadow", why_pop, "owasp-pt")
    c("fs.read", "/safe/a/b/../../../etc/shadow", "/etc/shadow", why_pop, "owasp-pt")
    c("fs.read", "/../../../../etc/shadow", "/etc/shadow", "`..` above the root stays at `/`", "owasp-pt", "cwe22")
    c("fs.read", "/safe/..", "/", "a trailing `..` pops too", "cwe22")
    c("fs.read", "/safe/../", "/", "`..` then a trailing `/`", "cwe22")
    c("fs.read", "/safe/a/..", "/safe", "`..` as the last segment", "cwe22")
    c("fs.read", "/safe/./../etc", "/etc", "`.` drops before `..` pops", "owasp-pt")
    c("fs.read", "/safe/.//..//etc", "/etc", "empty and `.` segments drop, `..` pops `safe`", "owasp-pt")
    c("fs.read", "//etc/shadow", "/etc/shadow", "a leading `//` collapses", "cwe41")
    c("fs.read", "///etc///shadow///", "/etc/shadow", "repeated and trailing `/` collapse", "cwe41")
    c("fs.read", "/safe//../etc", "/etc", "`//` collapses first: `..` pops `safe`, not an empty segment", "cwe41")
    c("fs.read", "/safe/.../etc", "/safe/.../etc", "`...` is an ordinary name, not a dot segment", "cwe41")
    c("fs.read", "/safe/..../etc", "/safe/..../etc", "`....` is an ordinary name", "cwe41")
    c("fs.read", "/safe/..a/b..", "/safe/..a/b..", "`..a` and `b..` are ordinary names", "cwe41")
    c("fs.read", "/safe/.. /etc", "/safe/.. /etc", "`.. ` (trailing space) is a name on POSIX; Windows trims it (CWE-46)", "cwe41")
    c("fs.read", "/safe/..\\etc\\shadow", "/safe/..\\etc\\shadow", "a backslash is an ordinary byte of a POSIX name", "cwe22", "owasp-pt")
    c("fs.read", "/safe\\..\\..\\etc\\shadow", "/safe\\..\\..\\etc\\shadow", "one segment `safe\\..\\..\\etc\\shadow`", "cwe22")
    c("fs.read", "/safe/%2e%2e/etc", "/safe/%2e%2e/etc", "fs targets are never percent-decoded (S5.1)", "apache1")
    c("fs.read", "/safe/%2e%2e%2fetc%2fshadow", "/safe/%2e%2e%2fetc%2fshadow", "no percent-decoding: one literal segment", "apache1")
    c("fs.read", "/safe/.%2e/etc", "/safe/.%2e/etc", "no percent-decoding of `.%2e`", "apache1")
    c("fs.read", "/safe/%%32%65%%32%65/etc", "/safe/%%32%65%%32%65/etc", "no decoding, so no double decoding", "apache2")
    c("fs.read", "/safe/..%c0%af..%c0%afetc", "/safe/..%c0%af..%c0%afetc", "overlong UTF-8 escapes stay literal", "iis")
    c("fs.read", "/safe/\uff0e\uff0e/etc", "/safe/\uff0e\uff0e/etc", "fullwidth full stops (NFKC `..`) are not folded", "cwe176", "py-nfkc")
    c("fs.read", "/safe/\u2025/etc", "/safe/\u2025/etc", "TWO DOT LEADER (NFKC `..`) is not folded", "cwe176")
    c("fs.read", "/safe\u2215..\u2215etc", "/safe\u2215..\u2215etc", "DIVISION SLASH is not a separator", "cwe176")
    c("fs.read", "/safe/a\u0085", "/safe/a\u0085", "U+0085 is not a control character in S2's sense (only U+0000-U+001F, U+007F)", "cwe176")
    c("fs.read", "/safe/a\u202eb", "/safe/a\u202eb", "a bidi override is kept verbatim", "cwe176")
    c("fs.read", "/etc/shadow\u0000.png", IR, "NUL truncation: a control character is INVALID_REQUEST", "cwe158")
    c("fs.read", "/safe/\u0000/../../etc/shadow", IR, "NUL byte", "cwe158")
    c("fs.read", "/safe/a\r\n", IR, "CR LF", "cwe158")
    c("fs.read", "/safe/\u001b[2J", IR, "ESC (terminal escape)", "cwe158")
    c("fs.read", "/safe/\u007f", IR, "DEL", "cwe158")
    c("fs.read", "/safe/\t/../x", IR, "TAB", "cwe158")
    c("fs.write", "/tmp/\u0000", IR, "NUL byte in a write target", "cwe158")
    c("fs.read", "../etc/shadow", IR, "a relative path is not a target", "owasp-pt")
    c("fs.read", "..", IR, "relative", "owasp-pt")
    c("fs.read", ".", IR, "relative", "owasp-pt")
    c("fs.read", "safe/../../etc", IR, "relative", "owasp-pt")
    c("fs.read", "C:\\Windows\\win.ini", IR, "a Windows drive path is not absolute POSIX", "owasp-pt", "wstg-ath")
    c("fs.read", "\\\\?\\C:\\Windows", IR, "a Windows device path is not absolute POSIX", "wstg-ath")
    c("fs.read", "file:///etc/passwd", IR, "a URL is not an fs target", "wstg-ath")
    c("fs.read", "~root/.ssh/id_rsa", IR, "`~` is not expanded", "wstg-ath")
    c("fs.read", " /etc/shadow", IR, "a leading space makes the path relative", "py-blank")
    c("fs.read", "%2fetc%2fshadow", IR, "not decoded, so relative", "apache1")
    c("fs.write", "/tmp/../etc/cron.d/evil", "/etc/cron.d/evil", why_pop, "owasp-pt")
    c("fs.write", "/tmp/./.././etc", "/etc", why_pop, "owasp-pt")
    c("fs.read", "/" + "a" * 16383, "/" + "a" * 16383, "a target of exactly 16 384 bytes is within the S5 bound", "dos")
    c("fs.read", "/" + "a" * 16384, IR, "a target of 16 385 bytes is over the S5 bound", "dos")
    c("fs.read", "/" + "\u00e9" * 8191 + "a", "/" + "\u00e9" * 8191 + "a", "16 384 UTF-8 bytes (8 192 characters)", "dos")
    c("fs.read", "/" + "\u00e9" * 8192, IR, "16 385 UTF-8 bytes though only 8 193 characters", "dos")
    c("fs.read", "/a/.." * 3276, "/", "3 276 climbs in 16 380 bytes end at the root", "dos")
    m = f.match
    m("fs.read", "/tmp/**", "/tmpx", F, "prefix confusion: `/tmp/**` is `/tmp` and below, not `/tmpx`", "offslash")
    m("fs.read", "/tmp/**", "/tmp../x", F, "`/tmp..` is a different name", "offslash")
    m("fs.read", "/tmp/**", "/tmp/../tmpx/a", F, "canonical `/tmpx/a`", "offslash")
    m("fs.read", "/tmp/**", "/tmp", T, "`P/**` matches `P`", "offslash")
    m("fs.read", "/tmp/**", "/tmp/", T, "canonical `/tmp`", "offslash")
    m("fs.read", "/tmp/*", "/tmpx", F, "prefix confusion", "offslash")
    m("fs.read", "/tmp*", "/tmpx/secret", F, "a single `*` never crosses `/`", "offslash")
    m("fs.read", "/home/alice/**", "/home/alice2/x", F, "prefix confusion between users", "offslash")
    m("fs.read", "/home/alice/**", "/home/alice/../bob/x", F, "canonical `/home/bob/x`", "owasp-pt")
    m("fs.read", "/home/alice/**", "/home/alice/./../../etc", F, "canonical `/etc`", "owasp-pt")
    m("fs.read", "/var/www/**", "/var/www/../../etc/passwd", F, "canonical `/etc/passwd`", "owasp-pt")
    m("fs.read", "/var/www/**", "/var/www/html/../../../etc/passwd", F, "canonical `/etc/passwd`", "owasp-pt")
    m("fs.read", "/safe/**", "/safe/%2e%2e/etc/shadow", T, "a literal directory named `%2e%2e` inside /safe (no decoding: the runtime must not decode either)", "apache1")
    m("fs.read", "/safe/**", "/safe/..\\..\\etc\\shadow", T, "on POSIX one name inside /safe (the runtime must not treat `\\` as a separator)", "cwe22")
    m("fs.read", "/safe/**", "/safe\\..\\etc", F, "one segment `safe\\..\\etc`, not `safe`", "cwe22")
    m("fs.read", "/safe/**", "/safe/\uff0e\uff0e/etc/shadow", T, "a literal name inside /safe (no NFKC folding)", "cwe176")
    m("fs.read", "/safe/*", "/safe/a/..", F, "canonical `/safe`: no segment for `*`", "cwe22")
    m("fs.read", "/safe/*", "/safe/../safe/x", T, "canonical `/safe/x`", "cwe22")
    m("fs.read", "/etc/shadow", "/etc//shadow/", T, "equivalent spellings canonicalize to the granted path", "cwe41")
    m("fs.read", "/etc/shadow", "/etc/./shadow", T, "equivalent spelling", "cwe41")
    m("fs.read", "/etc/shadow", "/ETC/shadow", F, "no case folding (S5.1)", "cwe41")
    m("fs.read", "/etc/shadow", "/etc/shadow.", F, "no trailing-dot trimming", "cwe41")
    m("fs.read", "/etc/shadow", "/etc/sh\u0430dow", F, "Cyrillic a is another name", "cwe176")
    m("fs.write", "/tmp/**", "/tmp/../etc/cron.d/evil", F, "canonical `/etc/cron.d/evil`", "owasp-pt")
    m("fs.write", "/tmp/**", "/tmp/./a/../b", T, "canonical `/tmp/b`", "owasp-pt")
    m("fs.read", "/safe/**", "/safe/" + "a" * 16379, IR, "a target of 16 385 bytes is over the S5 bound, even under a `**` grant", "dos")
    a = f.authorize
    L = {"fs.read": ["/workspace/**"], "fs.write": ["/workspace/out/**"]}
    a(L, [A("fs.read", "/workspace/src/main.rs"), A("fs.read", "/workspace/../etc/shadow"),
          A("fs.read", "/workspace/./../../root/.ssh/id_rsa"), A("fs.read", "/workspacex/secret"),
          A("fs.read", "//workspace//src//"), A("fs.read", "/workspace/a/../../etc/passwd")],
      ["ok", PD, PD, PD, "ok", PD], "traversal through the guard: only canonical targets under /workspace pass", "owasp-pt", "offslash")
    a(L, [A("fs.write", "/workspace/out/a.txt"), A("fs.write", "/workspace/out/../src/main.rs"),
          A("fs.write", "/workspace/out/../../etc/cron.d/x"), A("fs.write", "/workspace/outx/a"),
          A("fs.write", "/workspace/out")],
      ["ok", PD, PD, PD, "ok"], "write escapes from the out/ directory", "owasp-pt", "offslash")
    a(L, [A("fs.read", "/workspace/a\u0000/../../etc/shadow"), A("fs.read", "workspace/a"),
          A("fs.read", "\\workspace\\a"), A("fs.read", "/workspace/" + "a" * 16374)],
      [IR, IR, IR, IR], "control bytes, relative and Windows forms, and an oversize target are refused", "cwe158", "dos")
    return f


# ---------------------------------------------------------------- URL confusion / SSRF (S5.2)
def url():
    f = Family("url")
    c = f.canon
    h = "https://api.example.com"
    # userinfo
    for t, src in [(h + "@evil.example/", "ssrf-era"), ("https://user:pass@api.example.com/", "ssrf-era"),
                   ("https://:@api.example.com/", "urlparse-at"), ("https://@api.example.com/", "urlparse-at"),
                   ("https://api.example.com:443@evil.example/", "ssrf-era"),
                   ("https://api.example.com:@evil.example/", "urlparse-at"),
                   ("https://evil.example@api.example.com@evil.example/", "ssrf-era"),
                   ("https://evil.example\\@api.example.com/", "ssrf-era"),
                   ("https://api.example.com&@evil.example#@api.example.com/", "ssrf-era")]:
        c("net.fetch", t, IR, "userinfo (`@` in the authority) is INVALID_REQUEST", src)
    c("net.fetch", h + "%40evil.example/", IR, "`%` is not allowed in a host", "ps-cheat")
    c("net.fetch", h + "%2540evil.example/", IR, "`%` is not allowed in a host", "ps-cheat")
    # fragment and query tricks
    c("net.fetch", "https://evil.example#@api.example.com/", "https://evil.example/", "the authority ends at `#`: the host is evil.example", "ssrf-era")
    c("net.fetch", "https://evil.example?@api.example.com/", "https://evil.example/?@api.example.com/", "the authority ends at `?`", "ssrf-era")
    c("net.fetch", h + "#@evil.example/", h + "/", "the fragment is dropped", "ssrf-era")
    c("net.fetch", h + "?@evil.example/", h + "/?@evil.example/", "the query is kept verbatim", "ssrf-era")
    c("net.fetch", h + ":443#@evil.example", h + "/", "default port and fragment removed", "ssrf-era")
    c("net.fetch", h + "/v1/x?../../admin", h + "/v1/x?../../admin", "dot segments in the query are not path segments", "rfc3986")
    c("net.fetch", h + "/v1/x#/../../admin", h + "/v1/x", "the fragment is dropped", "rfc3986")
    c("net.fetch", "https://evil.example\\#@api.example.com/", IR, "a backslash is not a host byte", "ssrf-era", "whatwg")
    # backslashes (WHATWG reads them as `/`)
    c("net.fetch", h + "\\evil.example/", IR, "a backslash in the host", "whatwg", "urlparse-bs")
    c("net.fetch", "https:\\\\api.example.com\\", IR, "not scheme://", "whatwg", "urlparse-bs")
    c("net.fetch", "https:/\\api.example.com/", IR, "not scheme://", "whatwg", "urlparse-bs")
    c("net.fetch", h + "/v1/\\..\\..\\admin", IR, "S5.2 ambiguity rule: a `\\` in the canonical path (WHATWG resolves this to /admin)", "whatwg", "urlparse-bs")
    c("net.fetch", h + "/v1\\..\\admin", IR, "S5.2: a `\\` in the canonical path", "whatwg")
    c("net.fetch", h + "/a\\b", IR, "S5.2: any `\\` in the path", "whatwg")
    c("net.fetch", h + "/v1/..%5Cadmin", IR, "S5.2: `..` between `/` and `%5C`", "whatwg", "spring")
    c("net.fetch", h + "/v1/..%5cadmin", IR, "S5.2: `%5c` in any hex case", "whatwg")
    c("net.fetch", h + "/v1/%5c..%5cadmin", IR, "S5.2: `..` between `%5C` and `%5C`", "whatwg")
    c("net.fetch", h + "/v1/a%5cb", h + "/v1/a%5Cb", "near miss: an encoded backslash between names is allowed (upper-cased)", "whatwg")
    c("net.fetch", h + "/v1/a?x=\\", h + "/v1/a?x=\\", "near miss: the rule is about the path; the query is verbatim", "whatwg")
    # dot segments and encodings
    c("net.fetch", h + "/v1/../admin", h + "/admin", "dot segments are removed before matching (RFC 3986 5.2.4)", "rfc3986")
    c("net.fetch", h + "/v1/./../admin", h + "/admin", "dot segments", "rfc3986")
    c("net.fetch", h + "/v1/%2e%2e/%2e%2e/admin", h + "/admin", "`%2e` is unreserved: decoded, then removed", "apache1")
    c("net.fetch", h + "/v1/.%2E/admin", h + "/admin", "mixed `.%2E`", "apache1")
    c("net.fetch", h + "/v1/%2E./admin", h + "/admin", "mixed `%2E.`", "apache1")
    c("net.fetch", h + "/v1//../admin", h + "/v1/admin", "an empty segment counts: `..` pops it", "rfc3986")
    c("net.fetch", h + "/v1/..//admin", h + "/admin", "`..` then `//`", "rfc3986")
    c("net.fetch", h + "/v1/..%2Fadmin", IR, "S5.2: `..` between `/` and `%2F` (servers that decode %2F)", "apache1", "claroty")
    c("net.fetch", h + "/v1/..%2fadmin", IR, "S5.2: `%2f` lower case", "apache1")
    c("net.fetch", h + "/v1/%2e%2e%2fadmin", IR, "S5.2: decoded `..` then `%2F`", "apache1")
    c("net.fetch", h + "/v1/.%2e%2fadmin", IR, "S5.2: `.%2e` is `..`, then `%2F`", "apache1")
    c("net.fetch", h + "/v1/x%2F..%2Fadmin", IR, "S5.2: a `..` piece between two `%2F`", "claroty")
    c("net.fetch", h + "/v1/%2e%2e%5cadmin", IR, "S5.2: `..` then `%5C`", "iis")
    c("net.fetch", h + "/v1/%252e%252e/admin", IR, "S5.2: double-encoded dots (servers that decode twice)", "apache2")
    c("net.fetch", h + "/v1/%252E%252E/admin", IR, "S5.2: double-encoded dots, upper case", "apache2")
    c("net.fetch", h + "/v1/%252e/admin", IR, "S5.2: a double-encoded `.`", "apache2")
    c("net.fetch", h + "/v1/.%252e/admin", IR, "S5.2: `.` and a double-encoded `.`", "apache2")
    c("net.fetch", h + "/v1/%25%32%65%25%32%65/admin", IR, "`%32`/`%65` are unreserved and decode to `%252e%252e`, which S5.2 refuses", "apache2")
    c("net.fetch", h + "/v1/%%32%65%%32%65/admin", IR, "`%%3` is an invalid escape", "apache2")
    c("net.fetch", h + "/v1/%2%65/admin", IR, "`%2%` is an invalid escape", "apache2")
    c("net.fetch", h + "/v1/..;/admin", IR, "S5.2: a piece starting with `..;` (servers that drop `;` parameters)", "tomcat")
    c("net.fetch", h + "/v1/..;jsessionid=x/admin", IR, "S5.2: `..;` with a parameter", "tomcat")
    c("net.fetch", h + "/v1/.;/admin", IR, "S5.2: a piece starting with `.;`", "tomcat")
    c("net.fetch", h + "/v1/%2e%2e;/admin", IR, "S5.2: decoded `..;`", "tomcat")
    c("net.fetch", h + "/v1/%252e%252e;/admin", IR, "S5.2: double-encoded `..;`", "tomcat", "apache2")
    c("net.fetch", h + "/v1/..;", IR, "S5.2: `..;` as the last piece", "tomcat")
    c("net.fetch", h + "/v1/a%2Fb", h + "/v1/a%2Fb", "near miss (S5.2): `%2F` between names is allowed", "claroty")
    c("net.fetch", h + "/v1/x..", h + "/v1/x..", "near miss (S5.2): `x..` is a name", "tomcat")
    c("net.fetch", h + "/.well-known/openid-configuration", h + "/.well-known/openid-configuration", "near miss (S5.2): a leading dot in a name", "tomcat")
    c("net.fetch", h + "/v1/...", h + "/v1/...", "near miss: `...` is a name", "rfc3986")
    c("net.fetch", h + "/v1/a;/x", h + "/v1/a;/x", "near miss: `;` after a name", "tomcat")
    c("net.fetch", h + "/v1/%2525", h + "/v1/%2525", "near miss: an encoded `%25` that is not a dot", "apache2")
    c("net.fetch", h + "/v1/%2F%2F/x", h + "/v1/%2F%2F/x", "near miss: empty pieces between `%2F` are not dot segments", "claroty")
    c("net.fetch", h + "/v1/%0d%0aHost:evil", h + "/v1/%0D%0AHost:evil", "encoded CR LF stays encoded (upper-cased), never decoded", "crlf")
    c("net.fetch", h + "/v1/\r\nHost: evil", IR, "a raw CR LF is a control character", "crlf")
    # case, trailing dots, empty labels
    c("net.fetch", "HTTPS://API.EXAMPLE.COM/V1/Users", h + "/V1/Users", "scheme and host lower-cased, path kept", "rfc3986")
    c("net.fetch", h + "./v1", h + "/v1", "one trailing dot on the host is removed", "dns-dot")
    c("net.fetch", h + ".:443/v1", h + "/v1", "trailing dot and default port", "dns-dot")
    c("net.fetch", h + "../v1", IR, "S5.2: an empty label remains after removing one trailing dot", "dns-dot")
    c("net.fetch", h + ".../", IR, "S5.2: empty labels", "dns-dot")
    c("net.fetch", "https://.api.example.com/", IR, "S5.2: a leading `.` is an empty label", "dns-dot")
    c("net.fetch", "https://api..example.com/", IR, "S5.2: `..` in a host is an empty label", "dns-dot")
    c("net.fetch", "https://../", IR, "S5.2: host `..`", "dns-dot")
    c("net.fetch", "j://..", IR, "S5.2: a fixed-point failure found by fuzzing", "dns-dot")
    c("net.fetch", "https://example.com../x", IR, "S5.2: not a fixed point otherwise (a second pass would change it)", "dns-dot")
    c("net.fetch", "https://.:443/", IR, "host `.` is empty after the trailing-dot removal", "dns-dot")
    # ports
    for t, x in [(h + ":443/", h + "/"), (h + ":0443/", h + "/"), (h + ":00443/", h + "/"),
                 (h + ":80/", h + ":80/"), ("http://api.example.com:443/", "http://api.example.com:443/"),
                 ("wss://api.example.com:443/s", "wss://api.example.com/s"), (h + ":0/", h + ":0/"),
                 (h + ":00000/", h + ":0/"), (h + ":65535/", h + ":65535/")]:
        c("net.fetch", t, x, "1-5 digits, leading zeros drop, default port removed", "rfc3986", "urlparse-port")
    for t in [h + ":000443/", h + ":443 /", h + ": 443/", h + ":4 43/", h + ":0x1bb/", h + ":1e3/",
              h + ":65536/", h + ":-443/", h + ":+443/", h + ":443:443/", h + ":/",
              h + ":\u0664\u0664\u0663/", h + ":\uff14\uff14\uff13/", h + ":443.evil.example/"]:
        c("net.fetch", t, IR, "a port is 1-5 ASCII digits, at most 65535, never empty", "rfc3986", "urlparse-port")
    # IPv6 and numeric IPv4
    c("net.fetch", "https://[::1]/", "https://[::1]/", "an IPv6 literal", "ps-ssrf")
    c("net.fetch", "https://[0:0:0:0:0:0:0:1]/", "https://[0:0:0:0:0:0:0:1]/", "no IP normalization: kept as written", "ps-ssrf")
    c("net.fetch", "http://[::FFFF:7F00:1]/", "http://[::ffff:7f00:1]/", "only lower-cased", "ps-ssrf")
    c("net.fetch", "http://[::ffff:127.0.0.1]/", "http://[::ffff:127.0.0.1]/", "IPv4-mapped form kept", "ps-ssrf")
    c("net.fetch", "https://[::1]:443/", "https://[::1]/", "default port removed after a literal", "ps-ssrf")
    for t in ["https://[::1%25eth0]/", "https://[fe80::1%eth0]/", "https://[::1]]/", "https://[::1/",
              "https://[127.0.0.1]/", "https://[::1]@evil.example/", "https://[::1].evil.example/",
              "https://[]/", "https://[::g]/"]:
        c("net.fetch", t, IR, "not an IP literal in `[...]` (zone ids and trailing garbage included)", "rfc6874", "ps-ssrf")
    for t, x in [("http://2130706433/", "http://2130706433/"), ("http://0x7f000001/", "http://0x7f000001/"),
                 ("http://0X7F.1/", "http://0x7f.1/"), ("http://0177.0.0.1/", "http://0177.0.0.1/"),
                 ("http://127.1/", "http://127.1/"), ("http://127.000.000.001/", "http://127.000.000.001/"),
                 ("http://127.0.0.1./", "http://127.0.0.1/"),
                 ("http://169.254.169.254/latest/meta-data/", "http://169.254.169.254/latest/meta-data/")]:
        c("net.fetch", t, x, "alternative IPv4 spellings are reg-names: kept (lower-cased), never read as 127.0.0.1", "ps-ssrf", "netmask", "py-ip")
    c("net.fetch", "http://127.0.0.1%00.evil.example/", IR, "`%` in a host", "ps-ssrf")
    c("net.fetch", "http://\u2460\u2461\u2466.0.0.1/", IR, "circled digits (NFKC 127) are non-ASCII", "py-nfkc")
    # scheme confusion, whitespace, non-ASCII hosts
    for t in ["https:api.example.com/", "https:/api.example.com/", "https:///api.example.com/",
              "//api.example.com/", "javascript:alert(1)", "data:text/html,x", "file:///etc/passwd",
              "https ://api.example.com/", " https://api.example.com/", "\u00a0https://api.example.com/",
              "1https://api.example.com/", "jar:https://api.example.com/x", "\ufeffhttps://api.example.com/"]:
        c("net.fetch", t, IR, "not `scheme://authority` with a non-empty host", "py-blank", "urlparse-ctl", "claroty")
    c("net.fetch", "file://localhost/etc/passwd", "file://localhost/etc/passwd", "a valid URL of another scheme (denied by any https grant)", "claroty")
    c("net.fetch", "gopher://127.0.0.1:6379/_INFO", "gopher://127.0.0.1:6379/_INFO", "gopher has no default port", "ps-ssrf")
    c("net.fetch", "hTtPs://api.example.com/", h + "/", "scheme lower-cased", "claroty")
    c("net.fetch", h + "\t.evil.example/", IR, "TAB (WHATWG strips it)", "urlparse-ctl", "whatwg")
    c("net.fetch", "https://api.exa\nmple.com/", IR, "LF (WHATWG strips it)", "urlparse-ctl", "whatwg")
    c("net.fetch", "\u0008https://api.example.com/", IR, "a leading backspace", "urlparse-ctl")
    c("net.fetch", h + " /", IR, "a space in the host", "py-blank")
    for t in ["https://\u0430pi.example.com/", h + "\u3002evil.example/", "https://api\uff0eexample\uff0ecom/",
              "https://\uff41pi.example.com/", h + "\u200b/", h + "\u2044evil/", h + "\u2100.evil/"]:
        c("net.fetch", t, IR, "a non-ASCII host (callers pass punycode)", "py-nfkc", "cwe176")
    c("net.fetch", h + "/v1/\u2025/admin", h + "/v1/\u2025/admin", "non-ASCII in the path is kept; not a dot segment", "cwe176")
    c("net.fetch", "https://h.example/" + "a" * 16366, "https://h.example/" + "a" * 16366, "exactly 16 384 bytes", "dos")
    c("net.fetch", "https://h.example/" + "a" * 16367, IR, "16 385 bytes: over the S5 bound", "dos")
    m = f.match
    g = "https://api.example.com/**"
    m("net.fetch", g, "https://api.example.com.evil.example/", F, "a suffix on the host is another host", "ps-cheat")
    m("net.fetch", g, "https://evil.example/https://api.example.com/", F, "the granted URL in the path", "ps-cheat")
    m("net.fetch", g, "https://evil.example#@api.example.com/", F, "host evil.example", "ssrf-era")
    m("net.fetch", g, "https://evil.example?@api.example.com/", F, "host evil.example", "ssrf-era")
    m("net.fetch", g, "https://api.example.com#@evil.example/", T, "host api.example.com; the fragment never leaves", "ssrf-era")
    m("net.fetch", g, "https://api.example.com?@evil.example/", T, "host api.example.com; `@evil.example/` is a query", "ssrf-era")
    m("net.fetch", g, "https://api.example.com@evil.example/", IR, "userinfo", "ssrf-era")
    m("net.fetch", g, "https://api.example.com\\@evil.example/", IR, "userinfo behind a backslash", "ssrf-era")
    m("net.fetch", g, "https://api.example.com%2eevil.example/", IR, "`%` in a host", "ps-cheat")
    m("net.fetch", g, "http://api.example.com/x", F, "another scheme", "claroty")
    m("net.fetch", g, "https://api.example.com:8443/x", F, "another port", "urlparse-port")
    m("net.fetch", g, "https://api.example.com:0443/x", T, "padded default port", "urlparse-port")
    m("net.fetch", g, "https://API.EXAMPLE.COM./x", T, "case and one trailing dot", "dns-dot")
    m("net.fetch", g, "https://api.example.com../x", IR, "S5.2: empty label", "dns-dot")
    m("net.fetch", g, "https://[::1]/", F, "an IP literal is not the granted host", "ps-ssrf")
    m("net.fetch", g, "http://169.254.169.254/latest/meta-data/", F, "cloud metadata endpoint", "ps-ssrf")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/../admin", F, "canonical /admin", "rfc3986")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/%2e%2e/admin", F, "canonical /admin", "apache1")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/\\..\\..\\admin", IR, "S5.2: refused, not allowed (an ambiguous path)", "whatwg")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/..%2Fadmin", IR, "S5.2", "claroty")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/%252e%252e/admin", IR, "S5.2", "apache2")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/..;/admin", IR, "S5.2", "tomcat")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1//../admin", T, "canonical /v1/admin: the empty segment is what `..` pops", "rfc3986")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/a%2Fb", T, "near miss: allowed", "claroty")
    m("net.fetch", "https://api.example.com/v1/**", "https://API.example.com/V1/x", F, "the path is case-sensitive", "rfc3986")
    m("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/x?/../../admin", T, "the query is not a path", "rfc3986")
    m("net.fetch", "http://127.0.0.1/**", "http://2130706433/", F, "no numeric IPv4 normalization: denied (fail closed)", "ps-ssrf", "netmask")
    m("net.fetch", "http://127.0.0.1/**", "http://0x7f.0.0.1/", F, "hex octet", "ps-ssrf", "netmask")
    m("net.fetch", "http://127.0.0.1/**", "http://127.1/", F, "short form", "ps-ssrf", "py-ip")
    m("net.fetch", "http://127.0.0.1/**", "http://127.0.0.1:80/x", T, "default port removed", "rfc3986")
    m("net.fetch", "https://[::1]/**", "https://[0:0:0:0:0:0:0:1]/", F, "no IPv6 compression: denied (fail closed)", "ps-ssrf")
    m("net.fetch", "https://**", "gopher://127.0.0.1:6379/_INFO", F, "scheme confusion", "ps-ssrf")
    m("net.fetch", "https://**", "file://localhost/etc/passwd", F, "scheme confusion", "claroty")
    a = f.authorize
    L = {"net.fetch": ["https://api.example.com/v1/**"]}
    a(L, [A("net.fetch", "https://api.example.com/v1/users"), A("net.fetch", "https://api.example.com/v1/../admin"),
          A("net.fetch", "https://api.example.com/v1/\\..\\admin"), A("net.fetch", "https://api.example.com/v1/..%2Fadmin"),
          A("net.fetch", "https://api.example.com/v1/%252e%252e/admin"), A("net.fetch", "https://api.example.com/v1/..;/admin"),
          A("net.fetch", "https://api.example.com/v1/a%2Fb")],
      ["ok", PD, IR, IR, IR, IR, "ok"], "S5.2 ambiguous paths through the guard", "whatwg", "tomcat", "apache2")
    a(L, [A("net.fetch", "https://api.example.com@evil.example/v1/x"), A("net.fetch", "https://evil.example#@api.example.com/v1/x"),
          A("net.fetch", "https://api.example.com.evil.example/v1/x"), A("net.fetch", "HTTPS://API.EXAMPLE.COM.:443/v1/x#f"),
          A("net.fetch", "https://api.example.com../v1/x"), A("net.fetch", "http://api.example.com/v1/x")],
      [IR, PD, PD, "ok", IR, PD], "authority confusion through the guard", "ssrf-era", "dns-dot")
    return f


# ---------------------------------------------------------------- glob edge cases (S2, S3, S4)
def glob():
    f = Family("glob")
    lz = f.lease
    for p in ["/a/b***", "***", "/a/*****/b"]:
        lz({"fs.read": [p]}, IR, "three or more consecutive `*` are INVALID_REQUEST (S2)", "glob")
    lz({"tool.call": ["web.***"]}, IR, "`***` in a tool pattern", "glob")
    lz({"fs.read": ["/data/*/../secret", "/data/", "/a/?", "/a/[a-z]", "/a/{b,c}/**", "/a/!(x)"]}, "ok",
       "patterns that never match a canonical target, or hold literal glob syntax, are still valid (lint warns)", "glob", "lint")
    big = ["/%02d" % i + "a" * 4093 for i in range(16)]
    lz({"fs.read": big}, "ok", "16 patterns of 4 096 bytes: exactly 65 536 bytes for the capability (S2 bound)", "dos")
    lz({"fs.read": big + ["/x"]}, IR, "65 538 bytes for one capability: over the S2 bound", "dos")
    lz({"fs.read": big, "fs.write": big}, "ok", "the S2 byte bound is per capability", "dos")
    m = f.match
    m("fs.read", "/data/*/../secret", "/data/x/../secret", F, "the target canonicalizes to /secret; a pattern with `..` never matches", "lint")
    m("fs.read", "/data/*/../secret", "/secret", F, "patterns are not canonicalized", "lint")
    m("fs.read", "/data/", "/data", F, "a trailing `/` in a pattern never matches a canonical path", "lint")
    m("fs.read", "/data//x", "/data/x", F, "`//` in a pattern never matches", "lint")
    m("fs.read", "/data/./x", "/data/x", F, "`.` in a pattern never matches", "lint")
    m("fs.read", "/a/?", "/a/b", F, "`?` is literal (S2)", "glob")
    m("fs.read", "/a/[a-z]", "/a/b", F, "`[..]` is literal", "glob")
    m("fs.read", "/a/[a-z]", "/a/[a-z]", T, "`[..]` is literal", "glob")
    m("fs.read", "/a/{b,c}/**", "/a/b/x", F, "`{..}` is literal", "glob")
    m("fs.read", "/a/!(x)", "/a/y", F, "extglob is literal", "glob")
    m("fs.read", "/a/\\*", "/a/*", F, "`\\` is literal and does not escape `*`: the name must start with `\\`", "glob")
    m("fs.read", "/a/\\*", "/a/\\", T, "`\\` then `*` matching nothing", "glob")
    m("fs.read", "/a/*", "/a/.hidden", T, "`*` matches a leading dot (unlike bash and minimatch)", "glob")
    m("fs.read", "/a/*", "/a/..", F, "canonical `/`", "glob")
    m("fs.read", "/a/*", "/a/.", F, "canonical `/a`", "glob")
    m("fs.read", "/a/**", "/a/.git/config", T, "`**` includes dot directories", "glob")
    m("fs.read", "/a/**/b", "/a/b", T, "`P/**/Q` matches `P/Q`", "glob")
    m("fs.read", "/a/**/b", "/a/xb", F, "`**` is whole segments", "glob")
    m("fs.read", "/a/**/b", "/ab", F, "`**` is whole segments", "glob")
    m("fs.read", "/a/**b", "/a/x/yb", T, "an in-segment `**` crosses separators", "glob")
    m("fs.read", "/a/**b", "/a/x/yb/z", F, "anchored", "glob")
    m("fs.read", "/a/b**", "/a/bxx/secret", T, "an in-segment `**` crosses separators (a widening mistake)", "lint")
    m("fs.read", "/a/b**", "/a/b/../../etc", F, "canonical /etc", "glob")
    m("fs.read", "/*", "/etc/shadow", F, "`*` stays in one segment", "glob")
    m("fs.read", "**", "/etc/shadow", T, "`**` alone matches everything", "glob")
    m("fs.read", "*", "/etc", F, "`*` cannot match the leading `/`", "glob")
    m("fs.read", "*/etc/shadow", "/etc/shadow", T, "a leading `*` segment matches the empty first segment", "glob")
    m("fs.read", "/A/**", "/a/x", F, "case-sensitive", "glob")
    m("fs.read", "/caf\u00e9/**", "/cafe\u0301/x", F, "no Unicode normalization (NFC vs NFD)", "cwe176")
    m("fs.read", "/a/*", "/a/\u00e9", T, "`*` matches multi-byte characters", "glob")
    m("tool.call", "web.*", "web.search.admin", F, "`.` is a tool.call separator (S3)", "glob")
    m("tool.call", "web.*", "web.search/admin", F, "`/` is a tool.call separator too", "glob")
    m("tool.call", "web.*", "web.*", T, "`*` matches a literal `*`", "glob")
    m("tool.call", "web.search", "web.search ", F, "anchored: a trailing space is another tool", "glob")
    m("tool.call", "web.search", "web.search\u200b", F, "a zero-width space is another tool", "cwe176")
    m("tool.call", "web.search", "web\uff0esearch", F, "a fullwidth full stop is another tool", "cwe176")
    m("tool.call", "web\\.*", "web\\.search", T, "`\\` is literal, `*` still a metacharacter", "glob")
    m("tool.call", "web\\.*", "web.search", F, "`\\` is literal", "glob")
    m("tool.call", "*.read", "a.fs.read", F, "`*` is one segment", "glob")
    m("tool.call", "**.delete", "github.repo.delete", T, "`**` crosses `.`", "glob")
    m("tool.call", "**.delete", "github.repo.delete.confirm", F, "anchored", "glob")
    m("tool.call", "github:*", "github:admin/delete", F, "`/` is a separator", "glob")
    m("model.use", "gpt-4*", "gpt-4/../gpt-5", F, "model ids are verbatim and `*` stops at `/`", "glob")
    m("model.use", "gpt-4*", "gpt-4.5-turbo", T, "`.` is not a model.use separator", "glob")
    m("model.use", "gpt-4*", "gpt-4-evil", T, "a prefix grant is a prefix grant", "lint")
    m("agent.delegate", "pdf-renderer@*", "pdf-renderer@1/../admin", F, "`*` stops at `/`", "glob")
    m("x-vendor.acme.cap", "orders/*", "orders/../admin", F, "`*` stops at `/`", "glob")
    m("x-vendor.acme.cap", "orders/**", "orders/../admin", T, "vendor targets are verbatim (S5.3): the vendor runtime must not read `..`", "glob")
    m("net.fetch", "https://api.example.com**", "https://api.example.com.evil.example/", T, "an in-segment `**` after the host widens it (S4; lint warns)", "lint")
    m("net.fetch", "https://*api.example.com/**", "https://evilapi.example.com/x", T, "`*` before a host label (S4; lint warns)", "lint")
    m("net.fetch", "*://api.example.com/**", "gopher://api.example.com/_x", T, "a `*` scheme matches every scheme (lint warns)", "lint")
    m("net.fetch", "https://**.example.com/**", "https://evil.example/.example.com/x", T, "an in-segment `**` in the host crosses `/` (S4; lint warns)", "lint")
    m("net.fetch", "https://*.example.com/**", "https://evil.example/.example.com/x", F, "`*` stops at `/`", "ps-cheat")
    m("net.fetch", "https://*.example.com/**", "https://evil.example#.example.com/", F, "host evil.example", "ps-cheat")
    m("net.fetch", "https://*.example.com/**", "https://evil.example\\.example.com/", IR, "backslash in the host", "whatwg")
    m("net.fetch", "https://*.example.com/**", "https://.example.com/", IR, "S5.2: empty label", "dns-dot")
    m("net.fetch", "https://*.example.com/**", "https://a.example.com.evil.example/", F, "suffix after the granted domain", "ps-cheat")
    m("net.fetch", "https://*.example.com/**", "https://169.254.169.254.example.com/", T, "a name under example.com (its DNS is the grantor's)", "ps-ssrf")
    m("net.fetch", "https://*.example.com/**", "https://evil.example;.example.com/", T, "`;` is a reg-name byte: still a name ending in .example.com", "ssrf-era")
    m("net.fetch", "https://*.EXAMPLE.COM/**", "https://a.example.com/x", F, "an authority with `*` is kept verbatim (S5.2): upper case never matches (lint warns)", "lint")
    m("net.fetch", "HTTPS://*.example.com/**", "https://a.example.com/x", T, "the scheme is lower-cased even with a `*` authority", "rfc3986")
    m("net.fetch", "https://API.EXAMPLE.COM/**", "https://api.example.com/x", T, "a `*`-free authority is canonicalized", "rfc3986")
    m("net.fetch", "https://api.example.com/a#x", "https://api.example.com/a#x", F, "a pattern with a fragment never matches (lint warns)", "lint")
    m("net.fetch", "https://api.example.com/v1/*", "https://api.example.com/v1/x/y", F, "`*` is one segment", "glob")
    m("net.fetch", "https://api.example.com/v1/*", "https://api.example.com/v1/x?y=/z", F, "`*` stops at the `/` in the query", "glob")
    m("net.fetch", "https://api.example.com/v1/*", "https://api.example.com/v1/", T, "`*` matches the empty last segment", "glob")
    m("net.fetch", "https://api.example.com/a*", "https://api.example.com/a?admin=1", T, "`?` is not a separator: `*` covers the query", "lint")
    m("net.fetch", "https://api.example.com/a?x=1", "https://api.example.com/a?x=1&admin=1", F, "anchored", "glob")
    m("net.fetch", "https://api.example.com/%2A", "https://api.example.com/%2a", T, "the escape is upper-cased in the target; the pattern holds a literal `%2A`", "glob")
    m("net.fetch", "https://api.example.com/%2A", "https://api.example.com/x", F, "`%2A` is not a `*`", "glob")
    evil = "*a*a*a*a*a*a*a*a*a*a*a*a*c"
    m("model.use", evil, "a" * 10000, F, "S4 linear-time example against 10 000 characters", "minimatch")
    m("model.use", "**a**a**a**a**a**a**a**a**c", "a/" * 5000, F, "`**` backtracking bait over 10 000 characters", "minimatch")
    m("fs.read", "/**/a/**/a/**/a/**/a/**/a/**/a/**/b", "/a" * 5000, F, "whole-segment `**` bait over 10 000 characters", "minimatch")
    worst = ["*a" * 2047 + "*" + chr(ord("c") + i) for i in range(16)]
    f.authorize({"model.use": worst}, [{"model": "a" * 16384}, {"model": "a" * 16383 + "c"},
                                       {"model": "a" * 16385}],
                [PD, "ok", IR], "a lease at the S2 bound (16 x 4 096 bytes of `*a`) against targets at the S5 bound", "dos", "minimatch")
    return f


# ---------------------------------------------------------------- delegation escalation (S9, S10)
def delegation():
    f = Family("delegation")
    s = f.subset
    looks = "a child that looks narrower but is not"

    def p(cap, child, parent, x, why, *src):
        s({cap: child}, {cap: parent}, x, why, *src)

    p("fs.read", ["/workspace/**"], ["/workspace/*"], F, "`**` is deeper than `*`", "cwe269")
    p("fs.read", ["/workspace/a/**"], ["/workspace/*"], F, looks + ": /workspace/a/b", "cwe269")
    p("fs.read", ["/workspace/**/secret"], ["/workspace/*/secret"], F, looks + ": /workspace/secret", "cwe269")
    p("fs.read", ["/workspace*"], ["/workspace/**"], F, "prefix confusion: /workspacex", "offslash", "cwe269")
    p("fs.read", ["/workspace/../etc/**"], ["/workspace/**"], T, "inclusion is over raw strings (S9): every string of the child starts with /workspace/; the child never matches a canonical target", "cwe269")
    p("fs.read", ["*/**"], ["/**"], F, "`*/**` matches `x/y`", "cwe269")
    p("fs.read", ["/a/**"], ["/a/*", "/a/*/*"], F, "finite depth cannot cover `**`: /a/b/c/d", "cwe269")
    p("fs.read", ["/a/*/*"], ["/a/**"], T, "two levels are within `**`", "cwe269")
    p("fs.read", ["/a/b*"], ["/a/b/**"], F, looks + ": /a/bc", "cwe269")
    p("fs.read", ["/a/b/**"], ["/a/b*"], F, "`/a/b*` never crosses `/`", "cwe269")
    p("fs.read", ["/a/b/**"], ["/a/b**"], T, "an in-segment `**` crosses `/`", "cwe269")
    p("fs.read", ["/A/**"], ["/a/**"], F, "case-sensitive", "cwe269")
    p("fs.read", ["/a/\u00e9/**"], ["/a/e\u0301/**"], F, "no Unicode normalization", "cwe176", "cwe269")
    p("tool.call", ["web.*"], ["web.search", "web.fetch"], F, "a star over a finite list: web.admin", "cwe269")
    p("tool.call", ["web.search"], ["web.*"], T, "one tool within its namespace", "cwe269")
    p("tool.call", ["web.*.admin"], ["web.*"], F, "`.` is a separator: one level only", "cwe269")
    p("tool.call", ["web/*"], ["web.*"], F, "another separator", "cwe269")
    p("tool.call", ["*"], ["web.*"], F, "any top-level tool", "cwe269")
    p("model.use", ["gpt-4*"], ["gpt-4o*"], F, looks + ": gpt-4", "cwe269")
    p("model.use", ["gpt-4o-mini"], ["gpt-4o"], F, "exact grant", "cwe269")
    p("model.use", ["gpt-4o/*"], ["gpt-4o*"], F, "`*` stops at `/`", "cwe269")
    n = "net.fetch"
    p(n, ["https://api.example.com/**"], ["https://api.example.com/v1/**"], F, "the whole host vs one prefix", "oauth")
    p(n, ["https://api.example.com/v1/../admin/**"], ["https://api.example.com/v1/**"], T, "raw inclusion (S9); the child never matches a canonical target", "rfc3986")
    p(n, ["https://*.example.com/**"], ["https://api.example.com/**"], F, "every subdomain vs one", "oauth")
    p(n, ["https://api.example.com**"], ["https://api.example.com/**"], F, "matches https://api.example.com.evil.example/", "lint")
    p(n, ["*://api.example.com/**"], ["https://api.example.com/**"], F, "every scheme vs https", "claroty")
    p(n, ["https://api.example.com:8443/**"], ["https://api.example.com/**"], F, "another port", "urlparse-port")
    p(n, ["https://api.example.com:443/**"], ["https://api.example.com/**"], T, "default port canonicalized away", "rfc3986")
    p(n, ["HTTPS://API.EXAMPLE.COM./v1/**"], ["https://api.example.com/**"], T, "case and trailing dot canonicalized", "dns-dot")
    p(n, ["http://api.example.com/**"], ["https://api.example.com/**"], F, "scheme downgrade", "claroty")
    p(n, ["https://api.example.com.evil.example/**"], ["https://*.example.com/**"], F, "suffix confusion", "ps-cheat")
    p(n, ["https://a.b.example.com/**"], ["https://*.example.com/**"], T, "`.` is not a net.fetch separator: `*` covers `a.b`", "ps-cheat")
    p(n, ["https://**.example.com/**"], ["https://*.example.com/**"], F, "an in-segment `**` crosses `/`", "lint")
    s({"fs.write": ["/workspace/**"]}, {"fs.read": ["/**"]}, F, "a capability the parent lacks", "cwe269")
    s({"fs.write": []}, {"fs.read": ["/**"]}, F, "an empty list still names a capability the parent lacks", "cwe269")
    s({"x-vendor.acme.admin": ["*"]}, {"x-vendor.acme.cap": ["**"]}, F, "another vendor capability", "cwe269")
    s({"model.use": ["*"]}, {}, F, "the parent grants no model", "cwe269")
    bud = "cost.budget"
    s({bud: ["EUR:1000000"]}, {bud: ["USD:5"]}, T, "a currency the parent does not budget is unlimited there, and the child keeps the parent's USD counter (S9): no escape", "wstg-busl", "cwe269")
    s({bud: ["usd:1000"]}, {bud: ["USD:5"]}, T, "currencies are case-sensitive: `usd` is another currency; USD stays shared", "wstg-busl")
    s({bud: ["USD:5.000000001"]}, {bud: ["USD:5"]}, F, "one nano-unit over", "cwe1339")
    s({bud: ["USD:0005.0"]}, {bud: ["USD:5"]}, T, "leading and trailing zeros", "cwe1339")
    s({bud: ["USD:2", "USD:2", "USD:2"]}, {bud: ["USD:5"]}, F, "entries sum (6 > 5)", "wstg-busl")
    s({bud: ["USD:3"]}, {bud: ["USD:2", "USD:2"]}, T, "the parent's entries sum too (3 <= 4)", "wstg-busl")
    s({bud: ["USD:3"]}, {bud: ["USD:2", "EUR:2"]}, F, "EUR does not add to USD", "wstg-busl")
    s({bud: ["USD:5"]}, {bud: ["USD:5"]}, F, "the parent's remaining amount counts", "wstg-busl",
      parent_remaining={"USD": "4.999999999"})
    s({bud: ["USD:1"]}, {bud: ["USD:5"]}, F, "nothing remains", "wstg-busl", parent_remaining={"USD": "0"})
    s({bud: ["USD:1e1"]}, {bud: ["USD:100"]}, IR, "an exponent is not an amount", "java-bd")
    s({bud: ["USD:+1"]}, {bud: ["USD:100"]}, IR, "a sign is not an amount", "java-bd")
    x = "2030-01-01T00:00:00Z"
    for child, want, why in [("2030-01-01T00:00:01Z", F, "one second later"),
                             ("2030-01-01T00:00:00.000000001Z", F, "one nanosecond later"),
                             ("2030-01-01T00:00:00.000000000Z", T, "the same instant with nine zeros"),
                             ("2030-01-01T01:00:00+01:00", IR, "an offset is refused even for the same instant (S7)"),
                             ("2030-02-30T00:00:00Z", IR, "not a calendar date"),
                             ("2029-12-31T24:00:00Z", IR, "hour 24 (would be the parent's instant)"),
                             ("2029-12-31T23:59:60Z", IR, "second 60"),
                             ("2030-01-01T00:00:00z", IR, "lower-case z")]:
        s({"fs.read": ["/a"]}, {"fs.read": ["/a"]}, want, "expiry: " + why, "oauth",
          child_constraints={"expires_at": child}, parent_constraints={"expires_at": x})
    s({"fs.read": ["/a"]}, {"fs.read": ["/a"]}, T, "an omitted child expiry inherits the parent's", "oauth",
      child_constraints={}, parent_constraints={"expires_at": x})
    s({"fs.read": ["/a"]}, {"fs.read": ["/a"]}, T, "the parent without expiry allows any child expiry", "oauth",
      child_constraints={"expires_at": "9999-12-31T23:59:59Z"})
    nw = f.narrow
    nw({"fs.read": ["/**"]}, {"fs.read": ["/workspace/**"]}, {"fs.read": ["/workspace/**"]}, "a wide request gets the ceiling", "oauth")
    nw({"fs.read": ["/workspace/../etc/**"]}, {"fs.read": ["/workspace/**"]}, {"fs.read": ["/workspace/../etc/**"]},
       "contained over raw strings, kept; it never matches a canonical target", "oauth")
    nw({"fs.write": ["/workspace/**"]}, {"fs.read": ["/**"]}, {}, "a capability the ceiling lacks is dropped", "oauth")
    nw({n: ["*://api.example.com/**"]}, {n: ["https://api.example.com/**"]}, {n: ["https://api.example.com/**"]},
       "every scheme narrows to the ceiling's", "claroty")
    nw({n: ["https://api.example.com**"]}, {n: ["https://api.example.com/**"]}, {n: ["https://api.example.com/**"]},
       "the widening `**` narrows to the ceiling's", "lint")
    nw({"tool.call": ["**"]}, {"tool.call": ["web.search", "web.fetch"]}, {"tool.call": ["web.search", "web.fetch"]},
       "every tool narrows to the listed ones", "oauth")
    nw({"tool.call": ["web.*"]}, {"tool.call": ["web.search.*"]}, {"tool.call": []},
       "partial overlap is dropped (S10)", "oauth")
    nw({"fs.read": ["/a/*"]}, {"fs.read": ["/a/b/**"]}, {"fs.read": []}, "partial overlap is dropped", "oauth")
    nw({bud: ["USD:1000"]}, {bud: ["USD:5"]}, {bud: ["USD:5"]}, "the smaller amount", "wstg-busl")
    nw({bud: ["EUR:1000"]}, {bud: ["USD:5"]}, {bud: ["EUR:1000", "USD:5"]}, "every currency either side budgets", "wstg-busl")
    nw({bud: ["USD:3", "USD:3"]}, {bud: ["USD:5"]}, {bud: ["USD:5"]}, "summed request 6 vs 5", "wstg-busl")
    nw({"model.use": ["*"]}, {"model.use": ["gpt-4o-mini"]}, {"model.use": ["gpt-4o-mini"]}, "any model narrows to the ceiling's", "oauth")
    return f


# ---------------------------------------------------------------- amount parsing tricks (S6)
def amount():
    f = Family("amount")
    bp = lambda e, x, why, *src: f.add("budget_parse", {"entry": e}, x, why, *src)  # noqa: E731
    for e, why, src in [
        ("USD:1E+2", "exponent", "java-bd"), ("USD:1e-9", "exponent", "java-bd"),
        ("USD:0b101", "binary literal", "js-num"), ("USD:0o17", "octal literal", "js-num"),
        ("USD:0X1F", "hex literal", "js-num"), ("USD:1'000", "digit group separator", "wstg-busl"),
        ("USD:1 000", "space group separator", "wstg-busl"), ("USD:1.000,50", "European decimal comma", "wstg-busl"),
        ("USD:1,000.50", "thousands comma", "wstg-busl"), ("USD:\u22121", "U+2212 MINUS SIGN", "cwe176"),
        ("USD:-0.0", "negative zero", "py-dec"), ("USD:+0", "explicit plus", "java-bd"),
        ("USD:\uff15", "fullwidth digit", "py-dec"), ("USD:\u0665", "Arabic-Indic digit", "py-dec"),
        ("USD:\u0967", "Devanagari digit", "py-dec"), ("USD:\u00bd", "vulgar fraction", "py-dec"),
        ("USD:1/2", "a fraction", "wstg-busl"), ("USD:-Infinity", "infinity", "py-dec"),
        ("USD:+Inf", "infinity", "py-dec"), ("USD:sNaN", "signalling NaN", "py-dec"),
        ("USD:1.", "no fraction digits", "js-num"), ("USD:.1", "no integer digits", "js-num"),
        ("USD:1..0", "two points", "wstg-busl"), ("USD:0.1e1", "exponent", "java-bd"),
        ("USD:\u00a01", "NBSP", "js-num"), ("USD:1\u00a0", "trailing NBSP", "js-num"),
        ("USD:1\u200b", "zero-width space", "cwe176"), ("USD:\ufeff1", "BOM", "cwe176"),
        ("USD:1.2345678901", "10 fraction digits", "cwe1339"), ("USD:0.1000000000", "10 fraction digits, even trailing zeros", "cwe1339"),
        ("USD:9999999999999999", "16 integer digits", "cwe1339"), ("USD:999999999999999.9999999990", "10 fraction digits", "cwe1339"),
        ("USD::1", "empty field", "wstg-busl"), (":USD:1", "empty currency", "wstg-busl"),
        ("USD:1;EUR:2", "two entries in one", "wstg-busl"), ("USD:1,EUR:2", "two entries in one", "wstg-busl"),
        ("US$:1", "`$` in a currency", "wstg-busl"), ("\uff35\uff33\uff24:1", "fullwidth currency", "cwe176"),
        ("USD\u200b:1", "zero-width space in a currency", "cwe176"), ("9USD:1", "currency starts with a digit", "wstg-busl"),
        ("USD:1\u0000", "NUL", "cwe158"), ("USD:0x", "hex prefix", "js-num"), ("USD:١٠", "Arabic-Indic digits", "py-dec"),
    ]:
        bp(e, IR, "not `CURRENCY:AMOUNT` (S6): " + why, src)
    for e, cur, amt, why in [
        ("USD:00000000000000000000000000000001", "USD", "1", "leading zeros are not counted"),
        ("USD:0000000000000000000000000000000.5", "USD", "0.5", "leading zeros are not counted"),
        ("USD:000000000000000999999999999999.5", "USD", "999999999999999.5", "15 significant integer digits"),
        ("USD:1.000000000", "USD", "1", "nine fraction digits"),
        ("Usd:1", "Usd", "1", "case-sensitive currency, kept as written"),
        ("USD-:1", "USD-", "1", "`-` is a currency character"),
        ("U_:1", "U_", "1", "`_` is a currency character"),
    ]:
        bp(e, {"currency": cur, "amount": amt}, why, "cwe1339")
    bs = lambda e, x, why, *src: f.add("budget_sum", {"entries": e}, x, why, *src)  # noqa: E731
    bs(["USD:1", "usd:1", "Usd:1"], {"USD": "1", "usd": "1", "Usd": "1"}, "three currencies, not one", "wstg-busl")
    bs(["USD:0.1"] * 10, {"USD": "1"}, "exact decimal: ten times 0.1 is 1, not 0.9999999999999999", "cwe1339")
    bs(["USD:1.1", "USD:2.2"], {"USD": "3.3"}, "exact decimal: 1.1 + 2.2 is 3.3, not 3.3000000000000003", "cwe1339")
    bs(["USD:999999999999999.999999999"] * 3, {"USD": "2999999999999999.999999997"}, "sums exceed one entry's 15 digits exactly", "cwe1339")
    bs(["USD:5", "USD:-5"], IR, "a negative entry cannot cancel a budget", "wstg-busl")
    lz = f.lease
    lz({"cost.budget": ["USD:5", "USD:1e100"]}, IR, "one bad entry spoils the lease", "java-bd")
    lz({"cost.budget": [5.0]}, IR, "a JSON number is not an entry", "js-num")
    lz({"cost.budget": ["USD:5", None]}, IR, "null entry", "wstg-busl")
    a = f.authorize
    L = {"tool.call": ["*"], "cost.budget": ["USD:100"]}
    bad = ["1e2", "-100", "NaN", "Infinity", "0x64", "+1", "1_0", "\uff11", "0.0000000001", "-0", " 1", "1.", ".5"]
    a(L, [M(v) for v in bad] + [M("0"), A("tool.call", "x")], [IR] * len(bad) + [R({"USD": "100"}), "ok"],
      "invalid spend values are INVALID_REQUEST and change nothing (a negative spend would refill)", "py-dec", "js-num", "wstg-busl")
    a(L, [M("1", unit="usd"), M("1", unit="USD "), M("1", name="Cost.llm"), M("1", name="cost.budget.remaining"),
          M("1", name="cost.budget.refund"), A("tool.call", "x")],
      [R({"USD": "100"})] * 5 + ["ok"], "metrics that are not spend in a budgeted currency are ignored", "wstg-busl")
    a(L, [M("10", name="cost.budgetx"), M("1", name="cost."), M("0.000000001")],
      [R({"USD": "90"}, ("90", "USD")), R({"USD": "89"}), R({"USD": "88.999999999"})],
      "`cost.budgetx` and `cost.` are spend (they start with `cost.`, not `cost.budget.`); nano-unit precision", "wstg-busl", "cwe1339")
    a(L, [RES("USD", "1e1"), RES("usd", "1"), RES("USD", "-5"), RES("USD", "+5"), RES("EUR", "1"),
          RES("USD", "100.000000001"), RES("USD", "100"), A("tool.call", "x")],
      [IR, IR, IR, IR, IR, BX, "ok", BX], "reserve: bad amounts, unbudgeted currencies, one nano-unit over, then the whole budget", "wstg-busl", "java-bd")
    return f


# ---------------------------------------------------------------- capability name confusion (S1, S8)
def name():
    f = Family("name")
    L = {"fs.read": ["/**"], "tool.call": ["web.*"]}
    f.authorize(L, [A("fs.read\u0000", "/a"), A("FS.READ", "/a"), A("fs.Read", "/a"), A(" fs.read", "/a"),
                    A("fs.read ", "/a"), A("\uff46s.read", "/a"), A("fs\u2024read", "/a"), A("fs.write", "/a"),
                    A("x-vendor.fs.read", "/a"), A("fs.read", "/a")],
                [IR, IR, IR, IR, IR, IR, IR, PD, PD, "ok"],
                "capability names are exact (S1): look-alikes are INVALID_REQUEST, other valid names PERMISSION_DENIED", "cwe176", "cwe269")
    f.lease({"fs.read": ["/a"], "FS.READ": ["/**"]}, IR, "a look-alike key makes the lease invalid, not ignored", "cwe176")
    f.lease({"fs.read\u200b": ["/**"]}, IR, "zero-width space in a key", "cwe176")
    f.lease({"x-vendor.acme.cap": ["*"], "x-vendor.acme.Cap": ["*"]}, IR, "upper case in a vendor name", "cwe176")
    f.authorize({"fs.read": ["/a"]}, [A("fs.read", "/etc/shadow\u0000")], [IR], "expiry and budget pass; the target fails canonicalization", "cwe158",
                constraints={"expires_at": "2999-01-01T00:00:00Z"})
    return f


FAMILIES = [path, url, glob, delegation, amount, name]


def vectors():
    """All bypass vectors with their ids, family by family."""
    out = []
    for fam in FAMILIES:
        f = fam()
        for i, v in enumerate(f.vectors, 1):
            out.append({"id": "bypass-%s-%03d" % (f.name, i), **v})
    return out


def write(out_dir):
    """Writes `bypass.json` into `out_dir`; returns the number of vectors."""
    vecs = vectors()
    with open(os.path.join(out_dir, "bypass.json"), "w", encoding="utf-8") as fh:
        fh.write('{"vectors": [\n')
        fh.write(",\n".join(json.dumps(v, ensure_ascii=True) for v in vecs))
        fh.write("\n]}\n")
    return len(vecs)


def check():
    """Compares every expectation the model can judge with the model; returns the disagreements."""
    import bypass_model as bm
    bad = []

    def judge(fn):
        try:
            return fn()
        except bm.Invalid:
            return IR

    for v in vectors():
        op, i, x = v["op"], v["input"], v["expect"]
        if op == "canonicalize":
            got = judge(lambda: bm.canonicalize(i["capability"], i["target"]))
        elif op == "match" and len(i["target"]) < 1000:  # the model's regex backtracks
            got = judge(lambda: bm.matches(i["capability"], i["pattern"], i["target"]))
        elif op == "budget_parse":
            got = judge(lambda: bm.budget_parse(i["entry"]))
        elif op == "subset" and len(i["child"]) == 1 and set(i["child"]) == set(i["parent"]) \
                and "cost.budget" not in i["child"] and "child_constraints" not in i:
            cap = next(iter(i["child"]))
            w = judge(lambda: bm.subset_witness(cap, i["child"][cap], i["parent"][cap]))
            got = IR if w == IR else (w is None)
            if got is True and x is False:
                got = "no witness found (not a proof)"
        else:
            continue
        if got != x:
            bad.append((v["id"], x, got))
    return bad


def counts():
    """{family: {op: n}}."""
    c = {}
    for v in vectors():
        fam = v["id"].split("-")[1]
        c.setdefault(fam, {}).setdefault(v["op"], 0)
        c[fam][v["op"]] += 1
    return c


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if "--check" in sys.argv:
        problems = check()
        for p in problems:
            print("%s: expect %r, model %r" % p)
        print("%d vectors, %d disagreements with the model" % (len(vectors()), len(problems)))
        sys.exit(1 if problems else 0)
    for fam, ops in counts().items():
        print("%-11s %4d  %s" % (fam, sum(ops.values()), ops))
    print("total %d" % len(vectors()))
