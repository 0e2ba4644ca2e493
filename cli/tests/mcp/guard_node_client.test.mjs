// `leasekit mcp-guard` in front of the real @modelcontextprotocol/server-filesystem, driven by
// the real MCP TypeScript SDK client. Environment (scripts/test-mcp.sh sets it): LEASEKIT_BIN,
// MCP_TOOLS (the directory the pinned npm packages are installed in).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const tools = process.env.MCP_TOOLS;
const sdk = (p) => import(pathToFileURL(path.join(tools, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const fsServer = path.join(tools, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

function world() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lk-mcp-node-")));
  const data = path.join(root, "data");
  fs.mkdirSync(path.join(data, "out"), { recursive: true });
  fs.writeFileSync(path.join(data, "a.txt"), "hello\n");
  fs.writeFileSync(path.join(root, "secret.txt"), "top-secret\n");
  fs.mkdirSync(path.join(root, "datax"));
  fs.writeFileSync(path.join(root, "datax", "b.txt"), "sibling\n");
  const agentfile = path.join(root, "Agentfile");
  fs.writeFileSync(agentfile, `AGENT files\nMCP fs\nTOOL mcp:fs.read_text_file\nTOOL mcp:fs.write_file\nMOUNT ${data} ro\n`);
  return { root, data, agentfile, log: path.join(root, "server-stdin.log") };
}

async function connect(w) {
  const transport = new StdioClientTransport({
    command: process.env.LEASEKIT_BIN,
    args: ["mcp-guard", "--agentfile", w.agentfile, "--",
      "sh", "-c", 'tee -a "$0" | "$@"', w.log, "node", fsServer, w.root],
    stderr: "ignore",
  });
  const client = new Client({ name: "node-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const text = (r) => r.content.map((c) => c.text ?? "").join("");

test("an allowed read passes, escapes and writes are denied before the server, the list is filtered", async () => {
  const w = world();
  const client = await connect(w);
  try {
    const ok = await client.callTool({ name: "read_text_file", arguments: { path: path.join(w.data, "a.txt") } });
    assert.equal(ok.isError ?? false, false, text(ok));
    assert.match(text(ok), /hello/);
    for (const [name, args] of [
      ["read_text_file", { path: `${w.data}/../secret.txt` }],
      ["read_text_file", { path: `${w.data}/%2e%2e/secret.txt` }],
      ["read_text_file", { path: `${w.root}/datax/b.txt` }],
      ["write_file", { path: `${w.data}/planted.txt`, content: "x" }],
      ["move_file", { source: `${w.data}/a.txt`, destination: `${w.data}/c.txt` }],
    ]) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.match(text(r), /leasekit mcp-guard: (PERMISSION_DENIED|INVALID_REQUEST)/);
    }
    const listed = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(listed, ["read_text_file", "write_file"]);
  } finally {
    await client.close();
  }
  const saw = fs.readFileSync(w.log, "utf8");
  assert.match(saw, /initialize/);
  assert.doesNotMatch(saw, /secret|datax|planted|move_file/);
  assert.equal(fs.existsSync(path.join(w.data, "planted.txt")), false);
});

test("an approval token in callTool's _meta is removed before the server", async () => {
  const w = world();
  const client = await connect(w);
  const token = "appr-0123456789abcdef0123456789abcdef";
  try {
    const ok = await client.callTool({
      name: "read_text_file",
      arguments: { path: path.join(w.data, "a.txt") },
      _meta: { "leasekit/approvalToken": token },
    });
    assert.equal(ok.isError ?? false, false, text(ok));
    assert.match(text(ok), /hello/);
  } finally {
    await client.close();
  }
  const saw = fs.readFileSync(w.log, "utf8");
  assert.match(saw, /read_text_file/);
  assert.doesNotMatch(saw, /approvalToken|appr-0123/);
});
