// McpClient (the built package, ../../pkg) against small servers in this process, for what the MCP revisions
// leave to the client: a server of 2024-11-05 on Streamable HTTP (behind a gateway), an outputSchema in the
// OpenAPI 3.0 style (`nullable`), a task's `pollInterval` written as a double, a 2026-07-28 listing past its `ttlMs` (a result
// it refuses checked against a fresh one).
// Run: make pkg && node --test tests/mcp/revisions.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { loadPkg, rejectsWith } from "./helpers.mjs";

const { McpClient, McpHub } = await loadPkg();

/**
 * A server in this process: each POST's JSON-RPC request goes to `handle(msg)`, whose value is its result (a
 * string: the raw JSON of the result); a notification is accepted (202), a DELETE answered 200, a GET 405.
 * `seen` keeps each request's method and MCP-Protocol-Version header.
 */
async function startServer(handle, { session } = {}) {
  const seen = [];
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const msg = body ? JSON.parse(body) : null;
    seen.push({ http: req.method, method: msg?.method, version: req.headers["mcp-protocol-version"] });
    if (req.method !== "POST") return res.writeHead(req.method === "DELETE" ? 200 : 405), res.end();
    if (msg.id === undefined) return res.writeHead(202), res.end();
    const result = await handle(msg);
    const text = typeof result === "string" ? result : JSON.stringify(result);
    res.writeHead(200, { "content-type": "application/json", ...(session ? { "mcp-session-id": session } : {}) });
    res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${text}}`);
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  srv.unref();
  return { url: `http://127.0.0.1:${srv.address().port}/mcp`, seen, close: () => (srv.closeAllConnections(), srv.close()) };
}

const initResult = (protocolVersion, capabilities = { tools: {} }) => ({ protocolVersion, capabilities, serverInfo: { name: "raw", version: "1" } });

test("a server answering 2024-11-05 over Streamable HTTP (an older server behind a gateway) is spoken to, as the SDK's client does", async () => {
  const { url, seen, close } = await startServer(
    (m) => {
      if (m.method === "initialize") return initResult("2024-11-05");
      if (m.method === "tools/list") return { tools: [{ name: "echo", inputSchema: { type: "object" } }] };
      if (m.method === "tools/call") return { content: [{ type: "text", text: `hi ${m.params.arguments.who}` }] };
      return {};
    },
    { session: "S1" },
  );
  for (const transport of [undefined, "streamable-http"]) {
    const client = new McpClient(url, { transport, timeoutMs: 5000 });
    await client.connect();
    assert.equal(client.protocolVersion, "2024-11-05");
    assert.equal(client.transport, "streamable-http");
    assert.deepEqual((await client.listTools()).map((t) => t.name), ["echo"]);
    assert.equal((await client.callTool("echo", { who: "you" })).content[0].text, "hi you");
    await client.close();
  }
  // Every request after initialize carries the version the server answered, as the SDK's client sends it.
  const after = seen.filter((s) => s.method !== "initialize");
  assert.ok(after.length >= 6, JSON.stringify(seen));
  for (const s of after) assert.equal(s.version, "2024-11-05", JSON.stringify(s));
  assert.equal(seen.find((s) => s.method === "initialize").version, undefined);
  // A hub lists its tools too.
  const hub = new McpHub({ old: { url } });
  const listed = await hub.listTools();
  assert.deepEqual(listed.errors, []);
  assert.deepEqual(listed.tools.map((t) => t.name), ["echo"]);
  await hub.closeAll();
  close();
});

test("a version no revision has, or 2024-10-07, is still refused", async () => {
  for (const version of ["2024-10-07", "2099-01-01"]) {
    const { url, close } = await startServer((m) => (m.method === "initialize" ? initResult(version) : {}));
    const client = new McpClient(url, { timeoutMs: 5000 });
    const e = await rejectsWith(client.connect(), "UNSUPPORTED_PROTOCOL_VERSION");
    assert.equal(e.protocolVersion, version);
    assert.match(e.message, /toolwire speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05/);
    await client.close();
    close();
  }
});

test("an outputSchema's `nullable: true` (OpenAPI 3.0) lets null through, as the SDK's client (Ajv) does", async () => {
  const tool = {
    name: "get_issue",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { title: { type: "string" }, assignee: { type: "string", nullable: true }, state: { type: "string", nullable: true, enum: ["open"] } }, required: ["title", "assignee"] },
  };
  let structuredContent = { title: "Bug", assignee: null, state: "open" };
  const { url, close } = await startServer((m) => {
    if (m.method === "initialize") return initResult("2025-11-25");
    if (m.method === "tools/list") return { tools: [tool] };
    return { content: [], structuredContent };
  });
  const client = new McpClient(url, { timeoutMs: 5000 });
  await client.connect();
  await client.listTools();
  assert.deepEqual((await client.callTool("get_issue", {})).structuredContent, structuredContent);
  // Only null: another type still breaks it, and an enum without null still refuses null.
  structuredContent = { title: "Bug", assignee: 7, state: null };
  const e = await rejectsWith(client.callTool("get_issue", {}), "PROTOCOL");
  assert.deepEqual(e.violations.map((v) => v.path), ["/assignee", "/state"]);
  await client.close();
  close();
});

test("a task's pollInterval written as a double (300.0, 3e2) is kept, not replaced by the 1 s default", async () => {
  for (const written of ["300.0", "3e2"]) {
    const times = [];
    const task = (status) => `{"taskId":"T1","status":"${status}","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":null,"pollInterval":${written}}`;
    const { url, close } = await startServer((m) => {
      if (m.method === "initialize") return initResult("2025-11-25", { tools: {}, tasks: { requests: { tools: { call: {} } } } });
      if (m.method === "tools/list") return { tools: [{ name: "job", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }] };
      if (m.method === "tools/call") return times.push(Date.now()), `{"task":${task("working")}}`;
      if (m.method === "tasks/get") return times.push(Date.now()), task(times.length < 4 ? "working" : "completed");
      if (m.method === "tasks/result") return { content: [{ type: "text", text: "done" }] };
      return {};
    });
    const client = new McpClient(url, { timeoutMs: 10_000 });
    await client.connect();
    await client.listTools();
    assert.equal((await client.callTool("job", {})).content[0].text, "done");
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.equal(gaps.length, 3);
    for (const gap of gaps) assert.ok(gap >= 250 && gap < 800, `${written}: polled ${gaps.join(", ")} ms apart`);
    await client.close();
    close();
  }
});

test("2026-07-28: a result is checked against a listing past its ttlMs (0, the SDKs' default), then once against a fresh one", async () => {
  let version = 1;
  let ttlMs = 0;
  let wrong = false;
  const { url, seen, close } = await startServer((m) => {
    const done = (r) => ({ ...r, resultType: "complete" });
    const field = version === 1 ? "celsius" : "kelvin";
    if (m.method === "server/discover") return done({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, serverInfo: { name: "m", version: "1" } });
    if (m.method === "tools/list") return done({ tools: [{ name: "w", inputSchema: { type: "object" }, outputSchema: { type: "object", required: [field] } }], ttlMs });
    return done({ content: [], structuredContent: { [wrong ? "fahrenheit" : field]: 1 } });
  });
  const lists = () => seen.filter((s) => s.method === "tools/list").length;
  const client = new McpClient(url, { era: "modern", timeoutMs: 5000 });
  await client.connect();
  await client.listTools();
  assert.equal(client.toolsStale, true, "ttlMs 0: stale at once");
  // A right result is taken as it is, with no listing.
  assert.deepEqual((await client.callTool("w", {})).structuredContent, { celsius: 1 });
  assert.equal(lists(), 1);
  // A wrong one is refused: the fresh listing's schema refuses it too.
  wrong = true;
  let e = await rejectsWith(client.callTool("w", {}), "PROTOCOL");
  assert.match(e.message, /"celsius" is missing/);
  assert.equal(lists(), 2, "listed again once");
  // Redeployed: the tool's outputSchema changed, and the client was told nothing. Its result passes after one listing.
  wrong = false;
  version = 2;
  assert.deepEqual((await client.callTool("w", {})).structuredContent, { kelvin: 1 });
  assert.equal(lists(), 3, "listed again once");
  assert.equal(client.toolsStale, true, "the app's listing is still the old one");
  // The fresh listing is the client's: the next call is checked against it, with no listing.
  assert.deepEqual((await client.callTool("w", {})).structuredContent, { kelvin: 1 });
  assert.equal(lists(), 3);
  // A listing still fresh is checked, and not listed again.
  ttlMs = 60_000;
  await client.listTools();
  assert.equal(client.toolsStale, false);
  version = 1;
  e = await rejectsWith(client.callTool("w", {}), "PROTOCOL");
  assert.match(e.message, /"kelvin" is missing/);
  assert.equal(lists(), 4);
  await client.close();
  close();
});
