#!/usr/bin/env python3
"""Writes every file of conformance/vectors from the tables below and the modules next to it
(vectors_agentfile.py, vectors_binding.py, vectors_security.py, the Agentfile fixtures in
conformance/agentfiles).
Every expectation here was derived by reading docs/semantics.md, never by running leasekit.
Large inputs (1024/1025 patterns, 4096/4097-byte patterns, the adversarial `*a*a...*c`
pattern) are generated so the files stay readable.

Usage:
  python3 conformance/tools/gen_vectors.py           rewrite the files in place
  python3 conformance/tools/gen_vectors.py --check   regenerate in memory; exit 1 when a file
                                                     differs, is missing, or no generator owns it
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vectors_agentfile  # noqa: E402
import vectors_binding  # noqa: E402
import vectors_bypass  # noqa: E402  (the bypass corpus)
from vectors_security import security  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "vectors"))
AGENTFILES = os.path.normpath(os.path.join(HERE, "..", "agentfiles"))
E = lambda code="INVALID_REQUEST": {"error": code}  # noqa: E731
IR = E("INVALID_REQUEST")
PD = E("PERMISSION_DENIED")
LX = E("LEASE_EXPIRED")
BX = E("BUDGET_EXHAUSTED")


# ---------------------------------------------------------------- capability_name (S1)
def capability_name():
    v = []
    for n in ["fs.read", "fs.write", "net.fetch", "tool.call", "agent.delegate",
              "model.use", "cost.budget"]:
        v.append((n, True, True))
    for n in ["x-vendor.acme.kafka.publish", "x-vendor.acme.cap", "x-vendor.a.b",
              "x-vendor.a_b.c-d", "x-vendor.0.9", "x-vendor.acme.a.b.c.d",
              "x-vendor.-.-", "x-vendor._._"]:
        v.append((n, True, False))
    for n in ["x-vendor.acme", "x-vendor.Acme.x", "x-vendor..x", "acme.foo", "x-vendor.",
              "x-vendor", "x-vendor.acme.", "x-vendor.acme..cap", "x-vendor.acme.Cap",
              "x-vendor.acme.c p", "x-vendor.acme/cap", "x-vendor.acme.caf\u00e9",
              "X-vendor.acme.cap", "x-Vendor.acme.cap", "x_vendor.acme.cap",
              ".x-vendor.acme.cap", "", "fs", "FS.READ", "Fs.read", "fs.read ",
              " fs.read", "fs.read.x", "fs.*", "fs.exec", "net.fetch.", "cost.budget.remaining",
              "model", "tool.call\u0000", "x-vendor.acme.cap\n", "vendor.acme.cap",
              "x-vendor.*.cap"]:
        v.append((n, False, False))
    return [{"op": "capability_name", "input": {"name": n}, "expect": {"valid": a, "reserved": r}}
            for n, a, r in v]


# ---------------------------------------------------------------- validate_lease (S1, S2, S5.2, S6)
def validate_lease():
    ok, bad = "ok", IR
    v = [
        ({}, ok),
        ({"fs.read": ["/a/**"]}, ok),
        ({"fs.read": []}, ok),
        ({"fs.read": ["/a/**"], "fs.write": ["/tmp/*"], "net.fetch": ["https://api.example.com/**"],
          "tool.call": ["web.*"], "agent.delegate": ["pdf-renderer@*"], "model.use": ["gpt-4*"],
          "cost.budget": ["USD:5.00"]}, ok),
        ({"x-vendor.acme.kafka.publish": ["orders/*"]}, ok),
        ({"x-vendor.acme": ["x"]}, bad),
        ({"fs.exec": ["/bin/*"]}, bad),
        ({"FS.READ": ["/a"]}, bad),
        ({"acme.foo": []}, bad),
        ({"": []}, bad),
        # value not an array / element not a string
        ({"fs.read": "/a/**"}, bad),
        ({"fs.read": None}, bad),
        ({"fs.read": {"p": "/a"}}, bad),
        ({"fs.read": 1}, bad),
        ({"fs.read": [1]}, bad),
        ({"fs.read": [None]}, bad),
        ({"fs.read": [True]}, bad),
        ({"fs.read": [["/a"]]}, bad),
        ({"fs.read": ["/a", 2]}, bad),
        ({"tool.call": [{"name": "x"}]}, bad),
        # empty strings and control characters
        ({"fs.read": [""]}, bad),
        ({"tool.call": [""]}, bad),
        ({"fs.read": ["/a\u0000b"]}, bad),
        ({"fs.read": ["/a\nb"]}, bad),
        ({"fs.read": ["/a\tb"]}, bad),
        ({"tool.call": ["web\u001f"]}, bad),
        ({"tool.call": ["web\u007f"]}, bad),
        ({"model.use": ["gpt\r4"]}, bad),
        ({"cost.budget": ["USD:1\n"]}, bad),
        ({"tool.call": ["caf\u00e9.search"]}, ok),
        # fs patterns must be absolute or start with *
        ({"fs.read": ["a/b"]}, bad),
        ({"fs.write": ["./a"]}, bad),
        ({"fs.read": ["~/a"]}, bad),
        ({"fs.read": ["/ok", "rel"]}, bad),
        ({"fs.read": ["*.txt"]}, ok),
        ({"fs.read": ["**"]}, ok),
        ({"fs.write": ["**/x"]}, ok),
        ({"tool.call": ["a/b"]}, ok),
        # metacharacters
        ({"fs.read": ["/a/***"]}, bad),
        ({"tool.call": ["a***b"]}, bad),
        ({"model.use": ["****"]}, bad),
        ({"net.fetch": ["https://***"]}, bad),
        ({"fs.read": ["/a/**b"]}, ok),
        ({"fs.read": ["/a/*/**/*"]}, ok),
        ({"fs.read": ["/a/?", "/a/[bc]", "/a/{x,y}", "/a/\\*"]}, ok),
        # cost.budget
        ({"cost.budget": ["USD:5"]}, ok),
        ({"cost.budget": []}, ok),
        ({"cost.budget": ["USD:1", "USD:2", "EUR:0.5", "credits:100"]}, ok),
        ({"cost.budget": ["USD:0"]}, ok),
        ({"cost.budget": ["USD:-1"]}, bad),
        ({"cost.budget": ["USD"]}, bad),
        ({"cost.budget": ["USD:1e3"]}, bad),
        ({"cost.budget": ["USD:NaN"]}, bad),
        ({"cost.budget": ["USD:1000000000000000"]}, bad),
        ({"cost.budget": ["USD:0.0000000001"]}, bad),
        ({"cost.budget": ["USD:5", "bad"]}, bad),
        ({"cost.budget": ["USD:*"]}, bad),
        ({"cost.budget": [5]}, bad),
        ({"cost.budget": "USD:5"}, bad),
        # net.fetch patterns: scheme lower-cased, star-free authority canonicalized (S5.2)
        ({"net.fetch": ["HTTPS://API.example.com:443"]}, ok),
        ({"net.fetch": ["https://**"]}, ok),
        ({"net.fetch": ["https://*.example.com/**"]}, ok),
        ({"net.fetch": ["api.example.com/*"]}, ok),
        ({"net.fetch": ["https://user@api.example.com/**"]}, bad),
        ({"net.fetch": ["https://api.example.com@evil.com/**"]}, bad),
        ({"net.fetch": ["https://user:pw@api.example.com/*"]}, bad),
        ({"net.fetch": ["https://api.example.com:99999/*"]}, bad),
        ({"net.fetch": ["https://api.example.com:65536/*"]}, bad),
        ({"net.fetch": ["https://api.example.com:/*"]}, bad),
        ({"net.fetch": ["https://api.example.com:12a/*"]}, bad),
        ({"net.fetch": ["https:///*"]}, bad),
        ({"net.fetch": ["https://ex\u00e4mple.com/*"]}, bad),
        ({"net.fetch": ["https://a%41.example.com/*"]}, bad),
        ({"net.fetch": ["https://api.example.com:65535/*"]}, ok),
        ({"net.fetch": ["https://[::1]:8080/*"]}, ok),
        ({"net.fetch": ["https://xn--exmple-cua.com/**"]}, ok),
        # a lease is a JSON object
        ([], bad),
        ("fs.read", bad),
        (None, bad),
    ]
    return [{"op": "validate_lease", "input": {"lease": l}, "expect": x} for l, x in v]


# ---------------------------------------------------------------- canonicalize (S5)
def canonicalize():
    fs = [
        ("/a/b", "/a/b"), ("//a///b", "/a/b"), ("/a/./b", "/a/b"), ("/a/../b", "/b"),
        ("/../a", "/a"), ("/..", "/"), ("/../..", "/"), ("/a/b/", "/a/b"), ("/", "/"), ("//", "/"),
        ("///", "/"), ("/.", "/"), ("/./", "/"), ("/a/.", "/a"), ("/a/..", "/"),
        ("/safe/../etc/passwd", "/etc/passwd"), ("/safe/./../etc/passwd", "/etc/passwd"),
        ("/a/b/../../..", "/"), ("/a/b/../../../c", "/c"), ("/a/b/c/../../d", "/a/d"),
        ("/a/.../b", "/a/.../b"), ("/a/..b", "/a/..b"), ("/a/b..", "/a/b.."), ("/a/.b", "/a/.b"),
        ("/a/%2e%2e/b", "/a/%2e%2e/b"), ("/a/%2F/b", "/a/%2F/b"), ("/A/B", "/A/B"),
        ("/a b/c", "/a b/c"), ("/a/*", "/a/*"), ("/caf\u00e9/x", "/caf\u00e9/x"),
        ("/a//b/", "/a/b"), ("/a/./../b/./c/", "/b/c"),
    ]
    v = [("fs.read", t, x) for t, x in fs]
    v += [("fs.write", "/tmp//x/../y/", "/tmp/y"), ("fs.write", "/../../tmp", "/tmp")]
    v += [("fs.read", t, IR) for t in ["a/b", "./a", "../a", "~/a", "", "/a\u0000b", "/a\nb",
                                        "/a\u007f", "\\a\\b", "C:/a"]]
    v += [("fs.write", "a", IR), ("fs.write", "", IR)]
    h = "https://api.example.com"
    net = [
        (h + "/v1", h + "/v1"),
        ("HTTPS://API.Example.COM/Path", h + "/Path"),
        (h, h + "/"),
        (h + ":443/x", h + "/x"),
        ("http://api.example.com:80/x", "http://api.example.com/x"),
        ("http://api.example.com:443/x", "http://api.example.com:443/x"),
        (h + ":80/x", h + ":80/x"),
        ("ws://h.example:80/s", "ws://h.example/s"),
        ("wss://h.example:443/s", "wss://h.example/s"),
        ("ws://h.example:443/s", "ws://h.example:443/s"),
        ("wss://h.example:80/s", "wss://h.example:80/s"),
        (h + ":8443/x", h + ":8443/x"),
        (h + ":08443/x", h + ":8443/x"),
        (h + ":00443/x", h + "/x"),
        (h + ":0080/x", h + ":80/x"),
        ("http://api.example.com:0080/x", "http://api.example.com/x"),
        (h + ":65535/", h + ":65535/"),
        (h + ":443", h + "/"),
        ("HTTP://H.EXAMPLE:8080", "http://h.example:8080/"),
        (h + "./x", h + "/x"),
        ("https://API.example.com.:443/x", h + "/x"),
        ("ftp://files.example.com/a", "ftp://files.example.com/a"),
        ("s3://reports/2026/W19.csv", "s3://reports/2026/W19.csv"),
        ("https://[::1]:8080/x", "https://[::1]:8080/x"),
        ("https://[::1]:443/x", "https://[::1]/x"),
        ("https://xn--exmple-cua.com/", "https://xn--exmple-cua.com/"),
        # path: unreserved escapes decoded, others upper-cased, %2F kept
        (h + "/a/%7Euser", h + "/a/~user"),
        (h + "/%41%42%63", h + "/ABc"),
        (h + "/%2D%2E%5F%7E", h + "/-._~"),
        (h + "/a%2fb", h + "/a%2Fb"),
        (h + "/a%2Fb", h + "/a%2Fb"),
        (h + "/a%3a", h + "/a%3A"),
        (h + "/a%20b", h + "/a%20b"),
        (h + "/%e2%82%ac", h + "/%E2%82%AC"),
        (h + "/x/a%2Fb/../c", h + "/x/c"),
        # dot segments (RFC 3986 5.2.4) after decoding
        (h + "/v1/../admin", h + "/admin"),
        (h + "/v1/%2e%2e/admin", h + "/admin"),
        (h + "/v1/%2E%2E/admin", h + "/admin"),
        (h + "/v1/.%2e/admin", h + "/admin"),
        (h + "/v1/%2e./admin", h + "/admin"),
        (h + "/a/%2E/b", h + "/a/b"),
        (h + "/a/./b", h + "/a/b"),
        (h + "/a//../b", h + "/a/b"),
        (h + "/a/b/..", h + "/a/"),
        (h + "/a/b/.", h + "/a/b/"),
        (h + "/..", h + "/"),
        (h + "/../../x", h + "/x"),
        (h + "//a", h + "/a"),
        (h + "/a///b", h + "/a/b"),
        (h + "/a/", h + "/a/"),
        (h + "/A/B", h + "/A/B"),
        (h + "/a/...", h + "/a/..."),
        # query kept verbatim, fragment dropped
        (h + "/a?x=1", h + "/a?x=1"),
        (h + "/a?x=%2e%2e/../Y", h + "/a?x=%2e%2e/../Y"),
        (h + "/a#frag", h + "/a"),
        (h + "/a?q=1#frag", h + "/a?q=1"),
        (h + "?q=1", h + "/?q=1"),
        (h + "#f", h + "/"),
        (h + ":443?q=A", h + "/?q=A"),
        (h + "/../a?b=/../c", h + "/a?b=/../c"),
    ]
    v += [("net.fetch", t, x) for t, x in net]
    v += [("net.fetch", t, IR) for t in [
        "https://user@api.example.com/", "https://user:pw@api.example.com/",
        "https://api.example.com@evil.com/", "https://@api.example.com/",
        "https:///x", "https://", "https://:443/x",
        h + ":/x", h + ":65536/", h + ":99999/", h + ":000443/", h + ":abc/", h + ":-1/",
        h + ":+443/",
        "https://ex\u00e4mple.com/", "https://a%41.example.com/", "https://%41/",
        h + "/a%zz", h + "/a%4", h + "/a%", h + "/%g0", h + "/a%%41",
        "api.example.com/x", "//api.example.com/x", "https:/api.example.com/x",
        "https:api.example.com", "mailto:a@example.com", "",
        h + "/a\u0000", h + "/a\nb", "https://api.exa\tmple.com/",
    ]]
    other = [
        ("tool.call", "Web.Search", "Web.Search"), ("tool.call", "web..search", "web..search"),
        ("tool.call", "a/../b", "a/../b"), ("tool.call", "github:create_issue", "github:create_issue"),
        ("model.use", "gpt-4o", "gpt-4o"), ("model.use", "tier-fast//m1", "tier-fast//m1"),
        ("model.use", "GPT-4O", "GPT-4O"),
        ("agent.delegate", "pdf-renderer@1.2.0", "pdf-renderer@1.2.0"),
        ("agent.delegate", "a/./b/", "a/./b/"),
        ("x-vendor.acme.cap", "/a/../b", "/a/../b"),
        ("x-vendor.acme.cap", "HTTPS://X:443", "HTTPS://X:443"),
    ]
    v += other
    v += [("tool.call", "", IR), ("tool.call", "a\tb", IR), ("model.use", "", IR),
          ("model.use", "gpt\u007f", IR), ("agent.delegate", "a\u0001", IR),
          ("cost.budget", "USD:1", IR), ("cost.budget", "x", IR),
          ("fs.exec", "/a", IR), ("x-vendor.acme", "a", IR), ("", "/a", IR)]
    return [{"op": "canonicalize", "input": {"capability": c, "target": t}, "expect": x}
            for c, t, x in v]


# ---------------------------------------------------------------- match (S3, S4, S5, S8)
def match():
    T, F = True, False
    v = [
        # S3 separators
        ("tool.call", "web.*", "web.search", T),
        ("tool.call", "web.*", "web.search.advanced", F),
        ("tool.call", "web.*", "web.", T),
        ("tool.call", "web.*", "web", F),
        ("tool.call", "web.*", "web/search", F),
        ("tool.call", "web/*", "web/search", T),
        ("tool.call", "web/*", "web/x.y", F),
        ("tool.call", "web.**", "web.search.advanced", T),
        ("tool.call", "web.**", "web.a/b.c", T),
        ("tool.call", "web.**", "web", T),
        ("tool.call", "web.**", "webx", F),
        ("tool.call", "*", "web", T),
        ("tool.call", "*", "web.search", F),
        ("tool.call", "**", "a.b/c", T),
        ("tool.call", "*.search", "web.search", T),
        ("tool.call", "*.search", "a.web.search", F),
        ("tool.call", "**.search", "a.web.search", T),
        ("tool.call", "**.search", "search", T),
        ("tool.call", "a.**.b", "a.b", T),
        ("tool.call", "a.**.b", "a.x.y.b", T),
        ("tool.call", "a.**.b", "a.x/y.b", T),
        ("tool.call", "a.**.b", "a.xb", F),
        ("tool.call", "a.*.b", "a..b", T),
        ("tool.call", "web.search", "web.search", T),
        ("tool.call", "web.search", "web.searchx", F),
        ("tool.call", "web.search", "Web.search", F),
        ("tool.call", "github:*", "github:create_issue", T),
        ("tool.call", "github:*", "github:issues.create", F),
        ("tool.call", "github:*", "gitlab:create_issue", F),
        ("model.use", "gpt-4*", "gpt-4.1", T),
        ("model.use", "gpt-4*", "gpt-4o-mini", T),
        ("model.use", "gpt-4*", "gpt-4", T),
        ("model.use", "gpt-4*", "gpt-3.5-turbo", F),
        ("model.use", "gpt-4*", "gpt-4/x", F),
        ("model.use", "gpt-4*", "GPT-4o", F),
        ("model.use", "tier-fast/*", "tier-fast/m1", T),
        ("model.use", "tier-fast/*", "tier-fast/a/b", F),
        ("model.use", "tier-fast/**", "tier-fast/a/b", T),
        ("agent.delegate", "pdf-renderer@*", "pdf-renderer@1.2.0", T),
        ("agent.delegate", "pdf-renderer@*", "pdf-renderer@1.2.0/x", F),
        ("agent.delegate", "team/*", "team/a", T),
        ("agent.delegate", "team/*", "team/a/b", F),
        ("x-vendor.acme.cap", "a.*", "a.b.c", T),
        ("x-vendor.acme.cap", "a/*", "a/b/c", F),
        # S4 in-segment and whole-segment stars
        ("model.use", "a*c", "abc", T),
        ("model.use", "a*c", "ac", T),
        ("model.use", "a*c", "abxc", T),
        ("model.use", "a*c", "abcd", F),
        ("model.use", "a*b", "abxb", T),
        ("model.use", "a*b*c", "aXbYc", T),
        ("model.use", "a*b*c", "ac", F),
        ("model.use", "*", "anything-at-all", T),
        ("model.use", "**", "a/b/c", T),
        ("model.use", "a**", "a/b/c", T),
        ("model.use", "**z", "a/b/z", T),
        ("model.use", "**z", "a/b/zx", F),
        ("fs.read", "/safe/**", "/safe/../etc/passwd", F),
        ("fs.read", "/safe/**", "/safe/a/../b", T),
        ("fs.read", "/safe/**", "/safe", T),
        ("fs.read", "/safe/**", "/safe/", T),
        ("fs.read", "/safe/**", "/safe/a/b/c", T),
        ("fs.read", "/safe/**", "/safer", F),
        ("fs.read", "/safe/**", "/safer/x", F),
        ("fs.read", "/safe/**", "/", F),
        ("fs.read", "/safe/*", "/safe/a", T),
        ("fs.read", "/safe/*", "/safe/a/b", F),
        ("fs.read", "/safe/*", "/safe", F),
        ("fs.read", "/safe/*", "/safe/", F),
        ("fs.read", "/safe/*", "/safe//a", T),
        ("fs.read", "/safe/*", "/safe/./a", T),
        ("fs.read", "/a/**/b", "/a/b", T),
        ("fs.read", "/a/**/b", "/a/x/y/b", T),
        ("fs.read", "/a/**/b", "/a/xb", F),
        ("fs.read", "/a/**/b", "/a/b/c", F),
        ("fs.read", "**/b.txt", "/x/b.txt", T),
        ("fs.read", "**/b.txt", "/b.txt", T),
        ("fs.read", "**/b.txt", "/x/ab.txt", F),
        ("fs.read", "**", "/", T),
        ("fs.read", "**", "/any/thing", T),
        ("fs.read", "*", "/a", F),
        ("fs.read", "*.txt", "/a.txt", F),
        ("fs.read", "/*", "/a", T),
        ("fs.read", "/*", "/", T),
        ("fs.read", "/*", "/a/b", F),
        ("fs.read", "/**", "/", T),
        ("fs.read", "/**", "/a/b", T),
        ("fs.read", "/data/**.csv", "/data/a/b.csv", T),
        ("fs.read", "/data/**.csv", "/data/.csv", T),
        ("fs.read", "/data/**.csv", "/data/b.txt", F),
        ("fs.read", "/data/**.csv", "/data/b.csv/x", F),
        ("fs.read", "/a**", "/a/b/c", T),
        ("fs.read", "/a**", "/a", T),
        ("fs.read", "/a**", "/b", F),
        ("fs.read", "/a/b**", "/a/bc/d", T),
        ("fs.read", "/a/b**", "/a/b", T),
        ("fs.read", "/a/b**", "/a/c", F),
        ("fs.read", "/A/*", "/a/x", F),
        ("fs.read", "/a/?", "/a/x", F),
        ("fs.read", "/a/?", "/a/?", T),
        ("fs.read", "/a/[bc]", "/a/b", F),
        ("fs.read", "/a/[bc]", "/a/[bc]", T),
        ("fs.read", "/a/{b,c}", "/a/b", F),
        ("fs.read", "/a/{b,c}", "/a/{b,c}", T),
        ("fs.read", "/a/\\*", "/a/\\x", T),
        ("fs.read", "/a/\\*", "/a/x", F),
        ("fs.read", "/etc/passwd", "/etc//passwd/", T),
        ("fs.read", "/etc/passwd", "/tmp/../etc/passwd", T),
        ("fs.read", "/a/%2e%2e/b", "/a/%2e%2e/b", T),
        ("fs.write", "/tmp/*", "/tmp/../etc/x", F),
        ("fs.write", "/tmp/**", "/tmp/a/./b/", T),
        # S5.2 URLs
        ("net.fetch", "https://api.example.com/*", "https://api.example.com/v1", T),
        ("net.fetch", "https://api.example.com/*", "https://API.EXAMPLE.COM:443/v1", T),
        ("net.fetch", "https://api.example.com/*", "HTTPS://api.example.com./v1#top", T),
        ("net.fetch", "https://api.example.com/v1/*", "https://api.example.com/v1/../admin", F),
        ("net.fetch", "https://api.example.com/v1/*", "https://api.example.com/v1/%2e%2e/admin", F),
        ("net.fetch", "https://api.example.com/v1/**", "https://api.example.com/v1/%2E%2E/admin", F),
        # SEMANTICS 5.2: a '..' piece between %2F is ambiguous (servers that decode %2F)
        ("net.fetch", "https://api.example.com/v1/*", "https://api.example.com/v1/x%2F..%2Fadmin", IR),
        ("net.fetch", "https://api.example.com/v1/*", "https://api.example.com/v1/%7Euser", T),
        ("net.fetch", "https://api.example.com/admin", "https://api.example.com/v1/../admin", T),
        ("net.fetch", "https://api.example.com/**", "https://api.example.com", T),
        ("net.fetch", "https://api.example.com/**", "https://api.example.com.evil.com/", F),
        ("net.fetch", "https://api.example.com/**", "https://api.example.com:8443/x", F),
        ("net.fetch", "https://api.example.com/**", "http://api.example.com/x", F),
        ("net.fetch", "https://**", "https://api.example.com@evil.com/", IR),
        ("net.fetch", "https://api.example.com/**", "https://user@api.example.com/x", IR),
        ("net.fetch", "https://*.example.com/**", "https://a.example.com/x", T),
        ("net.fetch", "https://*.example.com/**", "https://a.b.example.com/x", T),
        ("net.fetch", "https://*.example.com/**", "https://example.com/x", F),
        ("net.fetch", "https://*.example.com/**", "https://evil.com/.example.com/", F),
        ("net.fetch", "https://*.example.com/**", "https://evil.com/?.example.com/", F),
        ("net.fetch", "https://api.example.com:8443/*", "https://api.example.com:8443/x", T),
        ("net.fetch", "https://api.example.com:8443/*", "https://api.example.com:08443/x", T),
        ("net.fetch", "https://api.example.com:8443/*", "https://api.example.com/x", F),
        ("net.fetch", "https://api.example.com:443/*", "https://api.example.com/x", T),
        ("net.fetch", "HTTPS://API.example.com:443/v1/*", "https://api.example.com/v1/x", T),
        ("net.fetch", "HTTPS://API.example.com:443", "https://api.example.com", T),
        ("net.fetch", "https://api.example.com", "https://api.example.com/", T),
        ("net.fetch", "https://API.example.com/V1/*", "https://api.example.com/v1/x", F),
        ("net.fetch", "https://*:443/**", "https://h.example:443/x", F),
        ("net.fetch", "https://h.example/a", "https://h.example/a?x=1", F),
        ("net.fetch", "https://h.example/a*", "https://h.example/a?x=1", T),
        ("net.fetch", "https://h.example/a?x=1", "https://h.example/a?x=1#f", T),
        ("net.fetch", "https://h.example/a", "https://h.example/a#frag", T),
        ("net.fetch", "s3://reports/**.csv", "s3://reports/2026/W19.csv", T),
        ("net.fetch", "s3://reports/**.csv", "s3://reports/2026/W19.txt", F),
        ("net.fetch", "api.example.com/*", "https://api.example.com/x", F),
        # invalid patterns / targets / capabilities (S2, S5, S8)
        ("fs.read", "/a/***", "/a/b", IR),
        ("fs.read", "a/*", "a/b", IR),
        ("fs.read", "a/*", "/a/b", IR),
        ("fs.read", "", "/a", IR),
        ("fs.read", "/a\u0000", "/a", IR),
        ("fs.read", "/a/*", "a/b", IR),
        ("fs.read", "/**", "", IR),
        ("tool.call", "**", "", IR),
        ("tool.call", "web.*", "web.\u0007", IR),
        ("net.fetch", "https://u@h.example/*", "https://h.example/x", IR),
        ("net.fetch", "https://h.example:0x50/*", "https://h.example/x", IR),
        ("net.fetch", "https://**", "https://h.example/%zz", IR),
        ("net.fetch", "https://**", "h.example/x", IR),
        ("fs.exec", "/a", "/a", IR),
        ("cost.budget", "USD:1", "USD:1", IR),
        ("x-vendor.acme", "*", "a", IR),
    ]
    return [{"op": "match", "input": {"capability": c, "pattern": p, "target": t}, "expect": x}
            for c, p, t, x in v]


# ---------------------------------------------------------------- subset (S9)
def subset():
    T, F = True, False

    def p(cap, child, parent, x):
        return ({cap: child}, {cap: parent}, {}, x)

    v = [
        p("model.use", ["gpt-4o-mini"], ["gpt-4*"], T),
        p("fs.read", ["/a/**"], ["/a/*"], F),
        p("fs.read", ["/a/b**"], ["/a/*"], F),
        p("model.use", ["a*c"], ["a*b*c"], F),
        p("model.use", ["a*b*c"], ["a*c"], T),
        p("fs.read", ["/x/**"], ["/x", "/x/*", "/x/*/**"], T),
        p("fs.read", ["/x/**"], ["/x", "/x/*"], F),
        p("fs.read", ["/x/**"], ["/x/*", "/x/*/**"], F),
        p("fs.read", ["/a/*"], ["/a/**"], T),
        p("fs.read", ["/a/b"], ["/a/*"], T),
        p("fs.read", ["/a"], ["/a/**"], T),
        p("fs.read", ["/a/**"], ["/**"], T),
        p("fs.read", ["/a/**"], ["**"], T),
        p("fs.read", ["**"], ["/**"], F),
        p("fs.read", ["/**"], ["/*"], F),
        p("fs.read", ["/a/*.txt"], ["/a/*"], T),
        p("fs.read", ["/a/*"], ["/a/*.txt"], F),
        p("fs.read", ["/a/**/b"], ["/a/**"], T),
        p("fs.read", ["/a/**"], ["/a/**/b"], F),
        p("fs.read", ["/a/*/c"], ["/a/**"], T),
        p("fs.read", ["/a/x**"], ["/a/**"], T),
        p("fs.read", ["/a/**x"], ["/a/**"], T),
        p("fs.read", ["/a**"], ["/a/**"], F),
        p("fs.read", ["/a/**"], ["/a**"], T),
        p("fs.read", ["/a/b", "/a/c"], ["/a/b"], F),
        p("fs.read", ["/a/b", "/a/c"], ["/a/b", "/a/c", "/z"], T),
        p("fs.read", ["/a/../b"], ["/a/**"], T),
        p("fs.read", ["/A/b"], ["/a/*"], F),
        p("fs.read", ["/a/?"], ["/a/*"], T),
        p("fs.read", ["/a/*"], ["/a/?"], F),
        p("fs.read", [], ["/a"], T),
        p("fs.read", ["/a"], [], F),
        p("fs.read", [], [], T),
        p("tool.call", ["web.search"], ["web.*"], T),
        p("tool.call", ["web.search.advanced"], ["web.*"], F),
        p("tool.call", ["web.*"], ["web.**"], T),
        p("tool.call", ["web.**"], ["web.*"], F),
        p("tool.call", ["web.*"], ["web/*"], F),
        p("tool.call", ["*"], ["**"], T),
        p("tool.call", ["**"], ["*"], F),
        p("tool.call", ["web.*"], ["*.*"], T),
        p("tool.call", ["a.b/c"], ["a.**"], T),
        p("model.use", ["gpt-4*"], ["gpt-4o*"], F),
        p("model.use", ["gpt-4o*"], ["gpt-4*"], T),
        p("model.use", ["gpt-4*"], ["**"], T),
        p("model.use", ["gpt-4*"], ["*"], T),
        p("model.use", ["tier/*"], ["*"], F),
        p("model.use", ["gpt-4"], ["gpt-4o"], F),
        p("agent.delegate", ["pdf-renderer@1.2.0"], ["pdf-renderer@*"], T),
        p("agent.delegate", ["pdf-renderer@*"], ["pdf-renderer@1.*"], F),
        p("net.fetch", ["https://api.example.com/v1/**"], ["https://api.example.com/**"], T),
        p("net.fetch", ["HTTPS://API.example.com:443/v1/*"], ["https://api.example.com/v1/*"], T),
        p("net.fetch", ["https://api.example.com/v1/*"], ["HTTPS://API.EXAMPLE.COM:443/v1/*"], T),
        p("net.fetch", ["https://evil.com/**"], ["https://*.example.com/**"], F),
        p("net.fetch", ["https://a.example.com/**"], ["https://*.example.com/**"], T),
        p("net.fetch", ["https://api.example.com/**"], ["https://**"], T),
        p("net.fetch", ["http://api.example.com/**"], ["https://**"], F),
        p("net.fetch", ["https://api.example.com:8443/**"], ["https://api.example.com/**"], F),
        p("x-vendor.acme.cap", ["a.*"], ["a.**"], T),
        # capability presence
        ({"fs.read": ["/a"]}, {"fs.write": ["/a"]}, {}, F),
        ({"fs.read": []}, {"fs.write": ["/a"]}, {}, F),
        ({"fs.read": []}, {}, {}, F),
        ({}, {"fs.read": ["/a"]}, {}, T),
        ({}, {}, {}, T),
        ({"fs.read": ["/a/*"], "tool.call": ["web.search"]},
         {"fs.read": ["/a/**"], "tool.call": ["web.*"], "model.use": ["*"]}, {}, T),
        ({"fs.read": ["/a/*"], "tool.call": ["web.search.x"]},
         {"fs.read": ["/a/**"], "tool.call": ["web.*"]}, {}, F),
        # equal leases
        ({"fs.read": ["/a/**"], "net.fetch": ["https://api.example.com/**"], "cost.budget": ["USD:5"]},
         {"fs.read": ["/a/**"], "net.fetch": ["https://api.example.com/**"], "cost.budget": ["USD:5"]},
         {}, T),
        # budgets
        ({"cost.budget": ["USD:2"]}, {"cost.budget": ["USD:5"]}, {}, T),
        ({"cost.budget": ["USD:5"]}, {"cost.budget": ["USD:5.00"]}, {}, T),
        ({"cost.budget": ["USD:6"]}, {"cost.budget": ["USD:5"]}, {}, F),
        ({"cost.budget": ["USD:5.000000001"]}, {"cost.budget": ["USD:5"]}, {}, F),
        ({"cost.budget": ["USD:3", "USD:3"]}, {"cost.budget": ["USD:5"]}, {}, F),
        ({"cost.budget": ["USD:2", "USD:3"]}, {"cost.budget": ["USD:5"]}, {}, T),
        ({"cost.budget": ["USD:5"]}, {"cost.budget": ["USD:2", "USD:3"]}, {}, T),
        ({"cost.budget": ["USD:2"]}, {"cost.budget": ["USD:5"]}, {"parent_remaining": {"USD": "1"}}, F),
        ({"cost.budget": ["USD:2"]}, {"cost.budget": ["USD:5"]}, {"parent_remaining": {"USD": "2"}}, T),
        ({"cost.budget": ["USD:2.00"]}, {"cost.budget": ["USD:5"]}, {"parent_remaining": {"USD": "2.000"}}, T),
        ({"cost.budget": ["USD:0"]}, {"cost.budget": ["USD:5"]}, {"parent_remaining": {"USD": "0"}}, T),
        ({"cost.budget": ["EUR:5"]}, {"cost.budget": ["USD:5", "EUR:5"]}, {"parent_remaining": {"USD": "1"}}, T),
        ({"cost.budget": ["EUR:6"]}, {"cost.budget": ["USD:5", "EUR:5"]}, {"parent_remaining": {"USD": "9"}}, F),
        ({"cost.budget": ["EUR:100"]}, {"cost.budget": ["USD:5"]}, {}, T),
        ({"cost.budget": ["usd:100"]}, {"cost.budget": ["USD:5"]}, {}, T),
        ({"cost.budget": ["USD:1"]}, {}, {}, T),
        ({"cost.budget": ["USD:1"]}, {"fs.read": ["/a"]}, {}, T),
        ({"cost.budget": []}, {"cost.budget": ["USD:5"]}, {}, T),
        ({}, {"cost.budget": ["USD:5"]}, {}, T),
        ({"cost.budget": ["USD:1", "EUR:9"]}, {"cost.budget": ["USD:5", "EUR:5"]}, {}, F),
        ({"cost.budget": ["USD:1", "GBP:9"]}, {"cost.budget": ["USD:5", "EUR:5"]}, {}, T),
        ({"cost.budget": ["USD:1"], "fs.read": ["/b"]}, {"cost.budget": ["USD:5"], "fs.read": ["/a"]}, {}, F),
        # expiry
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-02T00:00:00Z"},
                  "parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, F),
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-01T00:00:00.000000001Z"},
                  "parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, F),
        ({}, {}, {"child_constraints": {"expires_at": "2029-12-31T23:59:59Z"},
                  "parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, T),
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-01T00:00:00Z"},
                  "parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, T),
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-01T00:00:00.000Z"},
                  "parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, T),
        ({}, {}, {"child_constraints": {},
                  "parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, T),
        ({}, {}, {"parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, T),
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-01T00:00:00Z"},
                  "parent_constraints": {}}, T),
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, T),
        ({"fs.read": ["/a"]}, {"fs.read": ["/a"]},
         {"child_constraints": {"expires_at": "2031-01-01T00:00:00Z"},
          "parent_constraints": {"expires_at": "2030-01-01T00:00:00Z"}}, F),
        # invalid inputs -> error
        ({"fs.read": ["a"]}, {"fs.read": ["/**"]}, {}, IR),
        ({"fs.read": ["/a"]}, {"fs.read": ["/a/***"]}, {}, IR),
        ({"fs.exec": ["/a"]}, {"fs.read": ["/**"]}, {}, IR),
        ({"cost.budget": ["USD:-1"]}, {"cost.budget": ["USD:5"]}, {}, IR),
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-01T00:00:00+00:00"}}, IR),
        ({}, {}, {"parent_constraints": {"expires_at": "2030-01-01 00:00:00Z"}}, IR),
        ({}, {}, {"child_constraints": {"expires_at": "2030-01-01T00:00:00Z", "ttl": 5}}, IR),
    ]
    out = []
    for c, par, extra, x in v:
        inp = {"child": c, "parent": par}
        inp.update(extra)
        out.append({"op": "subset", "input": inp, "expect": x})
    return out


# ---------------------------------------------------------------- budget_parse (S6)
def budget_parse():
    ok = [
        ("USD:2.50", "USD", "2.5"), ("USD:5", "USD", "5"), ("USD:5.00", "USD", "5"),
        ("USD:0", "USD", "0"), ("USD:000", "USD", "0"), ("USD:0.0", "USD", "0"),
        ("USD:10", "USD", "10"), ("USD:1.500000000", "USD", "1.5"),
        ("USD:0.000000001", "USD", "0.000000001"), ("USD:0.123456789", "USD", "0.123456789"),
        ("USD:999999999999999", "USD", "999999999999999"),
        ("USD:0000999999999999999", "USD", "999999999999999"),
        ("USD:999999999999999.999999999", "USD", "999999999999999.999999999"),
        ("USD:007.5", "USD", "7.5"),
        ("usd:1", "usd", "1"), ("Usd:1", "Usd", "1"), ("credits:100", "credits", "100"),
        ("tokens:100000", "tokens", "100000"), ("a:1", "a", "1"), ("A_b-9:1", "A_b-9", "1"),
        ("x" * 32 + ":1", "x" * 32, "1"), ("EUR:0.30", "EUR", "0.3"),
    ]
    bad = [
        "USD:-1", "USD:+1", "USD:1e3", "USD:1E3", "USD:NaN", "USD:nan", "USD:Infinity",
        "USD:inf", "USD:.5", "USD:5.", "USD:", "USD", ":5", "", "USD:1,5", "USD:1.2.3",
        "USD:0x10", "USD:1:2", "USD:\u0661", "USD:1_000", "USD: 1", "USD :1", " USD:1",
        "USD:1 ", "1USD:1", "_USD:1", "-USD:1", "\u20ac:1", "US D:1", "x" * 33 + ":1",
        "USD:1000000000000000", "USD:1234567890123456.5", "USD:0.0000000001",
        "USD:1.1234567891", "USD;1", "USD=1", "USD:1\n",
    ]
    v = [{"op": "budget_parse", "input": {"entry": e}, "expect": {"currency": c, "amount": a}}
         for e, c, a in ok]
    v += [{"op": "budget_parse", "input": {"entry": e}, "expect": IR} for e in bad]
    return v


# ---------------------------------------------------------------- budget_sum (S6)
def budget_sum():
    v = [
        (["USD:1", "USD:2.5"], {"USD": "3.5"}),
        (["USD:1", "EUR:2"], {"USD": "1", "EUR": "2"}),
        ([], {}),
        (["USD:1", "usd:2"], {"USD": "1", "usd": "2"}),
        (["USD:0.1", "USD:0.2"], {"USD": "0.3"}),
        (["USD:1", "USD:-0.3"], IR),
        (["USD:1", "bad"], IR),
        (["USD:1", "USD:1e3"], IR),
        (["USD:1", "EUR:NaN"], IR),
        (["USD:0.000000001", "USD:0.000000001", "USD:0.000000001"], {"USD": "0.000000003"}),
        (["USD:999999999999999", "USD:999999999999999"], {"USD": "1999999999999998"}),
        (["USD:999999999999999.999999999", "USD:0.000000001"], {"USD": "1000000000000000"}),
        (["USD:0", "USD:0"], {"USD": "0"}),
        (["USD:5"], {"USD": "5"}),
        (["USD:1", "EUR:2", "USD:3", "EUR:0.5", "credits:7"], {"USD": "4", "EUR": "2.5", "credits": "7"}),
        (["USD:1.10", "USD:2.20", "USD:3.30"], {"USD": "6.6"}),
        (["USD:1", ""], IR),
        (["USD:1", "USD:1000000000000000"], IR),
    ]
    return [{"op": "budget_sum", "input": {"entries": e}, "expect": x} for e, x in v]


# ---------------------------------------------------------------- expires_at (S7)
def expires_at():
    now = "2026-01-01T00:00:00Z"
    v = [
        ("2026-06-01T00:00:00Z", now, "ok"),
        ("2026-01-01T00:00:00Z", now, IR),
        ("2025-12-31T23:59:59Z", now, IR),
        ("2026-01-01T00:00:00.000000001Z", now, "ok"),
        ("2026-01-01T00:00:00.000Z", now, IR),
        ("2026-01-01T00:00:01Z", now, "ok"),
        ("2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.4Z", "ok"),
        ("2026-01-01T00:00:00.4Z", "2026-01-01T00:00:00.5Z", IR),
        ("2026-06-01T00:00:00.123456789Z", now, "ok"),
        ("2026-06-01T00:00:00.1Z", now, "ok"),
        ("2026-06-01T23:59:59Z", now, "ok"),
        ("2028-02-29T12:00:00Z", now, "ok"),
        ("2000-02-29T00:00:00Z", "1999-12-31T00:00:00Z", "ok"),
        ("2026-12-31T23:59:59.999999999Z", now, "ok"),
        ("2026-04-30T00:00:00Z", now, "ok"),
    ]
    bad = [
        "2026-06-01T00:00:00+00:00", "2026-06-01T00:00:00-00:00", "2026-06-01T02:00:00+02:00",
        "2026-06-01T00:00:00z", "2026-06-01t00:00:00Z", "2026-06-01 00:00:00Z",
        "2026-06-01T01:00Z", "20260601T010000Z", "2026-06-01T24:00:00Z",
        "2026-06-30T23:59:60Z", "2027-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-06-00T00:00:00Z",
        "2026-06-32T00:00:00Z", "2026-04-31T00:00:00Z", "2026-06-01T00:60:00Z",
        "2026-06-01T00:00:00.1234567890Z", "2026-06-01T00:00:00.Z", "2026-06-01T00:00:00,5Z",
        "2026-6-01T00:00:00Z", "2026-06-1T00:00:00Z", "26-06-01T00:00:00Z",
        "+2026-06-01T00:00:00Z", "12026-06-01T00:00:00Z", "2026-06-01T0:00:00Z",
        "2026-06-01", "2026-06-01T00:00:00", "2026-06-01T00:00:00ZZ", " 2026-06-01T00:00:00Z",
        "2026-06-01T00:00:00Z ", "", "2026-06-01T00:00:00.-1Z", "2026/06/01T00:00:00Z",
        "2026-06-01T00:00:00UTC",
    ]
    v += [(b, now, IR) for b in bad]
    return [{"op": "expires_at", "input": {"value": x, "now": n}, "expect": e} for x, n, e in v]


# ---------------------------------------------------------------- authorize (S6, S7, S8)
def A(cap, target, at=None):
    s = {"authorize": [cap, target]}
    if at:
        s["at"] = at
    return s


def M(value, unit="USD", name="cost.llm", at=None):
    s = {"metric": {"name": name, "value": value, "unit": unit}}
    if at:
        s["at"] = at
    return s


def MOD(model_id, at=None):
    s = {"model": model_id}
    if at:
        s["at"] = at
    return s


def RES(cur, amount, at=None):
    s = {"reserve": [cur, amount]}
    if at:
        s["at"] = at
    return s


def R(remaining, *emitted):
    """A metric step's result; emitted given as (value, unit) pairs."""
    return {"remaining": remaining,
            "emitted": [{"name": "cost.budget.remaining", "value": v, "unit": u} for v, u in emitted]}


def authorize():
    X = "2030-01-01T00:00:00Z"          # expiry used below
    BEFORE = "2029-12-31T23:59:59.999999999Z"
    AFTER = "2030-01-01T00:00:00.000000001Z"
    LATER = "2031-06-01T00:00:00Z"
    EXP = {"expires_at": X}
    L = {"fs.read": ["/safe/**"], "net.fetch": ["https://api.example.com/v1/**"],
         "tool.call": ["web.*"], "model.use": ["gpt-4*"], "cost.budget": ["USD:10"]}
    v = []

    def add(lease, steps, expect, constraints=None):
        inp = {"lease": lease}
        if constraints is not None:
            inp["constraints"] = constraints
        inp["steps"] = steps
        v.append({"op": "authorize", "input": inp, "expect": expect})

    # --- matching through the guard (S8)
    add(L, [A("fs.read", "/safe/a.txt"), A("fs.read", "/safe/../etc/passwd"),
            A("fs.read", "/safe"), A("fs.read", "/safe/x/../y"), A("fs.read", "safe/a"),
            A("fs.write", "/safe/a"), A("fs.read", "/etc/passwd")],
        ["ok", PD, "ok", "ok", IR, PD, PD])
    add(L, [A("net.fetch", "https://api.example.com/v1/users"),
            A("net.fetch", "HTTPS://API.EXAMPLE.COM:443/v1/x#f"),
            A("net.fetch", "https://api.example.com/v1/../admin"),
            A("net.fetch", "https://api.example.com/v1/%2e%2e/admin"),
            A("net.fetch", "https://api.example.com@evil.com/v1/x"),
            A("net.fetch", "https://api.example.com:8443/v1/x"),
            A("net.fetch", "https://api.example.com:/v1/x"),
            A("net.fetch", "https://api.example.com/v1")],
        ["ok", "ok", PD, PD, IR, PD, IR, "ok"])
    add(L, [A("tool.call", "web.search"), A("tool.call", "web.search.advanced"),
            A("tool.call", ""), A("tool.call", "web.x\u0000"), A("agent.delegate", "x")],
        ["ok", PD, IR, IR, PD])
    add(L, [A("cost.budget", "USD:1"), A("fs.exec", "/safe/a"), A("x-vendor.acme.cap", "a"),
            A("x-vendor.acme", "a")],
        [IR, IR, PD, IR])
    add({"fs.read": []}, [A("fs.read", "/a"), A("fs.read", "/")], [PD, PD])
    add({}, [A("fs.read", "/a"), A("tool.call", "x"), A("fs.read", "rel")], [PD, PD, IR])
    add({"x-vendor.acme.kafka.publish": ["orders/*"]},
        [A("x-vendor.acme.kafka.publish", "orders/eu"),
         A("x-vendor.acme.kafka.publish", "orders/eu/x")], ["ok", PD])
    add({"agent.delegate": ["pdf-renderer@*"]},
        [A("agent.delegate", "pdf-renderer@1.2.0"), A("agent.delegate", "img-renderer@1")],
        ["ok", PD])

    # --- model.use (S8)
    add({"fs.read": ["/**"]}, [MOD("gpt-4o")], [PD])
    add({}, [MOD("gpt-4o"), MOD("")], [PD, IR])
    add({"model.use": ["gpt-4*"]}, [MOD("gpt-4o"), MOD("gpt-4.1"), MOD("claude-3"),
                                    MOD("gpt-4/evil"), MOD(""), MOD("gpt-4\u0000")],
        ["ok", "ok", PD, PD, IR, IR])
    add({"model.use": []}, [MOD("gpt-4o")], [PD])
    add({"model.use": ["tier-fast/*"]}, [MOD("tier-fast/m1"), A("model.use", "tier-fast/m1"),
                                         MOD("tier-slow/m1")], ["ok", "ok", PD])

    # --- expiry (S7, S8)
    add(L, [A("fs.read", "/safe/a", at=BEFORE), A("fs.read", "/safe/a", at=X),
            A("fs.read", "/safe/a", at=AFTER), A("fs.read", "/safe/a", at=LATER)],
        ["ok", LX, LX, LX], EXP)
    add(L, [MOD("gpt-4o", at=BEFORE), MOD("gpt-4o", at=X), MOD("claude", at=X)],
        ["ok", LX, LX], EXP)
    add(L, [A("fs.read", "/etc/passwd", at=X), A("fs.read", "relative", at=X),
            A("cost.budget", "x", at=X), A("fs.exec", "/a", at=X), A("fs.read", "", at=X)],
        [LX, LX, LX, LX, LX], EXP)
    # a guard accepts a past expiry (no submit check); the real clock is after it
    add(L, [A("fs.read", "/safe/a")], [LX], {"expires_at": "2020-01-01T00:00:00Z"})
    add(L, [A("fs.read", "/safe/a"), A("fs.read", "/safe/a", at="2019-12-31T23:59:59Z")],
        [LX, "ok"], {"expires_at": "2020-01-01T00:00:00Z"})
    # grace 0: one nanosecond before is fine, the instant itself is expired
    add({"tool.call": ["*"]}, [A("tool.call", "x", at="2030-01-01T00:00:00.5Z"),
                               A("tool.call", "x", at="2030-01-01T00:00:00.499999999Z")],
        [LX, "ok"], {"expires_at": "2030-01-01T00:00:00.5Z"})
    # spend metrics are recorded after expiry; reserve has no expiry check
    add(L, [M("1", at=LATER), RES("USD", "1", at=LATER), M("0.5", at=LATER),
            A("fs.read", "/safe/a", at=LATER)],
        [R({"USD": "9"}, ("9", "USD")), "ok", R({"USD": "7.5"}, ("7.5", "USD")), LX], EXP)
    add({}, [A("fs.read", "/a")], {"error": "INVALID_REQUEST"}, {"expires_at": "2030-01-01T00:00:00+00:00"})
    add({"fs.read": ["/a"]}, [A("fs.read", "/a")], IR, {"expires_at": "2030-02-30T00:00:00Z"})
    add({"fs.read": ["/a"]}, [A("fs.read", "/a")], IR, {"expires_at": "2030-01-01T24:00:00Z"})
    add({"fs.read": ["/a"]}, [A("fs.read", "/a")], IR, {"expires_at": X, "grace": 5})
    add({"fs.read": ["/a"]}, [A("fs.read", "/a", at=BEFORE)], ["ok"], {})

    # --- invalid lease -> the whole result is the error
    add({"fs.read": ["relative/*"]}, [A("fs.read", "/a")], IR)
    add({"cost.budget": ["USD:-1"]}, [A("fs.read", "/a")], IR)
    add({"fs.read": ["/a/***"]}, [A("fs.read", "/a")], IR)
    add({"net.fetch": ["https://u@api.example.com/**"]}, [A("fs.read", "/a")], IR)
    add({"x-vendor.acme": ["a"]}, [A("fs.read", "/a")], IR)

    # --- budget gating and check order (S6, S8)
    add({"fs.read": ["/a"], "model.use": ["*"], "cost.budget": ["USD:0"]},
        [A("fs.read", "/a"), MOD("m"), A("fs.read", "/b"), A("cost.budget", "x"),
         A("fs.read", "rel")],
        [BX, BX, BX, BX, BX])
    add({"fs.read": ["/a"], "cost.budget": ["USD:0"]},
        [A("fs.read", "/a", at=AFTER), A("fs.read", "/a", at=BEFORE)], [LX, BX], EXP)
    add({"fs.read": ["/a"], "cost.budget": ["USD:5", "EUR:0"]}, [A("fs.read", "/a")], [BX])
    add({"fs.read": ["/a"], "cost.budget": ["USD:5", "USD:-0"]}, [A("fs.read", "/a")], IR)
    add({"fs.read": ["/a"], "cost.budget": []}, [A("fs.read", "/a"), M("5")],
        ["ok", R({})])
    add({"fs.read": ["/a"], "cost.budget": ["USD:1"]},
        [A("fs.read", "/a"), M("0.999999999"), A("fs.read", "/a"), M("0.000000001"),
         A("fs.read", "/a"), MOD("x"), A("fs.read", "/nope"), A("nope", "x")],
        ["ok", R({"USD": "0.000000001"}, ("0.000000001", "USD")), "ok",
         R({"USD": "0"}, ("0", "USD")), BX, BX, BX, BX])
    # counters may go negative; a later spend is still recorded, with no second emission
    add({"fs.read": ["/a"], "cost.budget": ["USD:1"]},
        [M("1.5"), M("2"), A("fs.read", "/a")],
        [R({"USD": "-0.5"}, ("-0.5", "USD")), R({"USD": "-2.5"}), BX])

    # --- spend metric rules (S6)
    B = {"fs.read": ["/a"], "cost.budget": ["USD:10"]}
    add(B, [M("1", name="latency_ms"), M("abc", name="latency_ms"), M("-1", name="tokens"),
            M("1", name="cost.budget.remaining"), M("-5", name="cost.budget.remaining"),
            M("1", name="costs.llm"), M("1", name="Cost.llm"), M("1", name="cost.llm", unit="usd"),
            M("1", unit="EUR"), M("abc", unit="EUR"), M("-1", unit="EUR"), M("1e3", unit="EUR")],
        [R({"USD": "10"})] * 12)
    add(B, [M("-1"), M("abc"), M("1e3"), M("NaN"), M("Infinity"), M(""), M("+1"), M(".5"),
            M("5."), M("0.0000000001"), M("1000000000000000"), M("1,5"), M("0x1"),
            M("0.4")],
        [IR] * 13 + [R({"USD": "9.6"})])
    add(B, [M("0.25", name="cost.tokens"), M("0.25", name="cost.x.y.z"),
            M("0.25", name="cost.")],
        [R({"USD": "9.75"}), R({"USD": "9.5"}, ("9.5", "USD")), R({"USD": "9.25"})])
    add({"cost.budget": ["USD:10", "EUR:100", "usd:1"]},
        [M("5", unit="EUR"), M("0.05", unit="usd"), M("0.4"), M("0.1"), M("3", unit="EUR")],
        [R({"USD": "10", "EUR": "95", "usd": "1"}, ("95", "EUR")),
         R({"USD": "10", "EUR": "95", "usd": "0.95"}, ("0.95", "usd")),
         R({"USD": "9.6", "EUR": "95", "usd": "0.95"}),
         R({"USD": "9.5", "EUR": "95", "usd": "0.95"}, ("9.5", "USD")),
         R({"USD": "9.5", "EUR": "92", "usd": "0.95"})])
    add({"cost.budget": ["USD:2", "USD:3"]}, [M("0.25"), M("0.5")],
        [R({"USD": "4.75"}, ("4.75", "USD")), R({"USD": "4.25"}, ("4.25", "USD"))])
    add({"fs.read": ["/a"]}, [M("5"), M("abc"), M("-1")], [R({}), R({}), R({})])

    # --- the 5 % emission rule (S6)
    add({"cost.budget": ["USD:10"]},
        [M("0.4"), M("0.1"), M("0.5"), M("2"), M("0.1"), M("0.4"), M("5.49"), M("0.01"),
         M("0.5"), M("0.5"), M("1")],
        [R({"USD": "9.6"}), R({"USD": "9.5"}, ("9.5", "USD")), R({"USD": "9"}, ("9", "USD")),
         R({"USD": "7"}, ("7", "USD")), R({"USD": "6.9"}), R({"USD": "6.5"}, ("6.5", "USD")),
         R({"USD": "1.01"}, ("1.01", "USD")), R({"USD": "1"}, ("1", "USD")),
         R({"USD": "0.5"}, ("0.5", "USD")), R({"USD": "0"}, ("0", "USD")), R({"USD": "-1"})])
    add({"cost.budget": ["USD:3"]},
        [M("0.15"), M("0.14"), M("0.01"), M("0"), M("0.15")],
        [R({"USD": "2.85"}, ("2.85", "USD")), R({"USD": "2.71"}), R({"USD": "2.7"}, ("2.7", "USD")),
         R({"USD": "2.7"}), R({"USD": "2.55"}, ("2.55", "USD"))])
    add({"cost.budget": ["USD:1"]}, [M("0.05"), M("0.049999999"), M("0.000000001")],
        [R({"USD": "0.95"}, ("0.95", "USD")), R({"USD": "0.900000001"}),
         R({"USD": "0.9"}, ("0.9", "USD"))])
    add({"cost.budget": ["USD:10"]}, [M("12"), M("1"), M("0.5")],
        [R({"USD": "-2"}, ("-2", "USD")), R({"USD": "-3"}), R({"USD": "-3.5"})])
    add({"cost.budget": ["USD:10"]}, [M("9.5"), M("0.4"), M("0.1")],
        [R({"USD": "0.5"}, ("0.5", "USD")), R({"USD": "0.1"}), R({"USD": "0"}, ("0", "USD"))])
    add({"cost.budget": ["USD:10"]}, [M("9.6"), M("0.5")],
        [R({"USD": "0.4"}, ("0.4", "USD")), R({"USD": "-0.1"}, ("-0.1", "USD"))])
    add({"cost.budget": ["USD:100"]},
        [M("4.999999999"), M("0.000000001"), M("4.999999999"), M("0.000000001")],
        [R({"USD": "95.000000001"}), R({"USD": "95"}, ("95", "USD")),
         R({"USD": "90.000000001"}), R({"USD": "90"}, ("90", "USD"))])
    # zero initial budget: one emission at the first spend
    add({"cost.budget": ["USD:0"]}, [M("1"), M("1")],
        [R({"USD": "-1"}, ("-1", "USD")), R({"USD": "-2"})])
    add({"cost.budget": ["USD:0", "EUR:10"]}, [M("1", unit="EUR"), M("0.5"), M("0.5")],
        [R({"USD": "0", "EUR": "9"}, ("9", "EUR")), R({"USD": "-0.5", "EUR": "9"}, ("-0.5", "USD")),
         R({"USD": "-1", "EUR": "9"})])

    # --- reserve (S6)
    add({"fs.read": ["/a"], "cost.budget": ["USD:10"]},
        [RES("USD", "0.4"), M("0.1"), RES("USD", "20"), M("0", name="tick"),
         RES("EUR", "1"), RES("usd", "1"), RES("USD", "9.5"), M("0", name="tick"),
         A("fs.read", "/a"), RES("USD", "0"), M("1"), RES("USD", "0")],
        ["ok", R({"USD": "9.5"}, ("9.5", "USD")), BX, R({"USD": "9.5"}), IR, IR, "ok",
         R({"USD": "0"}), BX, "ok", R({"USD": "-1"}), BX])
    add({"fs.read": ["/a"], "cost.budget": ["USD:10"]},
        [RES("USD", "10.000000001"), A("fs.read", "/a"), RES("USD", "10"), A("fs.read", "/a")],
        [BX, "ok", "ok", BX])
    add({"fs.read": ["/a"], "cost.budget": ["USD:10"]},
        [RES("USD", "3"), M("0.5"), M("0.5")],
        ["ok", R({"USD": "6.5"}, ("6.5", "USD")), R({"USD": "6"}, ("6", "USD"))])
    add({"fs.read": ["/a"]}, [RES("USD", "1")], [IR])
    add({"fs.read": ["/a"], "cost.budget": ["USD:10"]}, [RES("USD", "1", at=LATER), M("0.5", at=LATER)],
        ["ok", R({"USD": "8.5"}, ("8.5", "USD"))], EXP)
    add({"fs.read": ["/a"], "cost.budget": ["USD:10", "EUR:0"]},
        [RES("USD", "1"), RES("EUR", "0"), M("0", name="tick")],
        ["ok", "ok", R({"USD": "9", "EUR": "0"})])
    return v


# ---------------------------------------------------------------- narrow (S10)
def narrow():
    v = [
        ({"fs.read": ["/a/*"]}, {"fs.read": ["/a/**"]}, {"fs.read": ["/a/*"]}),
        ({"fs.read": ["/**"]}, {"fs.read": ["/a/**", "/b/*"]}, {"fs.read": ["/a/**", "/b/*"]}),
        ({"fs.read": ["/a/*"]}, {"fs.read": ["/a/b*"]}, {"fs.read": ["/a/b*"]}),
        ({"fs.read": ["/a/*.txt"]}, {"fs.read": ["/a/b*"]}, {"fs.read": []}),
        ({"fs.read": ["/a/**", "/c/x"]}, {"fs.read": ["/a/b/**", "/c/*"]},
         {"fs.read": ["/a/b/**", "/c/x"]}),
        ({"fs.read": ["/a/**"], "net.fetch": ["https://x.example/**"]}, {"fs.read": ["/a/**"]},
         {"fs.read": ["/a/**"]}),
        ({"fs.read": ["/a"]}, {"fs.write": ["/a"]}, {}),
        ({"fs.read": ["/a"]}, {"fs.read": []}, {"fs.read": []}),
        ({"fs.read": []}, {"fs.read": ["/**"]}, {"fs.read": []}),
        ({}, {"fs.read": ["/**"]}, {}),
        ({}, {}, {}),
        ({"fs.read": ["/x/**"]}, {"fs.read": ["/x", "/x/*", "/x/*/**"]}, {"fs.read": ["/x/**"]}),
        ({"fs.read": ["/safe/**"]}, {"fs.read": ["/safe/**"]}, {"fs.read": ["/safe/**"]}),
        ({"fs.read": ["/a/**", "/b/**"], "fs.write": ["/a/tmp/*"]},
         {"fs.read": ["/a/**"], "fs.write": ["/a/**"]},
         {"fs.read": ["/a/**"], "fs.write": ["/a/tmp/*"]}),
        ({"tool.call": ["web.*"]}, {"tool.call": ["web.search", "web.fetch", "mail.send"]},
         {"tool.call": ["web.search", "web.fetch"]}),
        ({"tool.call": ["**"]}, {"tool.call": ["web.*"]}, {"tool.call": ["web.*"]}),
        ({"tool.call": ["web.*"]}, {"tool.call": ["web.**"]}, {"tool.call": ["web.*"]}),
        ({"tool.call": ["web.**"]}, {"tool.call": ["web.*"]}, {"tool.call": ["web.*"]}),
        ({"tool.call": ["web.search.advanced"]}, {"tool.call": ["web.*"]}, {"tool.call": []}),
        ({"model.use": ["gpt-4*"]}, {"model.use": ["gpt-4o-mini", "gpt-4o", "claude-*"]},
         {"model.use": ["gpt-4o-mini", "gpt-4o"]}),
        ({"model.use": ["gpt-4o-mini"]}, {"model.use": ["gpt-4*"]}, {"model.use": ["gpt-4o-mini"]}),
        ({"model.use": ["gpt-4*", "claude-3"]}, {"model.use": ["gpt-4o*"]}, {"model.use": ["gpt-4o*"]}),
        ({"net.fetch": ["HTTPS://API.example.com:443"]}, {"net.fetch": ["https://api.example.com/**"]},
         {"net.fetch": ["https://api.example.com/"]}),
        ({"net.fetch": ["https://**"]}, {"net.fetch": ["https://api.example.com/v1/**", "http://x.example/*"]},
         {"net.fetch": ["https://api.example.com/v1/**"]}),
        ({"agent.delegate": ["*"]}, {"agent.delegate": ["pdf-renderer@*"]},
         {"agent.delegate": ["pdf-renderer@*"]}),
        # budgets: every currency either side budgets, the smaller amount where both do
        ({"cost.budget": ["USD:5"]}, {"cost.budget": ["USD:3"]}, {"cost.budget": ["USD:3"]}),
        ({"cost.budget": ["USD:2"]}, {"cost.budget": ["USD:3"]}, {"cost.budget": ["USD:2"]}),
        ({"cost.budget": ["EUR:5"]}, {"cost.budget": ["USD:3"]}, {"cost.budget": ["EUR:5", "USD:3"]}),
        ({"cost.budget": ["USD:2", "USD:2"]}, {"cost.budget": ["USD:3"]}, {"cost.budget": ["USD:3"]}),
        ({"cost.budget": ["USD:1", "EUR:9"]}, {"cost.budget": ["USD:3", "EUR:4", "GBP:1"]},
         {"cost.budget": ["USD:1", "EUR:4", "GBP:1"]}),
        ({"cost.budget": ["USD:5"]}, {}, {"cost.budget": ["USD:5"]}),
        ({}, {"cost.budget": ["USD:3"]}, {"cost.budget": ["USD:3"]}),
        ({"fs.read": ["/a"]}, {"cost.budget": ["USD:3"], "fs.read": ["/**"]},
         {"cost.budget": ["USD:3"], "fs.read": ["/a"]}),
        ({"cost.budget": []}, {}, {"cost.budget": []}),
        ({}, {"cost.budget": []}, {"cost.budget": []}),
        ({"cost.budget": ["usd:1"]}, {"cost.budget": ["USD:3"]}, {"cost.budget": ["usd:1", "USD:3"]}),
        ({"cost.budget": ["USD:0"]}, {"cost.budget": ["USD:3"]}, {"cost.budget": ["USD:0"]}),
        # invalid inputs
        ({"fs.read": ["rel"]}, {"fs.read": ["/**"]}, IR),
        ({"fs.read": ["/a"]}, {"fs.read": ["/a/***"]}, IR),
        ({"cost.budget": ["USD:1e3"]}, {}, IR),
        ({"fs.exec": ["/a"]}, {"fs.read": ["/**"]}, IR),
    ]
    return [{"op": "narrow", "input": {"requested": r, "ceiling": c}, "expect": x} for r, c, x in v]


# ---------------------------------------------------------------- large inputs (S2 bounds, S4 linear time)
def large():
    v = []
    pats = lambda n: ["/p/%d" % i for i in range(n)]  # noqa: E731
    v.append({"op": "validate_lease", "input": {"lease": {"fs.read": pats(1024)}}, "expect": "ok"})
    v.append({"op": "validate_lease", "input": {"lease": {"fs.read": pats(1025)}}, "expect": IR})
    v.append({"op": "validate_lease", "input": {"lease": {"fs.read": pats(1024), "fs.write": pats(1024)}},
              "expect": "ok"})
    v.append({"op": "validate_lease", "input": {"lease": {"tool.call": ["t%d" % i for i in range(1025)]}},
              "expect": IR})
    p4096 = "/" + "a" * 4095
    p4097 = "/" + "a" * 4096
    v.append({"op": "validate_lease", "input": {"lease": {"fs.read": [p4096]}}, "expect": "ok"})
    v.append({"op": "validate_lease", "input": {"lease": {"fs.read": [p4097]}}, "expect": IR})
    # bytes, not characters: U+00E9 is two bytes in UTF-8
    v.append({"op": "validate_lease", "input": {"lease": {"fs.read": ["/" + "\u00e9" * 2047 + "a"]}},
              "expect": "ok"})
    v.append({"op": "validate_lease", "input": {"lease": {"fs.read": ["/" + "\u00e9" * 2048]}},
              "expect": IR})
    v.append({"op": "validate_lease", "input": {"lease": {"tool.call": ["t" * 4097]}}, "expect": IR})
    v.append({"op": "match", "input": {"capability": "fs.read", "pattern": p4096, "target": p4096},
              "expect": True})
    v.append({"op": "match", "input": {"capability": "fs.read", "pattern": p4097, "target": p4097},
              "expect": IR})
    v.append({"op": "authorize", "input": {"lease": {"fs.read": pats(1025)}, "steps": [A("fs.read", "/p/1")]},
              "expect": IR})
    v.append({"op": "authorize", "input": {"lease": {"fs.read": pats(1024)},
                                            "steps": [A("fs.read", "/p/1023"), A("fs.read", "/p/1024")]},
              "expect": ["ok", PD]})
    evil = "*a*a*a*a*a*a*a*a*a*a*a*a*c"
    many = "a" * 3000
    v.append({"op": "match", "input": {"capability": "model.use", "pattern": evil, "target": many},
              "expect": False})
    v.append({"op": "match", "input": {"capability": "model.use", "pattern": evil, "target": many + "c"},
              "expect": True})
    v.append({"op": "match", "input": {"capability": "tool.call", "pattern": evil, "target": many},
              "expect": False})
    v.append({"op": "match", "input": {"capability": "fs.read", "pattern": "/" + evil, "target": "/" + many},
              "expect": False})
    v.append({"op": "match", "input": {"capability": "model.use", "pattern": "**a**a**a**a**a**a**a**c",
                                        "target": "a/" * 1500},
              "expect": False})
    stars = "/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b"
    v.append({"op": "match", "input": {"capability": "fs.read", "pattern": stars, "target": "/a" * 2000},
              "expect": False})
    v.append({"op": "match", "input": {"capability": "fs.read", "pattern": stars, "target": "/a" * 2000 + "/b"},
              "expect": True})
    v.append({"op": "authorize", "input": {"lease": {"model.use": [evil]},
                                            "steps": [MOD(many), MOD(many + "c")]},
              "expect": [PD, "ok"]})
    v.append({"op": "subset", "input": {"child": {"model.use": [evil]}, "parent": {"model.use": ["*c"]}},
              "expect": True})
    v.append({"op": "subset", "input": {"child": {"model.use": ["*c"]}, "parent": {"model.use": [evil]}},
              "expect": False})
    return v


# ---------------------------------------------------------------- subset work bound (S9)
def subset_work_bound():
    """SEMANTICS 9: the work bound is on work done, never on an estimate, so inclusion that
    an exploration within the bound decides is decided. Children of many distinct characters
    (a star before each) and long literal runs, with and without separators, against `*`,
    `**` and `x*`: the answer is exact inclusion's."""
    T, F = True, False
    cjk = lambda start, n: [chr(0x4E00 + start + i) for i in range(n)]  # noqa: E731

    def starred(chars, sep=None, every=0, head=""):
        out = head
        for i, c in enumerate(chars):
            if sep and i and i % every == 0:
                out += sep
            out += "*" + c
        return out

    s512 = starred(cjk(0, 512))           # *一*丁*丂*...*俿, 2048 bytes
    s1023 = starred(cjk(0, 1023))         # 4092 bytes
    seps = starred(cjk(0, 512), "/", 64)  # a '/' before every 64th character
    run = "".join(cjk(0, 1365))           # 4095 bytes, no wildcard
    r1000 = "".join(cjk(0, 1000))
    dots = starred(cjk(0, 512), ".", 128)
    v = [
        ("model.use", [s512], ["*"], T),
        ("model.use", [s512], ["**"], T),
        ("model.use", [s512], ["x*"], F),
        ("model.use", ["x" + s512], ["x*"], T),
        ("model.use", [s512 + "*"], ["*"], T),
        ("model.use", [s1023], ["*"], T),
        ("model.use", [s1023], ["x*"], F),
        ("model.use", [s512], ["*一*"], T),
        ("model.use", [s512], ["*俿"], T),
        ("model.use", [s512], ["*丁*一*"], F),
        ("model.use", [seps], ["*"], F),
        ("model.use", [seps], ["**"], T),
        ("model.use", [seps], ["*/**"], T),
        ("model.use", [run], ["*"], T),
        ("model.use", [run], ["x*"], F),
        ("model.use", ["*" + r1000 + "*"], ["*"], T),
        ("model.use", ["*" + r1000 + "*"], ["x*"], F),
        ("model.use", ["x*" + r1000], ["x*"], T),
        ("tool.call", [dots], ["*"], F),
        ("tool.call", [dots], ["**"], T),
        ("fs.read", [starred(cjk(0, 512), "/", 64, "/")], ["/**"], T),
        ("fs.read", [starred(cjk(0, 512), "/", 64, "/")], ["/*"], F),
        ("model.use", [starred(cjk(512 * k, 512)) for k in range(8)], ["*"], T),
    ]
    return [{"op": "subset", "input": {"child": {c: a}, "parent": {c: b}}, "expect": x}
            for c, a, b, x in v]


# ---------------------------------------------------------------- second batch (appended so ids stay stable)
def extras():
    T, F = True, False
    h = "https://h.example"
    out = {}
    out["canonicalize"] = [
        {"op": "canonicalize", "input": {"capability": c, "target": t}, "expect": x} for c, t, x in [
            ("net.fetch", "https://[::FFFF:1]/x", "https://[::ffff:1]/x"),
            ("net.fetch", h + "/a#x?y", h + "/a"),
            ("net.fetch", h + "/a?x#y", h + "/a?x"),
            ("net.fetch", h + "/%25", h + "/%25"),
            ("net.fetch", h + "/%252e%252e/x", IR),  # SEMANTICS 5.2: double encoding is ambiguous
            ("net.fetch", h + "/a/%2e%2E%2e", h + "/a/..."),
            ("net.fetch", "https://XN--EXMPLE-CUA.COM/", "https://xn--exmple-cua.com/"),
            ("net.fetch", h + "/a/b/../../../../", h + "/"),
            ("net.fetch", h + "/a/./", h + "/a/"),
            ("net.fetch", "HtTpS://h.example:443/", h + "/"),
            ("fs.read", "/a/b/../../../../", "/"),
            ("fs.read", "/a/b/c/./../../x/", "/a/x"),
            ("net.fetch", "https://h.example.", h + "/"),
            ("net.fetch", "https://[::1]:/", IR),
            ("net.fetch", "ftp://h.example:21/", "ftp://h.example:21/"),
            ("net.fetch", "https://api.example.com%40evil.com/", IR),
            ("net.fetch", h + "/a%2eb", h + "/a.b"),
            ("net.fetch", h + "/a/.//b", h + "/a/b"),
            ("net.fetch", h + "/a/..//b", h + "/b"),
            ("net.fetch", h + "/a//..", h + "/a/"),
            ("fs.read", "/a//..", "/"),
        ]]
    out["match"] = [
        {"op": "match", "input": {"capability": c, "pattern": p, "target": t}, "expect": x} for c, p, t, x in [
            ("tool.call", "web.*", "web.search/x", F),
            ("tool.call", "**", "x", T),
            ("fs.read", "/a/*/b", "/a//b", F),
            ("fs.read", "/a/**/**/b", "/a/b", T),
            ("fs.read", "/a/**/**/b", "/a/x/y/z/b", T),
            ("fs.read", "**/**", "/", T),
            ("fs.read", "/a/**", "/a/b/..", T),
            ("fs.read", "/a/../b", "/b", F),
            ("fs.read", "/a/../b", "/a/../b", F),
            ("fs.read", "/a/", "/a/", F),
            ("fs.read", "/a/", "/a", F),
            ("model.use", "*-mini", "gpt-4o-mini", T),
            ("model.use", "gpt-4o", "gpt-4o ", F),
            ("net.fetch", "https://API.example.com/**", "https://api.example.com/x", T),
            ("net.fetch", "https://api.example.com./**", "https://api.example.com/x", T),
            ("net.fetch", "https://*@api.example.com/**", "https://api.example.com/x", F),
            ("net.fetch", "https://*.example.com:8443/**", "https://a.example.com:8443/x", T),
            ("net.fetch", "https://*.example.com:443/**", "https://a.example.com:443/x", F),
            ("net.fetch", h + "/%7Euser", h + "/%7Euser", F),
            ("net.fetch", h + "/~user", h + "/%7Euser", T),
            ("net.fetch", h + "/a/../b", h + "/b", F),
            ("net.fetch", "HTTPS://**", "https://x.example/", T),
            ("net.fetch", "*://api.example.com/**", "https://api.example.com/x", T),
            ("net.fetch", "*://api.example.com/**", "http://api.example.com:80/x", T),
            # `P s **` matches P, here with P = `/x/**` (which matches `/x`)
            ("fs.read", "/x/**/**", "/x", T),
            ("fs.read", "/x/**/**", "/x/", T),
            ("model.use", "x/**/**", "x", T),
            ("tool.call", "a.**.**", "a", T),
            ("fs.read", "**/**/b.txt", "/b.txt", T),
            ("tool.call", "**.**.b", "b", T),
            ("fs.read", "/a/**x/b", "/a/1/2x/b", T),
            ("fs.read", "/a/**x/b", "/a/x/b", T),
            ("fs.read", "/a/**x/b", "/a/x/c", F),
            ("fs.read", "/a/*/**", "/a", F),
            ("fs.read", "/a/*/**", "/a/b", T),
            ("fs.read", "/a/**/", "/a/", F),
            ("net.fetch", h + "/**", h + "?q", T),
            ("net.fetch", h + "/**", "https://h.example.:443/", T),
        ]]
    out["subset"] = [
        {"op": "subset", "input": {"child": {c: a}, "parent": {c: b}}, "expect": x} for c, a, b, x in [
            ("model.use", ["*a*"], ["*a*a*"], F),
            ("model.use", ["*a*a*"], ["*a*"], T),
            ("fs.read", ["/x/*/**"], ["/x/**"], T),
            ("fs.read", ["/x/**"], ["/x/**/**"], T),
            ("fs.read", ["/x/**/**"], ["/x/**"], T),
            ("model.use", ["abc"], ["a**c"], T),
            ("model.use", ["a**c"], ["a*c"], F),
            ("fs.read", ["/a/**.csv"], ["/a/**"], T),
            ("fs.read", ["/a/**"], ["/a/**.csv"], F),
            ("fs.read", ["/a/./b"], ["/a/b"], F),
            ("fs.read", ["/a/*"], ["/a/*x", "/a/*y"], F),
            ("tool.call", ["web.*.x"], ["web.**"], T),
            ("tool.call", ["web.**"], ["web", "web.**.x", "web.*"], F),
            ("net.fetch", ["https://h.example"], ["https://h.example/**"], T),
            ("net.fetch", ["https://h.example/a"], ["https://H.EXAMPLE/*"], T),
            ("fs.read", ["/a/b**"], ["/a/**"], T),
            ("tool.call", ["**"], ["**.**"], T),
            ("model.use", ["a*"], ["a", "ab*", "a*b*"], F),
        ]]
    out["budget_parse"] = [
        {"op": "budget_parse", "input": {"entry": e}, "expect": x} for e, x in [
            ("USD:00.50", {"currency": "USD", "amount": "0.5"}),
            ("USD:1.0", {"currency": "USD", "amount": "1"}),
            ("USD:0.000000000", {"currency": "USD", "amount": "0"}),
            ("USD:0000000000000000", {"currency": "USD", "amount": "0"}),
            ("USD:\uff11", IR),
            ("USD:-0", IR),
        ]]
    out["expires_at"] = [
        {"op": "expires_at", "input": {"value": a, "now": b}, "expect": x} for a, b, x in [
            ("2026-06-01T00:00:00.000000000Z", "2026-01-01T00:00:00Z", "ok"),
            ("9999-12-31T23:59:59Z", "2026-01-01T00:00:00Z", "ok"),
            ("2026-06-01T00:00:00Z", "2026-06-01T00:00:00.000000001Z", IR),
            ("2026-02-28T23:59:59Z", "2026-01-01T00:00:00Z", "ok"),
            ("2026-02-29T00:00:00Z", "2026-01-01T00:00:00Z", IR),
            ("2024-02-29T00:00:00Z", "2024-01-01T00:00:00Z", "ok"),
            ("2026-11-31T00:00:00Z", "2026-01-01T00:00:00Z", IR),
            ("2026-12-31T00:00:00Z", "2026-01-01T00:00:00Z", "ok"),
        ]]
    out["authorize"] = [
        {"op": "authorize", "input": {"lease": {"cost.budget": ["USD:10"]},
                                      "steps": [M("-0"), M("0.0"), M("0.50")]},
         "expect": [IR, R({"USD": "10"}), R({"USD": "9.5"}, ("9.5", "USD"))]},
        {"op": "authorize", "input": {"lease": {"tool.call": ["*"], "cost.budget": ["USD:10", "EUR:10"]},
                                      "steps": [M("10", unit="EUR"), A("tool.call", "x"),
                                                M("1", name="cost.budget.refund", unit="EUR"),
                                                A("tool.call", "x")]},
         "expect": [R({"USD": "10", "EUR": "0"}, ("0", "EUR")), BX, R({"USD": "10", "EUR": "0"}), BX]},
        # a step without `at` keeps the previous time
        {"op": "authorize", "input": {"lease": {"tool.call": ["*"]}, "constraints": {"expires_at": "2030-01-01T00:00:00Z"},
                                      "steps": [A("tool.call", "x", at="2030-01-01T00:00:00Z"), A("tool.call", "x"),
                                                MOD("m"), A("tool.call", "x", at="2029-06-01T00:00:00Z"),
                                                A("tool.call", "x"), MOD("m")]},
         "expect": [LX, LX, LX, "ok", "ok", PD]},
    ]
    out["narrow"] = [
        {"op": "narrow", "input": {"requested": r, "ceiling": c}, "expect": x} for r, c, x in [
            ({"fs.read": ["/a/**"]}, {"fs.read": ["/a/**", "/a/b"]}, {"fs.read": ["/a/**"]}),
            ({"net.fetch": ["HTTPS://API.example.com:443/v1/*"]}, {"net.fetch": ["https://**"]},
             {"net.fetch": ["https://api.example.com/v1/*"]}),
            ({"fs.read": ["/a/*", "/b/*"]}, {"fs.read": ["/a/x", "/a/y", "/b/**"]},
             {"fs.read": ["/a/x", "/a/y", "/b/*"]}),
        ]]
    out["validate_lease"] = [
        {"op": "validate_lease", "input": {"lease": l}, "expect": x} for l, x in [
            ({"fs.write": ["*"]}, "ok"),
            ({"fs.read": ["*/a"]}, "ok"),
            ({"fs.read": ["/a"], "fs.write": ["b"]}, IR),
            ({"cost.budget": ["USD:0000000000000000"]}, "ok"),
            ({"net.fetch": ["https://h.example:0443/x"]}, "ok"),
        ]]
    return out


FILES = {
    "capability_name": capability_name, "validate_lease": validate_lease,
    "canonicalize": canonicalize, "match": match, "subset": subset, "budget_parse": budget_parse,
    "budget_sum": budget_sum, "expires_at": expires_at, "authorize": authorize, "narrow": narrow,
}


def agentfile_fixtures():
    """The Agentfile fixtures (conformance/agentfiles/<name>.Agentfile with <name>.expect.json):
    the seed spec's examples and spec-style mistakes. The vectors compare `ok`, the error codes
    and the lease; the Rust test core/tests/agentfile_fixtures.rs also compares the warnings."""
    v = []
    for name in sorted(os.listdir(AGENTFILES)):
        if not name.endswith(".Agentfile"):
            continue
        stem = name[: -len(".Agentfile")]
        with open(os.path.join(AGENTFILES, name), encoding="utf-8", newline="") as f:
            text = f.read()
        with open(os.path.join(AGENTFILES, stem + ".expect.json"), encoding="utf-8") as f:
            want = json.load(f)
        inp = {"text": text}
        if want["compat"]:
            inp["compat"] = True
        expect = {k: want[k] for k in ("ok", "errors", "lease") if k in want}
        v.append({"id": "agentfile-fixture-" + stem, "op": "agentfile", "input": inp,
                  "expect": expect})
    return v


# Vector files written by other generators (they check them themselves).
OTHER_GENERATORS = {
    "governor.json": "gen_governor_vectors.py",
    "frame_decode.json": "gen_governor_vectors.py",
}


def generated():
    """{file name without .json: [vectors]} for every file this generator writes. A vector that
    carries an id keeps it; the others get <file>-NNN in order (so append new cases at the end)."""
    files = {}
    sec = security()
    for name, fn in list(FILES.items()) + [("large", large)]:
        files[name] = fn() + extras().get(name, []) + sec.get(name, [])
    files["subset"] += subset_work_bound()
    files["agentfile"] = list(vectors_agentfile.VECTORS)
    files["agentfile_fixtures"] = agentfile_fixtures()
    # binding.json and binding_text.json (vectors_binding.py) pin where bindings once disagreed
    # (amount maps, subset option keys, lone surrogates on every string-taking op).
    files.update(vectors_binding.files())
    files["bypass"] = vectors_bypass.vectors()
    out = {}
    for name, vecs in files.items():
        out[name] = [{"id": vec.get("id", "%s-%03d" % (name, i)), **vec}
                     for i, vec in enumerate(vecs, 1)]
        ids = [x["id"] for x in out[name]]
        assert len(ids) == len(set(ids)), "duplicate ids in %s" % name
    return out


def render(vecs):
    """One vector per line, ASCII only (non-ASCII and lone surrogates as \\u escapes)."""
    return '{"vectors": [\n' + ",\n".join(json.dumps(x, ensure_ascii=True) for x in vecs) + "\n]}\n"


def check(files):
    """Compares the files on disk with `files`; returns the problems found."""
    problems = []
    for name, vecs in files.items():
        path = os.path.join(OUT, name + ".json")
        want = render(vecs)
        if not os.path.exists(path):
            problems.append("%s.json: missing" % name)
            continue
        with open(path, encoding="utf-8", newline="") as f:
            have = f.read()
        if have != want:
            old = have.split("\n")
            new = want.split("\n")
            first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b),
                         min(len(old), len(new)))
            line = new[first] if first < len(new) else "(end of file)"
            problems.append("%s.json: differs from the generator at line %d: %s"
                            % (name, first + 1, line[:160]))
    for f in sorted(os.listdir(OUT)):
        if f.endswith(".json") and f[:-5] not in files and f not in OTHER_GENERATORS:
            problems.append("%s: no generator writes it (add it to gen_vectors.py)" % f)
    return problems


def main(argv):
    files = generated()
    if "--check" in argv:
        problems = check(files)
        for p in problems:
            print("gen_vectors --check: " + p, file=sys.stderr)
        n = sum(len(v) for v in files.values())
        print("gen_vectors --check: %d files, %d vectors, %s"
              % (len(files), n, "%d problem(s)" % len(problems) if problems else "up to date"))
        if problems:
            print("run `python3 conformance/tools/gen_vectors.py` and commit the result",
                  file=sys.stderr)
        return 1 if problems else 0
    total = 0
    for name, vecs in files.items():
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8", newline="") as f:
            f.write(render(vecs))
        print("%-20s %4d" % (name, len(vecs)))
        total += len(vecs)
    print("total %d" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
