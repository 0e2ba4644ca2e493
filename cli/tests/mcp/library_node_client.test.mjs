// `leasekit/mcp` (the Node library) wrapping the real MCP TypeScript SDK `Client` in front of the
// real @modelcontextprotocol/server-filesystem. The server's stdin is recorded (a `tee` in front
// of it), so "denied before reaching the server" is checked on what the server received.
// Environment (scripts/test-mcp.sh sets it): LEASEKIT_BIN, MCP_TOOLS; bindings-node built.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const leasekit = require("../../../bindings-node/index.js");
const { McpGuard, GuardedClient, guardClient } = await import("../../../bindings-node/mcp.mjs");

const tools = process.env.MCP_TOOLS;
const sdk = (p) => import(pathToFileURL(path.join(tools, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const fsServer = path.join(tools, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

function world() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lk-mcp-lib-")));
  const data = path.join(root, "data");
  fs.mkdirSync(path.join(data, "out"), { recursive: true });
  fs.writeFileSync(path.join(data, "a.txt"), "hello\n");
  fs.writeFileSync(path.join(root, "secret.txt"), "top-secret\n");
  fs.mkdirSync(path.join(root, "datax"));
  fs.writeFileSync(path.join(root, "datax", "b.txt"), "sibling\n");
  const agentfile = path.join(root, "Agentfile");
  fs.writeFileSync(agentfile, `AGENT files\nMCP fs\nTOOL mcp:fs.read_text_file\nTOOL mcp:fs.write_file\n` +
    `MOUNT ${data} ro\nMOUNT ${data}/out rw\n`);
  return { root, data, agentfile, log: path.join(root, "server-stdin.log"), audit: path.join(root, "audit.jsonl") };
}

async function connect(w, options = {}) {
  const transport = new StdioClientTransport({
    command: "sh",
    args: ["-c", 'tee -a "$0" | "$@"', w.log, "node", fsServer, w.root],
    stderr: "ignore",
  });
  const client = new Client({ name: "leasekit-library-test", version: "1.0.0" });
  await client.connect(transport);
  return guardClient(client, { agentfile: w.agentfile, audit: w.audit, ...options });
}

const text = (r) => r.content.map((c) => c.text ?? "").join("");
const saw = (w) => (fs.existsSync(w.log) ? fs.readFileSync(w.log, "utf8") : "");

test("an allowed read reaches the server with the canonical path", async () => {
  const w = world();
  const client = await connect(w);
  try {
    assert.ok(client.guard instanceof McpGuard);
    assert.equal(client.guard.server, "fs");
    const r = await client.callTool({ name: "read_text_file", arguments: { path: `${w.data}/out/../a.txt` } });
    assert.equal(r.isError ?? false, false, text(r));
    assert.match(text(r), /hello/);
    assert.ok(saw(w).includes(JSON.stringify(path.join(w.data, "a.txt"))));
    assert.ok(!saw(w).includes("out/.."));
  } finally {
    await client.close();
  }
});

test("escapes and read-only writes are denied before the server", async () => {
  const w = world();
  const client = await connect(w);
  try {
    for (const [name, args] of [
      ["read_text_file", { path: `${w.data}/../secret.txt` }],
      ["read_text_file", { path: `${w.data}/%2e%2e/secret.txt` }],
      ["read_text_file", { path: `${w.root}/datax/b.txt` }],
      ["write_file", { path: `${w.data}/planted.txt`, content: "x" }],
      ["write_file", { path: `${w.root}/secret.txt`, content: "overwritten" }],
    ]) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      const { code, reason } = r._meta.leasekit;
      assert.ok(["PERMISSION_DENIED", "INVALID_REQUEST"].includes(code), code);
      assert.ok(text(r).includes(code) && text(r).includes(reason));
    }
  } finally {
    await client.close();
  }
  const s = saw(w);
  assert.match(s, /initialize/);
  assert.ok(!s.includes("tools/call") && !s.includes("secret") && !s.includes("planted") && !s.includes("datax"));
  assert.equal(fs.readFileSync(path.join(w.root, "secret.txt"), "utf8"), "top-secret\n");
  assert.ok(!fs.existsSync(path.join(w.data, "planted.txt")));
});

test("a write inside the read-write mount is allowed", async () => {
  const w = world();
  const client = await connect(w);
  try {
    const r = await client.callTool({ name: "write_file", arguments: { path: path.join(w.data, "out", "n.txt"), content: "ok" } });
    assert.equal(r.isError ?? false, false, text(r));
  } finally {
    await client.close();
  }
  assert.equal(fs.readFileSync(path.join(w.data, "out", "n.txt"), "utf8"), "ok");
});

test("tools/list is filtered and an undeclared tool is denied", async () => {
  const w = world();
  const client = await connect(w);
  try {
    const everything = (await client.client.listTools()).tools.map((t) => t.name);
    assert.ok(everything.includes("move_file"));
    const listed = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(listed, ["read_text_file", "write_file"]);
    const r = await client.callTool({ name: "move_file", arguments: { source: path.join(w.data, "a.txt"), destination: path.join(w.data, "out", "b.txt") } });
    assert.equal(r.isError, true);
    assert.equal(r._meta.leasekit.code, "PERMISSION_DENIED");
    assert.match(text(r), /mcp:fs\.move_file/);
  } finally {
    await client.close();
  }
  assert.ok(!saw(w).includes("move_file\",\"arguments"));
  assert.ok(fs.existsSync(path.join(w.data, "a.txt")));
});

test("malformed arguments get a clean error and the client goes on", async () => {
  const w = world();
  const client = await connect(w);
  const ok = path.join(w.data, "a.txt");
  let deep = ok;
  for (let i = 0; i < 300; i++) deep = [deep];
  const cyclic = { path: ok };
  cyclic.self = cyclic;
  try {
    for (const args of ["not-an-object", [ok], { path: 7 }, { path: "/" + "a".repeat(5 * 1024 * 1024) }, { path: ok, deep }]) {
      const r = await client.callTool({ name: "read_text_file", arguments: args });
      assert.equal(r.isError, true, text(r));
      assert.equal(r._meta.leasekit.code, "INVALID_REQUEST", text(r));
    }
    const r = await client.callTool({ name: "read_text_file" });
    assert.equal(r.isError, true);
    await assert.rejects(client.callTool({ name: "read_text_file", arguments: cyclic }), leasekit.InvalidRequestError);
    await assert.rejects(client.callTool({ name: "read_text_file", arguments: { path: 10n } }), leasekit.InvalidRequestError);
    const after = await client.callTool({ name: "read_text_file", arguments: { path: ok } });
    assert.equal(after.isError ?? false, false, text(after));
  } finally {
    await client.close();
  }
  assert.equal(saw(w).split("tools/call").length - 1, 1);
});

test("a resource outside the lease is refused before the server", async () => {
  const w = world();
  const client = await connect(w);
  try {
    await assert.rejects(client.readResource({ uri: "file:///etc/passwd" }), leasekit.PermissionDeniedError);
  } finally {
    await client.close();
  }
  assert.ok(!saw(w).includes("resources/read"));
});

test("every decision is in an audit chain that verifies", async () => {
  const w = world();
  const client = await connect(w);
  try {
    await client.callTool({ name: "read_text_file", arguments: { path: path.join(w.data, "a.txt") } });
    await client.callTool({ name: "read_text_file", arguments: { path: "/etc/passwd" } });
  } finally {
    await client.close();
  }
  const records = fs.readFileSync(w.audit, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(records.map((r) => r.decision), ["allow", "success", "deny"]);
  execFileSync(process.env.LEASEKIT_BIN, ["audit", "verify", w.audit]);
});

test("a lease with a strict guard; bad options are InvalidRequestError", () => {
  const lease = { "tool.call": ["mcp:files.*"], "fs.read": ["/srv/**"] };
  const guard = new McpGuard({ lease, server: "files", strict: true });
  assert.equal(guard.decideCall({ name: "read_text_file", arguments: { path: "/srv/a" } }).decision, "allow");
  const d = guard.decideCall({ name: "unmapped_tool", arguments: {} });
  assert.equal(d.decision, "deny");
  assert.equal(d.code, "PERMISSION_DENIED");
  assert.deepEqual(guard.allowedTools(["read_text_file", "unmapped_tool"]), ["read_text_file"]);
  for (const bad of [{}, { lease }, { lease, server: "a.b" }, { agentfileText: "AGENT a\n" }, { lease, server: "files", surprise: 1 }]) {
    assert.throws(() => new McpGuard(bad), leasekit.InvalidRequestError, JSON.stringify(bad));
  }
  assert.throws(() => new GuardedClient({}, {}), leasekit.InvalidRequestError);
});
