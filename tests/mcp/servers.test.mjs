// The test servers themselves, driven with raw fetch (no toolwire code): every scenario of
// tests/servers/misbehaving.mjs answers as designed, and server-everything starts on 127.0.0.1 and answers.
// This file must pass whatever the state of McpClient: it proves the peers the client tests rely on.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  freshTag,
  misbehavingPath,
  parseSse,
  post,
  rawConnect,
  readResponse,
  readSseIncrementally,
  startMisbehaving,
  waitFor,
  JSON_HEADERS,
} from "./helpers.mjs";
import {
  bigText,
  BIG_TEXT_LENGTH,
  COLLIDE_TOOLS,
  HUGE_LIST_COUNT,
  NORMAL_TOOLS,
  PAGE_CURSORS,
  startServer,
  TINY_PNG_BASE64,
  WWW_AUTHENTICATE_401,
  WWW_AUTHENTICATE_403,
} from "../servers/misbehaving.mjs";
import { startEverything } from "../servers/everything.mjs";

const call = (id, name, args = {}, meta) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });
const list = (id, cursor) => ({ jsonrpc: "2.0", id, method: "tools/list", params: cursor === undefined ? {} : { cursor } });
const resultOf = (r, id) => r.messages.find((m) => m.id === id && "result" in m)?.result;
const errorOf = (r, id) => r.messages.find((m) => m.id === id && "error" in m)?.error;

let srv;
before(async () => {
  srv = await startMisbehaving();
});
after(async () => {
  await srv?.stop();
});

/** A connected raw session on /mcp/<scenario>/<fresh tag>. */
async function session(scenario, opts) {
  const tag = freshTag();
  const url = srv.url(scenario, tag);
  const s = await rawConnect(url, opts);
  return { ...s, url, key: `${scenario}/${tag}`, stats: () => srv.stats(`${scenario}/${tag}`) };
}

describe("misbehaving server: basics", () => {
  test("starts on 127.0.0.1, prints its port, serves /health", async () => {
    assert.match(srv.base, /^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await fetch(`${srv.base}/health`);
    assert.equal(await r.text(), "ok");
  });

  test("CORS: preflight allowed, headers exposed", async () => {
    const r = await fetch(srv.url("normal"), {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST", "access-control-request-headers": "content-type, mcp-session-id" },
    });
    assert.equal(r.status, 204);
    assert.equal(r.headers.get("access-control-allow-origin"), "*");
    const allowed = r.headers.get("access-control-allow-headers").split(",").map((s) => s.trim());
    for (const h of ["content-type", "accept", "authorization", "mcp-session-id", "mcp-protocol-version", "last-event-id"]) assert.ok(allowed.includes(h), h);
    assert.match(r.headers.get("access-control-allow-methods"), /POST/);
    const s = await session("normal");
    assert.equal(s.init.headers.get("access-control-allow-origin"), "*");
    const exposed = s.init.headers.get("access-control-expose-headers").split(",").map((x) => x.trim());
    assert.deepEqual(exposed.sort(), ["mcp-protocol-version", "mcp-session-id", "www-authenticate"]);
  });

  test("stats: per key, listed, reset", async () => {
    const s = await session("normal");
    const st = await s.stats();
    assert.equal(st.key, s.key);
    assert.equal(st.methods.initialize, 1);
    assert.equal(st.methods["notifications/initialized"], 1);
    assert.deepEqual(st.sessions, [s.sessionId]);
    const all = await (await fetch(`${srv.base}/stats`)).json();
    assert.ok(all[s.key]);
    await srv.resetStats(s.key);
    assert.equal((await s.stats()).http.POST, 0);
  });

  test("unknown scenario and unknown path answer 404", async () => {
    assert.equal((await post(`${srv.base}/mcp/nope`, list(1))).status, 404);
    assert.equal((await fetch(`${srv.base}/elsewhere`)).status, 404);
  });

  test("startServer() in-process, with a scenario served at /mcp (mode)", async () => {
    const s = await startServer({ port: 0, mode: "paginate3" });
    try {
      const c = await rawConnect(`${s.baseUrl}/mcp`);
      const r = await post(`${s.baseUrl}/mcp`, list(2), c.headers());
      assert.equal(resultOf(r, 2).nextCursor, PAGE_CURSORS[0]);
      assert.equal(s.stats("paginate3").toolsList.length, 1);
    } finally {
      await s.close();
    }
  });

  test("exits when its parent process dies", async () => {
    // parent: a node process that spawns the server and prints its pid, then is SIGKILLed.
    const parent = spawn(process.execPath, ["-e", `const c=require("child_process").spawn(process.execPath,[${JSON.stringify(misbehavingPath)}],{stdio:["ignore","pipe","inherit"]});c.stdout.on("data",d=>{if(/listening/.test(d))console.log("child "+c.pid)});setInterval(()=>{},1000)`], { stdio: ["ignore", "pipe", "inherit"] });
    const pid = await new Promise((resolve) => parent.stdout.on("data", (d) => { const m = /child (\d+)/.exec(d); if (m) resolve(Number(m[1])); }));
    const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
    assert.ok(alive());
    parent.kill("SIGKILL");
    assert.ok(await waitFor(() => !alive(), { timeoutMs: 5000 }), "the server outlived its parent");
  });
});

describe("scenario normal", () => {
  test("initialize: version negotiation, serverInfo, instructions, capabilities, session id", async () => {
    const s = await session("normal");
    assert.equal(s.init.status, 200);
    assert.equal(s.init.contentType, "application/json");
    const r = resultOf(s.init, 1);
    assert.equal(r.protocolVersion, "2025-11-25");
    assert.equal(r.serverInfo.name, "toolwire-misbehaving");
    assert.match(r.instructions, /toolwire/);
    assert.deepEqual(r.capabilities.tools, { listChanged: true });
    assert.match(s.sessionId, /^[0-9a-f-]{36}$/);
    assert.equal(s.initialized.status, 202);
    assert.equal(s.initialized.text, "");
    for (const [asked, answered] of [["2025-03-26", "2025-03-26"], ["2025-06-18", "2025-06-18"], ["2099-01-01", "2025-11-25"]]) {
      const o = await session("normal", { protocolVersion: asked });
      assert.equal(resultOf(o.init, 1).protocolVersion, answered, asked);
    }
  });

  test("tools/list, echo, add (structured), image (PNG), fail (isError), unknown tool (-32602)", async () => {
    const s = await session("normal");
    const tl = await post(s.url, list(2), s.headers());
    assert.deepEqual(resultOf(tl, 2).tools.map((t) => t.name), ["echo", "add", "image", "long", "chatty", "fail"]);
    assert.equal(resultOf(tl, 2).nextCursor, undefined);
    assert.deepEqual(resultOf(await post(s.url, call(3, "echo", { message: "héllo 🌍" }), s.headers()), 3), { content: [{ type: "text", text: "héllo 🌍" }] });
    const add = resultOf(await post(s.url, call(4, "add", { a: 2, b: 3 }), s.headers()), 4);
    assert.deepEqual(add.structuredContent, { sum: 5 });
    assert.equal(add.content[0].text, '{"sum":5}');
    const img = resultOf(await post(s.url, call(5, "image"), s.headers()), 5).content[0];
    assert.equal(img.type, "image");
    assert.equal(img.mimeType, "image/png");
    assert.equal(img.data, TINY_PNG_BASE64);
    assert.equal(Buffer.from(img.data, "base64").subarray(0, 8).toString("hex"), "89504e470d0a1a0a");
    const fail = resultOf(await post(s.url, call(6, "fail"), s.headers()), 6);
    assert.equal(fail.isError, true);
    assert.equal(errorOf(await post(s.url, call(7, "nope"), s.headers()), 7).code, -32602);
    const st = await s.stats();
    assert.deepEqual(st.violations, []);
    assert.deepEqual(st.calls.map((c) => c.outcome), ["answered", "answered", "answered", "is-error", "unknown-tool"]);
  });

  test("long: progress over SSE (token 0 is a real token), then the result", async () => {
    const s = await session("normal");
    const r = await post(s.url, call(0, "long", { steps: 3, intervalMs: 10 }, { progressToken: 0 }), s.headers());
    assert.equal(r.contentType, "text/event-stream");
    assert.deepEqual(r.messages.map((m) => m.method ?? "result"), ["notifications/progress", "notifications/progress", "notifications/progress", "result"]);
    assert.deepEqual(r.messages.slice(0, 3).map((m) => [m.params.progressToken, m.params.progress, m.params.total]), [[0, 1, 3], [0, 2, 3], [0, 3, 3]]);
    assert.equal(r.messages[0].params.message, "step 1/3");
    assert.equal(r.messages[3].id, 0);
    assert.equal((await s.stats()).progressTokens[0], 0);
  });

  test("long: notifications/cancelled stops it (no result); the client's abort is recorded", async () => {
    const s = await session("normal");
    const ac = new AbortController();
    const res = await fetch(s.url, { method: "POST", headers: { ...JSON_HEADERS, ...s.headers() }, body: JSON.stringify(call(9, "long", { steps: 100, intervalMs: 20 }, { progressToken: "p9" })), signal: ac.signal });
    const reader = res.body.getReader();
    await reader.read(); // some progress arrived
    const c = await post(s.url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9, reason: "test" } }, s.headers());
    assert.equal(c.status, 202);
    const st1 = await waitFor(async () => { const st = await s.stats(); return st.calls[0].outcome === "cancelled" && st; });
    assert.ok(st1, "the call was not cancelled");
    assert.ok(st1.calls[0].stoppedAtStep < 100);
    assert.equal(st1.calls[0].closedByClient, undefined); // the server leaves the stream open
    ac.abort();
    const st = await waitFor(async () => { const st = await s.stats(); return st.calls[0].closedByClient && st; });
    assert.ok(st, "the client's close was not recorded");
    assert.deepEqual(st.cancelled.map((x) => [x.requestId, x.reason]), [[9, "test"]]);
  });

  test("chatty: notifications/message and tools/list_changed before the result", async () => {
    const s = await session("normal");
    const r = await post(s.url, call(2, "chatty"), s.headers());
    assert.deepEqual(r.messages.map((m) => m.method ?? `result:${m.id}`), ["notifications/message", "notifications/tools/list_changed", "result:2"]);
    assert.equal(r.messages[0].params.level, "info");
  });

  test("ping, unknown method (-32601), GET (405), DELETE (200, then 404)", async () => {
    const s = await session("normal");
    assert.deepEqual(resultOf(await post(s.url, { jsonrpc: "2.0", id: 2, method: "ping" }, s.headers()), 2), {});
    assert.equal(errorOf(await post(s.url, { jsonrpc: "2.0", id: 3, method: "resources/list" }, s.headers()), 3).code, -32601);
    const g = await fetch(s.url, { headers: { accept: "text/event-stream", ...s.headers() } });
    assert.equal(g.status, 405);
    await g.body?.cancel();
    const d = await fetch(s.url, { method: "DELETE", headers: s.headers() });
    assert.equal(d.status, 200);
    const after = await post(s.url, list(4), s.headers());
    assert.equal(after.status, 404);
    assert.equal(after.messages[0].error.code, -32001);
    assert.deepEqual((await s.stats()).deletes, [{ sessionId: s.sessionId, status: 200 }]);
  });

  test("strict: 400 without session, 406 bad Accept, 415 bad Content-Type, 400 batch, 400 bad version header, 400 initialize with session", async () => {
    const s = await session("normal");
    assert.equal((await post(s.url, list(2), { "mcp-protocol-version": "2025-11-25" })).status, 400);
    assert.equal((await post(s.url, list(3), { ...s.headers(), accept: "application/json" })).status, 406);
    assert.equal((await post(s.url, list(4), { ...s.headers(), "content-type": "text/plain" })).status, 415);
    assert.equal((await post(s.url, [list(5), list(6)], s.headers())).status, 400);
    assert.equal((await post(s.url, list(7), s.headers({ "mcp-protocol-version": "1999-01-01" }))).status, 400);
    assert.equal((await post(s.url, "{not json", s.headers())).status, 400);
    const reinit = await post(s.url, { jsonrpc: "2.0", id: 8, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } }, { "mcp-session-id": s.sessionId });
    assert.equal(reinit.status, 400);
    const v = (await s.stats()).violations.join("\n");
    for (const re of [/no Mcp-Session-Id/, /Accept application\/json/, /Content-Type text\/plain/, /batch/, /unsupported MCP-Protocol-Version 1999-01-01/, /not JSON/, /initialize carried an Mcp-Session-Id/]) assert.match(v, re);
  });

  test("violations: missing MCP-Protocol-Version header, reused id, request before initialized", async () => {
    const tag = freshTag();
    const url = srv.url("normal", tag);
    const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    const sid = init.headers.get("mcp-session-id");
    await post(url, list(2), { "mcp-session-id": sid }); // before initialized, no version header
    await post(url, list(2), { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" }); // id reused
    const v = (await srv.stats(`normal/${tag}`)).violations.join("\n");
    assert.match(v, /no MCP-Protocol-Version header/);
    assert.match(v, /tools\/list before notifications\/initialized/);
    assert.match(v, /request id 2 reused/);
  });
});

describe("scenario stateless", () => {
  test("no session id issued; one sent anyway is a violation", async () => {
    const s = await session("stateless");
    assert.equal(s.sessionId, undefined);
    assert.equal(resultOf(await post(s.url, list(2), s.headers()), 2).tools.length, NORMAL_TOOLS.length);
    assert.deepEqual((await s.stats()).violations, []);
    await post(s.url, list(3), s.headers({ "mcp-session-id": "made-up" }));
    assert.match((await s.stats()).violations.join(), /Mcp-Session-Id sent to a server that issued none/);
    assert.equal((await fetch(s.url, { method: "DELETE", headers: s.headers() })).status, 405);
  });
});

describe("scenario sse", () => {
  test("initialize as SSE: BOM, comment, retry, priming event, CRLF, multi-line data", async () => {
    const s = await session("sse");
    assert.match(s.init.contentType, /^text\/event-stream/);
    const raw = s.init.bytes;
    assert.equal(raw.subarray(0, 3).toString("hex"), "efbbbf", "BOM first");
    const text = raw.toString("utf8");
    assert.match(text, /^\uFEFF: toolwire/);
    assert.match(text, /\r\nretry: 3000\r\n/);
    assert.match(text, /id: s\d+:0\r\ndata:\r\n\r\n/, "priming event");
    assert.match(text, /\r\ndata:\s*"jsonrpc": "2.0",\r\n/, "multi-line data");
    assert.match(text, /\r\ndata:[^ \r]/, "data: without the space");
    assert.ok(!/[^\r]\n/.test(text), "every line ends with CRLF");
    const events = parseSse(raw);
    assert.equal(events[0].data, "");
    assert.equal(resultOf(s.init, 1).protocolVersion, "2025-11-25");
    assert.ok(s.sessionId);
  });

  test("tools/call: ping (id 0) and an unknown request first; the result only after both are answered", async () => {
    const s = await session("sse");
    const res = await fetch(s.url, { method: "POST", headers: { ...JSON_HEADERS, ...s.headers() }, body: JSON.stringify(call(5, "echo", { message: "héllo wörld → 世界 🎉" })) });
    const seen = [];
    const { raw, chunks } = await readSseIncrementally(res, async (ev) => {
      if (!ev.data) return;
      const m = JSON.parse(ev.data);
      seen.push(m);
      if (m.method && "id" in m) {
        const answer = m.method === "ping" ? { jsonrpc: "2.0", id: m.id, result: {} } : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
        assert.equal((await post(s.url, answer, s.headers())).status, 202);
      }
    });
    assert.deepEqual(seen.map((m) => m.method ?? `result:${m.id}`), ["ping", "toolwire-test/unknown", "notifications/message", "result:5"]);
    assert.equal(seen[0].id, 0);
    assert.equal(seen[1].id, "srv-0");
    assert.equal(seen.at(-1).result.content[0].text, "héllo wörld → 世界 🎉");
    assert.ok(chunks > 10, `written in small chunks (${chunks} reads)`);
    assert.ok(raw.includes(Buffer.from("x-unknown-field: ignored")));
    const st = await s.stats();
    assert.deepEqual(st.serverRequests, [{ id: 0, method: "ping" }, { id: "srv-0", method: "toolwire-test/unknown" }]);
    assert.deepEqual(st.clientResponses, [{ id: 0, result: {} }, { id: "srv-0", error: { code: -32601, message: "Method not found" } }]);
    assert.equal(st.calls[0].serverRequestsAnswered, true);
    assert.deepEqual(st.violations, []);
  });

  test("tools/call: unanswered server requests are a violation; the result still comes after 3 s", async () => {
    const s = await session("sse");
    const r = await post(s.url, call(6, "add", { a: 1, b: 2 }), s.headers());
    assert.deepEqual(resultOf(r, 6).structuredContent, { sum: 3 });
    const st = await s.stats();
    assert.equal(st.calls[0].serverRequestsAnswered, false);
    assert.match(st.violations.join(), /did not answer the server's ping/);
  });
});

describe("pagination scenarios", () => {
  test("paginate3: exactly 3 pages; a bad cursor is -32602", async () => {
    const s = await session("paginate3");
    const names = [];
    let cursor;
    let pages = 0;
    do {
      const r = resultOf(await post(s.url, list(10 + pages, cursor), s.headers()), 10 + pages);
      names.push(...r.tools.map((t) => t.name));
      cursor = r.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(names, NORMAL_TOOLS.map((t) => t.name));
    assert.equal(errorOf(await post(s.url, list(20, "bm9wZQ=="), s.headers()), 20).code, -32602);
    assert.deepEqual((await s.stats()).toolsList.map((x) => x.cursor), [null, ...PAGE_CURSORS, "bm9wZQ=="]);
  });

  test("endless: a new cursor every page", async () => {
    const s = await session("endless");
    const cursors = new Set();
    let cursor;
    for (let i = 0; i < 20; i++) {
      const r = resultOf(await post(s.url, list(10 + i, cursor), s.headers()), 10 + i);
      assert.equal(r.tools.length, 1);
      assert.ok(r.nextCursor);
      assert.ok(!cursors.has(r.nextCursor));
      cursors.add((cursor = r.nextCursor));
    }
    assert.equal((await s.stats()).counters.toolsListCalls, 20);
  });

  test("repeat-cursor: the same cursor again", async () => {
    const s = await session("repeat-cursor");
    const p1 = resultOf(await post(s.url, list(2), s.headers()), 2);
    const p2 = resultOf(await post(s.url, list(3, p1.nextCursor), s.headers()), 3);
    assert.equal(p1.nextCursor, "again");
    assert.equal(p2.nextCursor, "again");
    assert.notEqual(p1.tools[0].name, p2.tools[0].name);
  });

  test("endless pagination is bounded (maxPages; 10,000 by default)", async () => {
    const s = await startServer({ port: 0, mode: "endless", maxPages: 30 });
    try {
      const c = await rawConnect(`${s.baseUrl}/mcp`);
      let r;
      let id = 10;
      const agent = { ...JSON_HEADERS, ...c.headers() };
      for (let i = 0; i < 100; i++) {
        const res = await fetch(`${s.baseUrl}/mcp`, { method: "POST", headers: agent, body: JSON.stringify(list(id++, r?.nextCursor)) });
        r = (await res.json()).result;
        if (!r.nextCursor) break;
      }
      assert.equal(r.nextCursor, undefined);
      assert.equal(s.stats("endless").toolsList.length, 30);
      assert.equal(s.stats("endless").counters.boundReached, true);
    } finally {
      await s.close();
    }
  });
});

describe("session expiry", () => {
  test("expire: the first tools/list is 404 and drops the session; a new session then works", async () => {
    const s = await session("expire");
    const r = await post(s.url, list(2), s.headers());
    assert.equal(r.status, 404);
    assert.deepEqual(r.messages[0], { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
    assert.equal((await post(s.url, list(3), s.headers())).status, 404, "the session stays dropped");
    const again = await rawConnect(s.url);
    assert.notEqual(again.sessionId, s.sessionId);
    assert.equal(resultOf(await post(s.url, list(2), again.headers()), 2).tools.length, NORMAL_TOOLS.length);
    const st = await s.stats();
    assert.equal(st.methods.initialize, 2);
    assert.equal(st.counters.expired, 1);
    assert.deepEqual(st.initialize.map((i) => i.sessionHeader), [null, null]);
  });

  test("expire-always: every tools/list is 404", async () => {
    const s = await session("expire-always");
    assert.equal((await post(s.url, list(2), s.headers())).status, 404);
    const again = await rawConnect(s.url);
    assert.equal((await post(s.url, list(2), again.headers())).status, 404);
  });
});

describe("timeouts and cancellation", () => {
  test("hang: 200 + SSE headers and nothing else; cancel and the client's close are recorded", async () => {
    const s = await session("hang");
    const ac = new AbortController();
    const res = await fetch(s.url, { method: "POST", headers: { ...JSON_HEADERS, ...s.headers() }, body: JSON.stringify(call(7, "echo", { message: "x" })), signal: ac.signal });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const reader = res.body.getReader();
    const nothing = await Promise.race([reader.read().then(() => "data"), new Promise((r) => setTimeout(() => r("nothing"), 300))]);
    assert.equal(nothing, "nothing");
    assert.equal((await post(s.url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "Request timed out" } }, s.headers())).status, 202);
    ac.abort();
    const st = await waitFor(async () => { const st = await s.stats(); return st.calls[0]?.closedByClient && st; });
    assert.ok(st, "the client's close was not seen");
    assert.deepEqual(st.cancelled.map((c) => c.requestId), [7]);
    assert.equal(st.calls[0].outcome, "closed-by-client");
  });

  test("hang is bounded (boundMs)", async () => {
    const s = await startServer({ port: 0, mode: "hang", boundMs: 300 });
    try {
      const c = await rawConnect(`${s.baseUrl}/mcp`);
      const started = Date.now();
      const res = await fetch(`${s.baseUrl}/mcp`, { method: "POST", headers: { ...JSON_HEADERS, ...c.headers() }, body: JSON.stringify(call(2, "echo")) });
      await assert.rejects(res.arrayBuffer()); // the server destroys the socket
      assert.ok(Date.now() - started >= 250);
      assert.equal(s.stats("hang").calls[0].outcome, "bounded");
      assert.notEqual(s.stats("hang").calls[0].closedByClient, true);
    } finally {
      await s.close();
    }
  });

  test("endless-sse: comments and notifications, never the response; bounded (boundMs)", async () => {
    const s = await startServer({ port: 0, mode: "endless-sse", boundMs: 400 });
    try {
      const c = await rawConnect(`${s.baseUrl}/mcp`);
      const r = await readResponse(await fetch(`${s.baseUrl}/mcp`, { method: "POST", headers: { ...JSON_HEADERS, ...c.headers() }, body: JSON.stringify(call(2, "echo")) }));
      assert.equal(r.contentType, "text/event-stream");
      assert.match(r.text, /: keep-alive 1\n/);
      assert.ok(r.messages.length >= 2);
      assert.ok(r.messages.every((m) => m.method === "notifications/message"));
      assert.equal(s.stats("endless-sse").calls[0].outcome, "bounded");
    } finally {
      await s.close();
    }
  });
});

describe("error scenarios", () => {
  test("rpc-error: JSON-RPC error -32602 with data", async () => {
    const s = await session("rpc-error");
    const e = errorOf(await post(s.url, call(2, "echo", { message: "x" }), s.headers()), 2);
    assert.equal(e.code, -32602);
    assert.match(e.message, /Invalid arguments/);
    assert.deepEqual(e.data, { field: "message", hint: "rpc-error scenario" });
  });

  test("unauthorized: 401 + WWW-Authenticate on every request; forbidden: 403", async () => {
    const r = await post(srv.url("unauthorized", freshTag()), { jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    assert.equal(r.status, 401);
    assert.equal(r.headers.get("www-authenticate"), WWW_AUTHENTICATE_401);
    assert.equal(r.headers.get("www-authenticate"), 'Bearer realm="mcp", error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"');
    assert.equal(r.messages[0].error, "invalid_token");
    const f = await post(srv.url("forbidden", freshTag()), { jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    assert.equal(f.status, 403);
    assert.equal(f.headers.get("www-authenticate"), WWW_AUTHENTICATE_403);
  });

  test("bad-content-type: tools/list is 200 text/plain; tools/call still works", async () => {
    const s = await session("bad-content-type");
    const r = await post(s.url, list(2), s.headers());
    assert.equal(r.status, 200);
    assert.match(r.contentType, /^text\/plain/);
    assert.equal(resultOf(await post(s.url, call(3, "echo", { message: "ok" }), s.headers()), 3).content[0].text, "ok");
  });

  test("bad-json: tools/list is 200 application/json that does not parse; tools/call still works", async () => {
    const s = await session("bad-json");
    const r = await post(s.url, list(2), s.headers());
    assert.equal(r.status, 200);
    assert.equal(r.contentType, "application/json");
    assert.throws(() => JSON.parse(r.text));
    assert.equal(resultOf(await post(s.url, call(3, "echo", { message: "ok" }), s.headers()), 3).content[0].text, "ok");
  });

  test("http-500: an HTML body over 4 KB; ?v=json: a JSON-RPC error body", async () => {
    const s = await session("http-500");
    const r = await post(s.url, list(2), s.headers());
    assert.equal(r.status, 500);
    assert.match(r.contentType, /^text\/html/);
    assert.match(r.text, /Internal Server Error/);
    assert.match(r.text, /deliberate failure/);
    assert.ok(r.text.length > 4096, `${r.text.length}`);
    const j = await session("http-500");
    const r2 = await post(`${j.url}?v=json`, list(2), j.headers());
    assert.equal(r2.status, 500);
    assert.equal(r2.messages[0].error.code, -32603);
    assert.equal(resultOf(await post(s.url, call(3, "echo", { message: "ok" }), s.headers()), 3).content[0].text, "ok");
  });

  test("wrong-version: initialize answers 1999-01-01", async () => {
    const s = await session("wrong-version");
    assert.equal(resultOf(s.init, 1).protocolVersion, "1999-01-01");
  });

  test("delete-405: DELETE is 405", async () => {
    const s = await session("delete-405");
    const d = await fetch(s.url, { method: "DELETE", headers: s.headers() });
    assert.equal(d.status, 405);
    assert.equal(d.headers.get("allow"), "POST");
    assert.deepEqual((await s.stats()).deletes, [{ sessionId: s.sessionId, status: 405 }]);
  });
});

describe("big and resumable", () => {
  test("big: 2 MiB of text in one SSE event; ?v=json in a JSON body", async () => {
    const s = await session("big");
    const r = await post(s.url, call(2, "echo"), s.headers());
    assert.equal(r.contentType, "text/event-stream");
    const text = resultOf(r, 2).content[0].text;
    assert.equal(text.length, BIG_TEXT_LENGTH);
    assert.equal(text, bigText());
    assert.equal(createHash("sha256").update(text).digest("hex"), createHash("sha256").update(bigText()).digest("hex"));
    const j = await post(`${s.url}?v=json`, call(3, "echo"), s.headers());
    assert.equal(j.contentType, "application/json");
    assert.equal(resultOf(j, 3).content[0].text.length, BIG_TEXT_LENGTH);
  });

  test("drop-resume: priming (retry 50) + progress, the stream ends early; GET + Last-Event-ID replays the rest", async () => {
    const s = await session("drop-resume");
    const r = await post(s.url, call(2, "echo", {}, { progressToken: "tok" }), s.headers());
    const events = parseSse(r.bytes);
    assert.equal(events[0].data, "");
    assert.equal(events[0].retry, 50);
    assert.match(events[0].id, /^st\d+:0$/);
    assert.deepEqual(events.slice(1).map((e) => JSON.parse(e.data).method), ["notifications/progress"]);
    assert.ok(!r.messages.some((m) => m.id === 2), "no response before the drop");
    const lastId = events.at(-1).id;
    const plain = await fetch(s.url, { headers: { accept: "text/event-stream", ...s.headers() } });
    assert.equal(plain.status, 405);
    await plain.body?.cancel();
    const g = await readResponse(await fetch(s.url, { headers: { accept: "text/event-stream", "last-event-id": lastId, ...s.headers() } }));
    assert.equal(g.status, 200);
    assert.deepEqual(g.messages.map((m) => m.method ?? `result:${m.id}`), ["notifications/progress", "result:2"]);
    assert.equal(resultOf(g, 2).content[0].text, "resumed result");
    const bad = await fetch(s.url, { headers: { accept: "text/event-stream", "last-event-id": "nope:1", ...s.headers() } });
    assert.equal(bad.status, 400);
    const st = await s.stats();
    assert.equal(st.resume[0].lastEventId, lastId);
    assert.equal(st.resume[0].replayed, 2);
    assert.ok(st.resume[0].delayMs >= 0);
    assert.equal(st.calls[0].outcome, "resumed");
  });
});

describe("malicious scenarios", () => {
  test("collide: colliding names; a call says which endpoint it reached", async () => {
    const s = await session("collide");
    const tools = resultOf(await post(s.url, list(2), s.headers()), 2).tools;
    assert.deepEqual(tools.map((t) => t.name), COLLIDE_TOOLS.map((t) => t.name));
    assert.equal(tools.filter((t) => t.name === "dup").length, 2);
    assert.equal(resultOf(await post(s.url, call(3, "b__c"), s.headers()), 3).content[0].text, `called b__c on ${s.key}`);
  });

  test("huge-list: 20,000 tools in one page", async () => {
    const s = await session("huge-list");
    const r = resultOf(await post(s.url, list(2), s.headers()), 2);
    assert.equal(r.tools.length, HUGE_LIST_COUNT);
    assert.equal(r.nextCursor, undefined);
  });

  test("invalid-utf8: the JSON body holds the bytes FF FE", async () => {
    const s = await session("invalid-utf8");
    const r = await post(s.url, call(2, "echo"), s.headers());
    assert.equal(r.contentType, "application/json");
    const i = r.bytes.indexOf(Buffer.from([0xff, 0xfe]));
    assert.ok(i > 0);
    assert.match(r.bytes.subarray(0, i).toString(), /"text":"bad bytes: $/);
  });

  test("unknown-id: unknown id, type-changed id, the real response, a duplicate", async () => {
    const s = await session("unknown-id");
    const r = await post(s.url, call(2, "echo"), s.headers());
    assert.deepEqual(r.messages.map((m) => m.id), [987654321, "2", 2, 2]);
    assert.equal(r.messages[2].result.content[0].text, "real");
  });

  test("crlf-header: session ids with TAB and SPACE, bytes >= 0x80, 8 KiB", async () => {
    const tab = await post(srv.url("crlf-header", freshTag()), { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    assert.match(tab.headers.get("mcp-session-id"), /^bad\tsession id-/);
    const utf8 = await post(`${srv.url("crlf-header", freshTag())}?v=utf8`, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    assert.match(utf8.headers.get("mcp-session-id"), /^sessi\u00c3\u00b3n-/); // bytes C3 B3, read as latin1
    const long = await post(`${srv.url("crlf-header", freshTag())}?v=long`, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    assert.equal(long.headers.get("mcp-session-id").length, 8192);
  });
});

describe("server-everything", () => {
  let ev;
  before(async () => {
    ev = await startEverything();
  });
  after(async () => {
    await ev?.stop();
  });

  test("listens on 127.0.0.1 and answers initialize, tools/list, echo over SSE", async () => {
    assert.match(ev.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const s = await rawConnect(ev.url);
    assert.equal(s.init.status, 200);
    assert.equal(s.init.contentType, "text/event-stream");
    assert.equal(resultOf(s.init, 1).serverInfo.name, "mcp-servers/everything");
    assert.ok(s.sessionId);
    assert.equal(s.initialized.status, 202);
    const tools = resultOf(await post(ev.url, list(2), s.headers()), 2).tools.map((t) => t.name);
    for (const name of ["echo", "get-tiny-image", "get-resource-links", "get-structured-content", "trigger-long-running-operation"]) assert.ok(tools.includes(name), name);
    const echo = resultOf(await post(ev.url, call(3, "echo", { message: "hi" }), s.headers()), 3);
    assert.match(echo.content[0].text, /hi/);
    const img = resultOf(await post(ev.url, call(4, "get-tiny-image"), s.headers()), 4);
    assert.ok(img.content.some((c) => c.type === "image" && c.mimeType === "image/png" && c.data === img.content.find((x) => x.type === "image").data));
    assert.equal((await fetch(ev.url, { method: "DELETE", headers: s.headers() })).status, 200);
  });

  test("stops with stop()", async () => {
    const e2 = await startEverything();
    await e2.stop();
    assert.ok(e2.child.exitCode !== null || e2.child.signalCode !== null);
  });
});

