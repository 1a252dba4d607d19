// McpClient (the built package, ../../pkg) against a tiny hostile server in this process: answers of the wrong
// shape, error messages of any size and content, bodies that break off or never end, large bodies (wasm memory).
// Run: make pkg && node --test tests/mcp/hostile-answers.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { loadPkg, rejectsWith, waitFor, within } from "./helpers.mjs";

const { McpClient, McpHub, flattenContent } = await loadPkg();
const raw = createRequire(import.meta.url)("../../pkg/node/toolwire.js");
const MB = 1 << 20;

/**
 * A server in this process: a POST's JSON-RPC request goes to `handle(msg, req, res, json)` (`json(o)` answers it
 * with o as a JSON body); a notification is accepted (202), a DELETE answered 200, another method 405.
 */
async function startServer(handle, notified = () => {}) {
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const msg = body ? JSON.parse(body) : null;
    if (req.method !== "POST") return res.writeHead(req.method === "DELETE" ? 200 : 405), res.end();
    if (msg.id === undefined) return notified(msg), res.writeHead(202), res.end();
    const json = (o) => (res.writeHead(200, { "content-type": "application/json" }), res.end(JSON.stringify(o)));
    return handle(msg, req, res, json);
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  srv.unref();
  return { url: `http://127.0.0.1:${srv.address().port}/mcp`, close: () => srv.close() };
}

/**
 * A server with a healthy handshake and tools/list; `onCall(msg, req, res, json)` answers tools/call, and
 * `notified(msg)` sees the client's notifications.
 */
function serve(onCall, notified) {
  return startServer((msg, req, res, json) => {
    if (msg.method === "initialize") {
      return json({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } });
    }
    if (msg.method === "tools/list") return json({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "echo", inputSchema: { type: "object" } }, "junk"] } });
    return onCall(msg, req, res, json);
  }, notified);
}

// First, while the module's memory is as small as it gets: it only grows.
test("a body refused by its Content-Length grows no wasm memory; one refused as it comes, about its limit", async () => {
  const big = 40 * MB;
  const limit = 8 * MB;
  const { url, close } = await serve(async (msg, req, res) => {
    const chunked = msg.params.name === "chunked";
    res.writeHead(200, { "content-type": "application/json", ...(chunked ? {} : { "content-length": String(big) }) });
    const chunk = "x".repeat(MB);
    for (let i = 0; i < big / MB && !res.destroyed; i++) if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
    if (!res.destroyed) res.end();
  });
  const client = new McpClient(url, { maxResponseBytes: limit, timeoutMs: 30_000 });
  await client.connect();
  const before = raw.__wasmMemoryBytes();
  const e = await rejectsWith(client.callTool("sized", {}), "LIMIT_EXCEEDED");
  assert.equal(e.contentLength, big);
  assert.match(e.message, /refused before reading it/);
  const grown = raw.__wasmMemoryBytes() - before;
  assert.ok(grown <= MB, `refused by its length, yet wasm memory grew by ${grown} bytes`);
  await rejectsWith(client.callTool("chunked", {}), "LIMIT_EXCEEDED");
  const grownChunked = raw.__wasmMemoryBytes() - before;
  // A buffer growing by doubling left 4 times the limit behind.
  assert.ok(grownChunked <= 1.5 * limit, `refused at ${limit} bytes, yet wasm memory grew by ${grownChunked} bytes`);
  await client.close();
  close();
});

test("a tools/call result that is no CallToolResult is PROTOCOL with the result, from the client and the hub", async () => {
  for (const result of [null, "hello", { content: "hello" }]) {
    const { url, close } = await serve((msg, req, res, json) => json({ jsonrpc: "2.0", id: msg.id, result }));
    const client = new McpClient(url);
    await client.connect();
    const e = await rejectsWith(client.callTool("echo", {}), "PROTOCOL");
    assert.deepEqual(e.result, result);
    assert.match(e.message, /the result is not a CallToolResult/);
    const hub = new McpHub({ s: { url } });
    await hub.tools("openai");
    await rejectsWith(hub.callTool("mcp__s__echo", {}), "PROTOCOL");
    // The listing's entry that is no tool is left out, with its index; the tool is kept.
    assert.deepEqual(hub.droppedTools.map((d) => [d.server, d.index]), [["s", 1]]);
    await client.close();
    await hub.closeAll();
    close();
  }
  assert.throws(() => flattenContent("hello"), { code: "INVALID_INPUT" });
});

test("a listed tool whose name is cut inside a character is left out, not renamed to U+FFFD", async () => {
  // JSON.stringify writes a lone half as its escape (a Node server's name cut inside an emoji): the SDK's client
  // keeps the half in a JS string; toolwire's UTF-8 cannot, and the name read with U+FFFD is one the server has not.
  const tools = [{ name: "cut\ud83d", inputSchema: { type: "object" } }, { name: "ok", description: "x\ud83d", inputSchema: { type: "object" } }, { name: "cut\ud83e", inputSchema: { type: "object" } }];
  const { url, close } = await answering({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "cut", version: "1" } }, { "tools/list": { tools } });
  const client = new McpClient(url);
  await client.connect();
  const listed = await client.listTools();
  assert.deepEqual(listed.map((t) => [t.name, t.description]), [["ok", "x\ufffd"]]);
  assert.deepEqual(client.droppedTools.map((d) => [d.name, d.index]), [["cut\ufffd", 0], ["cut\ufffd", 2]]);
  assert.match(client.droppedTools[0].reason, /lone UTF-16 surrogate/);
  const hub = new McpHub({ s: { url } });
  assert.deepEqual((await hub.tools("openai")).map((t) => t.function.name), ["mcp__s__ok"]);
  assert.deepEqual(hub.droppedTools.map((d) => [d.server, d.index]), [["s", 0], ["s", 2]]);
  // Asked for by name, the listing is the server's answer as read (each lone half U+FFFD), from the client and the hub.
  for (const listing of [await client.request("tools/list"), await hub.request("s", "tools/list")]) {
    assert.deepEqual(listing.tools.map((t) => t.name), ["cut\ufffd", "ok", "cut\ufffd"]);
  }
  await client.close();
  await hub.closeAll();
  close();
});

test("a server's error message is quoted escaped and cut; rpcError has it whole", async () => {
  const message = "ok\u001b[2J\u0000\u202eevil" + "E".repeat(10 * MB);
  const { url, close } = await serve((msg, req, res, json) => json({ jsonrpc: "2.0", id: msg.id, error: { code: -32000, message } }));
  const client = new McpClient(url);
  await client.connect();
  const e = await rejectsWith(client.callTool("echo", {}), "JSONRPC_ERROR");
  assert.ok(e.message.length < 1200, `message of ${e.message.length} characters`);
  assert.ok(e.message.startsWith('tools/call: the server answered error -32000: "ok\\u001b[2J\\u0000\\u202eevilEEE'), e.message.slice(0, 100));
  assert.ok(!/[\u0000\u001b\u202e]/.test(e.message));
  assert.equal(e.rpcError.message, message);
  assert.equal(e.rpcCode, -32000);
  await client.close();
  close();
});

test("what broke is said: a body cut after its headers, an error body that never ends, a malformed error", async () => {
  const { url, close } = await serve((msg, req, res, json) => {
    const name = msg.params.name;
    if (name === "cut") {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"jsonrpc":"2.0","id":');
      setTimeout(() => req.socket.destroy(), 50);
    } else if (name === "endless") {
      res.writeHead(500, { "content-type": "text/plain" });
      res.write("Internal error, details follow...");
    } else if (name === "malformed") {
      json({ jsonrpc: "2.0", id: msg.id, error: { code: "E_TOOL", message: { text: "disk full" } } });
    } else {
      json({ jsonrpc: "2.0", id: msg.id });
    }
  });
  const client = new McpClient(url, { timeoutMs: 10_000 });
  await client.connect();
  let e = await rejectsWith(client.callTool("cut", {}), "NETWORK");
  assert.match(e.message, /the connection dropped in the middle of the response/);
  assert.doesNotMatch(e.message, /unreachable|no HTTP response/);
  assert.equal(e.midResponse, true);
  const t0 = Date.now();
  e = await rejectsWith(client.callTool("endless", {}), "HTTP_STATUS");
  assert.ok(Date.now() - t0 < 5_000, `took ${Date.now() - t0} ms`);
  assert.equal(e.status, 500);
  assert.equal(e.bodyPreview, "Internal error, details follow...");
  e = await rejectsWith(client.callTool("malformed", {}), "PROTOCOL");
  assert.deepEqual(e.invalidRpcError, { code: "E_TOOL", message: { text: "disk full" } });
  e = await rejectsWith(client.callTool("neither", {}), "PROTOCOL");
  assert.match(e.message, /has neither a result nor an error/);
  client.close();
  close();
});

test("a response that another call's stream or JSON batch brings reaches its call at once, as the SDK's client takes it", async () => {
  // Call "b" is answered on the stream of the call made after it ("a"): an event stream, or a JSON batch.
  let held = [];
  let b;
  const { url, close } = await serve((msg, req, res, json) => {
    if (msg.params.name === "b") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": b's own stream, left open\n\n");
      held.push(res);
      b = msg.id;
      return;
    }
    const other = { jsonrpc: "2.0", id: b, result: { content: [{ type: "text", text: `b on ${msg.params.name}'s` }] } };
    const own = { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: msg.params.name }] } };
    if (msg.params.name === "a-json") return json([other, own]);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify(other)}\n\ndata: ${JSON.stringify(own)}\n\n`);
  });
  const client = new McpClient(url, { timeoutMs: 10_000 });
  await client.connect();
  for (const a of ["a-sse", "a-json"]) {
    b = undefined;
    const t0 = Date.now();
    const pending = client.callTool("b", {});
    while (b === undefined) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await client.callTool(a, {})).content[0].text, a);
    assert.equal((await pending).content[0].text, `b on ${a}'s`);
    assert.ok(Date.now() - t0 < 5_000, `${a}: took ${Date.now() - t0} ms`);
  }
  for (const res of held) res.end();
  await client.close();
  close();
});

test("a call answered on another call's stream still sends the answers its own stream's requests wait for", async () => {
  // Call "a"'s event stream (or JSON batch) asks the client (elicitation/create); once onRequest is asked, the server
  // writes a's response on call "b"'s stream, and onRequest answers later. a's own stream is closed, and the answer
  // reaches the server before "a" ends with that response.
  let b, bStream, aClosed;
  const answers = [];
  let asked = () => {};
  const { url, close } = await serve((msg, req, res, json) => {
    if (msg.method === undefined) return answers.push(msg), res.writeHead(202).end();
    const name = msg.params.name;
    if (name === "b") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": b's own stream, left open\n\n");
      [b, bStream] = [msg.id, res];
      return;
    }
    const ask = { jsonrpc: "2.0", id: `ask-${name}`, method: "elicitation/create", params: { message: "name?", requestedSchema: { type: "object", properties: {} } } };
    const own = { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: `${name} on b's` }] } };
    asked = () => bStream.write(`data: ${JSON.stringify(own)}\n\n`);
    aClosed = false;
    res.on("close", () => (aClosed = true));
    if (name === "a-json") return json([ask]);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify(ask)}\n\n`);
  });
  const onRequest = async () => {
    asked();
    await new Promise((r) => setTimeout(r, 300));
    return { action: "accept", content: {} };
  };
  const client = new McpClient(url, { timeoutMs: 10_000, capabilities: { elicitation: {} }, onRequest });
  await client.connect();
  for (const a of ["a-sse", "a-json"]) {
    b = undefined;
    const pending = client.callTool("b", {});
    while (b === undefined) await new Promise((r) => setTimeout(r, 5));
    const result = await within(5_000, client.callTool(a, {}), a);
    assert.equal(result.content[0].text, `${a} on b's`);
    assert.deepEqual(answers.map((m) => [m.id, m.result]), [[`ask-${a}`, { action: "accept", content: {} }]], `${a}: the answer reached the server first`);
    assert.ok(await waitFor(() => aClosed), `${a}: its own stream was closed`);
    answers.length = 0;
    bStream.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: b, result: { content: [{ type: "text", text: "b" }] } })}\n\n`);
    assert.equal((await pending).content[0].text, "b");
  }
  await client.close();
  close();
});

test("a call whose own stream ended without its response is answered by one another stream brings: an abort or its total then resolves it", async () => {
  // Call "a"'s event stream (ended without an event id) or JSON batch asks the client (elicitation/create) but has
  // no response; once onRequest is asked, the server writes a's response on call "b"'s stream. onRequest is still
  // answering when the app aborts "a" (or its maxTotalTimeoutMs passes): "a" resolves with the response, the answer
  // left is dropped, and no notifications/cancelled goes out for a request the server has answered.
  let b, bStream;
  const [answers, cancels] = [[], []];
  let asked = () => {};
  const { url, close } = await serve(
    (msg, req, res, json) => {
      if (msg.method === undefined) return answers.push(msg), res.writeHead(202).end();
      const name = msg.params.name;
      if (name === "b") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": b's own stream, left open\n\n");
        [b, bStream] = [msg.id, res];
        return;
      }
      const ask = { jsonrpc: "2.0", id: `ask-${name}`, method: "elicitation/create", params: { message: "name?", requestedSchema: { type: "object", properties: {} } } };
      const own = { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: `${name} on b's` }] } };
      asked = () => bStream.write(`data: ${JSON.stringify(own)}\n\n`);
      if (name.startsWith("json")) return json([ask]);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(ask)}\n\n`);
    },
    (msg) => msg.method === "notifications/cancelled" && cancels.push(msg.params),
  );
  let stop = () => {};
  let handlerDone = false;
  const onRequest = async () => {
    asked();
    setTimeout(() => stop(), 150);
    await new Promise((r) => setTimeout(r, 1_500));
    handlerDone = true;
    return { action: "accept", content: {} };
  };
  const client = new McpClient(url, { timeoutMs: 10_000, capabilities: { elicitation: {} }, onRequest });
  await client.connect();
  for (const a of ["sse-abort", "json-abort", "sse-total", "json-total"]) {
    b = undefined;
    handlerDone = false;
    const pending = client.callTool("b", {});
    while (b === undefined) await new Promise((r) => setTimeout(r, 5));
    const ac = new AbortController();
    stop = () => ac.abort();
    const opts = a.endsWith("abort") ? { signal: ac.signal } : { maxTotalTimeoutMs: 400 };
    const result = await within(5_000, client.callTool(a, {}, opts), a);
    assert.equal(result.content[0].text, `${a} on b's`);
    assert.equal(handlerDone, false, `${a}: resolved before onRequest answered`);
    bStream.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: b, result: { content: [{ type: "text", text: "b" }] } })}\n\n`);
    assert.equal((await pending).content[0].text, "b");
  }
  await new Promise((r) => setTimeout(r, 1_600));
  assert.deepEqual(cancels, [], "no cancellation sent");
  assert.deepEqual(answers, [], "the answers left were dropped");
  await client.close();
  close();
});

test("a dropped stream whose resumption gets no HTTP response is NETWORK, with the reason any unanswered request has", async () => {
  // The call's stream gives an event id, then the server goes away: each resumption GET finds no server.
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const msg = JSON.parse(body);
    if (msg.method === "initialize") {
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s" });
      return res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "gone", version: "1" } } }));
    }
    if (msg.id === undefined) return res.writeHead(202), res.end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("id: 1\nretry: 50\ndata:\n\n");
    srv.close();
    setTimeout(() => (res.end(), srv.closeAllConnections()), 20);
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const client = new McpClient(`http://127.0.0.1:${srv.address().port}/mcp`, { timeoutMs: 10_000 });
  await client.connect();
  const e = await rejectsWith(client.callTool("echo", {}), "NETWORK");
  assert.match(e.message, /could not be resumed \(3 attempts in a row, the last got no response: .*ECONNREFUSED.*\); the server is unreachable: is it running/);
  assert.equal(e.status, undefined);
  await client.close();
});

/** A server whose handshake result is `init` and whose other results are `answers[method]` (a function of params, or a value). */
function answering(init, answers) {
  return startServer((msg, req, res, json) => {
    const a = msg.method === "initialize" ? init : answers[msg.method];
    json({ jsonrpc: "2.0", id: msg.id, result: typeof a === "function" ? a(msg.params) : a });
  });
}

const INIT = { protocolVersion: "2025-11-25", capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} }, serverInfo: { name: "x", version: "1" } };

test("request() resolves only what its method's type says, where the SDK's client refuses the rest: PROTOCOL with the result", async () => {
  const { url, close } = await answering(INIT, {
    "resources/read": {},
    "prompts/get": { messages: "none" },
    "completion/complete": { completion: null },
    ping: "pong",
    "tools/call": { content: "x", structuredContent: { n: "no" } },
    "resources/list": (p) => (p?.cursor ? { resources: [{ uri: "b", name: "b" }] } : { resources: [{ uri: "a", name: "a" }], nextCursor: 2 }),
    "prompts/list": { prompts: [{ name: "p", extra: 1 }], more: true },
  });
  const client = new McpClient(url);
  await client.connect();
  for (const [method, params, why] of [
    ["resources/read", { uri: "a" }, /resources\/read: the result is no ReadResourceResult: it has no `contents` array/],
    ["prompts/get", { name: "p" }, /its `messages` is not an array/],
    ["completion/complete", {}, /its completion is not an object/],
    ["ping", undefined, /it is not an object/],
    ["tools/call", { name: "echo", arguments: {} }, /the result is not a CallToolResult: its content is not an array/],
  ]) {
    const e = await rejectsWith(client.request(method, params), "PROTOCOL");
    assert.match(e.message, why);
    assert.ok("result" in e, method);
  }
  // listAll: a cursor that is not a string fails the listing, not ends it with the later pages lost.
  const e = await rejectsWith(client.listAll("resources/list"), "PROTOCOL");
  assert.match(e.message, /nextCursor is not a string/);
  assert.deepEqual(await client.request("prompts/list"), { prompts: [{ name: "p", extra: 1 }], more: true }, "fields past the type are kept");
  const hub = new McpHub({ s: { url } });
  assert.equal((await rejectsWith(hub.request("s", "resources/read", { uri: "a" }), "PROTOCOL")).server, "s");
  await client.close();
  await hub.closeAll();
  close();
});

test("request(): a field typed in McpRequestResults of another type is PROTOCOL, as the SDK's client refuses it", async () => {
  const { url, close } = await answering(INIT, {
    "completion/complete": { completion: { values: ["a"], hasMore: "yes", total: "many" } },
    "prompts/get": { messages: [{ role: "user", content: { type: "text" } }] },
    "resources/read": { contents: [{ uri: "a://b", mimeType: "image/png", blob: "%%% not base64 %%%" }] },
    "resources/list": { resources: [{ uri: "a://b", name: "b", size: "big", mimeType: 7 }] },
  });
  const client = new McpClient(url);
  await client.connect();
  for (const [method, params, why] of [
    ["completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }, /its completion\.total is not an integer \(string: "many"\)/],
    ["prompts/get", { name: "p" }, /`messages\[0\]` has a content block object: \{"type":"text"\} without a string `text`/],
    ["resources/read", { uri: "a://b" }, /`contents\[0\]` has a `blob` that is not base64/],
    ["resources/list", {}, /`resources\[0\]` has a `mimeType` that is not a string \(number: 7\)/],
  ]) {
    const e = await rejectsWith(client.request(method, params), "PROTOCOL");
    assert.match(e.message, why);
    assert.ok("result" in e, method);
  }
  await client.close();
  close();
});

test("connect(): serverInfo and capabilities of the wrong shape are PROTOCOL with the result", async () => {
  for (const [init, why] of [
    [{ ...INIT, serverInfo: "x", capabilities: [] }, /no InitializeResult: its serverInfo is not an object/],
    [{ ...INIT, capabilities: "all" }, /no InitializeResult: its capabilities is not an object/],
  ]) {
    const { url, close } = await answering(init, {});
    const client = new McpClient(url, { era: "legacy" });
    const e = await rejectsWith(client.connect(), "PROTOCOL");
    assert.match(e.message, why);
    assert.deepEqual(e.result, init);
    assert.equal(client.serverInfo, undefined);
    close();
  }
});

test("era \"modern\" with transport \"sse\" is INVALID_OPTIONS at construction: 2026-07-28 has no HTTP+SSE transport", () => {
  const bad = { era: "modern", transport: "sse" };
  assert.throws(() => new McpClient("http://127.0.0.1:9/mcp", bad), (e) => e.code === "INVALID_OPTIONS" && /no HTTP\+SSE transport/.test(e.message));
  assert.throws(() => new McpHub({ s: { url: "http://127.0.0.1:9/mcp", ...bad } }), (e) => e.code === "INVALID_OPTIONS");
  new McpClient("http://127.0.0.1:9/mcp", { era: "legacy", transport: "sse" });
  new McpClient("http://127.0.0.1:9/mcp", { era: "modern", transport: "streamable-http" });
});

test("a JSON body whose Content-Length is 2^32 or more is refused unread, not read until the timeout", async () => {
  const { url, close } = await serve((msg, req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": msg.params.name });
    res.write("{");
  });
  const client = new McpClient(url, { timeoutMs: 20_000 });
  await client.connect();
  for (const length of ["4294967296", "1000000000000"]) {
    const e = await within(5_000, rejectsWith(client.callTool(length, {}), "LIMIT_EXCEEDED"));
    assert.equal(String(e.contentLength), length);
    assert.match(e.message, /refused before reading it/);
  }
  await client.close();
  close();
});

test("a response Node's fetch will not read (a control byte in a header, headers past 16 KB) is NETWORK with requestSent, not an unreachable server", async () => {
  let ran = 0;
  const { url, close } = await serve((msg, req) => {
    ran++;
    const header = msg.params.name === "badbyte" ? "x-a: a\x01b" : `x-a: ${"a".repeat(20_000)}`;
    req.socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${header}\r\ncontent-length: 2\r\n\r\n{}`);
  });
  const client = new McpClient(url, { timeoutMs: 10_000 });
  await client.connect();
  for (const [name, said] of [["badbyte", /Invalid header value char/], ["bigheaders", /Headers Overflow Error/]]) {
    const e = await rejectsWith(client.callTool(name, {}), "NETWORK");
    assert.equal(e.requestSent, true, e.message);
    assert.match(e.message, /the server's response could not be read/);
    assert.match(e.message, said);
    assert.doesNotMatch(e.message, /unreachable/);
  }
  assert.equal(ran, 2);
  await client.close();
  close();
});
