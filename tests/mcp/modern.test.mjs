// McpClient and McpHub against a real server of MCP 2026-07-28: the official TypeScript SDK v2
// (@modelcontextprotocol/server, tests/servers/modern.mjs), 2026-07-28 only (ERA=modern) and both eras (dual).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, CONFIRM_STATE } from "../servers/modern.mjs";
import { loadPkg, rejectsWith, waitFor, within } from "./helpers.mjs";

let t, modern, dual;
before(async () => {
  t = await loadPkg();
  modern = await startServer({ era: "modern" });
  dual = await startServer({ era: "dual" });
});
after(async () => {
  await modern?.close();
  await dual?.close();
});

const mcpHeaders = (r) => Object.fromEntries(Object.entries(r.headers ?? {}).filter(([k]) => k.startsWith("mcp-")));

test("auto (the default): initialize refused, then server/discover and 2026-07-28 on every request", async () => {
  const before = modern.stats().requests.length;
  const c = new t.McpClient(modern.url);
  await c.connect();
  assert.equal(c.protocolVersion, "2026-07-28");
  assert.equal(c.serverInfo?.name, "toolwire-modern");
  assert.match(c.instructions ?? "", /2026-07-28/);
  assert.ok(c.capabilities?.tools, "capabilities from server/discover");
  assert.equal(c.sessionId, undefined);
  const tools = await c.listTools();
  const names = tools.map((x) => x.name);
  assert.ok(names.includes("echo") && names.includes("regional"), names.join());
  assert.ok(!names.includes("bad_header"), "a tool with a number-typed x-mcp-header is left out");
  assert.deepEqual(c.droppedTools.map((d) => d.name), ["bad_header"]);
  assert.match(c.droppedTools[0].reason, /not a string, an integer or a boolean/);
  const r = await c.callTool("echo", { message: "hé" });
  assert.equal(r.content[0].text, "Echo: hé");
  const seen = modern.stats().requests.slice(before);
  assert.deepEqual(seen.map((x) => x.method), ["initialize", "server/discover", "tools/list", "tools/call"]);
  assert.equal(seen[0].status, 400, "the SDK refuses initialize");
  for (const x of seen.slice(1)) {
    assert.equal(x.status, 200, JSON.stringify(x));
    assert.equal(mcpHeaders(x)["mcp-protocol-version"], "2026-07-28");
    assert.equal(mcpHeaders(x)["mcp-method"], x.method);
  }
  assert.equal(mcpHeaders(seen[3])["mcp-name"], "echo");
  await c.close();
});

test("marked arguments go in Mcp-Param-* headers, encoded as the revision says; a bad one is refused first", async () => {
  const c = new t.McpClient(modern.url, { era: "modern" });
  await c.connect();
  await c.listTools();
  const r = await c.callTool("regional", { region: "Zürich", priority: 3, verbose: false, note: "not a header" });
  const got = JSON.parse(r.content[0].text);
  assert.equal(got["mcp-param-region"], "=?base64?WsO8cmljaA==?=");
  assert.equal(got["mcp-param-priority"], "3");
  assert.equal(got["mcp-param-verbose"], "false");
  assert.equal(got["mcp-name"], "regional");
  assert.equal(Object.keys(got).filter((k) => k.startsWith("mcp-param-")).length, 3, JSON.stringify(got));
  const e = await rejectsWith(c.callTool("regional", { region: { a: 1 }, priority: 1 }), "INVALID_ARGUMENTS");
  assert.equal(e.tool, "regional");
  // A client that never listed the tools: the server refuses the call for its headers (-32020), the client
  // lists the tools and sends it again with them.
  const fresh = new t.McpClient(modern.url, { era: "modern" });
  await fresh.connect();
  const again = JSON.parse((await fresh.callTool("regional", { region: "eu", priority: 2 })).content[0].text);
  assert.equal(again["mcp-param-region"], "eu");
  await c.close();
  await fresh.close();
});

test("input_required is answered by onRequest and the call sent again with the server's requestState", async () => {
  const asked = [];
  const c = new t.McpClient(modern.url, {
    era: "modern",
    capabilities: { elicitation: {} },
    onRequest: ({ method, params }, { related }) => {
      asked.push([method, params.message, related?.method, related?.tool]);
      return { action: "accept", content: { ok: true } };
    },
  });
  await c.connect();
  const r = await c.callTool("confirm", {});
  assert.equal(r.content[0].text, "confirmed: true");
  assert.deepEqual(asked, [["elicitation/create", "Proceed?", "tools/call", "confirm"]], "related: the round that asked");
  const rounds = modern.stats().confirm.slice(-2);
  assert.equal(rounds[0].round, "ask");
  assert.equal(rounds[1].round, "answer");
  assert.equal(rounds[1].requestState, CONFIRM_STATE);
  await c.close();

  // Without a handler: INPUT_REQUIRED, with what was asked.
  const bare = new t.McpClient(modern.url, { era: "modern", capabilities: { elicitation: {} } });
  await bare.connect();
  const e = await rejectsWith(bare.callTool("confirm", {}), "INPUT_REQUIRED");
  assert.equal(e.inputRequests.confirm.method, "elicitation/create");
  await bare.close();
});

test("progress arrives on the call's stream; an abort closes the stream, which cancels the call", async () => {
  const c = new t.McpClient(modern.url, { era: "modern" });
  await c.connect();
  const progress = [];
  const r = await c.callTool("progress", { steps: 3 }, { onProgress: (p) => progress.push(p.progress) });
  assert.equal(r.content[0].text, "done");
  assert.deepEqual(progress, [1, 2, 3]);

  const posts = modern.stats().http.POST;
  const ac = new AbortController();
  const call = c.callTool("slow", { ms: 20_000 }, { signal: ac.signal });
  await waitFor(() => modern.stats().slow.started > 0 && modern.stats().http.POST > posts);
  ac.abort();
  await rejectsWith(call, "ABORTED");
  await waitFor(() => modern.stats().slow.cancelled > 0, { timeoutMs: 5000 });
  assert.equal(modern.stats().http.POST, posts + 1, "no notifications/cancelled: closing the stream is the cancellation");
  await rejectsWith(c.callTool("slow", { ms: 20_000 }, { timeoutMs: 300 }), "TIMEOUT");
  await waitFor(() => modern.stats().slow.cancelled > 1, { timeoutMs: 5000 });
  await c.close();
});

test("listen() subscribes (subscriptions/listen) and hears a changed tool list; Mcp-Name for resources and prompts", async () => {
  let changed = 0;
  const c = new t.McpClient(modern.url, { era: "modern", onToolListChanged: () => changed++ });
  await c.connect();
  const listening = c.listen();
  await waitFor(() => modern.stats().requests.some((x) => x.method === "subscriptions/listen"));
  await new Promise((r) => setTimeout(r, 100));
  await c.callTool("add_tool", {});
  await waitFor(() => changed > 0, { timeoutMs: 5000 });
  assert.ok((await c.listTools()).some((x) => x.name === "added"));
  const read = await c.request("resources/read", { uri: "test://hello" });
  assert.equal(read.contents[0].text, "hello");
  const prompt = await c.request("prompts/get", { name: "greet", arguments: { name: "Ada" } });
  assert.match(JSON.stringify(prompt.messages), /Hello, Ada!/);
  const seen = modern.stats().requests;
  assert.equal(mcpHeaders(seen.findLast((x) => x.method === "resources/read"))["mcp-name"], "test://hello");
  assert.equal(mcpHeaders(seen.findLast((x) => x.method === "prompts/get"))["mcp-name"], "greet");
  await c.close();
  assert.equal(await within(3000, listening, "listen() after close()"), true);
});

test("a server of both eras: auto speaks 2025-11-25 with it (initialize is answered), modern 2026-07-28", async () => {
  const legacy = new t.McpClient(dual.url);
  await legacy.connect();
  assert.equal(legacy.protocolVersion, "2025-11-25");
  assert.equal((await legacy.callTool("echo", { message: "a" })).content[0].text, "Echo: a");
  await legacy.close();
  const m = new t.McpClient(dual.url, { era: "modern" });
  await m.connect();
  assert.equal(m.protocolVersion, "2026-07-28");
  assert.equal((await m.callTool("echo", { message: "b" })).content[0].text, "Echo: b");
  await m.close();
  // legacy only: a 2026-07-28-only server is a typed refusal.
  const old = new t.McpClient(modern.url, { era: "legacy" });
  const e = await rejectsWith(old.connect(), "UNSUPPORTED_PROTOCOL_VERSION");
  assert.equal(e.laterRevision, true);
  await rejectsWith(Promise.resolve().then(() => new t.McpClient(modern.url, { era: "2026" })), "INVALID_OPTIONS");
  await rejectsWith(Promise.resolve().then(() => new t.McpClient(modern.url, { logLevel: "loud" })), "INVALID_OPTIONS");
  await rejectsWith(Promise.resolve().then(() => new t.McpClient(modern.url, { clientInfo: { name: "no version" } })), "INVALID_OPTIONS");
});

test("McpHub over a 2026-07-28 server and a dual one: tools of both, calls routed", async () => {
  const hub = new t.McpHub({ m: { url: modern.url }, d: { url: dual.url, era: "modern" } });
  const { tools, errors, dropped } = await hub.listTools();
  assert.deepEqual(errors, []);
  assert.deepEqual(dropped.map((d) => `${d.server}/${d.name}`), ["m/bad_header", "d/bad_header"]);
  assert.match(dropped[0].reason, /x-mcp-header "X"/);
  assert.ok(tools.some((x) => x.serverName === "m" && x.name === "regional"));
  assert.ok(!tools.some((x) => x.name === "bad_header"));
  const providerTools = await hub.tools("openai");
  const name = providerTools.map((x) => x.function.name).find((n) => n.startsWith("mcp__d__") && n.endsWith("echo"));
  const { text, isError } = await hub.callTool(name, { message: "via hub" });
  assert.equal(isError, false);
  assert.equal(text, "Echo: via hub");
  await hub.closeAll();
});

test("a listing's ttlMs: McpHub asks a server again once it has passed, McpClient says it is stale", async () => {
  const cached = await startServer({ era: "modern", toolsTtlMs: 1500 });
  const zero = await startServer({ era: "modern" });
  try {
    const lists = (s) => s.stats().requests.filter((x) => x.method === "tools/list").length;
    const hub = new t.McpHub({ fresh: { url: cached.url }, zero: { url: zero.url } });
    await hub.listTools();
    assert.equal(lists(cached), 1);
    await hub.tools("openai");
    await hub.tools("gemini");
    assert.equal(lists(cached), 1, "within 1,500 ms the listing is fresh: not asked again");
    assert.equal(lists(zero), 3, "ttlMs 0 (the SDK's default): asked before every conversion");
    await new Promise((r) => setTimeout(r, 1600));
    const converted = await hub.tools("openai");
    assert.equal(lists(cached), 2, "asked again once 1,500 ms have passed");
    assert.ok(converted.some((x) => x.function.name === "mcp__fresh__echo"));

    const c = new t.McpClient(cached.url);
    await c.connect();
    assert.equal(c.toolsStale, false, "nothing listed, nothing stale");
    await c.listTools();
    assert.equal(c.toolsStale, false);
    assert.equal(await waitFor(() => c.toolsStale, { timeoutMs: 3000 }), true, "stale once 1,500 ms have passed");
    await c.close();
    await hub.closeAll();
  } finally {
    await cached.close();
    await zero.close();
  }
});

test("a server that fails a refresh keeps its tools and is not asked again at once; listTools() asks it", async () => {
  const gone = await startServer({ era: "modern" });
  const posts = [];
  const counting = (url, init) => {
    posts.push(JSON.parse(init.body ?? "null")?.method);
    return fetch(url, init);
  };
  const hub = new t.McpHub({ gone: { url: gone.url, fetch: counting } });
  await hub.listTools();
  await gone.close();
  const lists = () => posts.filter((m) => m === "tools/list").length;
  const before = lists();
  const first = await within(10_000, hub.tools("openai"), "the first conversion");
  assert.equal(lists(), before + 1, "the listing (ttlMs 0) had expired: asked, and it failed");
  assert.ok(first.some((x) => x.function.name === "mcp__gone__echo"), "the previous tools are kept");
  const second = await within(10_000, hub.tools("openai"), "the second conversion");
  assert.equal(lists(), before + 1, "not asked again at once");
  assert.deepEqual(second.map((x) => x.function.name), first.map((x) => x.function.name));
  const { errors } = await hub.listTools();
  assert.equal(lists(), before + 2, "listTools() asks at once");
  assert.equal(errors[0]?.server, "gone");
  await hub.closeAll();
});

test("resources/subscribe and unsubscribe by name go in listen()'s subscriptions/listen filter: that resource's updates come, then none", async () => {
  const [counter, hello] = ["test://counter", "test://hello"];
  const heard = [];
  let changed = 0;
  const c = new t.McpClient(modern.url, { era: "modern", onToolListChanged: () => changed++, onNotification: (n) => heard.push(n) });
  await c.connect();
  const from = modern.stats().listens.length;
  const filters = () => modern.stats().listens.slice(from).map((f) => f?.resourceSubscriptions ?? []);
  const acked = (uris) =>
    heard.some((n) => n.method === "notifications/subscriptions/acknowledged" && JSON.stringify(n.params.notifications?.resourceSubscriptions ?? []) === JSON.stringify(uris));
  const updates = (uri) => heard.filter((n) => n.method === "notifications/resources/updated" && n.params.uri === uri).length;
  const listening = c.listen();
  assert.ok(await waitFor(() => acked([]), { timeoutMs: 5000 }), "the first subscription, for no resource");
  assert.deepEqual(await c.request("resources/subscribe", { uri: counter }), {});
  assert.ok(await waitFor(() => acked([counter]), { timeoutMs: 5000 }), "made again with the resource, which the server honors");
  assert.deepEqual(filters(), [[], [counter]]);
  await c.callTool("touch", { uri: counter });
  assert.ok(await waitFor(() => updates(counter) === 1, { timeoutMs: 5000 }), "the resource's update comes");
  assert.equal((await c.request("resources/read", { uri: counter })).contents[0].text, "1");
  await c.request("resources/subscribe", { uri: hello });
  await c.request("resources/unsubscribe", { uri: counter });
  assert.ok(await waitFor(() => acked([hello]), { timeoutMs: 5000 }));
  // A reopening announces the resources kept across a change as updated: counted from here.
  const [counted, helloed] = [updates(counter), updates(hello)];
  await c.callTool("touch", { uri: counter });
  await c.callTool("touch", { uri: hello });
  assert.ok(await waitFor(() => updates(hello) === helloed + 1, { timeoutMs: 5000 }), "the other resource's update comes");
  assert.equal(updates(counter), counted, "none for the resource unsubscribed from (it would have come first)");
  assert.deepEqual(filters().at(-1), [hello]);
  assert.equal(changed, 0, "no changed tool list made up for the reopenings the subscriptions asked for");
  const sent = modern.stats().requests.map((x) => x.method);
  assert.ok(!sent.includes("resources/subscribe") && !sent.includes("resources/unsubscribe"), "2026-07-28 has neither: not sent");
  await c.close();
  assert.equal(await within(3000, listening, "listen() after close()"), true);
});

test("a subscription made while listen() runs loses no update: one published just before is heard, as one or as the reopening's announcement", async () => {
  const [counter, hello] = ["test://counter", "test://hello"];
  for (let i = 0; i < 3; i++) {
    const heard = [];
    const c = new t.McpClient(modern.url, { era: "modern", onNotification: (n) => heard.push(n) });
    await c.connect();
    const acked = (uris) =>
      heard.some((n) => n.method === "notifications/subscriptions/acknowledged" && JSON.stringify(n.params.notifications?.resourceSubscriptions ?? []) === JSON.stringify(uris));
    await c.request("resources/subscribe", { uri: counter });
    const listening = c.listen();
    assert.ok(await waitFor(() => acked([counter]), { timeoutMs: 5000 }));
    await c.callTool("touch", { uri: counter });
    await c.request("resources/subscribe", { uri: hello });
    assert.ok(await waitFor(() => acked([counter, hello]), { timeoutMs: 5000 }));
    assert.ok(heard.some((n) => n.method === "notifications/resources/updated" && n.params.uri === counter), `run ${i}: the counter's update`);
    // An aborted signal changes nothing.
    await rejectsWith(c.request("resources/unsubscribe", { uri: counter }, { signal: AbortSignal.abort() }), "ABORTED");
    await rejectsWith(c.request("resources/subscribe", { uri: "test://other" }, { signal: AbortSignal.abort() }), "ABORTED");
    await c.close();
    assert.equal(await within(3000, listening, "listen() after close()"), true);
    assert.deepEqual(modern.stats().listens.at(-1)?.resourceSubscriptions, [counter, hello], "no reopening for the aborted changes");
  }
});

test("ping and logging/setLevel, which 2026-07-28 does not have, are refused unsent", async () => {
  const c = new t.McpClient(modern.url, { era: "modern" });
  await c.connect();
  const before = modern.stats().requests.length;
  const ping = await rejectsWith(c.request("ping"), "CAPABILITY_NOT_NEGOTIATED");
  assert.match(ping.message, /^ping is no request of MCP 2026-07-28, which the server speaks, so it was not sent: the revision has no ping/);
  const level = await rejectsWith(c.request("logging/setLevel", { level: "info" }), "CAPABILITY_NOT_NEGOTIATED");
  assert.match(level.message, /the log level goes in each request's _meta in that revision: give the client's logLevel option/);
  const noUri = await rejectsWith(c.request("resources/subscribe", {}), "INVALID_INPUT");
  assert.match(noUri.message, /params\.uri must be a string/);
  assert.equal(modern.stats().requests.length, before, "nothing sent");
  await c.close();
});

test("a subscription whose filter the server refuses while listen() runs is forgotten and told; listen() goes on", async () => {
  const { createServer } = await import("node:http");
  const filters = [];
  const srv = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const msg = JSON.parse(Buffer.concat(chunks).toString() || "null");
    const json = (o) => { res.writeHead(200, { "content-type": "application/json" }); res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...o })); };
    if (msg?.method === "server/discover") {
      return json({ result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { resources: { subscribe: true } }, _meta: { "io.modelcontextprotocol/serverInfo": { name: "m", version: "1" } } } });
    }
    if (msg?.method === "subscriptions/listen") {
      const f = msg.params.notifications;
      filters.push(f.resourceSubscriptions ?? []);
      if ((f.resourceSubscriptions ?? []).includes("test://missing")) return json({ error: { code: -32002, message: "Resource not found: test://missing" } });
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: f, _meta: { "io.modelcontextprotocol/subscriptionId": msg.id } } })}\n\n`);
      return;
    }
    if (msg?.id !== undefined) return json({ result: {} });
    res.writeHead(202).end();
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const errors = [];
  const error = console.error;
  console.error = (...a) => errors.push(a);
  try {
    const c = new t.McpClient(`http://127.0.0.1:${srv.address().port}/mcp`, { era: "modern" });
    await c.connect();
    await c.request("resources/subscribe", { uri: "test://a" });
    let settled = false;
    const listening = c.listen().finally(() => (settled = true));
    assert.ok(await waitFor(() => filters.length === 1, { timeoutMs: 5000 }));
    await c.request("resources/subscribe", { uri: "test://missing" });
    assert.ok(await waitFor(() => filters.length === 3, { timeoutMs: 5000 }), JSON.stringify(filters));
    assert.deepEqual(filters, [["test://a"], ["test://a", "test://missing"], ["test://a"]]);
    assert.equal(errors.length, 1);
    const e = errors[0].find((x) => x?.lost);
    assert.deepEqual(e.lost.map((l) => l.uri), ["test://missing"]);
    assert.match(e.lost[0].message, /Resource not found/);
    assert.equal(settled, false, "listen() goes on");
    await c.close();
    assert.equal(await within(3000, listening, "listen() after close()"), true);
  } finally {
    console.error = error;
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});
