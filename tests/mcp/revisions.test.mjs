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
 * A server in this process: each POST's JSON-RPC request goes to `handle(msg, req)`, whose value is its result (a
 * string: the raw JSON of the result; `{refuse: [status, error]}`: that status and JSON-RPC error); a notification is
 * accepted (202), a DELETE answered 200, a GET 405. `session`: the Mcp-Session-Id sent (a function of the request).
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
    const result = await handle(msg, req);
    if (result?.refuse) {
      const [status, error] = result.refuse;
      return res.writeHead(status, { "content-type": "application/json" }), res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error }));
    }
    const text = typeof result === "string" ? result : JSON.stringify(result);
    const sid = typeof session === "function" ? session(msg) : session;
    res.writeHead(200, { "content-type": "application/json", ...(sid ? { "mcp-session-id": sid } : {}) });
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

test("era auto: a server redeployed to another revision while connected is followed by a new handshake, the request sent once more", async () => {
  const done = (r) => ({ ...r, resultType: "complete" });
  const tools = { tools: [{ name: "a", inputSchema: { type: "object" } }] };
  const discovered = done({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, serverInfo: { name: "m", version: "1" } });
  // The refusals of a request of the other revision: a 2025-11-25 server's (-32022 naming only 2025-11-25, or the MCP
  // SDK's 400 for a request without a session), a 2026-07-28 server's (-32020 for the headers it needs).
  const legacyRefusals = {
    m32022: [400, { code: -32022, message: "Unsupported protocol version", data: { supported: ["2025-11-25"], requested: "2026-07-28" } }],
    sdk400: [400, { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" }],
  };
  for (const [name, refusal] of Object.entries(legacyRefusals)) {
    let modern = true;
    const { url, seen, close } = await startServer(
      (m, req) => {
        if (modern) {
          if (m.method === "initialize") return { refuse: [400, { code: -32020, message: "Missing MCP-Protocol-Version header" }] };
          if (m.method === "server/discover") return discovered;
          return done(m.method === "tools/list" ? { ...tools, ttlMs: 60_000 } : { content: [{ type: "text", text: "modern" }] });
        }
        if (m.method === "initialize") return initResult("2025-11-25");
        if (!req.headers["mcp-session-id"]) return { refuse: refusal };
        return m.method === "tools/list" ? tools : { content: [{ type: "text", text: "legacy" }] };
      },
      { session: (m) => (!modern && m.method === "initialize" ? "S1" : undefined) },
    );
    const client = new McpClient(url, { timeoutMs: 5000 });
    await client.connect();
    assert.equal(client.protocolVersion, "2026-07-28", name);
    modern = false;
    assert.deepEqual((await client.callTool("a", {})).content, [{ type: "text", text: "legacy" }], name);
    assert.equal(client.protocolVersion, "2025-11-25", name);
    assert.deepEqual(seen.filter((s) => s.http === "POST").map((s) => s.method).slice(2), ["tools/call", "server/discover", "initialize", "notifications/initialized", "tools/call"], name);
    await client.close();
    // The same in a hub, which has no connect().
    modern = true;
    const hub = new McpHub({ x: { url, timeoutMs: 5000 } });
    await hub.listTools();
    modern = false;
    const { tools: listed, errors } = await hub.listTools();
    assert.deepEqual([errors, listed.length], [[], 1], name);
    await hub.closeAll();
    // A pinned era is reported, not switched.
    modern = true;
    const pinned = new McpClient(url, { era: "modern", timeoutMs: 5000 });
    await pinned.connect();
    modern = false;
    const before = seen.length;
    await assert.rejects(pinned.callTool("a", {}), name);
    assert.deepEqual(seen.slice(before).map((s) => s.method), ["tools/call"], name);
    await pinned.close();
    close();
  }

  // A 2025-11-25 session whose server speaks only 2026-07-28 now, refusing a request without its headers (-32020).
  let modern = false;
  const { url, seen, close } = await startServer(
    (m, req) => {
      if (!modern) return m.method === "initialize" ? initResult("2025-11-25") : m.method === "tools/list" ? tools : { content: [{ type: "text", text: "legacy" }] };
      if (!req.headers["mcp-method"]) return { refuse: [400, { code: -32020, message: "Missing Mcp-Method header" }] };
      if (m.method === "server/discover") return discovered;
      return done(m.method === "tools/list" ? { ...tools, ttlMs: 60_000 } : { content: [{ type: "text", text: "modern" }] });
    },
    { session: (m) => (!modern && m.method === "initialize" ? "S1" : undefined) },
  );
  const client = new McpClient(url, { timeoutMs: 5000 });
  await client.connect();
  modern = true;
  assert.deepEqual((await client.callTool("a", {})).content, [{ type: "text", text: "modern" }]);
  assert.equal(client.protocolVersion, "2026-07-28");
  await client.close();
  modern = false;
  const pinned = new McpClient(url, { era: "legacy", timeoutMs: 5000 });
  await pinned.connect();
  modern = true;
  const before = seen.length;
  const err = await rejectsWith(pinned.callTool("a", {}), "HTTP_STATUS");
  assert.equal(err.status, 400);
  assert.deepEqual(seen.slice(before).map((s) => s.method), ["tools/call"]);
  await pinned.close();
  close();
});

test("era auto, listen: a server redeployed from 2026-07-28 to 2025 is listened to on the GET stream, no more subscriptions/listen", async () => {
  const done = (r) => ({ ...r, resultType: "complete" });
  let modern = true;
  const seen = [];
  const open = new Set();
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const msg = body ? JSON.parse(body) : undefined;
    const sid = req.headers["mcp-session-id"];
    seen.push(`${modern ? "M" : "L"}:${req.method} ${msg?.method ?? ""}${sid ? "[S]" : ""}`);
    const json = (r, h = {}) => (res.writeHead(200, { "content-type": "application/json", ...h }), res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...r })));
    const refuse = (error) => (res.writeHead(400, { "content-type": "application/json" }), res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error })));
    const stream = () => (res.writeHead(200, { "content-type": "text/event-stream" }), res.write(": open\n\n"), open.add(res));
    if (modern) {
      if (req.method !== "POST") return res.writeHead(405), res.end();
      if (msg.method === "initialize") return refuse({ code: -32020, message: "Missing MCP-Protocol-Version header" });
      if (msg.method === "server/discover") return json({ result: done({ supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: true } }, serverInfo: { name: "m", version: "1" } }) });
      if (msg.method === "subscriptions/listen") return stream();
      return json({ result: done({ tools: [{ name: "a", inputSchema: { type: "object" } }], ttlMs: 60_000 }) });
    }
    // A 2025-11-25 server built on the MCP SDK: a request without a session refused, -32601 for a method it lacks.
    if (req.method === "DELETE") return res.writeHead(200), res.end();
    if (msg?.method !== "initialize" && !sid) return refuse({ code: -32000, message: "Bad Request: Mcp-Session-Id header is required" });
    if (req.method === "GET") return stream();
    if (msg.id === undefined) return res.writeHead(202), res.end();
    if (msg.method === "initialize") return json({ result: initResult("2025-11-25") }, { "mcp-session-id": "S1" });
    if (msg.method === "tools/call") return json({ result: { content: [{ type: "text", text: "legacy" }] } });
    return json({ error: { code: -32601, message: "Method not found" } });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const ends = [];
  const client = new McpClient(`http://127.0.0.1:${srv.address().port}/mcp`, { timeoutMs: 5000, listen: { onEnd: (e) => ends.push(e) } });
  await client.connect();
  const waitFor = async (what, ok) => {
    for (let t = 0; !ok(); t += 20) {
      if (t > 8000) throw new Error(`no ${what}: ${seen.join(" ; ")}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await waitFor("subscription", () => seen.includes("M:POST subscriptions/listen"));
  // Redeployed: the subscription ends with the old server.
  modern = false;
  for (const r of open) r.destroy();
  open.clear();
  assert.deepEqual((await client.callTool("a", {})).content, [{ type: "text", text: "legacy" }]);
  assert.equal(client.protocolVersion, "2025-11-25");
  await waitFor("GET stream", () => seen.includes("L:GET [S]"));
  assert.deepEqual(seen.filter((s) => s.startsWith("L:") && s.includes("subscriptions/listen")), []);
  assert.deepEqual(ends, []);
  await client.close();
  srv.closeAllConnections();
  srv.close();
});

test("era auto: a 2026-07-28 server's 400 that merely mentions a session is the call's error, the call sent once", async () => {
  const done = (r) => ({ ...r, resultType: "complete" });
  for (const error of [
    { code: -32600, message: "Invalid request: arguments.session_name must be a string" },
    { code: -32000, message: "Upstream session expired; re-authenticate with the bank" },
  ]) {
    let calls = 0;
    const { url, seen, close } = await startServer((m) => {
      if (m.method === "initialize") return { refuse: [400, { code: -32020, message: "Missing MCP-Protocol-Version header" }] };
      if (m.method === "server/discover") return done({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, serverInfo: { name: "m", version: "1" } });
      if (m.method === "tools/list") return done({ tools: [{ name: "transfer", inputSchema: { type: "object" } }], ttlMs: 60_000 });
      calls++;
      return { refuse: [400, error] };
    });
    const client = new McpClient(url, { timeoutMs: 5000 });
    await client.connect();
    const before = seen.length;
    const e = await rejectsWith(client.callTool("transfer", { amount: 100 }), "JSONRPC_ERROR");
    assert.equal(e.rpcCode, error.code);
    assert.deepEqual([seen.slice(before).map((s) => s.method), calls], [["tools/call"], 1], error.message);
    assert.equal(client.protocolVersion, "2026-07-28");
    await client.close();
    close();
  }
});

test("2026-07-28: an onRequest answer that is no ElicitResult or CreateMessageResult fails the call, INPUT_REQUIRED, is not sent, and is not on console.error", async () => {
  const done = (r) => ({ ...r, resultType: "complete" });
  const asks = {
    q: { method: "elicitation/create", params: { mode: "form", message: "n?", requestedSchema: { type: "object", properties: { n: { type: "number" } } } } },
    s: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } },
  };
  const { url, seen, close } = await startServer((m) => {
    if (m.method === "server/discover") return done({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, serverInfo: { name: "m", version: "1" } });
    if (!m.params.inputResponses) return { resultType: "input_required", inputRequests: asks };
    return done({ content: [{ type: "text", text: JSON.stringify(m.params.inputResponses) }] });
  });
  const good = { q: { action: "accept", content: { n: 1 } }, s: { role: "assistant", model: "m", content: { type: "text", text: "x" } } };
  for (const [bad, answers, refused] of [
    ["q", { ...good, q: { action: "maybe", content: { nested: { a: 1 } } } }, "elicitation"],
    ["s", { ...good, s: { foo: 1 } }, "sampling"],
  ]) {
    // The call's rejection tells the app: nothing on console.error.
    const consoleError = console.error;
    const reported = [];
    console.error = (...args) => reported.push(args);
    const client = new McpClient(url, { era: "modern", timeoutMs: 5000, capabilities: { elicitation: {}, sampling: {} }, onRequest: ({ method }) => answers[method === "elicitation/create" ? "q" : "s"] });
    try {
      await client.connect();
      const before = seen.length;
      const err = await rejectsWith(client.callTool("w", {}), "INPUT_REQUIRED");
      assert.match(err.message, new RegExp(`not sent: Invalid ${refused} result: `), err.message);
      assert.deepEqual(err.answer, answers[bad]);
      assert.equal(seen.length - before, 1, "no retry was sent");
      assert.deepEqual(reported, []);
    } finally {
      console.error = consoleError;
      await client.close();
    }
  }
  const client = new McpClient(url, { era: "modern", timeoutMs: 5000, capabilities: { elicitation: {}, sampling: {} }, onRequest: ({ method }) => good[method === "elicitation/create" ? "q" : "s"] });
  await client.connect();
  assert.deepEqual(JSON.parse((await client.callTool("w", {})).content[0].text), good);
  await client.close();
  close();
});
