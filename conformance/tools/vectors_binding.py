"""Vectors that pin what crosses a language boundary, written by gen_vectors.py.

- binding.json: amount maps (`parent_remaining`: a signed decimal with at most 9 fraction
  digits and 27 digits in all, docs/semantics.md 6) and unknown subset-option keys.
- binding_text.json: lone UTF-16 surrogates (`\\ud800` escapes) in every string-taking op.
  Text that is not valid Unicode is INVALID_REQUEST wherever a string enters the API (never
  replaced by U+FFFD). Kept in a file of its own: some JSON parsers (cJSON) refuse a lone
  surrogate escape, and such a runner needs to convert this file differently, not skip the rest.

Every expectation is read from docs/semantics.md and docs/api.md, not from running leasekit.
"""

IR = {"error": "INVALID_REQUEST"}
PD = {"error": "PERMISSION_DENIED"}

HIGH, LOW = "\ud800", "\udc00"  # a lone high and a lone low surrogate
PAIR = "\U0001f600"  # a valid pair (written as \ud83d\ude00): text, must be accepted


def subset(child, parent, expect, **options):
    return {"op": "subset", "input": {"child": child, "parent": parent, **options},
            "expect": expect}


def amount_maps():
    """`parent_remaining` (SEMANTICS 6 and 9): what a guard's remaining() reports is accepted
    back, so negative amounts (an overspend) and more than 15 integer digits are values; the
    scale is AMOUNT's, so a tenth fraction digit is INVALID_REQUEST, never rounded."""
    usd1 = {"cost.budget": ["USD:1"]}
    usd0 = {"cost.budget": ["USD:0"]}
    usd5 = {"cost.budget": ["USD:5"]}
    tool = {"tool.call": ["a"]}
    tool_usd5 = {"tool.call": ["a"], "cost.budget": ["USD:5"]}
    v = [
        # negative remaining: an overspent parent can delegate no budget
        subset(usd1, usd5, False, parent_remaining={"USD": "-0.5"}),
        subset(usd0, usd5, False, parent_remaining={"USD": "-0.000000001"}),
        subset(usd0, usd5, True, parent_remaining={"USD": "-0"}),
        subset(usd0, usd5, True, parent_remaining={"USD": "0.000000000"}),
        # ... but a child that budgets nothing is still a subset (it shares the counters)
        subset(tool, tool_usd5, True, parent_remaining={"USD": "-0.5"}),
        subset(tool, tool_usd5, True, parent_remaining={"USD": "-999999999999999999.123456789"}),
        # 27 digits in all is the most budget arithmetic leaves
        subset(usd0, usd5, False, parent_remaining={"USD": "-" + "9" * 27}),
        subset(usd1, usd5, True, parent_remaining={"USD": "0000" + "9" * 27}),
        subset(usd1, usd5, IR, parent_remaining={"USD": "-" + "9" * 28}),
        subset(usd1, usd5, IR, parent_remaining={"USD": "-" + "9" * 19 + ".123456789"}),
        # nine fraction digits is the scale; a tenth is refused, zeros included
        subset(usd1, usd5, True, parent_remaining={"USD": "1.000000000"}),
        subset(usd1, usd5, False, parent_remaining={"USD": "0.999999999"}),
        subset(usd1, usd5, IR, parent_remaining={"USD": "1.0000000001"}),
        subset(usd1, usd5, IR, parent_remaining={"USD": "1.0000000000"}),
        subset(usd1, usd5, IR, parent_remaining={"USD": "-1.0000000001"}),
        subset(usd0, usd5, IR, parent_remaining={"USD": "0.0000000000"}),
        # a malformed amount is refused even for a currency the parent does not budget
        subset(usd1, usd5, IR, parent_remaining={"EUR": "1.0000000001"}),
        subset(usd1, usd5, True, parent_remaining={"EUR": "-5"}),
        # the syntax: no sign but '-', no exponent, spaces, bare point or non-ASCII digits
        *[subset(usd1, usd5, IR, parent_remaining={"USD": bad})
          for bad in ["+1", "1e3", "1E3", ".5", "5.", "-.5", "--1", " 1", "1 ", "1,5", "",
                      "-", "NaN", "Infinity", "0x10", "\u0661", "1.2.3"]],
        # a remaining amount is a string, never a binary number or anything else
        *[subset(usd1, usd5, IR, parent_remaining={"USD": bad})
          for bad in [1, 1.5, None, True, ["1"], {"amount": "1"}]],
        # the map itself is an object (null means "not given")
        subset(usd1, usd5, IR, parent_remaining=["USD:1"]),
        subset(usd1, usd5, IR, parent_remaining="USD:1"),
        subset(usd1, usd5, True, parent_remaining=None),
        subset(usd1, usd5, True, parent_remaining={}),
    ]
    return v


def option_keys():
    """Subset options are exactly parent_remaining, child_constraints and parent_constraints:
    any other key is INVALID_REQUEST (a misspelt option must not be ignored), and the
    constraints objects take only expires_at."""
    usd1 = {"cost.budget": ["USD:1"]}
    usd5 = {"cost.budget": ["USD:5"]}
    exp = "2030-01-01T00:00:00Z"
    return [
        # the typo would have made the child a non-subset; ignoring it would answer true
        subset(usd1, usd5, IR, parent_remainder={"USD": "0.5"}),
        subset(usd1, usd5, IR, remaining={"USD": "0.5"}),
        subset(usd1, usd5, IR, options={}),
        subset(usd1, usd5, IR, strict=True),
        subset(usd1, usd5, IR, child_expires_at=exp),
        subset(usd1, usd5, IR, parent_remaining={"USD": "5"}, extra=None),
        subset(usd1, usd5, IR, child_constraints={"expires_at": exp, "grace_millis": 0}),
        subset(usd1, usd5, IR, parent_constraints={"expiresAt": exp}),
        subset(usd1, usd5, IR, child_constraints=["expires_at"]),
        # the known options, each alone and together, for contrast
        subset(usd1, usd5, True, child_constraints={"expires_at": exp},
               parent_constraints={"expires_at": exp}),
        subset(usd1, usd5, False, child_constraints={"expires_at": exp},
               parent_constraints={"expires_at": "2029-01-01T00:00:00Z"}),
        subset(usd1, usd5, True, child_constraints={}, parent_constraints=None),
        subset(usd1, usd5, False, parent_remaining={"USD": "0.5"},
               child_constraints={"expires_at": None}),
    ]


def lone_surrogates():
    """A lone surrogate in any string argument of any op is INVALID_REQUEST."""
    v = []

    def add(op, inp, expect=IR):
        v.append({"op": op, "input": inp, "expect": expect})

    for s in [HIGH, LOW, "fs.read" + HIGH, LOW + HIGH]:
        add("capability_name", {"name": s})
    add("capability_name", {"name": "x-vendor.acme." + PAIR}, {"valid": False, "reserved": False})

    add("validate_lease", {"lease": {"fs.read" + HIGH: []}})
    add("validate_lease", {"lease": {"fs.read": ["/a/" + HIGH]}})
    add("validate_lease", {"lease": {"tool.call": [LOW]}})
    add("validate_lease", {"lease": {"model.use": ["gpt-4", "x" + LOW + "y"]}})
    add("validate_lease", {"lease": {"cost.budget": ["USD:1" + HIGH]}})
    add("validate_lease", {"lease": {"net.fetch": ["https://h.example/" + HIGH]}})
    add("validate_lease", {"lease": {"tool.call": ["web." + PAIR]}}, "ok")

    add("canonicalize", {"capability": "fs.read", "target": "/a/" + HIGH})
    add("canonicalize", {"capability": "fs.read", "target": "/a/" + LOW + "/b"})
    add("canonicalize", {"capability": "net.fetch", "target": "https://h.example/" + HIGH})
    add("canonicalize", {"capability": "net.fetch", "target": "https://h.example/?q=" + LOW})
    add("canonicalize", {"capability": "tool.call", "target": "web." + HIGH})
    add("canonicalize", {"capability": "model.use", "target": LOW})
    add("canonicalize", {"capability": "fs.read" + HIGH, "target": "/a"})
    add("canonicalize", {"capability": "fs.read", "target": "/a/" + PAIR + "/../b"}, "/a/b")
    add("canonicalize", {"capability": "tool.call", "target": "web." + PAIR}, "web." + PAIR)

    add("match", {"capability": "fs.read", "pattern": "/a/**", "target": "/a/" + HIGH})
    add("match", {"capability": "tool.call", "pattern": "*", "target": LOW})
    add("match", {"capability": "model.use", "pattern": "gpt-" + HIGH, "target": "gpt-4"})
    add("match", {"capability": "model.use", "pattern": "**", "target": "gpt-" + LOW})
    add("match", {"capability": "net.fetch" + LOW, "pattern": "**", "target": "https://h.example/"})
    add("match", {"capability": "tool.call", "pattern": "*", "target": PAIR}, True)

    usd5 = {"tool.call": ["*"], "cost.budget": ["USD:5"]}
    add("subset", {"child": {"tool.call": ["a" + HIGH]}, "parent": usd5})
    add("subset", {"child": {"tool.call": ["a"]}, "parent": {"tool.call": [LOW]}})
    add("subset", {"child": {"tool.call": ["a"]}, "parent": usd5, "parent_remaining": {"USD" + HIGH: "1"}})
    add("subset", {"child": {"tool.call": ["a"]}, "parent": usd5, "parent_remaining": {"USD": "1" + LOW}})
    add("subset", {"child": {"tool.call": ["a"]}, "parent": usd5,
                   "child_constraints": {"expires_at": "2030-01-01T00:00:00Z" + HIGH}})
    add("subset", {"child": {"tool.call": ["a"]}, "parent": usd5,
                   "parent_constraints": {"expires_at": LOW}})
    add("subset", {"child": {"tool.call": ["a" + PAIR]}, "parent": usd5}, True)

    add("budget_parse", {"entry": "USD:1" + HIGH})
    add("budget_parse", {"entry": HIGH + "USD:1"})
    add("budget_parse", {"entry": "US" + LOW + "D:1"})
    add("budget_sum", {"entries": ["USD:1", "EUR" + LOW + ":1"]})
    add("budget_sum", {"entries": [HIGH]})

    add("expires_at", {"value": "2030-01-01T00:00:00Z" + HIGH, "now": "2026-01-01T00:00:00Z"})
    add("expires_at", {"value": "2030-01-01T00:00:00Z", "now": "2026-01-01T00:00:00Z" + LOW})

    lease = {"fs.read": ["/a/**"], "tool.call": ["**"], "model.use": ["*"],
             "cost.budget": ["USD:10"]}
    ok_step = {"authorize": ["fs.read", "/a/b"]}
    add("authorize", {"lease": {"fs.read": ["/a/" + HIGH]}, "steps": [ok_step]})
    add("authorize", {"lease": lease, "constraints": {"expires_at": "2999-01-01T00:00:00Z" + LOW},
                      "steps": [ok_step]})
    steps = [
        (ok_step, "ok"),
        ({"authorize": ["fs.read", "/a/" + HIGH]}, IR),
        ({"authorize": ["tool.call", LOW]}, IR),
        ({"authorize": ["fs.read" + HIGH, "/a/b"]}, IR),
        ({"model": "gpt-" + LOW}, IR),
        ({"model": HIGH}, IR),
        ({"metric": {"name": "cost.llm" + HIGH, "value": "1", "unit": "USD"}}, IR),
        ({"metric": {"name": "cost.llm", "value": "1" + LOW, "unit": "USD"}}, IR),
        # not ignored as an unbudgeted unit: the text is refused before any rule applies
        ({"metric": {"name": "cost.llm", "value": "1", "unit": "USD" + HIGH}}, IR),
        ({"metric": {"name": "latency" + LOW, "value": "1", "unit": "ms"}}, IR),
        ({"reserve": ["USD" + HIGH, "1"]}, IR),
        ({"reserve": ["USD", "1" + LOW]}, IR),
        # nothing above changed the counter
        ({"metric": {"name": "cost.llm", "value": "0", "unit": "USD"}},
         {"remaining": {"USD": "10"}, "emitted": []}),
        ({"authorize": ["tool.call", "web." + PAIR]}, "ok"),
        ({"model": "gpt-" + PAIR}, "ok"),
    ]
    add("authorize", {"lease": lease, "steps": [s for s, _ in steps]}, [x for _, x in steps])

    add("narrow", {"requested": {"fs.read": ["/a/" + HIGH]}, "ceiling": {"fs.read": ["/**"]}})
    add("narrow", {"requested": {"fs.read": ["/a/*"]}, "ceiling": {"fs.read": ["/a/" + LOW]}})
    add("narrow", {"requested": {"tool.call": ["web." + PAIR]}, "ceiling": {"tool.call": ["**"]}},
        {"tool.call": ["web." + PAIR]})

    add("agentfile", {"text": "AGENT a\nAUDIT basic\nTOOL utcp:" + HIGH + "\n"})
    add("agentfile", {"text": "AGENT a" + LOW + "\n"})
    add("agentfile", {"text": "AGENT a\nAUDIT basic\n# " + HIGH + " in a comment\n"})
    add("agentfile", {"text": "AGENT a\nAUDIT basic\nSOP s\n" + LOW + "\nEND\n", "compat": True})
    add("agentfile", {"text": "AGENT a\nAUDIT basic\n# " + PAIR + " in a comment\n"},
        {"ok": True, "errors": [], "lease": {}})
    return v


def files():
    """{file name: [vectors]} for gen_vectors.py."""
    return {"binding": amount_maps() + option_keys(), "binding_text": lone_surrogates()}
