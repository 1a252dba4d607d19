// McpClient against the reference server, @modelcontextprotocol/server-everything (streamableHttp mode, started
// on 127.0.0.1 by tests/servers/everything.mjs): SSE responses with priming events, sessions, progress, content types.
// A recording fetch (the `fetch` option) shows what went over the wire: cancellations and aborted requests.
// Run: make pkg && node --test tests/mcp/everything.test.mjs
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { getEventListeners } from "node:events";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadPkg, rejectsWith, repo, waitFor, within } from "./helpers.mjs";
import { startEverything } from "../servers/everything.mjs";

const { McpClient, McpHub, NameMap } = await loadPkg();
// The same module instance as the package's Node entry: its hidden counters.
const raw = createRequire(import.meta.url)("../../pkg/node/toolwire.js");

let ev;
before(async () => {
  ev = await startEverything();
});
after(async () => {
  await ev?.stop();
});

/** A fetch that records every request: {method, body (parsed), signal, status}. */
function recordingFetch() {
  const log = [];
  const f = async (url, init) => {
    const entry = { method: init.method, body: init.body ? JSON.parse(init.body) : undefined, signal: init.signal, headers: init.headers };
    log.push(entry);
    const res = await fetch(url, init);
    entry.status = res.status;
    return res;
  };
  return { fetch: f, log };
}

async function connected(options = {}) {
  const client = new McpClient(ev.url, options);
  await client.connect();
  return client;
}

describe("server-everything", () => {
  test("connect: serverInfo, instructions, 2025-11-25, a session", async () => {
    const client = await connected();
    assert.equal(client.serverInfo.name, "mcp-servers/everything");
    assert.match(client.instructions, /Everything Server/);
    assert.equal(client.protocolVersion, "2025-11-25");
    assert.match(client.sessionId, /^[0-9a-f-]{36}$/);
    await client.close();
  });

  test("elicitation: declared in capabilities, the server asks in the call's stream and onRequest answers", async () => {
    const asked = [];
    const client = await connected({
      capabilities: { elicitation: {} },
      onRequest: async ({ method, params }) => {
        asked.push({ method, params });
        return { action: "accept", content: { name: "Ada Lovelace", check: true } };
      },
    });
    assert.ok((await client.listTools()).some((t) => t.name === "trigger-elicitation-request"));
    const r = await within(15_000, client.callTool("trigger-elicitation-request", {}), "the elicitation call");
    assert.deepEqual(asked.map((a) => a.method), ["elicitation/create"]);
    assert.equal(asked[0].params.requestedSchema.properties.name.type, "string");
    const text = r.content.map((c) => c.text ?? "").join("\n");
    assert.match(text, /Name: Ada Lovelace/);
    assert.match(text, /Agreed to terms: true/);
    await client.close();
    assert.doesNotMatch(text, /dark and stormy/, "no defaults without elicitation.form.applyDefaults");
    // Declaring elicitation.form.applyDefaults (as with the SDK's client): the form's defaults fill what the
    // handler left out, not what it gave.
    const filling = await connected({
      capabilities: { elicitation: { form: { applyDefaults: true } } },
      onRequest: () => ({ action: "accept", content: { name: "Ada Lovelace", check: true, integer: 7 } }),
    });
    const filled = await within(15_000, filling.callTool("trigger-elicitation-request", {}), "the elicitation call");
    const raw = JSON.parse(/Raw result: ([\s\S]*)$/.exec(filled.content.map((c) => c.text ?? "").join("\n"))[1]);
    assert.equal(raw.content.firstLine, "It was a dark and stormy night.");
    assert.equal(raw.content.number, 3.14);
    assert.equal(raw.content.integer, 7);
    assert.equal(raw.content.name, "Ada Lovelace");
    await filling.close();
    // Without the capability the server does not offer the tool.
    const plain = await connected();
    assert.ok(!(await plain.listTools()).some((t) => t.name === "trigger-elicitation-request"));
    await plain.close();
  });

  test("onRequest's {id, signal}: aborted when the server cancels the request or the call is given up; a thrown error's data is answered", async () => {
    // A tool call whose response stream the test writes, as a server would: two requests of the
    // server, a cancellation of the first, then the result. Everything else goes to the server.
    const posted = [];
    let write;
    const sse = (m) => new TextEncoder().encode(`data: ${JSON.stringify(m)}\n\n`);
    const fake = async (url, init) => {
      const body = init.body ? JSON.parse(init.body) : undefined;
      if (body && !body.method) posted.push(body);
      if (body?.method === "tools/call" && body.params.name === "scripted") {
        const stream = new ReadableStream({ start: (c) => (write = (m) => (m ? c.enqueue(sse(m)) : c.close())) });
        write({ jsonrpc: "2.0", id: 77, method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } });
        write({ jsonrpc: "2.0", id: "e-78", method: "elicitation/create", params: { message: "scripted", requestedSchema: { type: "object", properties: {} } } });
        setTimeout(() => write({ jsonrpc: "2.0", id: body.id, result: { content: [] } }), 300);
        return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
      }
      return fetch(url, init);
    };
    const seen = [];
    const client = await connected({
      fetch: fake,
      capabilities: { elicitation: {}, sampling: {} },
      onRequest: ({ method, params }, { id, related, signal }) => {
        seen.push({ method, id, related, signal });
        if (method === "sampling/createMessage") {
          setTimeout(() => write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 77, reason: "no longer needed" } }), 50);
          return new Promise(() => {});
        }
        if (params.message === "scripted") throw Object.assign(new Error("no form here"), { code: -32602, data: { field: "x" } });
        return new Promise(() => {});
      },
    });
    await within(5_000, client.callTool("scripted", {}), "the scripted call");
    assert.deepEqual(seen.map((s) => [s.method, s.id]), [["sampling/createMessage", 77], ["elicitation/create", "e-78"]]);
    // Both came on the call's stream: related names the call and its tool.
    for (const s of seen) assert.deepEqual([s.related?.method, s.related?.tool, typeof s.related?.id], ["tools/call", "scripted", "number"]);
    assert.equal(seen[0].signal.aborted, true, "cancelled by the server");
    assert.equal(seen[1].signal.aborted, false, "answered");
    assert.deepEqual(posted, [{ jsonrpc: "2.0", id: "e-78", error: { code: -32602, message: "no form here", data: { field: "x" } } }]);
    // A call given up (its total: timeoutMs stands while onRequest answers) while its server request is
    // being answered: the signal aborts.
    await rejectsWith(client.callTool("trigger-elicitation-request", {}, { timeoutMs: 1_000, maxTotalTimeoutMs: 1_000 }), "TIMEOUT");
    assert.equal(seen[2].method, "elicitation/create");
    assert.equal(seen[2].signal.aborted, true, "the call was given up");
    await client.close();
  });

  test("listen: what the server sends outside any call (simulated logging) arrives; close() ends it", async () => {
    const logs = [];
    const rec = recordingFetch();
    const client = await connected({ fetch: rec.fetch, onLog: (p) => logs.push(p) });
    const listening = client.listen();
    // A second listen() (an effect run twice) shares the first's stream and its outcome: the server
    // refuses a second stream (409), which must not read as "not offered".
    const again = client.listen();
    await client.callTool("toggle-simulated-logging", {});
    await waitFor(() => logs.length > 0, { timeoutMs: 12_000 });
    assert.match(logs[0].data, /message - SessionId /);
    await client.callTool("toggle-simulated-logging", {});
    await client.close();
    assert.equal(await within(5_000, listening, "listen() after close()"), true);
    assert.equal(await within(5_000, again, "the second listen() after close()"), true);
    const gets = rec.log.filter((e) => e.method === "GET");
    assert.equal(gets.length, 1, "one stream");
    assert.equal(new Headers(gets[0].headers).get("accept"), "text/event-stream");
    assert.ok(gets[0].signal.aborted, "close() aborted the open GET");
  });

  test("notify: roots/list_changed makes the server ask roots/list again (answered by onRequest); the client's own notifications are refused", async () => {
    const asked = [];
    const rec = recordingFetch();
    const roots = [{ uri: "file:///a", name: "a" }];
    const client = await connected({
      fetch: rec.fetch,
      capabilities: { roots: { listChanged: true } },
      onRequest: ({ method }) => {
        asked.push(method);
        return { roots };
      },
    });
    const listening = client.listen();
    // The server asks the roots once, 350 ms after the handshake.
    await waitFor(() => asked.length === 1, { timeoutMs: 5_000 });
    roots.push({ uri: "file:///b", name: "b" });
    assert.equal(await client.notify("notifications/roots/list_changed"), undefined);
    await waitFor(() => asked.length === 2, { timeoutMs: 5_000 });
    assert.deepEqual(asked, ["roots/list", "roots/list"]);
    const sent = rec.log.find((e) => e.body?.method === "notifications/roots/list_changed");
    assert.equal(sent.status, 202);
    assert.equal(sent.body.id, undefined, "a notification has no id");
    assert.equal(new Headers(sent.headers).get("mcp-session-id"), client.sessionId);
    assert.match((await rejectsWith(client.request("notifications/roots/list_changed"), "INVALID_INPUT")).message, /notify\(\)/);
    await rejectsWith(client.notify("notifications/initialized"), "INVALID_INPUT", "connect()");
    await rejectsWith(client.notify("notifications/cancelled", { requestId: 1 }), "INVALID_INPUT", "signal");
    await rejectsWith(client.notify("notifications/roots/list_changed", "x"), "INVALID_INPUT", "params");
    await client.close();
    await within(5_000, listening, "listen() after close()");
    await rejectsWith(client.notify("notifications/roots/list_changed"), "NOT_CONNECTED");
    // The hub's: connects the server on first use.
    const hub = new McpHub({ ev: { url: ev.url, capabilities: { roots: { listChanged: true } } } });
    assert.equal(await hub.notify("ev", "notifications/roots/list_changed"), undefined);
    await rejectsWith(hub.notify("nope", "notifications/roots/list_changed"), "INVALID_INPUT", "no server named");
    await hub.closeAll();
  });

  test("options.listen: the standalone stream after every connect, its end to onEnd; without it, the server's roots/list is lost", async () => {
    const asked = [];
    const ends = [];
    const rec = recordingFetch();
    const client = await connected({
      fetch: rec.fetch,
      capabilities: { roots: { listChanged: true } },
      onRequest: ({ method }) => (asked.push(method), { roots: [] }),
      listen: { onEnd: (end) => ends.push(end) },
    });
    // The server asks the roots on the standalone stream, 350 ms after the handshake.
    await waitFor(() => asked.length === 1, { timeoutMs: 5_000 });
    // connect() again: the old stream ends with its session, a new one is opened for the new session.
    await client.connect();
    await waitFor(() => asked.length === 2, { timeoutMs: 5_000 });
    await client.close();
    await waitFor(() => ends.some((e) => e.offered === true), { timeoutMs: 5_000 });
    assert.ok(ends.every((e) => e.error === undefined), JSON.stringify(ends));
    assert.ok(rec.log.filter((e) => e.method === "GET").length >= 2);

    // A stream that cannot be opened: its error goes to onEnd.
    const broken = (url, init) => (init.method === "GET" ? Promise.reject(new TypeError("network down")) : fetch(url, init));
    const failed = [];
    const other = await connected({ fetch: broken, maxRetries: 0, listen: { onEnd: (end) => failed.push(end) } });
    await waitFor(() => failed.length === 1, { timeoutMs: 5_000 });
    assert.equal(failed[0].error?.name, "ToolwireError");
    assert.match(failed[0].error.message, /network down/);
    await other.close();

    // free() without close(): the stream opened for the client does not keep it alive, its fetch is
    // aborted within a couple of seconds (nothing holds the client but the stream).
    const signals = [];
    const watching = (url, init) => {
      if (init.method === "GET") signals.push(init.signal);
      return fetch(url, init);
    };
    const freed = await connected({ fetch: watching, listen: true });
    await waitFor(() => signals.length === 1, { timeoutMs: 5_000 });
    freed.free();
    await waitFor(() => signals[0].aborted, { timeoutMs: 5_000 });
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(signals.length, 1, "not opened again");

    // Without it, the roots request waits for a stream nobody opens.
    const unasked = [];
    const quiet = await connected({ capabilities: { roots: {} }, onRequest: ({ method }) => (unasked.push(method), { roots: [] }) });
    await new Promise((r) => setTimeout(r, 700));
    assert.deepEqual(unasked, []);
    await quiet.close();
    assert.throws(() => new McpClient(ev.url, { listen: 1 }), (e) => e.code === "INVALID_OPTIONS");
    assert.throws(() => new McpClient(ev.url, { listen: { onEnd: 1 } }), (e) => e.code === "INVALID_OPTIONS");
  });

  test("listen() does not keep the client: one let go without close() or free() stops listening, and a script that does so exits by itself", async () => {
    // As with the `listen` option: the stream's fetch is aborted within about a second of the client's
    // garbage collection, and listen() resolves true (as at free()). It once held the client for good: the
    // GET stream, the server's session and the process stayed alive (s23f).
    const script = `
      import { McpClient } from ${JSON.stringify(pathToFileURL(join(repo, "pkg", "index.mjs")).href)};
      process.on("unhandledRejection", (r) => { console.error("UNHANDLED", r); process.exitCode = 3; });
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      const signals = [];
      const watching = (url, init) => {
        if (init.method === "GET") signals.push(init.signal);
        return fetch(url, init);
      };
      let listening;
      await (async () => {
        const client = new McpClient(process.env.URL, { fetch: watching });
        await client.connect();
        listening = client.listen();
        while (signals.length === 0) await sleep(20);
        await client.listTools();
      })();
      for (let i = 0; i < 20 && !signals[0].aborted; i++) {
        gc();
        await sleep(250);
      }
      console.log(JSON.stringify({ aborted: signals[0].aborted, opened: signals.length, listen: await listening }));
    `;
    const child = spawn(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { env: { ...process.env, URL: ev.url }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let errText = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (errText += d));
    const started = Date.now();
    const code = await within(15_000, new Promise((resolve) => child.on("exit", resolve)), "the script's exit").finally(() => child.kill());
    assert.equal(code, 0, `${out}\n${errText}`);
    assert.deepEqual(JSON.parse(out), { aborted: true, opened: 1, listen: true });
    assert.ok(Date.now() - started < 10_000, `exited after ${Date.now() - started} ms`);
  });

  test("McpHub.listen: each connected server's standalone stream, until closeAll()", async () => {
    const logs = [];
    const hub = new McpHub({ ev: { url: ev.url, onLog: (p) => logs.push(p) } });
    await hub.tools("openai");
    const map = NameMap.fromJSON(hub.nameMap);
    const toggle = map.names().find((n) => map.resolve(n).tool === "toggle-simulated-logging");
    const listening = hub.listen();
    await hub.callTool(toggle, {});
    await waitFor(() => logs.length > 0, { timeoutMs: 12_000 });
    await hub.callTool(toggle, {});
    assert.deepEqual(await hub.closeAll(), []);
    assert.deepEqual(await within(5_000, listening, "hub.listen() after closeAll()"), { servers: { ev: true }, errors: [] });
  });

  test("McpHub.listen: onEnd hears of each server's end as it comes, while the others listen on (even if it throws)", async () => {
    // Three sessions with the same server: one whose GET is answered 405 (no stream on offer), one
    // whose GET fails in fetch, one listening until closeAll().
    const noGet = (url, init) => (init.method === "GET" ? Promise.resolve(new Response(null, { status: 405 })) : fetch(url, init));
    const broken = (url, init) => (init.method === "GET" ? Promise.reject(new TypeError("network down")) : fetch(url, init));
    const hub = new McpHub({ ev: { url: ev.url }, quiet: { url: ev.url, fetch: noGet }, down: { url: ev.url, fetch: broken } });
    await hub.listTools();
    const ends = [];
    // A callback that throws is the caller's bug: the other servers listen on all the same.
    const listening = hub.listen({
      onEnd: (end) => {
        ends.push(end);
        throw new Error("a bug in onEnd");
      },
    });
    await waitFor(() => ends.length === 2, { timeoutMs: 5_000 });
    const byServer = Object.fromEntries(ends.map((e) => [e.server, e]));
    assert.deepEqual(byServer.quiet, { server: "quiet", offered: false });
    assert.equal(byServer.down.error?.name, "ToolwireError", String(byServer.down.error));
    assert.match(byServer.down.error.message, /network down/);
    assert.equal(byServer.ev, undefined, "ev still listens");
    assert.deepEqual(await hub.closeAll(), []);
    const done = await within(5_000, listening, "hub.listen() after closeAll()");
    assert.deepEqual(done.servers, { quiet: false, ev: true });
    assert.deepEqual(done.errors.map((e) => e.server), ["down"]);
    assert.deepEqual(ends[2], { server: "ev", offered: true });
    await rejectsWith(hub.listen({ onEnd: 1 }), "INVALID_OPTIONS", "onEnd");
  });

  test("request: resources and prompts on the same session; a capability the server lacks is not asked", async () => {
    const client = await connected();
    assert.ok(client.capabilities.resources && client.capabilities.prompts);
    const { resources } = await client.request("resources/list");
    assert.ok(resources.length > 0);
    // Every page: server-everything lists its resources a page at a time.
    const all = await client.listAll("resources/list");
    assert.ok(all.length >= resources.length, `${all.length} of ${resources.length}`);
    assert.deepEqual(all.slice(0, resources.length), resources);
    assert.equal(new Set(all.map((r) => r.uri)).size, all.length, "no resource twice");
    assert.ok((await client.listAll("prompts/list")).some((p) => p.name === "simple-prompt"));
    await rejectsWith(client.listAll("resources/read"), "INVALID_INPUT");
    const read = await client.request("resources/read", { uri: resources[0].uri }, { timeoutMs: 10_000 });
    assert.equal(read.contents[0].uri, resources[0].uri);
    const { prompts } = await client.request("prompts/list", {});
    const simple = prompts.find((p) => p.name === "simple-prompt") ?? prompts[0];
    const got = await client.request("prompts/get", { name: simple.name, arguments: {} });
    assert.ok(got.messages.length > 0);
    assert.deepEqual(await client.request("ping"), {});
    if (!client.capabilities.completions) {
      const err = await rejectsWith(client.request("completion/complete", {}), "CAPABILITY_NOT_NEGOTIATED");
      assert.equal(err.capability, "completions");
    }
    await rejectsWith(client.request("initialize", {}), "INVALID_INPUT");
    await rejectsWith(client.request("resources/read", [1]), "INVALID_INPUT");
    await client.close();
  });

  test("listTools: the reference tools, annotations and schemas kept", async () => {
    const client = await connected();
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ["echo", "get-tiny-image", "get-resource-links", "get-resource-reference", "get-structured-content", "trigger-long-running-operation", "get-annotated-message"]) assert.ok(names.includes(n), n);
    const echo = tools.find((t) => t.name === "echo");
    assert.equal(echo.inputSchema.properties.message.type, "string");
    assert.equal(echo.inputSchema.$schema, "http://json-schema.org/draft-07/schema#", "schema kept verbatim");
    assert.equal(echo.annotations.readOnlyHint, true);
    assert.ok(tools.find((t) => t.name === "get-structured-content").outputSchema);
    await client.close();
  });

  test("a session the server dropped (it answers 400 'No valid session ID'): renewed once, the calls go on", async () => {
    const client = await connected();
    const first = client.sessionId;
    // What a restart of the server does to the client: the session is gone.
    const gone = await fetch(ev.url, { method: "DELETE", headers: { "mcp-session-id": first } });
    assert.equal(gone.status, 200);
    const [a, b] = await within(15_000, Promise.all([client.callTool("echo", { message: "a" }), client.callTool("echo", { message: "b" })]), "calls");
    assert.deepEqual([a.content[0].text, b.content[0].text], ["Echo: a", "Echo: b"]);
    assert.ok(client.sessionId && client.sessionId !== first, "a new session");
    await client.close();
  });

  test("echo", async () => {
    const client = await connected();
    const r = await client.callTool("echo", { message: "héllo 🌍" });
    assert.equal(r.content[0].type, "text");
    assert.equal(r.content[0].text, "Echo: héllo 🌍");
    await client.close();
  });

  test("options.meta: the request's _meta, with the progress token the client makes; the client's own keys refused", async () => {
    const rec = recordingFetch();
    const client = await connected({ fetch: rec.fetch });
    await client.callTool("echo", { message: "hi" }, { meta: { "example.com/trace": "t-1" }, onProgress: () => {} });
    const [resource] = await client.listAll("resources/list");
    await client.request("resources/read", { uri: resource.uri }, { meta: { "example.com/trace": "t-2" } });
    const sent = rec.log.filter((e) => e.body?.method === "tools/call" || e.body?.method === "resources/read").map((e) => e.body.params._meta);
    assert.equal(sent[0]["example.com/trace"], "t-1");
    assert.equal(typeof sent[0].progressToken, "number");
    assert.deepEqual(sent[1], { "example.com/trace": "t-2" });
    const n = rec.log.length;
    await rejectsWith(client.callTool("echo", { message: "hi" }, { meta: { progressToken: 7 } }), "INVALID_OPTIONS");
    await rejectsWith(client.callTool("echo", { message: "hi" }, { meta: "x" }), "INVALID_OPTIONS");
    // The SDK's names of a call's options are refused, naming toolwire's (and any other key not an option).
    for (const [sdk, ours] of [["timeout", "timeoutMs"], ["onprogress", "onProgress"], ["maxTotalTimeout", "maxTotalTimeoutMs"]]) {
      const e = await rejectsWith(client.callTool("echo", { message: "hi" }, { [sdk]: sdk === "onprogress" ? () => {} : 1000 }), "INVALID_OPTIONS");
      assert.match(e.message, new RegExp(`options\\.${ours}\\b`));
      await rejectsWith(client.request("ping", {}, { [sdk]: 1 }), "INVALID_OPTIONS");
    }
    await rejectsWith(new McpHub({ ev: { url: ev.url } }).callTool("x", {}, { timeout: 1 }), "INVALID_OPTIONS");
    await rejectsWith(client.callTool("echo", { message: "hi" }, { somethingNewer: 1 }), "INVALID_OPTIONS");
    assert.equal(rec.log.length, n, "nothing sent");
    await client.close();
  });

  test("get-tiny-image: a PNG image content block", async () => {
    const client = await connected();
    const r = await client.callTool("get-tiny-image", {});
    const img = r.content.find((c) => c.type === "image");
    assert.ok(img, JSON.stringify(r).slice(0, 300));
    assert.equal(img.mimeType, "image/png");
    assert.equal(Buffer.from(img.data, "base64").subarray(0, 8).toString("hex"), "89504e470d0a1a0a");
    await client.close();
  });

  test("get-annotated-message: annotations on text, and an image", async () => {
    const client = await connected();
    const r = await client.callTool("get-annotated-message", { messageType: "error", includeImage: true });
    assert.deepEqual(r.content[0].annotations, { audience: ["user", "assistant"], priority: 1 });
    assert.ok(r.content.some((c) => c.type === "image"));
    await client.close();
  });

  test("get-resource-links: resource_link blocks", async () => {
    const client = await connected();
    const r = await client.callTool("get-resource-links", { count: 3 });
    const links = r.content.filter((c) => c.type === "resource_link");
    assert.equal(links.length, 3);
    for (const l of links) {
      assert.match(l.uri, /^demo:\/\/resource\//);
      assert.equal(typeof l.name, "string");
    }
    await client.close();
  });

  test("get-resource-reference: an embedded resource", async () => {
    const client = await connected();
    const r = await client.callTool("get-resource-reference", { resourceType: "Text", resourceId: 1 });
    const res = r.content.find((c) => c.type === "resource");
    assert.ok(res, JSON.stringify(r).slice(0, 300));
    assert.equal(res.resource.uri, "demo://resource/dynamic/text/1");
    assert.equal(typeof res.resource.text, "string");
    await client.close();
  });

  test("get-structured-content: structuredContent matching the text", async () => {
    const client = await connected();
    const r = await client.callTool("get-structured-content", { location: "New York" });
    assert.equal(typeof r.structuredContent.temperature, "number");
    assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
    await client.close();
  });

  test("input validation errors are isError results", async () => {
    const client = await connected();
    const r = await client.callTool("get-resource-reference", { resourceType: "nope", resourceId: 1 });
    assert.equal(r.isError, true);
    await client.close();
  });

  test("trigger-long-running-operation: progress 1..4 of 4, then the result", async () => {
    const client = await connected();
    const progress = [];
    const r = await within(20_000, client.callTool("trigger-long-running-operation", { duration: 1, steps: 4 }, { onProgress: (p) => progress.push([p.progress, p.total]) }), "the long call");
    assert.match(r.content[0].text, /Long running operation completed/);
    assert.deepEqual(progress, [[1, 4], [2, 4], [3, 4], [4, 4]]);
    await client.close();
  });

  test("AbortSignal: ABORTED, notifications/cancelled for that id, and the request's fetch aborted", async () => {
    const rec = recordingFetch();
    const client = await connected({ fetch: rec.fetch });
    const ac = new AbortController();
    let first = true;
    const p = client.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, {
      signal: ac.signal,
      onProgress: () => {
        if (first) {
          first = false;
          ac.abort();
        }
      },
    });
    await rejectsWith(within(15_000, p, "the aborted call"), "ABORTED");
    const call = rec.log.find((e) => e.body?.method === "tools/call");
    // Sent, then answered (the recording fetch sets `status` when the server's answer comes).
    const cancelled = await waitFor(() => rec.log.find((e) => e.body?.method === "notifications/cancelled" && e.status !== undefined));
    assert.ok(cancelled, "notifications/cancelled was sent and answered");
    assert.deepEqual(cancelled.body.params.requestId, call.body.id);
    assert.equal(cancelled.status, 202);
    // The signal's reason, as the SDK sends it: an error's message (the default AbortError's too), a string.
    assert.equal(cancelled.body.params.reason, "This operation was aborted");
    assert.ok(call.signal, "the call's fetch got a signal");
    assert.equal(call.signal.aborted, true, "the call's fetch was aborted");
    // the session is still fine
    assert.equal((await client.callTool("echo", { message: "after" })).content[0].text, "Echo: after");
    for (const [why, reason] of [[new Error("user left"), "user left"], ["tab closed", "tab closed"]]) {
      const ac = new AbortController();
      const p = client.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, { signal: ac.signal, onProgress: () => ac.abort(why) });
      const e = await rejectsWith(within(15_000, p, "the aborted call"), "ABORTED");
      // The error holds the reason the server is told.
      assert.equal(e.reason, reason);
      const sent = await waitFor(() => rec.log.filter((e) => e.body?.method === "notifications/cancelled").at(-1)?.body.params.reason === reason);
      assert.ok(sent, `reason ${reason}`);
    }
    // AbortSignal.timeout: TIMEOUT (as fetch tells a TimeoutError from an AbortError), the server told "timeout" as for timeoutMs.
    const timed = await rejectsWith(within(15_000, client.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, { signal: AbortSignal.timeout(300) }), "the timed-out call"), "TIMEOUT");
    assert.match(timed.message, /^tools\/call timed out: its signal's timeout \(AbortSignal\.timeout\) fired; the request was cancelled/);
    assert.equal(typeof timed.reason, "string");
    assert.ok(await waitFor(() => rec.log.filter((e) => e.body?.method === "notifications/cancelled").at(-1)?.body.params.reason === "timeout"), "the server is told timeout");
    await client.close();
  });

  test("timeoutMs: TIMEOUT, notifications/cancelled, the fetch aborted", async () => {
    const rec = recordingFetch();
    const client = await connected({ fetch: rec.fetch });
    await rejectsWith(within(15_000, client.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, { timeoutMs: 700 }), "the call"), "TIMEOUT");
    const call = rec.log.find((e) => e.body?.method === "tools/call");
    const cancelled = await waitFor(() => rec.log.find((e) => e.body?.method === "notifications/cancelled"));
    assert.ok(cancelled);
    assert.deepEqual(cancelled.body.params.requestId, call.body.id);
    assert.equal(call.signal?.aborted, true);
    await client.close();
  });

  test("resetTimeoutOnProgress: progress every 250 ms outlives a 700 ms timeout; maxTotalTimeoutMs still ends it", async () => {
    const client = await connected();
    const progress = [];
    const long = (options) => client.callTool("trigger-long-running-operation", { duration: 2, steps: 8 }, { onProgress: (p) => progress.push(p.progress), timeoutMs: 700, ...options });
    // Without the reset, the same call times out.
    await rejectsWith(within(10_000, long({}), "the call"), "TIMEOUT");
    progress.length = 0;
    const r = await within(10_000, long({ resetTimeoutOnProgress: true }), "the call with resets");
    assert.match(r.content[0].text, /Long running operation completed/);
    assert.equal(progress.length, 8);
    const e = await rejectsWith(within(10_000, long({ resetTimeoutOnProgress: true, maxTotalTimeoutMs: 1200 }), "the capped call"), "TIMEOUT");
    assert.match(e.message, /total of 1200 ms/);
    assert.equal(e.timeoutMs, 1200, "the timeout that ended it");
    await rejectsWith(client.callTool("echo", { message: "x" }, { resetTimeoutOnProgress: "yes" }), "INVALID_OPTIONS");
    await client.close();
  });

  test("simulate-research-query (taskSupport required) runs as a task: tools/call creates it, tasks/get polls, tasks/result", async () => {
    const rec = recordingFetch();
    const client = await connected({ fetch: rec.fetch });
    const tool = (await client.listTools()).find((t) => t.name === "simulate-research-query");
    assert.equal(tool.execution.taskSupport, "required");
    assert.ok(client.capabilities.tasks.requests.tools.call, "the server runs tools/call as tasks");
    const r = await within(20_000, client.callTool("simulate-research-query", { topic: "tides" }), "the task");
    assert.match(r.content[0].text, /# Research Report: tides/);
    const methods = rec.log.filter((e) => e.method === "POST").map((e) => e.body.method);
    const call = rec.log.find((e) => e.body?.method === "tools/call");
    assert.deepEqual(call.body.params.task, {});
    const polls = methods.filter((m) => m === "tasks/get").length;
    assert.ok(polls >= 2 && polls <= 8, `polled at the task's pollInterval (1 s) over its ~4 s: ${polls}`);
    assert.equal(methods.at(-1), "tasks/result");
    // A tool that does not require a task is called as ever.
    const echo = await client.callTool("echo", { message: "x" });
    assert.equal(echo.content[0].text, "Echo: x");
    assert.equal(rec.log.at(-1).body.params.task, undefined);
    await client.close();
  });

  test("a task that needs input: the server asks on tasks/result's stream and onRequest answers", async () => {
    const asked = [];
    const rec = recordingFetch();
    const client = await connected({
      fetch: rec.fetch,
      capabilities: { elicitation: {} },
      onRequest: async ({ method, params }, { related }) => {
        asked.push([method, related]);
        return { action: "accept", content: { interpretation: params.requestedSchema.properties.interpretation.oneOf[0].const } };
      },
    });
    await client.listTools();
    const r = await within(20_000, client.callTool("simulate-research-query", { topic: "python", ambiguous: true }), "the task");
    // related names the call the user made, not the tasks/result whose stream brought the request.
    const call = rec.log.find((e) => e.body?.method === "tools/call");
    assert.deepEqual(asked, [["elicitation/create", { id: call.body.id, method: "tools/call", tool: "simulate-research-query" }]]);
    assert.match(r.content[0].text, /\*\*Clarification\*\*: /);
    await client.close();
  });

  test("McpHub.callTool takes McpClient.callTool's options: progress, and a task-run tool", async () => {
    const hub = new McpHub({ ev: { url: ev.url } });
    const tools = await hub.tools("anthropic");
    const named = (tool) => tools.find((x) => x.name.endsWith(tool)).name;
    const progress = [];
    const long = await within(15_000, hub.callTool(named("trigger-long-running-operation"), { duration: 1, steps: 4 }, { onProgress: (p) => progress.push(p.progress) }), "the call");
    assert.match(long.text, /Long running operation completed/);
    assert.deepEqual(progress, [1, 2, 3, 4]);
    const research = await within(20_000, hub.callTool(named("simulate-research-query"), { topic: "hub" }, { timeoutMs: 15_000 }), "the task");
    assert.equal(research.isError, false);
    assert.match(research.text, /# Research Report: hub/);
    await hub.closeAll();
  });

  test("a task that outlives the call's timeoutMs is cancelled with tasks/cancel", async () => {
    const client = await connected();
    await client.listTools();
    const e = await rejectsWith(within(10_000, client.callTool("simulate-research-query", { topic: "slow" }, { timeoutMs: 1500 }), "the call"), "TIMEOUT");
    assert.match(e.message, /did not end in 1500 ms/);
    assert.equal(e.taskCancelled, true);
    const task = await client.request("tasks/get", { taskId: e.taskId });
    assert.equal(task.status, "cancelled");
    await client.close();
  });

  test("a long-lived client keeps nothing per ended call: no listener on a shared AbortSignal, no JS value for a stream it stopped reading", async () => {
    const client = await connected();
    const shared = new AbortController();
    const call = async (i, signal) => {
      const r = await client.callTool("echo", { message: `m${i}` }, signal ? { signal } : {});
      assert.equal(r.content[0].text, `Echo: m${i}`);
    };
    // Answered as SSE streams, which the client stops reading once the answer is in.
    for (let i = 0; i < 5; i++) await call(i, shared.signal);
    const before = raw.__liveJsValues();
    for (let i = 0; i < 60; i++) await call(i, i % 3 === 0 ? shared.signal : i % 3 === 1 ? new AbortController().signal : undefined);
    assert.equal(getEventListeners(shared.signal, "abort").length, 0, "abort listeners left on the shared signal");
    const grown = raw.__liveJsValues() - before;
    assert.ok(grown < 10, `${grown} more JS values held after 60 calls`);
    await client.close();
    client.free();
  });

  test("close(): DELETE 200; the session is gone", async () => {
    const rec = recordingFetch();
    const client = await connected({ fetch: rec.fetch });
    const sid = client.sessionId;
    await client.close();
    const del = rec.log.find((e) => e.method === "DELETE");
    assert.equal(del.status, 200);
    assert.equal(new Headers(del.headers).get("mcp-session-id"), sid);
  });
});
