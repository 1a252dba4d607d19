// McpClient (the built package, ../../pkg) against tests/servers/misbehaving.mjs: one scenario per describe,
// each test on its own endpoint (/mcp/<scenario>/<tag>) so the server's stats are its own.
// Run: make pkg && node --test tests/mcp/client.test.mjs
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { freePort, freshTag, loadPkg, rechunking, rejectsWith, startMisbehaving, waitFor, within } from "./helpers.mjs";
import { bigText, BIG_TEXT_LENGTH, HUGE_LIST_COUNT, NORMAL_TOOLS, PAGE_CURSORS, TINY_PNG_BASE64 } from "../servers/misbehaving.mjs";

const { McpClient, McpHub, ToolwireError } = await loadPkg();

let srv;
before(async () => {
  srv = await startMisbehaving();
});
after(async () => {
  await srv?.stop();
});

/** A client on a fresh endpoint of `scenario`: {client, url, key, stats()}. `query` e.g. "?v=json". */
function fresh(scenario, options = {}, query = "") {
  const tag = freshTag();
  const url = srv.url(scenario, tag) + query;
  const client = new McpClient(url, options);
  return { client, url, key: `${scenario}/${tag}`, stats: () => srv.stats(`${scenario}/${tag}`) };
}

/** Every request after initialize carries the session id and the negotiated version; initialize carries neither. */
function assertHeaders(st, { sessionIds = st.sessions, version = "2025-11-25", stateless = false } = {}) {
  for (const r of st.requests) {
    if (r.httpMethod === "OPTIONS") continue;
    if (r.rpcMethod === "initialize") {
      assert.equal(r.headers["mcp-session-id"], undefined, "initialize without Mcp-Session-Id");
      assert.equal(r.headers["mcp-protocol-version"], undefined, "initialize without MCP-Protocol-Version");
    } else {
      if (stateless) assert.equal(r.headers["mcp-session-id"], undefined, `${r.httpMethod} ${r.rpcMethod}: no session id`);
      else assert.ok(sessionIds.includes(r.headers["mcp-session-id"]), `${r.httpMethod} ${r.rpcMethod ?? ""} carries the session id`);
      assert.equal(r.headers["mcp-protocol-version"], version, `${r.httpMethod} ${r.rpcMethod ?? ""} carries MCP-Protocol-Version`);
    }
    if (r.httpMethod === "POST") {
      assert.equal(r.headers["content-type"], "application/json");
      assert.match(r.headers.accept, /application\/json/);
      assert.match(r.headers.accept, /text\/event-stream/);
    }
  }
}

describe("normal", () => {
  test("connect: initialize (2025-11-25) + initialized; serverInfo, instructions, protocolVersion, sessionId", async () => {
    const { client, stats } = fresh("normal");
    await client.connect();
    assert.deepEqual(client.serverInfo, { name: "toolwire-misbehaving", title: "toolwire misbehaving test server", version: "1.0.0" });
    assert.match(client.instructions, /Test server for toolwire/);
    assert.equal(client.protocolVersion, "2025-11-25");
    const st = await stats();
    assert.equal(client.sessionId, st.sessions[0]);
    assert.equal(st.initialize.length, 1);
    assert.equal(st.initialize[0].protocolVersion, "2025-11-25");
    assert.equal(typeof st.initialize[0].clientInfo.name, "string");
    assert.equal(typeof st.initialize[0].clientInfo.version, "string");
    assert.equal(st.methods["notifications/initialized"], 1);
    assert.deepEqual(st.violations, []);
    await client.close();
  });

  test("clientInfo and custom headers are sent; headers on every request; close() DELETEs the session", async () => {
    const { client, stats } = fresh("normal", { clientInfo: { name: "my-app", version: "9.9.9" }, headers: { authorization: "Bearer t0k3n", "x-custom": "yes" } });
    await client.connect();
    await client.listTools();
    await client.callTool("echo", { message: "hi" });
    const sessionId = client.sessionId;
    await client.close();
    const st = await stats();
    assert.deepEqual(st.initialize[0].clientInfo, { name: "my-app", version: "9.9.9" });
    for (const r of st.requests) {
      assert.equal(r.headers.authorization, "Bearer t0k3n", `${r.httpMethod} ${r.rpcMethod ?? ""}`);
      assert.equal(r.headers["x-custom"], "yes");
    }
    assertHeaders(st);
    assert.deepEqual(st.deletes, [{ sessionId, status: 200 }]);
    assert.deepEqual(st.violations, []);
  });

  test("listTools: every tool, schemas verbatim", async () => {
    const { client, stats } = fresh("normal");
    await client.connect();
    const tools = await client.listTools();
    assert.deepEqual(tools, NORMAL_TOOLS);
    assert.equal((await stats()).toolsList.length, 1);
    await client.close();
  });

  test("callTool: text (unicode), structuredContent, image, isError resolves", async () => {
    const { client, stats } = fresh("normal");
    await client.connect();
    const text = "héllo wörld → 世界 🎉 \u0000 \"quoted\"";
    assert.deepEqual(await client.callTool("echo", { message: text }), { content: [{ type: "text", text }] });
    const add = await client.callTool("add", { a: 2, b: 3.5 });
    assert.deepEqual(add.structuredContent, { sum: 5.5 });
    assert.equal(add.content[0].text, '{"sum":5.5}');
    const img = await client.callTool("image");
    assert.deepEqual(img.content, [{ type: "image", data: TINY_PNG_BASE64, mimeType: "image/png" }]);
    const fail = await client.callTool("fail", {});
    assert.equal(fail.isError, true);
    assert.equal(fail.content[0].text, "deliberate tool failure");
    const st = await stats();
    assert.deepEqual(st.calls.map((c) => [c.name, c.outcome]), [["echo", "answered"], ["add", "answered"], ["image", "answered"], ["fail", "is-error"]]);
    assert.deepEqual(st.calls[2].arguments, {}, "no arguments = {}");
    assertHeaders(st);
    assert.deepEqual(st.violations, []);
    await client.close();
  });

  test("callTool: an unknown tool is a JSON-RPC error -32602", async () => {
    const { client } = fresh("normal");
    await client.connect();
    const err = await rejectsWith(client.callTool("no-such-tool", {}), "JSONRPC_ERROR");
    assert.equal(err.rpcCode, -32602);
    assert.match(err.message, /Unknown tool: no-such-tool/);
    await client.close();
  });

  test("long: onProgress gets every progress notification, then the result", async () => {
    const { client, stats } = fresh("normal");
    await client.connect();
    const progress = [];
    const result = await client.callTool("long", { steps: 5, intervalMs: 10 }, { onProgress: (p) => progress.push(p) });
    assert.equal(result.content[0].text, "long done after 5 steps");
    assert.deepEqual(progress.map((p) => [p.progress, p.total, p.message]), [1, 2, 3, 4, 5].map((i) => [i, 5, `step ${i}/5`]));
    const st = await stats();
    assert.equal(st.progressTokens.length, 1);
    assert.equal(progress[0].progressToken, st.progressTokens[0]);
    await client.close();
  });

  test("long: concurrent calls get distinct progress tokens and only their own progress", async () => {
    const { client, stats } = fresh("normal");
    await client.connect();
    const a = [];
    const b = [];
    const [ra, rb] = await Promise.all([
      client.callTool("long", { steps: 3, intervalMs: 15 }, { onProgress: (p) => a.push(p) }),
      client.callTool("long", { steps: 6, intervalMs: 5 }, { onProgress: (p) => b.push(p) }),
    ]);
    assert.equal(ra.content[0].text, "long done after 3 steps");
    assert.equal(rb.content[0].text, "long done after 6 steps");
    assert.deepEqual(a.map((p) => p.total), [3, 3, 3]);
    assert.deepEqual(b.map((p) => p.total), [6, 6, 6, 6, 6, 6]);
    const st = await stats();
    assert.equal(new Set(st.progressTokens.map((t) => JSON.stringify(t))).size, 2);
    assert.notEqual(JSON.stringify(st.calls[0].id), JSON.stringify(st.calls[1].id));
    await client.close();
  });

  test("long: progress whose integer token comes back as a string (\"1\" for 1) is the call's, as the SDK routes it", async () => {
    // A fetch that writes each progress token as a string on the way (a server whose schema has a string token).
    const stringing = async (url, init) => {
      const res = await fetch(url, init);
      if (!String(init?.body ?? "").includes('"tools/call"')) return res;
      const text = (await res.text()).replace(/"progressToken":(\d+)/g, '"progressToken":"$1"');
      return new Response(text, { status: res.status, headers: res.headers });
    };
    const notified = [];
    const { client } = fresh("normal", { fetch: stringing, onNotification: (m) => notified.push(m.method) });
    await client.connect();
    const progress = [];
    const result = await client.callTool("long", { steps: 3, intervalMs: 5 }, { onProgress: (p) => progress.push(p), resetTimeoutOnProgress: true });
    assert.equal(result.content[0].text, "long done after 3 steps");
    assert.deepEqual(progress.map((p) => p.progress), [1, 2, 3]);
    assert.equal(typeof progress[0].progressToken, "string", "given as the server wrote it");
    assert.deepEqual(notified, [], "none went to onNotification");
    await client.close();
  });

  test("chatty: log and list_changed notifications reach the callbacks before the result", async () => {
    const events = [];
    const { client } = fresh("normal", {
      onLog: (p) => events.push(["log", p]),
      onToolListChanged: () => events.push(["listChanged"]),
      onNotification: (m) => events.push(["notification", m.method]),
    });
    await client.connect();
    const result = await client.callTool("chatty", {});
    events.push(["result", result.content[0].text]);
    assert.deepEqual(events.find((e) => e[0] === "log"), ["log", { level: "info", logger: "chatty", data: "about to answer" }]);
    assert.equal(events.filter((e) => e[0] === "listChanged").length, 1);
    assert.deepEqual(events.filter((e) => e[0] === "notification").map((e) => e[1]).sort(), ["notifications/message", "notifications/tools/list_changed"]);
    assert.equal(events.at(-1)[0], "result", "callbacks fire before the call resolves");
    assert.ok(events.findIndex((e) => e[0] === "log") < events.findIndex((e) => e[0] === "listChanged"), "in the order sent");
    await client.close();
  });

  test("an async callback that rejects (onLog, onNotification, onProgress, listen's onEnd, a hub's onEnd) is no unhandled rejection, and is reported", async () => {
    const unhandled = [];
    const onUnhandled = (reason) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const consoleError = console.error;
    const reported = [];
    console.error = (...args) => reported.push(args);
    try {
      const called = [];
      const rejecting = (name) => async () => {
        called.push(name);
        throw new Error(`${name}: rejected by the test`);
      };
      // A thenable whose `then` throws is a rejection too.
      const badThenable = (name) => () => {
        called.push(name);
        return { then() { throw new Error(`${name}: then throws`); } };
      };
      const { client } = fresh("normal", { onLog: rejecting("onLog"), onNotification: badThenable("onNotification"), listen: { onEnd: rejecting("listen.onEnd") } });
      await client.connect();
      assert.equal((await client.callTool("chatty", {})).content[0].text.length > 0, true);
      const r = await client.callTool("long", { steps: 2, intervalMs: 5 }, { onProgress: rejecting("onProgress") });
      assert.ok(r.content.length > 0);
      const { McpHub } = await loadPkg();
      const hub = new McpHub({ a: { url: srv.url("normal", freshTag()) } });
      await hub.listTools(); // connects it: a hub listens on connected servers
      const listened = await hub.listen({ onEnd: rejecting("hub.onEnd") });
      assert.deepEqual(listened.servers, { a: false }, "the normal scenario offers no stream (GET 405)");
      await waitFor(() => called.includes("listen.onEnd"));
      // Unhandled rejections are reported after the microtasks of a macrotask: give them two.
      await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual([...new Set(called)].sort(), ["hub.onEnd", "listen.onEnd", "onLog", "onNotification", "onProgress"]);
      assert.deepEqual(unhandled.map((e) => e?.message ?? String(e)), []);
      // Each failure on console.error, naming its callback, with the error.
      const says = new Set(reported.map(([what, e]) => `${what} ${e?.message}`));
      for (const [callback, name] of [["onLog", "onLog"], ["onProgress", "onProgress"], ["listen onEnd", "listen.onEnd"], ["listen onEnd", "hub.onEnd"]]) {
        assert.ok(says.has(`toolwire: the ${callback} callback failed: ${name}: rejected by the test`), [...says].join("\n"));
      }
      assert.ok(says.has("toolwire: the onNotification callback failed: onNotification: then throws"), [...says].join("\n"));
      await client.close();
      await hub.closeAll();
    } finally {
      process.off("unhandledRejection", onUnhandled);
      console.error = consoleError;
    }
  });

  test("AbortSignal: ABORTED, notifications/cancelled with the call's id, and the request's socket closed", async () => {
    const { client, stats } = fresh("normal");
    await client.connect();
    const ac = new AbortController();
    const progress = [];
    const p = client.callTool("long", { steps: 200, intervalMs: 20 }, { signal: ac.signal, onProgress: (x) => { progress.push(x); if (progress.length === 2) ac.abort(); } });
    await rejectsWith(within(10_000, p, "the aborted call"), "ABORTED");
    const st = await waitFor(async () => { const st = await stats(); return st.cancelled.length > 0 && st.calls[0]?.closedByClient && st; });
    assert.ok(st, `cancelled + closed expected; stats: ${JSON.stringify((await stats()).calls)} ${JSON.stringify((await stats()).cancelled)}`);
    assert.equal(st.cancelled.length, 1);
    assert.deepEqual(st.cancelled[0].requestId, st.calls[0].id);
    assert.equal(st.calls[0].closedByClient, true);
    assert.ok(st.calls[0].stoppedAtStep === undefined || st.calls[0].stoppedAtStep < 200);
    assert.deepEqual(st.violations, []);
    // still usable
    assert.equal((await client.callTool("echo", { message: "after" })).content[0].text, "after");
    await client.close();
  });

  test("one AbortSignal shared by 30 calls: one listener on it, no MaxListenersExceededWarning, all ABORTED, none left", async () => {
    const { getEventListeners } = await import("node:events");
    const { client } = fresh("normal");
    await client.connect();
    const warnings = [];
    const onWarning = (w) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      // Calls that end on their own leave nothing on the signal.
      const kept = new AbortController();
      const echoes = Array.from({ length: 30 }, (_, i) => client.callTool("echo", { message: `m${i}` }, { signal: kept.signal }));
      const during = getEventListeners(kept.signal, "abort").length;
      assert.deepEqual((await Promise.all(echoes)).map((r) => r.content[0].text), Array.from({ length: 30 }, (_, i) => `m${i}`));
      assert.ok(during <= 1, `one listener for all the calls, not ${during}`);
      assert.equal(getEventListeners(kept.signal, "abort").length, 0, "removed when the last call settled");
      // Aborting it rejects them all.
      const ac = new AbortController();
      const calls = Array.from({ length: 30 }, () => client.callTool("long", { steps: 200, intervalMs: 20 }, { signal: ac.signal }).then(() => "resolved", (e) => e.code));
      await new Promise((r) => setTimeout(r, 100));
      const listening = getEventListeners(ac.signal, "abort").length;
      ac.abort();
      assert.deepEqual(await within(10_000, Promise.all(calls), "the aborted calls"), Array(30).fill("ABORTED"));
      assert.equal(listening, 1, "one listener for all the calls");
      assert.equal(getEventListeners(ac.signal, "abort").length, 0);
      // The warning is emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
    }
    await client.close();
  });

  test("an already-aborted signal rejects ABORTED without sending anything; a signal that is none is INVALID_OPTIONS", async () => {
    const { client, stats } = fresh("normal");
    await client.connect();
    const e = await rejectsWith(client.callTool("echo", { message: "x" }, { signal: AbortSignal.abort() }), "ABORTED");
    assert.equal(e.tool, "echo");
    assert.match(e.message, /aborted before it was sent/);
    await rejectsWith(client.request("ping", {}, { signal: AbortSignal.abort() }), "ABORTED");
    for (const signal of [{}, { aborted: false }, "abort"]) await rejectsWith(client.callTool("echo", { message: "x" }, { signal }), "INVALID_OPTIONS");
    const st = await stats();
    assert.equal(st.methods["tools/call"], undefined, "no call was sent");
    assert.equal(st.methods.ping, undefined);
    assert.deepEqual(st.cancelled, [], "nor a cancellation of what was never sent");
    await client.close();
  });

  test("wrong arguments resolve as isError (server-side validation)", async () => {
    const { client } = fresh("normal");
    await client.connect();
    const r = await client.callTool("add", { a: "two" });
    assert.equal(r.isError, true);
    await client.close();
  });
});

describe("a flood of notifications/tools/list_changed", () => {
  /** A fetch answering as a 2025-11-25 server whose tools/call streams `count` list_changed notifications (in
   *  `chunks` reads), then its result. */
  function flooding(count, chunks) {
    const changed = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`;
    return async (_url, init) => {
      if (init.method !== "POST") return new Response(null, { status: 405 });
      const msg = JSON.parse(init.body);
      const json = (result) => new Response(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }), { headers: { "content-type": "application/json" } });
      if (msg.method === "initialize") {
        return json({ protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: "flood", version: "1" } });
      }
      if (msg.id === undefined) return new Response(null, { status: 202 });
      if (msg.method !== "tools/call") return json({ tools: [] });
      const enc = new TextEncoder();
      const body = new ReadableStream({
        start(c) {
          for (let i = 0; i < chunks; i++) c.enqueue(enc.encode(changed.repeat(count / chunks)));
          c.enqueue(enc.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [] } })}\n\n`));
          c.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
  }
  const url = "http://127.0.0.1:1/mcp";
  const options = { era: "legacy", transport: "streamable-http" };

  test("50,000 notifications: onToolListChanged is called at once, then once more for those that came while it was pending", async () => {
    let calls = 0;
    let notified = 0;
    const client = new McpClient(url, { ...options, fetch: flooding(50_000, 50), onToolListChanged: () => calls++, onNotification: () => notified++ });
    await client.connect();
    await client.callTool("t", {});
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(notified, 50_000, "every notification read (onNotification hears each)");
    assert.ok(calls >= 2 && calls <= 2 * 50, `${calls} calls: at most one and one more per read`);
    assert.equal(client.toolsStale, true);
    await client.close();
    client.free();
  });

  test("the call owed for notifications that came while one was pending is dropped once the client is closed", async () => {
    let calls = 0;
    let settle;
    const client = new McpClient(url, { ...options, fetch: flooding(100, 10), onToolListChanged: () => {
      calls++;
      return new Promise((r) => (settle = r));
    } });
    await client.connect();
    await client.callTool("t", {});
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(calls, 1);
    await client.close();
    settle();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 1, "no call for a closed client's list");
    // Connected again, a notification asks for the list again.
    await client.connect();
    await client.callTool("t", {});
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(calls, 2);
    await client.close();
    settle();
    client.free();
  });

  test("an async onToolListChanged is not called again while its promise is pending: the notifications meanwhile make one call after it", async () => {
    let calls = 0;
    let settle;
    const onToolListChanged = () => {
      calls++;
      return new Promise((r) => (settle = r));
    };
    const client = new McpClient(url, { ...options, fetch: flooding(50_000, 50), onToolListChanged });
    await client.connect();
    await client.callTool("t", {});
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 1, "one call pending: the other 49,999 notifications wait for it");
    settle();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 2, "then one more, for all of them");
    settle();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 2, "and no more: nothing came since");
    // A rejected promise (or a throw) ends the call as well; a later notification calls it again.
    let rejectNext = true;
    const again = new McpClient(url, { ...options, fetch: flooding(2, 1), onToolListChanged: () => {
      calls++;
      if (rejectNext) {
        rejectNext = false;
        return Promise.reject(new Error("the app's own failure"));
      }
      throw new Error("thrown");
    } });
    await again.connect();
    calls = 0;
    await again.callTool("t", {});
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 2);
    await again.callTool("t", {});
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 4, "a call that threw is not pending");
    await Promise.all([client.close(), again.close()]);
    client.free();
    again.free();
  });

  test("an onToolListChanged that throws or rejects is reported on console.error once, as onNotification's failure is for each notification", async () => {
    const consoleError = console.error;
    const reported = [];
    console.error = (...args) => reported.push(args);
    try {
      for (const how of ["throws", "rejects"]) {
        reported.length = 0;
        const failure = new Error(`onToolListChanged ${how}`);
        let notified = 0;
        const client = new McpClient(url, {
          ...options,
          fetch: flooding(1, 1),
          onToolListChanged: () => {
            if (how === "throws") throw failure;
            return Promise.reject(failure);
          },
          onNotification: () => {
            notified++;
            throw new Error(`onNotification ${notified}`);
          },
        });
        await client.connect();
        await client.callTool("t", {});
        await new Promise((r) => setTimeout(r, 50));
        const said = reported.map(([what, e]) => `${what} ${e?.message}`);
        assert.deepEqual(said.filter((s) => s.includes("onToolListChanged callback")), [`toolwire: the onToolListChanged callback failed: onToolListChanged ${how}`], said.join("\n"));
        assert.equal(reported.find(([what]) => what.includes("onToolListChanged"))[1], failure, "the error itself");
        assert.equal(notified, 1);
        assert.deepEqual(said.filter((s) => s.includes("onNotification callback")), ["toolwire: the onNotification callback failed: onNotification 1"], said.join("\n"));
        await client.close();
        client.free();
      }
    } finally {
      console.error = consoleError;
    }
  });
});

describe("stateless", () => {
  test("no session id: none is ever sent", async () => {
    const { client, stats } = fresh("stateless");
    await client.connect();
    assert.equal(client.sessionId, undefined);
    assert.equal((await client.listTools()).length, NORMAL_TOOLS.length);
    assert.equal((await client.callTool("echo", { message: "s" })).content[0].text, "s");
    await client.close();
    const st = await stats();
    assertHeaders(st, { stateless: true });
    assert.deepEqual(st.violations, []);
  });
});

describe("sse", () => {
  test("BOM, CRLF, comments, retry, priming, multi-line data, split chunks; ping answered {}, unknown request -32601", async () => {
    const logs = [];
    const { client, stats } = fresh("sse", { onLog: (p) => logs.push(p.data) });
    await client.connect();
    assert.equal(client.serverInfo.name, "toolwire-misbehaving");
    assert.equal(client.protocolVersion, "2025-11-25");
    assert.deepEqual(await client.listTools(), NORMAL_TOOLS);
    const text = "héllo wörld → 世界 🎉";
    assert.deepEqual(await client.callTool("echo", { message: text }), { content: [{ type: "text", text }] });
    assert.deepEqual((await client.callTool("add", { a: 1, b: 2 })).structuredContent, { sum: 3 });
    const st = await stats();
    assert.deepEqual(st.serverRequests, [{ id: 0, method: "ping" }, { id: "srv-0", method: "toolwire-test/unknown" }, { id: 1, method: "ping" }, { id: "srv-1", method: "toolwire-test/unknown" }]);
    assert.deepEqual(st.clientResponses.find((r) => r.id === 0), { id: 0, result: {} }, "ping (id 0) answered {}");
    assert.deepEqual(st.clientResponses.find((r) => r.id === 1), { id: 1, result: {} });
    for (const id of ["srv-0", "srv-1"]) assert.equal(st.clientResponses.find((r) => r.id === id)?.error?.code, -32601, `${id} answered -32601`);
    assert.deepEqual(st.calls.map((c) => c.serverRequestsAnswered), [true, true]);
    assert.deepEqual(logs, ["sse: answering now ✓", "sse: answering now ✓"]);
    assertHeaders(st);
    assert.deepEqual(st.violations, []);
    await client.close();
  });
});

describe("server requests", () => {
  test("onRequest answers them (a value, a promise, a thrown error with its code); ping never reaches it", async () => {
    const seen = [];
    const sent = [];
    let n = 0;
    const { client, stats } = fresh("sse", {
      fetch: (url, init) => {
        sent.push(init.body ? JSON.parse(init.body) : null);
        return fetch(url, init);
      },
      capabilities: { sampling: {} },
      onRequest: ({ method, params }) => {
        seen.push({ method, params });
        if (n++ === 0) return { answered: "now" };
        return Promise.reject(Object.assign(new Error("not this one"), { code: -32042 }));
      },
    });
    await client.connect();
    for (let i = 0; i < 2; i++) assert.equal((await client.callTool("echo", { message: "x" })).content[0].text, "x");
    const st = await stats();
    assert.deepEqual(seen.map((r) => r.method), ["toolwire-test/unknown", "toolwire-test/unknown"]);
    assert.match(seen[0].params.note, /unknown server request/);
    assert.deepEqual(st.clientResponses.find((r) => r.id === "srv-0"), { id: "srv-0", result: { answered: "now" } });
    assert.deepEqual(st.clientResponses.find((r) => r.id === "srv-1"), { id: "srv-1", error: { code: -32042, message: "not this one" } });
    assert.deepEqual(st.clientResponses.find((r) => r.id === 0), { id: 0, result: {} }, "ping answered by the client itself");
    assert.deepEqual(sent.find((b) => b?.method === "initialize").params.capabilities, { sampling: {} });
    assert.deepEqual(st.violations, []);
    await client.close();
  });

  test("a flood of elicitations while onRequest is slow: 16 answered at once, the rest refused -32000; the client goes on", async () => {
    let underWay = 0;
    let most = 0;
    let called = 0;
    const { client, stats } = fresh("flood", {
      capabilities: { elicitation: {} },
      onRequest: async () => {
        called++;
        most = Math.max(most, ++underWay);
        await new Promise((r) => setTimeout(r, 300));
        underWay--;
        return { action: "decline" };
      },
    });
    await client.connect();
    const tally = JSON.parse((await client.callTool("flood", { count: 100 })).content[0].text);
    assert.deepEqual(tally, { answered: 100, results: 16, errors: { "-32000": 84 } });
    assert.equal(called, 16);
    assert.equal(most, 16);
    const st = await stats();
    const refused = st.clientResponses.find((r) => r.error);
    assert.equal(refused.error.code, -32000);
    assert.deepEqual(refused.error.data, { limit: 16 });
    assert.match(refused.error.message, /^elicitation\/create refused: the client is answering 16 requests of the server already/);
    // The client goes on: a call, and requests that reach onRequest again.
    assert.equal((await client.callTool("echo", { message: "still here" })).content[0].text, "still here");
    assert.deepEqual(JSON.parse((await client.callTool("flood", { count: 5 })).content[0].text), { answered: 5, results: 5, errors: {} });
    assert.equal(called, 21);
    assert.deepEqual((await stats()).violations, []);
    await client.close();
  });

  test("listen() on a server without a standalone stream (GET 405) resolves false; before connect it is NOT_CONNECTED", async () => {
    const { client } = fresh("sse");
    await rejectsWith(client.listen(), "NOT_CONNECTED");
    await client.connect();
    assert.equal(await within(5_000, client.listen(), "listen()"), false);
    await client.close();
  });

  test("onRequest that throws (coded, uncoded, a non-Error), returns nothing, a non-object or a hostile promise: always an answer", async () => {
    const hostile = Promise.resolve({});
    Object.defineProperty(hostile, "constructor", { get() { throw new Error("hostile constructor"); } });
    const behaviours = [
      () => { throw "plain string"; },
      () => undefined,
      () => { throw Object.assign(new Error("coded, thrown at once"), { code: -32042 }); },
      () => 42,
      () => hostile,
    ];
    let n = 0;
    const { client, stats } = fresh("sse", { onRequest: () => behaviours[n++]() });
    await client.connect();
    for (let i = 0; i < behaviours.length; i++) assert.equal((await client.callTool("echo", { message: `m${i}` })).content[0].text, `m${i}`);
    const st = await stats();
    const answer = (i) => st.clientResponses.find((r) => r.id === `srv-${i}`);
    assert.deepEqual(answer(0), { id: "srv-0", error: { code: -32603, message: "plain string" } });
    assert.deepEqual(answer(1), { id: "srv-1", error: { code: -32603, message: "the client's onRequest returned no result" } });
    assert.deepEqual(answer(2), { id: "srv-2", error: { code: -32042, message: "coded, thrown at once" } });
    assert.deepEqual(answer(3), { id: "srv-3", error: { code: -32603, message: "the client's onRequest returned number, not an object" } });
    assert.deepEqual(answer(4), { id: "srv-4", error: { code: -32603, message: "hostile constructor" } });
    // The module still works.
    assert.deepEqual(await client.listTools(), NORMAL_TOOLS);
    await client.close();
    assert.throws(() => new McpClient(srv.url("sse", freshTag()), { capabilities: ["elicitation"] }), { code: "INVALID_OPTIONS" });
    // A capability that is not an object would be sent as it is, and a server refuses that handshake.
    for (const value of [true, 0, "no", [], false, null]) {
      const capabilities = { elicitation: value };
      assert.throws(() => new McpClient(srv.url("sse", freshTag()), { capabilities }), { code: "INVALID_OPTIONS", message: /^options\.capabilities\.elicitation must be an object/ }, JSON.stringify(value));
    }
    for (const [capabilities, key] of [[{ sampling: 1 }, "sampling"], [{ roots: "yes" }, "roots"], [{ roots: { listChanged: "yes" } }, "roots.listChanged"], [{ elicitation: { url: true } }, "elicitation.url"], [{ experimental: true }, "experimental"], [{ tasks: [] }, "tasks"]]) {
      assert.throws(() => new McpClient(srv.url("sse", freshTag()), { capabilities }), { code: "INVALID_OPTIONS", message: new RegExp(`^options\\.capabilities\\.${key.replace(".", "\\.")} must be`) }, key);
    }
    new McpClient(srv.url("sse", freshTag()), { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true }, experimental: { x: {} }, custom: true } });
    // A getter passed uncalled (a function), or a symbol, is not read as the option not given.
    for (const key of ["clientInfo", "capabilities", "era", "transport", "logLevel", "validateStructuredContent"]) {
      for (const value of [() => ({}), Symbol("x")]) {
        assert.throws(() => new McpClient(srv.url("sse", freshTag()), { [key]: value }), { code: "INVALID_OPTIONS", message: new RegExp(`^options\\.${key} must be a JSON value, got`) }, key);
      }
    }
  });
});

describe("pagination", () => {
  test("paginate3: all 3 pages, in order", async () => {
    const { client, stats } = fresh("paginate3");
    await client.connect();
    assert.deepEqual((await client.listTools()).map((t) => t.name), NORMAL_TOOLS.map((t) => t.name));
    const st = await stats();
    assert.deepEqual(st.toolsList.map((x) => x.cursor), [null, ...PAGE_CURSORS]);
    assert.deepEqual(st.violations, []);
    // A page asked for by name with a cursor the server does not know: its -32602, and the client goes on.
    const err = await rejectsWith(client.request("tools/list", { cursor: "bm90IGEgY3Vyc29y" }), "JSONRPC_ERROR");
    assert.equal(err.rpcCode, -32602);
    const second = await client.request("tools/list", { cursor: PAGE_CURSORS[0] });
    assert.equal(second.nextCursor, PAGE_CURSORS[1]);
    await client.close();
  });

  test("endless: stops at maxPages (LIMIT_EXCEEDED) after exactly maxPages requests", async () => {
    const { client, stats } = fresh("endless", { maxPages: 5 });
    await client.connect();
    await rejectsWith(within(10_000, client.listTools(), "listTools"), "LIMIT_EXCEEDED");
    assert.equal((await stats()).toolsList.length, 5);
    await client.close();
  });

  test("endless: the default cap is 64 pages", async () => {
    const { client, stats } = fresh("endless");
    await client.connect();
    await rejectsWith(within(20_000, client.listTools(), "listTools"), "LIMIT_EXCEEDED");
    assert.equal((await stats()).toolsList.length, 64);
    await client.close();
  });

  test("repeat-cursor: stops when a cursor comes back (2 requests), keeps what it got", async () => {
    const { client, stats } = fresh("repeat-cursor");
    await client.connect();
    const tools = await within(10_000, client.listTools(), "listTools");
    assert.deepEqual(tools.map((t) => t.name), ["page_1_tool", "page_2_tool"]);
    assert.deepEqual((await stats()).toolsList.map((x) => x.cursor), [null, "again"]);
    await client.close();
  });
});

describe("session expiry", () => {
  test("expire: 404 -> one re-initialize without the old id, then the request is retried", async () => {
    const { client, stats } = fresh("expire");
    await client.connect();
    const first = client.sessionId;
    const tools = await client.listTools();
    assert.equal(tools.length, NORMAL_TOOLS.length);
    const st = await stats();
    assert.equal(st.methods.initialize, 2, "exactly one re-initialize");
    assert.equal(st.methods["notifications/initialized"], 2);
    assert.deepEqual(st.initialize.map((i) => i.sessionHeader), [null, null], "initialize never carries a session id");
    assert.deepEqual(st.toolsList.map((x) => x.status), [404, 200]);
    assert.equal(st.sessions.length, 2);
    assert.equal(st.sessions[0], first);
    assert.equal(client.sessionId, st.sessions[1]);
    const after404 = st.requests.filter((r) => r.seq > st.requests.find((x) => x.status === 404).seq && r.rpcMethod !== "initialize");
    assert.ok(after404.length >= 2);
    for (const r of after404) assert.equal(r.headers["mcp-session-id"], st.sessions[1]);
    assert.deepEqual(st.violations, []);
    assert.equal(client.toolsStale, false, "listed on the session it renewed");
    // and the new session keeps working
    assert.equal((await client.callTool("echo", { message: "again" })).content[0].text, "again");
    await client.close();
  });

  test("restart: a session renewed after the server forgot it makes the listing stale (no list_changed comes)", async () => {
    const { client, stats } = fresh("restart");
    await client.connect();
    assert.ok((await client.listTools()).some((t) => t.name === "echo"));
    assert.equal((await client.callTool("restart", {})).content[0].text, "restarted");
    assert.equal(client.toolsStale, false, "the same session so far");
    assert.equal((await client.callTool("echo", { message: "again" })).content[0].text, "again");
    assert.equal((await stats()).methods.initialize, 2, "renewed once");
    assert.equal(client.toolsStale, true, "listed on the old session");
    const tools = await client.listTools();
    assert.ok(tools.some((t) => t.name === "echo_v2") && !tools.some((t) => t.name === "echo"));
    assert.equal(client.toolsStale, false);
    await client.connect();
    assert.equal(client.toolsStale, true, "connected again: a new session");
    await client.close();
  });

  test("expire ?v=400: a 400 that names the session sent is its end too: renewed once, retried; DELETE of it is fine", async () => {
    const { client, stats } = fresh("expire", {}, "?v=400");
    await client.connect();
    const first = client.sessionId;
    assert.equal((await client.listTools()).length, NORMAL_TOOLS.length);
    const st = await stats();
    assert.deepEqual(st.toolsList.map((x) => x.status), [400, 200]);
    assert.equal(st.methods.initialize, 2, "exactly one re-initialize");
    assert.notEqual(client.sessionId, first);
    assert.deepEqual(st.violations, []);
    // Closing a session the server already dropped: its 400 is no failure (nor a CORS hint).
    const again = fresh("expire", {}, "?v=400");
    await again.client.connect();
    const gone = await fetch(again.url, { method: "DELETE", headers: { "mcp-session-id": again.client.sessionId } });
    assert.equal(gone.status, 200);
    await again.client.close();
    const deletes = (await again.stats()).deletes;
    assert.equal(deletes.length, 2);
    assert.equal(deletes[1].status, 400, "the client's DELETE met the 400, and close() resolved");
    await client.close();
  });

  test("expire-always ?v=400: a second 400 is an error, not a loop (one re-initialize only)", async () => {
    const { client, stats } = fresh("expire-always", {}, "?v=400");
    await client.connect();
    const err = await rejectsWith(within(10_000, client.listTools(), "listTools"), "HTTP_STATUS");
    assert.equal(err.status, 400);
    assert.match(err.message, /the session expired again right after re-initializing/);
    assert.equal(err.sessionExpired, true);
    assert.equal((await stats()).methods.initialize, 2);
    await client.close();
  });

  test("expire-always: a second 404 is an error, not a loop (one re-initialize only)", async () => {
    const { client, stats } = fresh("expire-always");
    await client.connect();
    let err;
    await within(10_000, client.listTools(), "listTools").catch((e) => (err = e));
    assert.equal(err?.name, "ToolwireError", String(err));
    assert.equal(err.code, "HTTP_STATUS", err.message);
    assert.equal(err.status, 404);
    assert.equal(err.sessionExpired, true);
    const st = await stats();
    assert.equal(st.methods.initialize, 2);
    assert.equal(st.toolsList.length, 2);
    await client.close().catch(() => {});
  });
});

describe("timeouts", () => {
  test("hang: client timeoutMs -> TIMEOUT, notifications/cancelled with the call's id, socket closed", async () => {
    const { client, stats } = fresh("hang", { timeoutMs: 400 });
    await client.connect();
    const started = Date.now();
    const err = await rejectsWith(within(10_000, client.callTool("echo", { message: "x" }), "the hung call"), "TIMEOUT");
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 350 && elapsed < 5000, `timed out after ${elapsed} ms`);
    assert.match(err.message, /tools\/call|echo|time/i);
    const st = await waitFor(async () => { const st = await stats(); return st.cancelled.length > 0 && st.calls[0]?.closedByClient && st; });
    assert.ok(st, `cancelled + closed expected; got ${JSON.stringify((await stats()).cancelled)} / ${JSON.stringify((await stats()).calls)}`);
    assert.equal(st.cancelled.length, 1);
    assert.deepEqual(st.cancelled[0].requestId, st.calls[0].id);
    assert.equal(typeof st.cancelled[0].reason, "string");
    assert.equal(st.calls[0].closedByClient, true);
    assert.deepEqual(st.violations, []);
    // still usable: tools/list answers normally in this scenario
    assert.equal((await client.listTools()).length, NORMAL_TOOLS.length);
    await client.close();
  });

  test("hang: per-call timeoutMs overrides the client's", async () => {
    const { client, stats } = fresh("hang", { timeoutMs: 60_000 });
    await client.connect();
    const started = Date.now();
    const err = await rejectsWith(within(10_000, client.callTool("echo", {}, { timeoutMs: 300 }), "the hung call"), "TIMEOUT");
    assert.equal(err.tool, "echo", "a call's error names its tool");
    assert.ok(Date.now() - started < 5000);
    assert.ok(await waitFor(async () => (await stats()).calls[0]?.closedByClient));
    await client.close();
  });

  test("hang: AbortSignal -> ABORTED, cancelled and closed", async () => {
    const { client, stats } = fresh("hang");
    await client.connect();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    await rejectsWith(within(10_000, client.callTool("echo", {}, { signal: ac.signal }), "the hung call"), "ABORTED");
    const st = await waitFor(async () => { const st = await stats(); return st.cancelled.length > 0 && st.calls[0]?.closedByClient && st; });
    assert.ok(st);
    assert.deepEqual(st.cancelled[0].requestId, st.calls[0].id);
    await client.close();
  });

  test("initialize is never cancelled (a hung connect times out without notifications/cancelled)", async () => {
    // "hang" answers initialize normally, so use a server that never answers at all: a raw socket that accepts and stays silent.
    const net = await import("node:net");
    const sockets = [];
    const silent = net.createServer((s) => sockets.push(s)).listen(0, "127.0.0.1");
    await new Promise((r) => silent.once("listening", r));
    const received = [];
    silent.on("connection", (s) => s.on("data", (d) => received.push(d.toString())));
    try {
      const client = new McpClient(`http://127.0.0.1:${silent.address().port}/mcp`, { timeoutMs: 300 });
      await rejectsWith(within(10_000, client.connect(), "connect"), "TIMEOUT");
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(!received.join("").includes("notifications/cancelled"), "no cancellation for initialize");
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});

describe("timeouts and a server that never accepts notifications/cancelled", () => {
  // The rejection comes at the deadline (or the abort), not once the server accepted the cancellation, which
  // still goes out, after it.
  test("TIMEOUT at timeoutMs and ABORTED at the abort; notifications/cancelled sent all the same", async () => {
    const cancelled = [];
    const server = createServer(async (req, res) => {
      let body = "";
      for await (const c of req) body += c;
      const m = body ? JSON.parse(body) : {};
      if (m.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "x", version: "1" } } }));
      }
      if (m.method === "notifications/cancelled") cancelled.push(m.params);
      if (m.method === "notifications/initialized" || req.method === "DELETE") return res.writeHead(202), res.end();
      // tools/call and notifications/cancelled: never answered (the client aborts them)
    }).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const client = new McpClient(`http://127.0.0.1:${server.address().port}/mcp`, { timeoutMs: 30_000 });
      await client.connect();
      let started = Date.now();
      await rejectsWith(within(10_000, client.callTool("echo", {}, { timeoutMs: 1500 }), "the hung call"), "TIMEOUT");
      const timedOut = Date.now() - started;
      assert.ok(timedOut >= 1400 && timedOut < 2200, `TIMEOUT after ${timedOut} ms (timeoutMs 1500; the cancellation's bound is 3 s)`);
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      started = Date.now();
      await rejectsWith(within(10_000, client.callTool("echo", {}, { signal: ac.signal }), "the hung call"), "ABORTED");
      const aborted = Date.now() - started;
      assert.ok(aborted < 900, `ABORTED after ${aborted} ms (aborted at 200 ms)`);
      assert.ok(await waitFor(() => cancelled.length === 2), `both cancellations sent: ${JSON.stringify(cancelled)}`);
      assert.deepEqual(cancelled.map((c) => c.reason), ["timeout", "This operation was aborted"]);
      await client.close();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("errors", () => {
  test("rpc-error: JSONRPC_ERROR with rpcCode -32602 and data", async () => {
    const { client } = fresh("rpc-error");
    await client.connect();
    const err = await rejectsWith(client.callTool("echo", { message: "x" }), "JSONRPC_ERROR");
    assert.equal(err.rpcCode, -32602);
    assert.deepEqual(err.data, { field: "message", hint: "rpc-error scenario" });
    assert.match(err.message, /Invalid arguments for tool echo/);
    await client.close();
  });

  test("unauthorized: UNAUTHORIZED 401 with the parsed WWW-Authenticate challenge", async () => {
    const { client, stats } = fresh("unauthorized");
    const err = await rejectsWith(client.connect(), "UNAUTHORIZED");
    assert.equal(err.status, 401);
    assert.equal(String(err.challenge.scheme).toLowerCase(), "bearer");
    assert.equal(err.challenge.realm, "mcp");
    assert.equal(err.challenge.error, "invalid_token");
    assert.equal(err.challenge.resource_metadata, "http://127.0.0.1/.well-known/oauth-protected-resource");
    assert.equal((await stats()).http.POST, 1, "no retry loop");
  });

  test("forbidden: UNAUTHORIZED 403 with error insufficient_scope and scope", async () => {
    const { client } = fresh("forbidden");
    const err = await rejectsWith(client.connect(), "UNAUTHORIZED");
    assert.equal(err.status, 403);
    assert.equal(err.challenge.error, "insufficient_scope");
    assert.equal(err.challenge.scope, "tools:call");
  });

  test("bad-content-type: PROTOCOL for that request; the client stays usable", async () => {
    const { client } = fresh("bad-content-type");
    await client.connect();
    const err = await rejectsWith(client.listTools(), "PROTOCOL");
    assert.match(err.message, /text\/plain|content.type/i);
    assert.equal((await client.callTool("echo", { message: "still ok" })).content[0].text, "still ok");
    await client.close();
  });

  test("bad-json: PROTOCOL for that request; the client stays usable", async () => {
    const { client } = fresh("bad-json");
    await client.connect();
    await rejectsWith(client.listTools(), "PROTOCOL");
    assert.equal((await client.callTool("echo", { message: "still ok" })).content[0].text, "still ok");
    await client.close();
  });

  test("http-500 (HTML): HTTP_STATUS with status and a bounded body preview", async () => {
    const { client } = fresh("http-500");
    await client.connect();
    const err = await rejectsWith(client.listTools(), "HTTP_STATUS");
    assert.equal(err.status, 500);
    assert.equal(typeof err.bodyPreview, "string");
    assert.match(err.bodyPreview, /Internal Server Error/);
    assert.ok(err.bodyPreview.length <= 4096, `preview of ${err.bodyPreview.length} chars`);
    assert.equal((await client.callTool("echo", { message: "still ok" })).content[0].text, "still ok");
    await client.close();
  });

  test("http-500 (JSON-RPC body): HTTP_STATUS, the preview holds the JSON-RPC error, rpcError the parsed one", async () => {
    const { client } = fresh("http-500", {}, "?v=json");
    await client.connect();
    const err = await rejectsWith(client.listTools(), "HTTP_STATUS");
    assert.equal(err.status, 500);
    assert.match(err.bodyPreview, /-32603/);
    assert.deepEqual(err.rpcError, { code: -32603, message: "Internal error: deliberate failure", data: { hint: "http-500 scenario" } });
    await client.close();
  });

  test("wrong-version: UNSUPPORTED_PROTOCOL_VERSION; no notifications/initialized, the session it opened DELETEd", async () => {
    const { client, stats } = fresh("wrong-version");
    const err = await rejectsWith(client.connect(), "UNSUPPORTED_PROTOCOL_VERSION");
    assert.match(err.message, /1999-01-01/);
    const st = await stats();
    assert.equal(st.methods["notifications/initialized"], undefined);
    const after = st.requests.filter((r) => r.rpcMethod !== "initialize");
    assert.deepEqual(after.map((r) => r.httpMethod), ["DELETE"], JSON.stringify(after));
    assert.deepEqual(st.deletes.map((d) => [d.sessionId, d.status]), [[st.sessions[0], 200]]);
  });

  test("delete-405: close() resolves", async () => {
    const { client, stats } = fresh("delete-405");
    await client.connect();
    assert.equal(await client.close(), undefined);
    assert.equal((await stats()).deletes[0].status, 405);
  });

  test("a DELETE that fails does not make close() reject: it resolves to the error, and the client is closed", async () => {
    const { url } = fresh("normal");
    const failing = (input, init) => (init?.method === "DELETE" ? Promise.reject(new TypeError("Failed to fetch")) : fetch(input, init));
    const client = new McpClient(url, { fetch: failing });
    await client.connect();
    const outcome = await client.close();
    assert.ok(outcome instanceof ToolwireError, String(outcome));
    assert.equal(outcome.code, "NETWORK");
    await rejectsWith(client.listTools(), "NOT_CONNECTED");
    client.free();
  });

  test("NETWORK: nothing listens; the reason comes first, then CORS in short (in a browser only)", async () => {
    const port = await freePort();
    const client = new McpClient(`http://127.0.0.1:${port}/mcp`);
    const err = await rejectsWith(client.connect(), "NETWORK");
    // Node's fetch: TypeError "fetch failed", its cause the socket's ECONNREFUSED.
    assert.match(err.message, /^initialize: no HTTP response \(TypeError: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\); /);
    // Node has no CORS: the advice is about the server and the URL.
    assert.doesNotMatch(err.message, /CORS/);
    assert.match(err.message, /unreachable: is it running, and are the URL's host and port right\?/);
    // A page's runtime (one with a document) may refuse by CORS: the advice says how to allow it.
    globalThis.document = {};
    let inPage;
    try {
      inPage = new McpClient(`http://127.0.0.1:${port}/mcp`);
    } finally {
      delete globalThis.document;
    }
    const paged = await rejectsWith(inPage.connect(), "NETWORK");
    assert.match(paged.message, /CORS/);
    for (const h of ["mcp-session-id", "Access-Control-Expose-Headers", "OPTIONS"]) assert.ok(paged.message.includes(h), h);
    assert.ok(paged.message.length < 400, `the advice stays short: ${paged.message.length}`);
    inPage.free();

    // A fetch of the caller's: what its error says.
    const thrown = new TypeError("Failed to fetch");
    const own = new McpClient(`http://127.0.0.1:${port}/mcp`, { fetch: () => Promise.reject(thrown) });
    const e2 = await rejectsWith(own.connect(), "NETWORK");
    assert.match(e2.message, /^initialize: no HTTP response \(TypeError: Failed to fetch\); /);
    client.free();
    own.free();
  });

  test("a token that changes: a fetch wrapper adds it; a 401 says where to get one, and the next call uses the new one", async () => {
    let token = "expired";
    const withToken = (url, init) => fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });
    const { client } = fresh("bearer", { fetch: withToken });
    const err = await rejectsWith(client.connect(), "UNAUTHORIZED");
    assert.equal(err.status, 401);
    assert.equal(err.challenge.scheme, "Bearer");
    assert.match(err.challenge.resource_metadata, /oauth-protected-resource/);
    token = "good"; // what an OAuth sign-in would give
    await client.connect();
    assert.deepEqual((await client.listTools()).map((t) => t.name), NORMAL_TOOLS.map((t) => t.name));
    await client.close();
  });

  test("onUnauthorized: a 401 asks it for new headers, and the request is sent once more with them", async () => {
    const asked = [];
    const { client, stats } = fresh("bearer", {
      headers: { authorization: "Bearer expired" },
      onUnauthorized: async (info) => {
        asked.push(info);
        return { authorization: "Bearer good" }; // what a token refresh would give
      },
    });
    await client.connect();
    assert.deepEqual((await client.listTools()).map((t) => t.name), NORMAL_TOOLS.map((t) => t.name));
    assert.equal(asked.length, 1, "asked once: later requests carry the new header");
    assert.equal(asked[0].status, 401);
    assert.equal(asked[0].challenge.scheme, "Bearer");
    assert.match(asked[0].challenge.resource_metadata, /oauth-protected-resource/);
    assert.match(asked[0].wwwAuthenticate, /^Bearer /);
    const st = await stats();
    const auths = st.requests.filter((r) => r.httpMethod === "POST").map((r) => r.headers.authorization);
    assert.deepEqual(auths, ["Bearer expired", "Bearer good", "Bearer good", "Bearer good"], "initialize refused, sent again; initialized; tools/list");
    await client.close();
  });

  test("onUnauthorized: giving nothing leaves the 401; throwing or giving bad headers is the request's error", async () => {
    for (const [hook, code, message] of [
      [() => null, "UNAUTHORIZED", /HTTP 401/],
      [() => Promise.reject(new Error("refresh token revoked")), "UNAUTHORIZED", /onUnauthorized failed: refresh token revoked/],
      [() => ({ authorization: 5 }), "INVALID_OPTIONS", /onUnauthorized result/],
      [() => ({ "bad name": "x" }), "INVALID_OPTIONS", /cannot carry/],
    ]) {
      const { client, stats } = fresh("bearer", { onUnauthorized: hook });
      const err = await rejectsWith(client.connect(), code);
      assert.match(err.message, message);
      assert.equal((await stats()).requests.filter((r) => r.httpMethod === "POST").length, 1, "not sent again");
      // Still usable: a later connect with the right header works.
      client.free();
    }
  });

  test("connect({signal}) aborts the handshake without notifications/cancelled; connecting again ends the old session", async () => {
    const { client, stats } = fresh("normal");
    const controller = new AbortController();
    controller.abort();
    await rejectsWith(client.connect({ signal: controller.signal }), "ABORTED");
    await client.connect({ timeoutMs: 10_000 });
    const first = client.sessionId;
    await client.connect();
    assert.notEqual(client.sessionId, first);
    const st = await stats();
    assert.deepEqual(st.deletes.map((d) => d.sessionId), [first]);
    assert.deepEqual(st.cancelled, []);
    assert.equal(st.initialize.length, 2, "the aborted handshake never reached the server");
    await client.close();
  });

  test("two connect() at once (a UI framework running an effect twice) share one handshake: no session left open", async () => {
    const { client, stats } = fresh("normal");
    await within(10_000, Promise.all([client.connect(), client.connect()]), "both connects");
    const st = await stats();
    assert.equal(st.initialize.length, 1);
    assert.deepEqual(st.sessions, [client.sessionId]);
    // Again on a connected client: the session held is ended once, and one new one is made.
    await within(10_000, Promise.all([client.connect(), client.connect()]), "both reconnects");
    const again = await stats();
    assert.equal(again.initialize.length, 2);
    assert.deepEqual(again.deletes.map((d) => d.sessionId), [st.sessions[0]]);
    await client.close();
    assert.deepEqual((await stats()).deletes.map((d) => d.sessionId), again.sessions, "every session is ended");
    // An already-aborted signal given to connect() leaves the session held alone.
    const other = fresh("normal");
    await other.client.connect();
    await rejectsWith(other.client.connect({ signal: AbortSignal.abort() }), "ABORTED");
    assert.equal((await other.stats()).deletes.length, 0);
    assert.equal((await other.client.listTools()).length, NORMAL_TOOLS.length, "still connected");
    await other.client.close();
  });

  test("a server that declares prompts only: tools and resources are not asked for, prompts are", async () => {
    const { client, stats } = fresh("no-tools");
    await client.connect();
    assert.deepEqual(client.capabilities, { prompts: {} });
    assert.deepEqual(await client.listTools(), []);
    const call = await rejectsWith(client.callTool("echo", {}), "CAPABILITY_NOT_NEGOTIATED");
    assert.equal(call.capability, "tools");
    const read = await rejectsWith(client.request("resources/read", { uri: "x" }), "CAPABILITY_NOT_NEGOTIATED");
    assert.equal(read.capability, "resources");
    // prompts/list is sent (this server then answers -32601).
    const sent = await rejectsWith(client.request("prompts/list"), "JSONRPC_ERROR");
    assert.equal(sent.rpcCode, -32601);
    const st = await stats();
    assert.deepEqual(st.violations, []);
    await client.close();
  });

  test("a custom fetch is used for every request", async () => {
    const seen = [];
    const myFetch = (url, init) => {
      seen.push(init.method);
      return fetch(url, init);
    };
    const { client } = fresh("normal", { fetch: myFetch });
    await client.connect();
    await client.listTools();
    await client.close();
    assert.deepEqual(seen, ["POST", "POST", "POST", "DELETE"]);
  });

  test("a custom fetch whose body reader yields strings: read as UTF-8, over JSON and SSE", async () => {
    const decoder = new TextDecoder();
    const strings = rechunking((bytes) => decoder.decode(bytes, { stream: true }));
    for (const scenario of ["normal", "sse"]) {
      const { client } = fresh(scenario, { fetch: strings });
      await client.connect();
      assert.deepEqual((await client.listTools()).map((t) => t.name).slice(0, 2), ["echo", "add"], scenario);
      const text = "héllo wörld → 世界 🎉";
      assert.deepEqual(await client.callTool("echo", { message: text }), { content: [{ type: "text", text }] }, scenario);
      await client.close();
    }
  });

  test("a custom fetch whose body reader yields neither bytes nor strings: PROTOCOL naming what it gave", async () => {
    for (const [chunk, named] of [[(b) => b.length, /the number \d+/], [(b) => ({ bytes: [...b] }), /an object/], [() => undefined, /undefined/]]) {
      let broken = false;
      const odd = rechunking((b) => (broken ? chunk(b) : b));
      const { client } = fresh("normal", { fetch: odd, timeoutMs: 5_000 });
      await client.connect();
      broken = true;
      const e = await rejectsWith(within(4_000, client.listTools(), "listTools"), "PROTOCOL");
      assert.match(e.message, /^tools\/list: the fetch function's response body gave a chunk that is /);
      assert.match(e.message, named);
      broken = false;
      await client.close();
    }
  });
});

describe("big and resumable", () => {
  test("big: a 2 MiB result over SSE arrives intact", async () => {
    const { client } = fresh("big");
    await client.connect();
    const r = await client.callTool("echo", {});
    assert.equal(r.content[0].text.length, BIG_TEXT_LENGTH);
    assert.ok(r.content[0].text === bigText(), "2 MiB text intact");
    await client.close();
  });

  test("big: a 2 MiB result in a JSON body arrives intact", async () => {
    const { client } = fresh("big", {}, "?v=json");
    await client.connect();
    const r = await client.callTool("echo", {});
    assert.ok(r.content[0].text === bigText(), "2 MiB text intact");
    await client.close();
  });

  test("drop-resume: after retry (50 ms) a GET with Last-Event-ID gets the rest and the result", async () => {
    const { client, stats } = fresh("drop-resume");
    await client.connect();
    const progress = [];
    const r = await within(10_000, client.callTool("echo", {}, { onProgress: (p) => progress.push(p.progress) }), "the resumed call");
    assert.equal(r.content[0].text, "resumed result");
    assert.deepEqual(progress, [1, 2]);
    const st = await stats();
    assert.equal(st.resume.length, 1, "one resumption");
    assert.match(st.resume[0].lastEventId, /^st\d+:1$/, "the last event id seen");
    assert.ok(st.resume[0].delayMs >= 45, `waited retry: ${st.resume[0].delayMs} ms`);
    assert.ok(st.resume[0].delayMs < 2000, `not much longer than retry: ${st.resume[0].delayMs} ms`);
    assert.equal(st.resume[0].replayed, 2);
    const gets = st.requests.filter((x) => x.httpMethod === "GET");
    assert.equal(gets.length, 1);
    assert.match(gets[0].headers.accept, /text\/event-stream/);
    assertHeaders(st);
    assert.deepEqual(st.violations, []);
    await client.close();
  });

  test("drop-resume: a resumption GET answered 503 or 409 is retried (maxRetries); maxRetries 0 gives up at once", async () => {
    // The first resumption GET of each client gets this answer from this fetch; the server never sees it.
    const conflict = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Conflict: Stream already has an active connection" }, id: null });
    const failingOnce = (status = 503, body = "busy") => {
      let failed = 0;
      return (url, init) => (init.method === "GET" && failed++ === 0 ? Promise.resolve(new Response(body, { status })) : fetch(url, init));
    };
    // 409: what the MCP SDK's server answers while it still holds its side of the dropped stream.
    for (const failing of [failingOnce(), failingOnce(409, conflict)]) {
      const a = fresh("drop-resume", { fetch: failing });
      await a.client.connect();
      assert.equal((await within(10_000, a.client.callTool("echo", {}), "the retried resumption")).content[0].text, "resumed result");
      assert.equal((await a.stats()).resume.length, 1, "the second GET reached the server");
      await a.client.close();
    }
    const b = fresh("drop-resume", { fetch: failingOnce(), maxRetries: 0 });
    await b.client.connect();
    const e = await rejectsWith(within(10_000, b.client.callTool("echo", {}), "the call"), "PROTOCOL");
    assert.match(e.message, /could not be resumed/);
    assert.equal(e.status, 503);
    await b.client.close();
    assert.throws(() => new McpClient(b.url, { maxRetries: -1 }), { code: "INVALID_OPTIONS" });
    assert.throws(() => new McpClient(b.url, { maxRetries: 1.5 }), { code: "INVALID_OPTIONS" });
  });

  test("structuredContent is checked against the tool's outputSchema (validateStructuredContent)", async () => {
    // A fetch that spoils add's structured result on the way: the sum as a string.
    const spoiling = async (url, init) => {
      const res = await fetch(url, init);
      if (!String(init?.body ?? "").includes('"tools/call"')) return res;
      const text = (await res.text()).replace(/"structuredContent":\{"sum":(\d+)\}/, '"structuredContent":{"sum":"$1"}');
      return new Response(text, { status: res.status, headers: res.headers });
    };
    const { client, url } = fresh("normal", { fetch: spoiling });
    await client.connect();
    await client.listTools();
    const e = await rejectsWith(client.callTool("add", { a: 1, b: 2 }), "PROTOCOL");
    assert.match(e.message, /outputSchema: \/sum: string where the schema wants number/);
    assert.deepEqual(e.violations, [{ path: "/sum", message: "string where the schema wants number" }]);
    assert.equal(e.result.structuredContent.sum, "3", "the result is in the error");
    assert.equal(e.tool, "add");
    await client.close();
    const off = new McpClient(url, { fetch: spoiling, validateStructuredContent: false });
    await off.connect();
    await off.listTools();
    assert.equal((await off.callTool("add", { a: 1, b: 2 })).structuredContent.sum, "3");
    await off.close();
    assert.throws(() => new McpClient(url, { validateStructuredContent: "yes" }), { code: "INVALID_OPTIONS" });
  });

  test("drop-resume without a progress token: the result still arrives via GET", async () => {
    const { client, stats } = fresh("drop-resume");
    await client.connect();
    const r = await within(10_000, client.callTool("echo", {}), "the resumed call");
    assert.equal(r.content[0].text, "resumed result");
    const st = await stats();
    assert.match(st.resume[0].lastEventId, /^st\d+:0$/, "the priming event's id");
    await client.close();
  });
});

describe("progress on the listening stream", () => {
  test("a call's progress that the GET stream brings goes to its onProgress and starts its timeout again", async () => {
    let listening; // the GET stream's response
    const json = (res, o, headers = {}) => res.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(o));
    const server = createServer(async (req, res) => {
      let text = "";
      for await (const c of req) text += c;
      if (req.method === "GET") {
        listening = res.writeHead(200, { "content-type": "text/event-stream" });
        return listening.write(": open\n\n");
      }
      if (req.method !== "POST") return res.writeHead(200).end();
      const msg = JSON.parse(text);
      if (msg.method === "initialize") {
        return json(res, { jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "p", version: "1" } } }, { "mcp-session-id": "s1" });
      }
      if (msg.id === undefined) return res.writeHead(202).end();
      // tools/call: its stream stays silent; its progress comes on the GET stream, every 150 ms for 900 ms
      // (past the call's 400 ms timeout), then (100 ms later) the result on its own stream.
      res.writeHead(200, { "content-type": "text/event-stream" }).write(": call\n\n");
      const token = msg.params._meta.progressToken;
      for (let n = 1; n <= 6; n++) {
        await new Promise((r) => setTimeout(r, 150));
        listening.write(`data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: n } })}\n\n`);
      }
      await new Promise((r) => setTimeout(r, 100));
      res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "done" }] } })}\n\n`);
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const notified = [];
    const client = new McpClient(`http://127.0.0.1:${server.address().port}/mcp`, { onNotification: (m) => notified.push(m.method) });
    try {
      await client.connect();
      const listened = client.listen();
      await waitFor(() => listening);
      const heard = [];
      const r = await within(5_000, client.callTool("slow", {}, { timeoutMs: 400, resetTimeoutOnProgress: true, onProgress: (p) => heard.push(p.progress) }), "the call");
      assert.equal(r.content[0].text, "done");
      assert.deepEqual(heard, [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(notified, [], "none of it is onNotification's");
      await client.close();
      await listened;
    } finally {
      listening?.end();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("redirects", () => {
  test("a 307 is not followed (fetch gets redirect: manual): HTTP_STATUS naming the target; the target never sees a request", async () => {
    let hits = 0;
    const server = createServer((req, res) => {
      if (req.url === "/moved") {
        hits++;
        res.writeHead(500).end();
        return;
      }
      res.writeHead(307, { location: "/moved" }).end();
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const inits = [];
    const client = new McpClient(`http://127.0.0.1:${server.address().port}/mcp`, { fetch: (url, init) => (inits.push(init), fetch(url, init)) });
    const e = await rejectsWith(client.connect(), "HTTP_STATUS");
    assert.match(e.message, /redirected to "\/moved" \(HTTP 307\)/);
    assert.equal(e.status, 307);
    assert.equal(e.location, "/moved");
    assert.equal(inits[0].redirect, "manual");
    assert.equal(hits, 0);
    await new Promise((r) => server.close(r));
  });
});

describe("malicious servers", () => {
  test("huge-list: 20,000 tools exceed the default maxTools (LIMIT_EXCEEDED); maxTools raises it", async () => {
    const a = fresh("huge-list");
    await a.client.connect();
    await rejectsWith(within(20_000, a.client.listTools(), "listTools"), "LIMIT_EXCEEDED");
    await a.client.close();
    const b = fresh("huge-list", { maxTools: HUGE_LIST_COUNT });
    await b.client.connect();
    assert.equal((await within(20_000, b.client.listTools(), "listTools")).length, HUGE_LIST_COUNT);
    await b.client.close();
  });

  test("endless-sse: keep-alives and notifications do not extend timeoutMs; cancelled and closed", async () => {
    const { client, stats } = fresh("endless-sse", { timeoutMs: 500 });
    await client.connect();
    await rejectsWith(within(10_000, client.callTool("echo", {}), "the endless call"), "TIMEOUT");
    const st = await waitFor(async () => { const st = await stats(); return st.calls[0]?.closedByClient && st.cancelled.length && st; });
    assert.ok(st);
    assert.deepEqual(st.cancelled[0].requestId, st.calls[0].id);
    await client.close();
  });

  test("invalid-utf8: PROTOCOL, or U+FFFD in the text; never a crash; the client stays usable", async () => {
    const { client } = fresh("invalid-utf8");
    await client.connect();
    try {
      const r = await within(10_000, client.callTool("echo", {}), "the call");
      assert.ok(r.content[0].text.includes("\uFFFD"), JSON.stringify(r));
    } catch (e) {
      assert.equal(e.name, "ToolwireError", String(e));
      assert.equal(e.code, "PROTOCOL");
    }
    assert.equal((await client.listTools()).length, NORMAL_TOOLS.length);
    await client.close();
  });

  test("unknown-id: responses to ids never sent (or of another type) and duplicates are ignored", async () => {
    const { client } = fresh("unknown-id");
    await client.connect();
    const r = await within(10_000, client.callTool("echo", {}), "the call");
    assert.deepEqual(r, { content: [{ type: "text", text: "real" }] });
    const r2 = await within(10_000, client.callTool("echo", {}), "the second call");
    assert.equal(r2.content[0].text, "real");
    await client.close();
  });

  for (const [variant, what] of [["tab", "TAB and SPACE"], ["utf8", "bytes >= 0x80"]]) {
    test(`crlf-header (${variant}): a session id with ${what} is refused at connect (PROTOCOL), never echoed`, async () => {
      const { client, stats } = fresh("crlf-header", {}, `?v=${variant}`);
      await rejectsWith(within(10_000, client.connect(), "connect"), "PROTOCOL");
      const st = await stats();
      assert.ok(st.requests.every((r) => r.headers["mcp-session-id"] === undefined), "the invalid id was never sent back");
    });
  }

  test("crlf-header (long): an 8 KiB session id, the longest the client takes, works and is sent back as it came", async () => {
    const { client, stats } = fresh("crlf-header", {}, "?v=long");
    await within(10_000, client.connect(), "connect");
    assert.equal((await client.listTools()).length, NORMAL_TOOLS.length);
    const st = await stats();
    // The server notes a long id by its first 40 characters and its length.
    assert.equal(st.requests.at(-1).headers["mcp-session-id"], `${"L".repeat(40)}...(8192 chars)`);
    await client.close();
  });
});

describe("free() without close()", () => {
  /** A server whose standalone streams stay open (kept in `streams`) and whose tools/call never answers. */
  async function holdingServer() {
    const streams = new Set();
    const calls = new Set();
    const server = createServer(async (req, res) => {
      let b = "";
      for await (const c of req) b += c;
      const m = b ? JSON.parse(b) : null;
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": open\n\n");
        streams.add(res);
        res.on("close", () => streams.delete(res));
        return;
      }
      if (!m || !("id" in m)) {
        res.writeHead(m ? 202 : 200);
        return res.end();
      }
      if (m.method === "tools/call") {
        calls.add(res);
        res.on("close", () => calls.delete(res));
        return;
      }
      const result =
        m.method === "initialize"
          ? { protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: "s", version: "1" } }
          : m.method === "tools/list"
            ? { tools: [{ name: "hang", inputSchema: { type: "object" } }] }
            : {};
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "S1" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const announce = () => {
      for (const s of streams) s.write('data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n');
    };
    const stop = () => new Promise((r) => (server.closeAllConnections(), server.close(r)));
    return { url: `http://127.0.0.1:${server.address().port}/mcp`, streams, calls, announce, stop };
  }

  test("McpClient: ends a stream opened by listen() (resolving true) and a call with no timeout (NOT_CONNECTED)", async () => {
    const s = await holdingServer();
    try {
      let changes = 0;
      const client = new McpClient(s.url, { onToolListChanged: () => changes++ });
      await client.connect();
      const listening = client.listen();
      const call = client.callTool("hang", {}, { timeoutMs: Infinity });
      call.catch(() => {});
      assert.ok(await waitFor(() => s.streams.size === 1 && s.calls.size === 1, { timeoutMs: 5_000 }), "stream and call open");
      client.free();
      assert.equal(await within(3_000, listening, "listen() after free()"), true);
      await rejectsWith(within(3_000, call, "the call in flight at free()"), "NOT_CONNECTED");
      assert.match((await call.catch((e) => e)).message, /was freed/);
      assert.ok(await waitFor(() => s.streams.size === 0 && s.calls.size === 0, { timeoutMs: 3_000 }), "stream and call closed");
      s.announce();
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(changes, 0, "no callback after free()");
    } finally {
      await s.stop();
    }
  });

  test("McpHub: ends the streams opened by listen() and a call with no timeout", async () => {
    const s = await holdingServer();
    try {
      const ends = [];
      const hub = new McpHub({ s: { url: s.url } });
      await hub.tools("openai");
      const listening = hub.listen({ onEnd: (e) => ends.push(e) });
      const call = hub.callTool("mcp__s__hang", {}, { timeoutMs: Infinity });
      call.catch(() => {});
      assert.ok(await waitFor(() => s.streams.size === 1 && s.calls.size === 1, { timeoutMs: 5_000 }), "stream and call open");
      hub.free();
      assert.deepEqual(await within(3_000, listening, "hub.listen() after free()"), { servers: {}, errors: [] });
      await rejectsWith(within(3_000, call, "the hub's call in flight at free()"), "NOT_CONNECTED");
      assert.ok(await waitFor(() => s.streams.size === 0 && s.calls.size === 0, { timeoutMs: 3_000 }), "stream and call closed");
      assert.deepEqual(ends, []);
    } finally {
      await s.stop();
    }
  });
});
