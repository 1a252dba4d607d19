// McpClient and McpHub (the built package) against @modelcontextprotocol/server-everything in `sse` mode: the
// deprecated HTTP+SSE transport of MCP 2024-11-05 (GET /sse opens the event stream, whose `endpoint` event names
// /message?sessionId=...; every answer comes on that one stream). The client finds it by itself (`transport:
// "auto"`), and a hub speaks it beside a Streamable HTTP server (server-everything in streamableHttp mode).
// Run: make pkg && node --test tests/mcp/legacy-sse.test.mjs
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { loadPkg, rechunking, rejectsWith, waitFor, within } from "./helpers.mjs";
import { startEverything } from "../servers/everything.mjs";

const { McpClient, McpHub } = await loadPkg();

let sse; // server-everything, sse mode: sse.url is its /sse
let http; // server-everything, streamableHttp mode
before(async () => {
  [sse, http] = await Promise.all([startEverything({ mode: "sse" }), startEverything()]);
});
after(async () => {
  await Promise.all([sse?.stop(), http?.stop()]);
});

/**
 * A fetch that records every request ({method, path, body, status}) and can cut the event stream's GET as a
 * dropped connection would (cut()).
 */
function recordingFetch() {
  const log = [];
  const streams = [];
  const f = async (url, init) => {
    const entry = { method: init.method, path: new URL(url).pathname + new URL(url).search, body: init.body ? JSON.parse(init.body) : undefined, headers: init.headers };
    log.push(entry);
    let signal = init.signal;
    if (init.method === "GET") {
      const ac = new AbortController();
      init.signal?.addEventListener("abort", () => ac.abort(init.signal.reason));
      streams.push(ac);
      signal = ac.signal;
    }
    const res = await fetch(url, { ...init, signal });
    entry.status = res.status;
    return res;
  };
  return { fetch: f, log, cut: () => streams.at(-1).abort(new Error("cut")) };
}

const methods = (log) => log.map((e) => `${e.method} ${e.path.replace(/sessionId=[^&]+/, "sessionId=*")}${e.body?.method ? ` ${e.body.method}` : ""}`);

describe("server-everything over the deprecated HTTP+SSE transport", () => {
  test("a custom fetch whose body reader yields strings works; one that yields numbers fails the call with PROTOCOL", async () => {
    const decoder = new TextDecoder();
    let odd = false;
    const f = rechunking((bytes) => (odd ? bytes.length : decoder.decode(bytes, { stream: true })));
    const client = new McpClient(sse.url, { fetch: f, timeoutMs: 8_000 });
    await within(10_000, client.connect(), "connect");
    assert.equal(client.transport, "sse");
    const r = await within(10_000, client.callTool("echo", { message: "héllo 世界" }), "callTool");
    assert.match(r.content[0].text, /héllo 世界/);
    odd = true;
    const e = await rejectsWith(within(6_000, client.callTool("echo", { message: "x" }), "callTool"), "PROTOCOL");
    // The shared stream fails: the call with it, or (when its POST was not answered yet, which sends it again on
    // a new session) the handshake of that session, whose stream fails the same way.
    assert.match(e.message, /^(tools\/call|initialize): the fetch function's response body gave a chunk that is the number \d+/);
    await client.close();
  });

  test("auto: from the /sse URL, a refused POST, then the event stream and its endpoint", async () => {
    const rec = recordingFetch();
    const client = new McpClient(sse.url, { fetch: rec.fetch });
    assert.equal(client.transport, undefined, "not known before connecting");
    await within(10_000, client.connect(), "connect");
    assert.equal(client.transport, "sse");
    assert.equal(client.serverInfo.name, "mcp-servers/everything");
    assert.ok(["2025-11-25", "2024-11-05"].includes(client.protocolVersion), client.protocolVersion);
    assert.match(client.sessionId, /^[0-9a-f-]{36}$/, "the endpoint's sessionId");
    assert.deepEqual(methods(rec.log), ["POST /sse initialize", "GET /sse", "POST /message?sessionId=* initialize", "POST /message?sessionId=* notifications/initialized"]);
    assert.equal(rec.log[0].status, 404);
    assert.ok(rec.log[2].path.endsWith(client.sessionId));
    // Streamable HTTP's headers are not sent to such a server (its CORS may not allow them).
    for (const e of rec.log.slice(1)) assert.ok(!Object.keys(e.headers).some((h) => h.startsWith("mcp-")), JSON.stringify(e.headers));
    await client.close();
    assert.ok(!rec.log.some((e) => e.method === "DELETE"), "the transport has no DELETE: close() ends the stream");
  });

  test("listTools (every page), callTool, a structured result, a resource", async () => {
    const client = new McpClient(sse.url);
    await client.connect();
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ["echo", "get-sum", "get-structured-content", "trigger-long-running-operation"]) assert.ok(names.includes(n), n);
    assert.deepEqual((await client.listAll("tools/list")).map((t) => t.name), names);
    assert.equal((await client.callTool("echo", { message: "héllo 🌍" })).content[0].text, "Echo: héllo 🌍");
    const sum = await client.callTool("get-sum", { a: 2, b: 40 });
    assert.match(sum.content[0].text, /42/);
    const structured = await client.callTool("get-structured-content", { location: "New York" });
    assert.equal(typeof structured.structuredContent.temperature, "number", "checked against its outputSchema too");
    const resources = await client.listAll("resources/list");
    assert.ok(resources.length > 0);
    const read = await client.request("resources/read", { uri: resources[0].uri });
    assert.ok(read.contents.length > 0);
    await client.close();
  });

  test("progress notifications of a long call come on the shared stream to onProgress", async () => {
    const client = new McpClient(sse.url);
    await client.connect();
    const progress = [];
    const r = await within(20_000, client.callTool("trigger-long-running-operation", { duration: 1, steps: 4 }, { onProgress: (p) => progress.push([p.progress, p.total]) }), "the long call");
    assert.match(r.content[0].text, /Long running operation completed/);
    assert.deepEqual(progress, [[1, 4], [2, 4], [3, 4], [4, 4]]);
    await client.close();
  });

  test("concurrent calls each get their own result", async () => {
    const client = new McpClient(sse.url);
    await client.connect();
    const messages = Array.from({ length: 8 }, (_, i) => `m${i}`);
    const results = await within(15_000, Promise.all(messages.map((message) => client.callTool("echo", { message }))), "the calls");
    assert.deepEqual(results.map((r) => r.content[0].text), messages.map((m) => `Echo: ${m}`));
    await client.close();
  });

  test("timeoutMs and AbortSignal: TIMEOUT and ABORTED, notifications/cancelled to the endpoint, the stream kept", async () => {
    const rec = recordingFetch();
    const client = new McpClient(sse.url, { fetch: rec.fetch });
    await client.connect();
    await rejectsWith(within(15_000, client.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, { timeoutMs: 700 }), "the call"), "TIMEOUT");
    const ac = new AbortController();
    const aborted = client.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, { signal: ac.signal, onProgress: () => ac.abort() });
    await rejectsWith(within(15_000, aborted, "the aborted call"), "ABORTED");
    const calls = rec.log.filter((e) => e.body?.method === "tools/call");
    const cancelled = await waitFor(() => {
      const c = rec.log.filter((e) => e.body?.method === "notifications/cancelled");
      return c.length === 2 && c.every((e) => e.status) && c;
    });
    assert.ok(cancelled, "both were cancelled");
    assert.deepEqual(cancelled.map((e) => e.body.params.requestId), calls.map((e) => e.body.id));
    assert.deepEqual(cancelled.map((e) => [e.path.startsWith("/message?sessionId="), e.status]), [[true, 202], [true, 202]]);
    // The abort's reason is the signal's (the default AbortError's message), as the SDK sends it.
    assert.deepEqual(cancelled.map((e) => e.body.params.reason), ["timeout", "This operation was aborted"]);
    // The one stream stays open: the next call goes over it.
    assert.equal((await client.callTool("echo", { message: "after" })).content[0].text, "Echo: after");
    assert.equal(rec.log.filter((e) => e.method === "GET").length, 1);
    await client.close();
  });

  test("a server request (elicitation) on the shared stream is answered by onRequest", async () => {
    const asked = [];
    const client = new McpClient(sse.url, {
      capabilities: { elicitation: {} },
      onRequest: async ({ method }, { related }) => {
        // One stream carries every server request: which call one is for cannot be told.
        assert.equal(related, null);
        asked.push(method);
        return { action: "accept", content: { name: "Ada Lovelace", check: true } };
      },
    });
    await client.connect();
    const r = await within(15_000, client.callTool("trigger-elicitation-request", {}), "the elicitation call");
    assert.deepEqual(asked, ["elicitation/create"]);
    assert.match(r.content.map((c) => c.text ?? "").join("\n"), /Name: Ada Lovelace/);
    await client.close();
  });

  test("listen(): what the server sends outside calls (simulated logging) goes to the standalone stream", async () => {
    const logs = [];
    const client = new McpClient(sse.url, { onLog: (p) => logs.push(p) });
    await client.connect();
    const listening = client.listen();
    await client.callTool("toggle-simulated-logging", {});
    // One that comes once no call is in flight (the server logs every 5 s): only the listener reads then.
    const before = logs.length;
    await waitFor(() => logs.length > before, { timeoutMs: 12_000 });
    assert.ok(logs.length > before, "a log message arrived between calls");
    await client.close();
    assert.equal(await within(5_000, listening, "listen() after close()"), true);
  });

  test("the stream dropped: the next call connects again, initializes and goes through", async () => {
    const rec = recordingFetch();
    const client = new McpClient(sse.url, { fetch: rec.fetch });
    await client.connect();
    const first = client.sessionId;
    rec.cut(); // as a proxy or a restart would: the server forgets the session
    // Give the server a moment to see the connection go (it then leaves POSTs for the session unanswered).
    await new Promise((r) => setTimeout(r, 100));
    const r = await within(15_000, client.callTool("echo", { message: "again" }), "the call after the drop");
    assert.equal(r.content[0].text, "Echo: again");
    assert.notEqual(client.sessionId, first);
    assert.equal(rec.log.filter((e) => e.method === "GET").length, 2);
    assert.equal(rec.log.filter((e) => e.body?.method === "initialize").length, 3, "the probe, the first session's and the new one's");
    assert.equal(rec.log.filter((e) => e.path.startsWith("/sse") && e.method === "POST").length, 1, "the verdict is kept: no second probe");
    await client.close();
  });

  test("auto where no MCP server is: the 404 stands, the message says so, without the HTML page", async () => {
    const client = new McpClient(sse.url.replace("/sse", "/nothing"));
    const err = await rejectsWith(client.connect(), "HTTP_STATUS");
    assert.equal(err.status, 404);
    assert.match(err.message, /^initialize: HTTP 404: Error Cannot POST \/nothing; the URL may not be an MCP endpoint: .*nor does a GET there open the event stream of the deprecated HTTP\+SSE transport/);
    assert.ok(!err.message.includes("<"), err.message);
    assert.match(err.bodyPreview, /<!DOCTYPE html>/);
    assert.equal(client.transport, undefined);
    // "streamable-http" does not look; "sse" at the Streamable HTTP server's URL is told it is not one.
    const plain = new McpClient(sse.url, { transport: "streamable-http" });
    const e2 = await rejectsWith(plain.connect(), "HTTP_STATUS");
    assert.match(e2.message, /nothing there takes MCP's POSTs \(Streamable HTTP\)$/);
    const wrong = new McpClient(http.url, { transport: "sse" });
    await rejectsWith(wrong.connect(), "HTTP_STATUS");
    assert.throws(() => new McpClient(sse.url, { transport: "websocket" }), (e) => e.code === "INVALID_OPTIONS" && /transport/.test(e.message));
  });

  test("auto where the GET is an endless event stream with no endpoint event: the 404 stands within 5 s, sseProbe says why", async () => {
    // Not an MCP server: POST is 404, GET is a live-updates stream that only ever sends keep-alives.
    const gets = [];
    const server = createServer((req, res) => {
      if (req.method !== "GET") {
        req.resume();
        res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const timer = setInterval(() => res.write(": keep-alive\n\n"), 200);
      const get = { closed: false };
      gets.push(get);
      res.on("close", () => {
        clearInterval(timer);
        get.closed = true;
      });
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    try {
      const client = new McpClient(`http://127.0.0.1:${server.address().port}/live`);
      const started = Date.now();
      const err = await within(15_000, rejectsWith(client.connect(), "HTTP_STATUS"), "connect()");
      const took = Date.now() - started;
      assert.ok(took >= 4_500 && took < 10_000, `gave up after ${took} ms`);
      assert.equal(err.status, 404);
      assert.equal(err.sseProbe, "its GET brought no endpoint event within 5000 ms");
      assert.match(err.message, /nor does a GET there open the event stream of the deprecated HTTP\+SSE transport \(its GET brought no endpoint event within 5000 ms\)$/);
      assert.ok(await waitFor(() => gets.length === 1 && gets[0].closed), "the GET was aborted");
      assert.equal(client.transport, undefined);
      // The module goes on: the next connect looks again, and a real server still works.
      await rejectsWith(client.connect(), "HTTP_STATUS");
      const ok = new McpClient(sse.url);
      await ok.connect();
      assert.equal(ok.transport, "sse");
      await ok.close();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test("a call's POST the server never answers, its response sent on the stream: the call ends, the POST is aborted", async () => {
    // A server that writes the response on the stream and holds the POST: kept open, it would hold one of a
    // browser's 6 connections to the origin per call.
    let stream;
    const held = [];
    const server = createServer(async (req, res) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" }).write("event: endpoint\ndata: /messages?sessionId=s1\n\n");
        stream = res;
        return;
      }
      let body = "";
      for await (const c of req) body += c;
      const m = JSON.parse(body);
      const result =
        m.method === "initialize" ? { protocolVersion: "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "held", version: "1" } } : { content: [{ type: "text", text: "done" }] };
      if (m.id !== undefined && m.method) stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result })}\n\n`);
      if (m.method === "tools/call") {
        const post = { closed: false };
        held.push(post);
        res.on("close", () => (post.closed = true));
        return; // never answered
      }
      res.writeHead(202).end("Accepted");
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    try {
      const client = new McpClient(`http://127.0.0.1:${server.address().port}/sse`, { transport: "sse" });
      await client.connect();
      for (let i = 0; i < 3; i++) {
        const r = await within(5_000, client.callTool("t", {}), "the call");
        assert.equal(r.content[0].text, "done");
      }
      assert.ok(await waitFor(() => held.length === 3 && held.every((p) => p.closed)), "every held POST was aborted");
      await client.close();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test("McpHub: one server of the old transport and one of Streamable HTTP at once", async () => {
    const hub = new McpHub({ old: { url: sse.url }, new: { url: http.url, transport: "streamable-http" } });
    const { tools, errors } = await within(20_000, hub.listTools(), "listTools");
    assert.deepEqual(errors, []);
    for (const server of ["old", "new"]) assert.ok(tools.some((t) => t.serverName === server && t.name === "echo"), server);
    const provider = await hub.tools("anthropic");
    const echo = (server) => provider.find((t) => t.name === `mcp__${server}__echo`).name;
    const [a, b] = await within(15_000, Promise.all([hub.callTool(echo("old"), { message: "to old" }), hub.callTool(echo("new"), { message: "to new" })]), "calls");
    assert.deepEqual([a.server, a.text, b.server, b.text], ["old", "Echo: to old", "new", "Echo: to new"]);
    assert.deepEqual(await hub.closeAll(), []);
  });
});
