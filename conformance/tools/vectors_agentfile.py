"""The hand-written `agentfile` vectors (SEMANTICS 12): one case per grammar rule, lint code
and lease mapping. Written to conformance/vectors/agentfile.json by gen_vectors.py; ids follow
the order of VECTORS (agentfile-001, ...), so append new cases at the end.

Each entry is V(text, expect keys...) or V(text, compat=True, expect keys...); only the expect
keys given are compared (API: `ok`, the set of error codes `errors`, the derived `lease`).
"""


def V(text, compat=False, **expect):
    inp = {"text": text}
    if compat:
        inp["compat"] = True
    return {"op": "agentfile", "input": inp, "expect": expect}


VECTORS = [
    # agentfile-001
    V(("# syntax=agentrc.agentfile/v0.1\n"
         "AGENT hello-local\n"
         "CMD strands run --agent hello-local\n"
         "TOOL utcp:file_read\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(\n"
         "  principal == AgentRC::Agent::\"hello-local\",\n"
         "  action in [AgentRC::Action::\"tool.invoke\"],\n"
         "  resource == AgentRC::Tool::\"file_read\"\n"
         ");\n"
         "END\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['utcp:file_read']}),
    # agentfile-002
    V("",
      ok=True,
      errors=[],
      lease={}),
    # agentfile-003
    V(("# syntax=agentrc.agentfile/v0.1\n"
         "\n"
         "   # just comments\n"
         "\t\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-004
    V(("AGENT a\n"
         "AUDIT basic\n"
         "FOO bar\n"),
      ok=False,
      errors=['unknown-directive']),
    # agentfile-005
    V(("AGENT a\n"
         "AUDIT basic\n"
         "tool utcp:file_read\n"),
      ok=False,
      errors=['lowercase-directive']),
    # agentfile-006
    V("Agent a\n",
      ok=False,
      errors=['lowercase-directive']),
    # agentfile-007
    V(("AGENT a\n"
         "AUDIT basic\n"
         "X-ACME-QUOTA 5\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-008
    V(("FROM python:3.12-slim\n"
         "IDENTITY name=hello\n"
         "CAPABILITY tools\n"
         "COPY tools/ /mnt/tools/\n"),
      ok=False,
      errors=['newer-grammar']),
    # agentfile-009
    V(("# syntax=agentrc.io/agentfile:v1\n"
         "FROM scratch\n"
         "LABEL a=b\n"),
      ok=False,
      errors=['newer-grammar']),
    # agentfile-010
    V(("FROM scratch\n"
         "SOP <<EOF\n"
         "You are helpful.\n"
         "EOF\n"),
      ok=False,
      errors=['newer-grammar']),
    # agentfile-011
    V(("# syntax=agentrc.agentfile/v9\n"
         "AGENT a\n"
         "AUDIT basic\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-012
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(principal, action, resource);\n"),
      ok=False,
      errors=['unterminated-block']),
    # agentfile-013
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SOP triage\n"
         "## Steps\n"
         "- You MUST read.\n"),
      ok=False,
      errors=['unterminated-block']),
    # agentfile-014
    V(("AGENT a\n"
         "AUDIT basic\n"
         "END\n"),
      ok=False,
      errors=['stray-end']),
    # agentfile-015
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(principal, action, resource);\n"
         "END   # end of policy\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-016
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "  permit(principal, action, resource);\n"
         "  END\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-017
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(principal, action, resource);\n"
         "END x\n"),
      ok=False,
      errors=['unterminated-block']),
    # agentfile-018
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(principal, action, resource);\n"
         "END\n"
         "END\n"),
      ok=False,
      errors=['stray-end']),
    # agentfile-019
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SOP review\n"
         "TOOL utcp:shell\n"
         "URL https://evil.example\n"
         "END\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-020
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SOP ./sops/code-review.md\n"
         "TOOL utcp:file_read\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['utcp:file_read']}),
    # agentfile-021
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SOP review.md\n"
         "SOP ghcr.io/org/sops/incident-response:1.2\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-022
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SOP release-1.2\n"
         "TOOL utcp:x\n"),
      ok=False,
      errors=['unterminated-block']),
    # agentfile-023
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SOP You are a careful reviewer\n"),
      ok=False,
      errors=['arity']),
    # agentfile-024
    V(("﻿AGENT a\n"
         "AUDIT basic\n"
         "TOOL\tutcp:file_read   # inline comment\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['utcp:file_read']}),
    # agentfile-025
    V(("AGENT a\r\n"
         "AUDIT basic\r\n"
         "TOOL utcp:file_read\r\n"
         "POLICY\r\n"
         "permit(principal, action, resource);\r\n"
         "END\r\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['utcp:file_read']}),
    # agentfile-026
    V("AGENT a b\n",
      ok=False,
      errors=['arity']),
    # agentfile-027
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TOOL\n"),
      ok=False,
      errors=['arity']),
    # agentfile-028
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MOUNT /workspace\n"),
      ok=False,
      errors=['arity']),
    # agentfile-029
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SERVER github\n"),
      ok=False,
      errors=['arity']),
    # agentfile-030
    V(("AGENT a\n"
         "AUDIT basic\n"
         "ALLOW invoke\n"),
      ok=False,
      errors=['arity']),
    # agentfile-031
    V(("AGENT a\n"
         "AGENT b\n"
         "AUDIT basic\n"),
      ok=False,
      errors=['duplicate-directive']),
    # agentfile-032
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TIMEOUT 30\n"
         "TIMEOUT 60\n"),
      ok=False,
      errors=['duplicate-directive']),
    # agentfile-033
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CMD a\n"
         "CMD b\n"),
      ok=False,
      errors=['duplicate-directive']),
    # agentfile-034
    V(("AGENT a\n"
         "AUDIT basic\n"
         "FROM ghcr.io/org/base:1.4\n"
         "FROM scratch\n"
         "TOOL utcp:a\n"
         "TOOL utcp:a\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['utcp:a']}),
    # agentfile-035
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED github_token env:GITHUB_TOKEN host:api.github.com\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-036
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED stripe_key env:STRIPE_KEY host:*.stripe.com host:api.stripe.com:8443 inject:query\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-037
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED db vault://secret/data/prod/db#password host:db.internal.example\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-038
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh keyring:github_token host:api.github.com\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-039
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED openai sk-live-0123456789abcdef host:api.openai.com\n"),
      ok=False,
      errors=['cred-literal-secret']),
    # agentfile-040
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED openai env:OPENAI_API_KEY host:api.openai.com sk-live-0123456789abcdef\n"),
      ok=False,
      errors=['cred-literal-secret']),
    # agentfile-041
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env: host:api.github.com\n"),
      ok=False,
      errors=['cred-source']),
    # agentfile-042
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED db vault://secret/data/prod/db host:db.internal.example\n"),
      ok=False,
      errors=['cred-source']),
    # agentfile-043
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env:GITHUB_TOKEN\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-044
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env:GITHUB_TOKEN\n"),
      compat=True,
      ok=True,
      errors=[],
      lease={}),
    # agentfile-045
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env:GITHUB_TOKEN host:*\n"),
      ok=False,
      errors=['cred-host']),
    # agentfile-046
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env:GITHUB_TOKEN host:https://api.github.com/\n"),
      ok=False,
      errors=['cred-host']),
    # agentfile-047
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env:GITHUB_TOKEN host:api.github.com inject:body\n"),
      ok=False,
      errors=['cred-inject']),
    # agentfile-048
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env:GITHUB_TOKEN host:api.github.com inject:header inject:query\n"),
      ok=False,
      errors=['cred-inject']),
    # agentfile-049
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED 9lives env:GITHUB_TOKEN host:api.github.com\n"),
      ok=False,
      errors=['cred-name']),
    # agentfile-050
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"),
      ok=False,
      errors=['arity']),
    # agentfile-051
    V(("AGENT a\n"
         "AUDIT basic\n"
         "BIND ./repo /workspace copy\n"
         "BIND ./data /data ro\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-052
    V(("AGENT a\n"
         "AUDIT basic\n"
         "BIND ./repo /workspace sideways\n"),
      ok=False,
      errors=['bind-mode']),
    # agentfile-053
    V(("AGENT a\n"
         "AUDIT basic\n"
         "BIND ./repo /workspace\n"),
      ok=False,
      errors=['bind-mode-missing']),
    # agentfile-054
    V(("AGENT a\n"
         "AUDIT basic\n"
         "BIND ./repo /workspace\n"),
      compat=True,
      ok=True,
      errors=[],
      lease={}),
    # agentfile-055
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MOUNT /workspace rx\n"),
      ok=False,
      errors=['mount-mode']),
    # agentfile-056
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MOUNT workspace ro\n"),
      ok=False,
      errors=['mount-path']),
    # agentfile-057
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL api.github.com\n"),
      ok=False,
      errors=['url-format']),
    # agentfile-058
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL https://user:pw@api.github.com/\n"),
      ok=False,
      errors=['url-format']),
    # agentfile-059
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL https://api.github.com/search?q=x\n"),
      ok=False,
      errors=['url-format']),
    # agentfile-060
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SERVER github ftp:/nope\n"),
      ok=False,
      errors=['url-format']),
    # agentfile-061
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL https://api.github.com/***\n"),
      ok=False,
      errors=['lease-pattern']),
    # agentfile-062
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TOOL file_read\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['file_read']}),
    # agentfile-063
    V(("AGENT a\n"
         "AUDIT basic\n"
         "ALLOW invoke utcp:file_read\n"
         "DENY invoke utcp:shell\n"
         "RATELIMIT file_write 20/hour\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-064
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY rego\n"
         "allow { true }\n"
         "END\n"),
      ok=False,
      errors=['policy-profile']),
    # agentfile-065
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY cedar\n"
         "permit(principal, action, resource);\n"
         "END\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-066
    V(("AGENT a\n"
         "AUDIT basic\n"
         "ALLOW call utcp:file_read\n"),
      ok=False,
      errors=['policy-verb']),
    # agentfile-067
    V(("AGENT a\n"
         "AUDIT basic\n"
         "RATELIMIT file_write 20/week\n"),
      ok=False,
      errors=['rate-format']),
    # agentfile-068
    V(("AGENT a\n"
         "AUDIT basic\n"
         "RATELIMIT file_write twenty/hour\n"),
      ok=False,
      errors=['rate-format']),
    # agentfile-069
    V(("AGENT a\n"
         "AUDIT basic\n"
         "LIMIT max_output 1048576\n"
         "LIMIT network_requests 50/min\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-070
    V(("AGENT a\n"
         "AUDIT basic\n"
         "LIMIT tool_calls lots\n"),
      ok=False,
      errors=['limit-format']),
    # agentfile-071
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TIMEOUT 30s\n"),
      ok=False,
      errors=['timeout-format']),
    # agentfile-072
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TIMEOUT -1\n"),
      ok=False,
      errors=['timeout-format']),
    # agentfile-073
    V(("AGENT a\n"
         "AUDIT verbose\n"),
      ok=False,
      errors=['audit-value']),
    # agentfile-074
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SLICE cpu=2 mem\n"),
      ok=False,
      errors=['slice-format']),
    # agentfile-075
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TRACE yes\n"),
      ok=False,
      errors=['trace-value']),
    # agentfile-076
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TRACE otlp://collector.internal:4317\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-077
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MEMORY writing ./schemas/writing.schema.json schema:WritingMemory mode:rw\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-078
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MEMORY writing ./schemas/writing.schema.json mode:rx\n"),
      ok=False,
      errors=['memory-format']),
    # agentfile-079
    V(("AGENT a\n"
         "AUDIT basic\n"
         "HEALTHCHECK --interval=30s --timeout=5s --retries=3 CMD utcp:ping\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-080
    V(("AGENT a\n"
         "AUDIT basic\n"
         "HEALTHCHECK --interval=soon CMD utcp:ping\n"),
      ok=False,
      errors=['healthcheck-format']),
    # agentfile-081
    V(("AGENT a\n"
         "AUDIT basic\n"
         "HEALTHCHECK --interval=30s utcp:ping\n"),
      ok=False,
      errors=['healthcheck-format']),
    # agentfile-082
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "# comment\n"
         "permit(principal, action, resource);\n"
         "END\n"),
      ok=False,
      errors=['cedar-parse']),
    # agentfile-083
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(principal, action, resource in [AgentRC::Tool::\"a\", AgentRC::Tool::\"b\"]);\n"
         "END\n"),
      ok=False,
      errors=['cedar-parse']),
    # agentfile-084
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(principal, action, resource) when { context.path.startsWith(\"/workspace\") };\n"
         "END\n"),
      ok=False,
      errors=['cedar-parse']),
    # agentfile-085
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "permit(principal, action, resource) when { context.path like \"/workspace/*\" };\n"
         "forbid(principal, action, resource == AgentRC::Tool::\"shell\");\n"
         "END\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-086
    V(("AGENT a\n"
         "AUDIT basic\n"
         "POLICY\n"
         "TOOL utcp:shell\n"
         "END\n"),
      ok=False,
      errors=['cedar-parse']),
    # agentfile-087
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MOUNT /workspace ro\n"),
      ok=True,
      errors=[],
      lease={'fs.read': ['/workspace', '/workspace/**']}),
    # agentfile-088
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MOUNT /workspace rw\n"),
      ok=True,
      errors=[],
      lease={'fs.read': ['/workspace', '/workspace/**'], 'fs.write': ['/workspace', '/workspace/**']}),
    # agentfile-089
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MOUNT / rw\n"),
      ok=True,
      errors=[],
      lease={'fs.read': ['/', '/**'], 'fs.write': ['/', '/**']}),
    # agentfile-090
    V(("AGENT a\n"
         "AUDIT basic\n"
         "MOUNT /data/ ro\n"),
      ok=True,
      errors=[],
      lease={'fs.read': ['/data/', '/data/**']}),
    # agentfile-091
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL https://api.github.com\n"),
      ok=True,
      errors=[],
      lease={'net.fetch': ['https://api.github.com/', 'https://api.github.com/**']}),
    # agentfile-092
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL https://api.example.com/v1/\n"),
      ok=True,
      errors=[],
      lease={'net.fetch': ['https://api.example.com/v1/', 'https://api.example.com/v1/**']}),
    # agentfile-093
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL HTTPS://API.Example.com:443\n"),
      ok=True,
      errors=[],
      lease={'net.fetch': ['https://api.example.com/', 'https://api.example.com/**']}),
    # agentfile-094
    V(("AGENT a\n"
         "AUDIT basic\n"
         "SERVER internal https://tools.internal.example/mcp\n"),
      ok=True,
      errors=[],
      lease={'net.fetch': ['https://tools.internal.example/mcp', 'https://tools.internal.example/mcp/**']}),
    # agentfile-095
    V(("AGENT a\n"
         "AUDIT basic\n"
         "URL https://api.github.com\n"
         "SERVER github https://api.github.com\n"),
      ok=True,
      errors=[],
      lease={'net.fetch': ['https://api.github.com/', 'https://api.github.com/**']}),
    # agentfile-096
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TOOL utcp:file_read\n"
         "TOOL mcp:github.get_issue\n"
         "TOOLSET strands:workspace\n"
         "MCP github\n"
         "FUNCTION summarize\n"
         "SKILL pr-review\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['utcp:file_read', 'mcp:github.get_issue']}),
    # agentfile-097
    V(("AGENT a\n"
         "AUDIT basic\n"
         "CRED gh env:GITHUB_TOKEN host:api.github.com\n"
         "BIND ./r /w copy\n"
         "PLUGIN network\n"
         "IMAGE ghcr.io/x/y:1\n"
         "ISOLATION microvm\n"
         "BROKER vault\n"
         "BACKEND ssh://r.example\n"
         "SLICE cpu=2\n"),
      ok=True,
      errors=[],
      lease={}),
    # agentfile-098
    V(("# syntax=agentrc.agentfile/v0.1\n"
         "AGENT code-reviewer\n"
         "FROM ghcr.io/org/base-agent:1.4\n"
         "CMD strands run --agent code-reviewer\n"
         "TOOL utcp:file_read\n"
         "TOOL utcp:git_diff\n"
         "MOUNT /workspace ro\n"
         "MOUNT /out rw\n"
         "URL https://api.github.com/repos/acme\n"
         "CRED github_token env:GITHUB_TOKEN host:api.github.com\n"
         "ALLOW invoke utcp:file_read\n"
         "DENY invoke utcp:shell\n"
         "AUDIT all\n"),
      ok=True,
      errors=[],
      lease={'tool.call': ['utcp:file_read', 'utcp:git_diff'], 'fs.read': ['/workspace', '/workspace/**', '/out', '/out/**'], 'fs.write': ['/out', '/out/**'], 'net.fetch': ['https://api.github.com/repos/acme', 'https://api.github.com/repos/acme/**']}),
    # agentfile-099
    V(("AGENT a\n"
         "AUDIT basic\n"
         "TOOL utcp:file_read\n"
         "FOO\n"),
      ok=False,
      errors=['unknown-directive']),
]
