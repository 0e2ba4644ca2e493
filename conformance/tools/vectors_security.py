"""Security vectors (the bypass families of docs/security.md), appended by gen_vectors.py after every other batch so the
ids before them stay stable. Written from docs/semantics.md 2, 5 and 5.2, never by running leasekit:

- 5.2 ambiguous paths: a canonical path holding `\\`, or a piece between `/`, `%2F` and `%5C`
  (any hex case) that, once `%25` is read as `%` and then `%2E` as `.`, is `.` or `..` or
  starts with `.;` or `..;` -> INVALID_REQUEST; and the near misses that stay valid;
- 5.2 hosts with an empty label -> INVALID_REQUEST;
- 2 and 5 bounds (16 384-byte targets, 65 536 bytes of strings per capability).
"""

IR = {"error": "INVALID_REQUEST"}
T, F = True, False
H = "https://api.example.com"


def canon(cap, target, expect):
    return {"op": "canonicalize", "input": {"capability": cap, "target": target}, "expect": expect}


def match(cap, pattern, target, expect):
    return {"op": "match", "input": {"capability": cap, "pattern": pattern, "target": target},
            "expect": expect}


def lease(l, expect):
    return {"op": "validate_lease", "input": {"lease": l}, "expect": expect}


# ---------------------------------------------------------------- 5.2 ambiguous paths
# Every form of the rule; the canonical path (after decoding unreserved escapes and removing
# dot segments) is what the rule reads.
AMBIGUOUS = [
    # a backslash anywhere in the canonical path (WHATWG parsers read it as '/')
    "/v1/\\..\\..\\admin", "/v1/..\\admin", "/v1/a\\b", "/\\", "/v1/../\\admin",
    "/v1/%2e%2e\\x",
    # a '.' or '..' piece between '/', '%2F' and '%5C' (any hex case)
    "/v1/..%2Fadmin", "/v1/..%2fadmin", "/v1/x%2F..%2Fadmin", "/v1/.%2Fx", "/v1/a%2F..",
    "/v1/..%2F", "/v1/%2e%2e%2f", "/v1/%2E%2E%2Fadmin", "/v1/a%2F.%2Fb",
    "/v1/..%5Cadmin", "/v1/..%5cadmin", "/v1/a%5C.", "/v1/a%5C..%5Cb", "/v1/%2e%5cx",
    # ... once %25 is read as % (double encoding) and %2E as '.'
    "/v1/%252e%252e/x", "/v1/%252E%252E/x", "/v1/.%252e/x", "/v1/%252e./x", "/v1/%252e/x",
    "/v1/%252e%252e%252fadmin", "/v1/..%252Fadmin", "/v1/..%252fadmin", "/v1/..%255Cadmin",
    "/v1/..%255cadmin", "/v1/%25%32%65%25%32%65/x", "/v1/%252e%252e",
    # a piece starting with '.;' or '..;' (servers that drop ';' path parameters)
    "/v1/..;/x", "/v1/.;/x", "/v1/..;jsessionid=1/x", "/v1/.;x", "/v1/..;", "/v1/.;",
    "/v1/%2e%2e;/x", "/v1/%252e%252e;/x", "/v1/a%2F..;b", "/v1/..;%2Fx",
]
# Near misses: valid, kept as canonicalized.
NEAR_MISSES = [
    ("/v1/a%2Fb", "/v1/a%2Fb"), ("/v1/a%2fb", "/v1/a%2Fb"), ("/v1/x..", "/v1/x.."),
    ("/.well-known/openid-configuration", "/.well-known/openid-configuration"),
    ("/v1/..x", "/v1/..x"), ("/v1/...", "/v1/..."), ("/v1/.x", "/v1/.x"), ("/v1/a;b", "/v1/a;b"),
    ("/v1/x..;", "/v1/x..;"), ("/v1/...;", "/v1/...;"), ("/v1/;..", "/v1/;.."),
    ("/v1/a%5Cb", "/v1/a%5Cb"), ("/v1/a%5cb", "/v1/a%5Cb"), ("/v1/%2525", "/v1/%2525"),
    ("/v1/%252ex", "/v1/%252ex"), ("/v1/x%252e%252e", "/v1/x%252e%252e"),
    ("/v1/a%2F..x", "/v1/a%2F..x"), ("/v1/a%2F...%2Fb", "/v1/a%2F...%2Fb"),
    ("/v1/%2e%2ex", "/v1/..x"), ("/v1/a.%2Fb", "/v1/a.%2Fb"), ("/v1/.%2e.", "/v1/..."),
    # SEMANTICS reads %25 once: a triple encoding is not refused
    ("/v1/%25252e%25252e/x", "/v1/%25252e%25252e/x"),
    # %3B is not ';' for the rule
    ("/v1/..%3B/x", "/v1/..%3B/x"), ("/v1/..%3b/x", "/v1/..%3B/x"),
    # dot segments removed before the rule reads the path
    ("/v1/../admin", "/admin"), ("/v1/a%2Fb/../c", "/v1/c"), ("/v1/./x/.", "/v1/x/"),
    # the query and the fragment are not the path
    ("/v1/a?x=\\..\\..%2F..;/%252e%252e", "/v1/a?x=\\..\\..%2F..;/%252e%252e"),
    ("/v1/a#\\..\\..%2F", "/v1/a"), ("/v1/a?q#..;/x", "/v1/a?q"),
]

# ---------------------------------------------------------------- 5.2 hosts with an empty label
BAD_HOSTS = [
    "https://.example.com/", "https://example..com/", "https://example.com../x",
    "https://example.com..:8443/", "j://..", "https://../", "https://a../", "https://.a/",
    "https://a...b/", "https://./", "https://..:443/", "http://.", "https://example.com..",
    "https://EXAMPLE..COM/",
]
GOOD_HOSTS = [
    ("https://example.com./x", "https://example.com/x"),
    ("https://example.com.:8443/", "https://example.com:8443/"),
    ("https://a.b.c/", "https://a.b.c/"),
    ("https://a-.-b/", "https://a-.-b/"),
    ("https://[::1]/", "https://[::1]/"),
]


def ambiguity_and_hosts():
    out = {"canonicalize": [], "match": [], "validate_lease": [], "authorize": []}
    c, m, v = out["canonicalize"], out["match"], out["validate_lease"]
    for p in AMBIGUOUS:
        c.append(canon("net.fetch", H + p, IR))
    for p, x in NEAR_MISSES:
        c.append(canon("net.fetch", H + p, H + x))
    for t in BAD_HOSTS:
        c.append(canon("net.fetch", t, IR))
    for t, x in GOOD_HOSTS:
        c.append(canon("net.fetch", t, x))
    # fs paths have no such rule (SEMANTICS 5.1): kept verbatim apart from dot segments
    for p in ["/v1/..%2Fadmin", "/v1/\\..\\x", "/v1/..;/x", "/v1/%252e%252e/x"]:
        c.append(canon("fs.read", p, p))
    # the reported bypasses, against the leases they used to escape
    for p in ["/v1/\\..\\..\\admin", "/v1/..%2F..%2Fadmin", "/v1/%252e%252e/%252e%252e/admin",
              "/v1/..;/..;/admin", "/v1/..%5C..%5Cadmin", "/v1/x%2F..%2Fadmin"]:
        m.append(match("net.fetch", H + "/v1/**", H + p, IR))
        m.append(match("net.fetch", H + "/v1/*", H + p, IR))
        m.append(match("net.fetch", "https://**", H + p, IR))
    m += [
        match("net.fetch", H + "/v1/**", H + "/v1/a%2Fb", T),
        match("net.fetch", H + "/v1/*", H + "/v1/a%2Fb", T),
        match("net.fetch", H + "/v1/a/b", H + "/v1/a%2Fb", F),
        match("net.fetch", H + "/v1/**", H + "/v1/x..", T),
        match("net.fetch", H + "/v1/*", H + "/v1/x..", T),
        match("net.fetch", H + "/.well-known/**", H + "/.well-known/jwks.json", T),
        match("net.fetch", H + "/v1/**", H + "/v1/..x/y", T),
        match("net.fetch", H + "/v1/**", H + "/v1/a?next=..%2F..%2Fadmin", T),
        match("net.fetch", "https://**", "https://example..com/", IR),
        match("net.fetch", "https://*.example.com/**", "https://.example.com/", IR),
        match("net.fetch", "https://**", "https://example.com../x", IR),
        match("net.fetch", "https://example.com/**", "https://example.com./x", T),
        # patterns keep their path verbatim; a pattern naming an ambiguous path matches nothing
        match("net.fetch", H + "/v1/..;/x", H + "/v1/..;/x", IR),
        match("net.fetch", H + "/v1/\\**", H + "/v1/\\x", IR),
    ]
    v += [
        lease({"net.fetch": ["https://example..com/**"]}, IR),
        lease({"net.fetch": ["https://.example.com/**"]}, IR),
        lease({"net.fetch": ["https://example.com../**"]}, IR),
        lease({"net.fetch": ["https://example.com..:8443/"]}, IR),
        lease({"net.fetch": ["https://example.com./**"]}, "ok"),
        lease({"net.fetch": ["https://*.example.com/**"]}, "ok"),
        lease({"net.fetch": ["https://*..example.com/**"]}, "ok"),
        lease({"net.fetch": ["https://api.example.com/v1/\\..\\**"]}, "ok"),
        lease({"net.fetch": ["https://api.example.com/v1/..;/**"]}, "ok"),
    ]
    steps = [{"authorize": ["net.fetch", H + p]} for p in
             ["/v1/\\..\\..\\admin", "/v1/..%2Fadmin", "/v1/%252e%252e/admin", "/v1/..;/admin",
              "/v1/a%2Fb", "/v1/x..", "/admin"]]
    out["authorize"].append({"op": "authorize", "input": {"lease": {"net.fetch": [H + "/v1/**"]},
                                                          "steps": steps},
                             "expect": [IR, IR, IR, IR, "ok", "ok", {"error": "PERMISSION_DENIED"}]})
    return out


# ---------------------------------------------------------------- 2 and 5 bounds
def bounds():
    v = []
    # targets: at most 16 384 bytes (UTF-8), counted as given (before canonicalization)
    for cap, head in [("fs.read", "/"), ("net.fetch", "https://h.example/"), ("tool.call", ""),
                      ("model.use", "m")]:
        fill = 16384 - len(head)
        v.append(canon(cap, head + "a" * fill, head + "a" * fill))
        v.append(canon(cap, head + "a" * (fill + 1), IR))
    v.append(canon("tool.call", "\u00e9" * 8192, "\u00e9" * 8192))
    v.append(canon("tool.call", "\u00e9" * 8192 + "a", IR))
    v.append(canon("fs.read", "/" * 16385, IR))
    v.append(canon("fs.read", "/" * 16384, "/"))
    v.append(canon("net.fetch", "https://h.example/a?" + "q" * 16366, IR))
    v.append(match("tool.call", "**", "a" * 16385, IR))
    v.append(match("tool.call", "**", "a" * 16384, T))
    v.append({"op": "authorize", "input": {"lease": {"fs.read": ["/**"]},
                                           "steps": [{"authorize": ["fs.read", "/" + "a" * 16383]},
                                                     {"authorize": ["fs.read", "/" + "a" * 16384]}]},
              "expect": ["ok", IR]})
    # the strings of one capability: at most 65 536 bytes together (UTF-8)
    block = lambda i, n, head="t": head + "%04d" % i + "a" * (n - len(head) - 4)  # noqa: E731
    v.append(lease({"tool.call": [block(i, 4096) for i in range(16)]}, "ok"))
    v.append(lease({"tool.call": [block(i, 4096) for i in range(16)] + ["x"]}, IR))
    # bytes, not characters: 65 539 bytes in 63 491 characters
    full = [block(i, 4096, "/") for i in range(15)] + ["/" + "\u00e9" * 2047 + "a"]
    v.append(lease({"fs.read": full + ["/\u00e9"]}, IR))
    v.append(lease({"fs.read": full}, "ok"))
    # cost.budget entries count too (leading zeros make long valid amounts)
    v.append(lease({"cost.budget": ["USD:" + "0" * 4000 + "1"] * 16}, "ok"))
    v.append(lease({"cost.budget": ["USD:" + "0" * 4000 + "1"] * 17}, IR))
    # net.fetch patterns are bounded as given and as stored (`https://h` is stored `https://h/`)
    v.append(lease({"net.fetch": ["https://" + "a" * 4087]}, "ok"))
    v.append(lease({"net.fetch": ["https://" + "a" * 4088]}, IR))
    v.append(lease({"net.fetch": ["https://h%04d" % i + "a" * (4096 - 13) for i in range(16)]}, IR))
    v.append(lease({"net.fetch": ["https://h%04d" % i + "a" * (4096 - 14) for i in range(16)]}, "ok"))
    return {"large": v}


def security():
    """Vectors per file name, appended after every other batch."""
    out = {}
    for batch in [ambiguity_and_hosts(), bounds()]:
        for name, vecs in batch.items():
            out.setdefault(name, []).extend(vecs)
    return out
