// McpClient's streams and the session they belong to, against a small server on 127.0.0.1 that keeps its
// standalone stream (GET) and a call's stream open, and forgets every session when told to (as a server that
// restarts, or another node behind a balancer, does): after the client renews the session, nothing of the old
// session's streams acts on the new one.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { loadPkg, rejectsWith } from "./helpers.mjs";

const { McpClient } = await loadPkg();

let server;
let base;
let next = 0;
/** Live sessions: id -> the responses of its open streams. */
const sessions = new Map();
/** What the server saw: GETs (session, Last-Event-ID, closed by the client), answers to its requests. */
const seen = { gets: [], answers: [], subscribes: [] };
/** URIs whose resources/subscribe the server refuses (gone since it restarted). */
const gone = new Set();

const sse = (res, session) => res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": session });
const event = (res, msg, id) => res.write(`${id ? `id: ${id}\n` : ""}event: message\ndata: ${JSON.stringify(msg)}\n\n`);
const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

async function handle(req, res) {
  let body = "";
  for await (const chunk of req) body += chunk;
  const session = req.headers["mcp-session-id"];
  if (req.method === "DELETE") return json(res, 200, {});
  if (req.method === "GET") {
    const get = { session, lastEventId: req.headers["last-event-id"] ?? null, closedByClient: false };
    seen.gets.push(get);
    if (!sessions.has(session)) return json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
    // The standalone stream, or a resumption the server cannot match to anything (as the SDK's server
    // answers an event id of another session): open, silent.
    sse(res, session);
    res.write(": open\n\n");
    sessions.get(session).push(res);
    res.on("close", () => (get.closedByClient = !res.writableEnded));
    return;
  }
  const msg = JSON.parse(body);
  if (msg.method === "initialize") {
    const id = `s${++next}`;
    sessions.set(id, []);
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {}, resources: { subscribe: true } }, serverInfo: { name: "sessions", version: "1" } } }, { "mcp-session-id": id });
  }
  if (!sessions.has(session)) return json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
  if (msg.id === undefined || msg.method === undefined) {
    if (msg.method === undefined) seen.answers.push({ session, message: msg });
    res.writeHead(202);
    return res.end();
  }
  if (msg.method === "resources/subscribe" || msg.method === "resources/unsubscribe") {
    seen.subscribes.push([msg.method, session, msg.params.uri]);
    if (msg.method === "resources/subscribe" && gone.has(msg.params.uri)) {
      return json(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32002, message: "Resource not found" } });
    }
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: {} });
  }
  const name = msg.params?.name;
  if (name === "slow") {
    // A priming event, then the stream ends: to be resumed from `${session}-1` after 300 ms.
    sse(res, session);
    res.write(`id: ${session}-1\nretry: 300\ndata: \n\n`);
    return res.end();
  }
  if (name === "forget") {
    json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "forgot" }] } });
    // The old session's standalone stream stays open: its node did not restart.
    const old = [...sessions.entries()];
    sessions.clear();
    for (const [id, streams] of old) {
      // A request of the old session (id 0, as servers number theirs) on its stream, after the renewal.
      setTimeout(() => streams.forEach((s) => s.writableEnded || s.destroyed || event(s, { jsonrpc: "2.0", id: 0, method: "ping" })), 200);
    }
    return;
  }
  return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: `${name} on ${session}` }] } });
}

before(async () => {
  server = createServer((req, res) => handle(req, res).catch((e) => json(res, 500, { error: String(e) })));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe("McpClient streams after a session renewal", () => {
  test("a call's dropped stream is not resumed on the new session; listening moves there; the old stream's ping goes unanswered", async () => {
    const client = new McpClient(`${base}/mcp`, { listen: true, timeoutMs: 4000 });
    await client.connect();
    await sleep(100);
    assert.deepEqual(seen.gets.map((g) => [g.session, g.lastEventId]), [["s1", null]]);
    const started = Date.now();
    const slow = client.callTool("slow", {}).then(
      () => null,
      (e) => e,
    );
    assert.equal((await client.callTool("forget", {})).content[0].text, "forgot");
    // Renewed by this call: s1 is gone.
    assert.equal((await client.callTool("echo", {})).content[0].text, "echo on s2");
    const e = await slow;
    assert.ok(e, "the call on s1 resolved");
    assert.equal(e.code, "NOT_CONNECTED", e.message);
    assert.equal(e.sessionEnded, true);
    assert.ok(Date.now() - started < 2000, "failed at once, not at its timeout");
    await sleep(500);
    assert.deepEqual(
      seen.gets.map((g) => [g.session, g.lastEventId]),
      [["s1", null], ["s2", null]],
      "no resumption with s1's event id, a fresh stream on s2",
    );
    assert.equal(seen.gets[0].closedByClient, true, "the old session's stream was dropped");
    assert.deepEqual(seen.answers, [], "s1's ping was not answered on s2");
    await client.close();
  });

  test("the resources subscribed to are subscribed to again on the renewed session, and heard as updated", async () => {
    const notes = [];
    const client = new McpClient(`${base}/mcp`, { listen: true, timeoutMs: 4000, onNotification: (n) => notes.push([n.method, n.params]) });
    await client.connect();
    const first = client.sessionId;
    for (const [method, uri] of [["resources/subscribe", "file:///a"], ["resources/subscribe", "file:///b"], ["resources/unsubscribe", "file:///a"]]) {
      assert.deepEqual(await client.request(method, { uri }), {});
    }
    seen.subscribes.length = 0;
    await client.callTool("forget", {});
    await client.callTool("echo", {});
    assert.notEqual(client.sessionId, first);
    assert.deepEqual(seen.subscribes, [["resources/subscribe", client.sessionId, "file:///b"]]);
    await sleep(300);
    assert.deepEqual(notes, [
      ["notifications/tools/list_changed", {}],
      ["notifications/resources/updated", { uri: "file:///b" }],
    ]);
    // connect() again: a new session of the app's asking, subscribed to nothing.
    seen.subscribes.length = 0;
    await client.connect();
    await client.callTool("echo", {});
    assert.deepEqual(seen.subscribes, []);
    await client.close();
  });

  test("a subscription the renewed session's server refuses is forgotten, and said on console.error", async () => {
    const said = [];
    const error = console.error;
    console.error = (...args) => said.push(args);
    const notes = [];
    const client = new McpClient(`${base}/mcp`, { listen: true, timeoutMs: 4000, onNotification: (n) => notes.push([n.method, n.params]) });
    try {
      await client.connect();
      for (const uri of ["file:///kept", "file:///gone"]) assert.deepEqual(await client.request("resources/subscribe", { uri }), {});
      gone.add("file:///gone");
      seen.subscribes.length = 0;
      await client.callTool("forget", {});
      await client.callTool("echo", {});
      assert.deepEqual(seen.subscribes.map(([, , uri]) => uri).sort(), ["file:///gone", "file:///kept"]);
      await sleep(300);
      assert.equal(said.length, 1, JSON.stringify(said));
      const [prefix, e] = said[0];
      assert.equal(prefix, "toolwire: McpClient:");
      assert.equal(e.code, "JSONRPC_ERROR");
      assert.match(e.message, /could not be subscribed again to 1 resource the app subscribed to: file:\/\/\/gone \(.*Resource not found/);
      assert.deepEqual(e.lost.map((l) => [l.uri, l.code]), [["file:///gone", "JSONRPC_ERROR"]]);
      // Heard as updated: the one subscribed again only.
      assert.deepEqual(notes.filter(([m]) => m === "notifications/resources/updated"), [["notifications/resources/updated", { uri: "file:///kept" }]]);
      // Forgotten: the next renewal asks for the one kept alone, and says nothing.
      seen.subscribes.length = 0;
      await client.callTool("forget", {});
      await client.callTool("echo", {});
      assert.deepEqual(seen.subscribes, [["resources/subscribe", client.sessionId, "file:///kept"]]);
      assert.equal(said.length, 1);
    } finally {
      console.error = error;
      gone.clear();
      await client.close();
    }
  });

  test("a hub's server whose renewed session refuses a subscription is named on console.error", async () => {
    const said = [];
    const error = console.error;
    console.error = (...args) => said.push(args);
    const { McpHub } = await loadPkg();
    const hub = new McpHub({ res: { url: `${base}/mcp`, timeoutMs: 4000 } });
    try {
      assert.deepEqual(await hub.request("res", "resources/subscribe", { uri: "file:///gone" }), {});
      gone.add("file:///gone");
      await hub.request("res", "tools/call", { name: "forget", arguments: {} });
      await hub.request("res", "tools/call", { name: "echo", arguments: {} });
      assert.equal(said.length, 1, JSON.stringify(said));
      assert.equal(said[0][0], 'toolwire: McpHub\'s server "res":');
      assert.equal(said[0][1].server, "res");
      assert.deepEqual(said[0][1].lost.map((l) => l.uri), ["file:///gone"]);
    } finally {
      console.error = error;
      gone.clear();
      await hub.closeAll();
    }
  });
});
