// McpClient (the built package, ../../pkg) against a small server in this process that asks the client things on
// a call's stream and on the listening stream: an answer the server refuses, a capability the client never declared.
// Run: make pkg && node --test tests/mcp/server-requests.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { loadPkg, rejectsWith, waitFor, within } from "./helpers.mjs";

const { McpClient, McpHub } = await loadPkg();

/**
 * A server whose `ask` tool sends each of `requests` (`[method, params]`) on the call's stream, then its result (the
 * answers, as JSON text) once it has an answer to each; its listening stream (GET) sends `listenRequests` so. The
 * POST carrying an answer is answered `answerStatus` (with a JSON-RPC error body) when set, else 202.
 */
async function startServer({ requests = [], listenRequests = [], answerStatus } = {}) {
  const answers = [];
  let answered = () => {};
  const sse = (res) => res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "S1" });
  const ask = (res, list, tag) => list.forEach(([method, params], i) => res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: `${tag}-${i}`, method, params })}\n\n`));
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    if (req.method === "GET") {
      if (!listenRequests.length) return res.writeHead(405).end();
      sse(res);
      return ask(res, listenRequests, "listen");
    }
    if (req.method === "DELETE") return res.writeHead(200).end();
    const msg = JSON.parse(body);
    const json = (o) => res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "S1" }).end(JSON.stringify(o));
    if (msg.method === "initialize") {
      return json({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "asking", version: "1" } } });
    }
    if (msg.id === undefined) return res.writeHead(202).end();
    if (msg.method === undefined) {
      answers.push(msg);
      if (answerStatus) return res.writeHead(answerStatus, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
      res.writeHead(202).end();
      return answered();
    }
    if (msg.method === "tools/list") return json({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "ask", inputSchema: { type: "object" } }] } });
    if (msg.method === "tools/call") {
      sse(res);
      const before = answers.length;
      const all = new Promise((r) => (answered = () => answers.length - before >= requests.length && r()));
      ask(res, requests, "call");
      answered();
      await all;
      const text = JSON.stringify(answers.slice(before).map(({ id, result, error }) => (error ? { id, error } : { id, result })));
      return res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text }] } })}\n\n`);
    }
    json({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  srv.unref();
  return {
    url: `http://127.0.0.1:${srv.address().port}/mcp`,
    answers,
    close: () => (srv.closeAllConnections(), srv.close()),
  };
}

test("an answer the server refuses (400, 404, 500) fails the call it came for at once with that status", async () => {
  for (const [status, timeoutMs] of [[400, 60_000], [404, Infinity], [500, 60_000]]) {
    const server = await startServer({ requests: [["roots/list", {}]], answerStatus: status });
    const client = new McpClient(server.url, { capabilities: { roots: {} }, onRequest: () => ({ roots: [] }) });
    await client.connect();
    const started = Date.now();
    const err = await within(10_000, rejectsWith(client.callTool("ask", {}, { timeoutMs }), "HTTP_STATUS"), `the call (answer refused ${status})`);
    assert.equal(err.status, status);
    assert.match(err.message, new RegExp(`^the answer to roots/list: HTTP ${status}\\b.*Session not found`), err.message);
    assert.ok(Date.now() - started < 5000, `${status}: failed at once, not at a timeout`);
    assert.equal(server.answers.length, 1, `${status}: sent once`);
    await client.close();
    server.close();
  }
});

test("an answer the server refuses on the listening stream ends the listening with that error (onEnd)", async () => {
  const server = await startServer({ listenRequests: [["roots/list", {}]], answerStatus: 400 });
  const ends = [];
  const client = new McpClient(server.url, { capabilities: { roots: {} }, onRequest: () => ({ roots: [] }), listen: { onEnd: (end) => ends.push(end) } });
  await client.connect();
  await waitFor(() => ends.length > 0, { timeoutMs: 5000 });
  assert.equal(ends.length, 1);
  assert.equal(ends[0].error?.code, "HTTP_STATUS");
  assert.equal(ends[0].error.status, 400);
  assert.match(ends[0].error.message, /the answer to roots\/list: HTTP 400/);
  await client.close();
  server.close();
});

test("an answer refused 404 on the listening stream leaves listening on: the session's renewal is the stream's to find", async () => {
  const server = await startServer({ listenRequests: [["roots/list", {}]], answerStatus: 404 });
  const ends = [];
  const client = new McpClient(server.url, { capabilities: { roots: {} }, onRequest: () => ({ roots: [] }), listen: { onEnd: (end) => ends.push(end) } });
  await client.connect();
  await waitFor(() => server.answers.length > 0, { timeoutMs: 5000 });
  // An ended listening is reported within milliseconds of the refusal (the test above).
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(ends, []);
  await client.close();
  server.close();
});

test("a request of a capability the client did not declare is answered -32601 without asking onRequest", async () => {
  const requests = [
    ["elicitation/create", { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }],
    ["sampling/createMessage", { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 }],
    ["roots/list", {}],
    ["toolwire-test/custom", {}],
  ];
  const answer = { elicitation: { action: "accept", content: { name: "x" } }, sampling: { role: "assistant", content: { type: "text", text: "ok" }, model: "m" }, roots: { roots: [] } };
  const notFound = (i) => ({ id: `call-${i}`, error: { code: -32601, message: `Method not found: ${requests[i][0]}` } });
  for (const [capabilities, reached] of [
    [{}, ["toolwire-test/custom"]],
    [undefined, ["toolwire-test/custom"]],
    [{ roots: {} }, ["roots/list", "toolwire-test/custom"]],
    [{ elicitation: {}, sampling: {}, roots: { listChanged: true } }, requests.map(([m]) => m)],
  ]) {
    const server = await startServer({ requests });
    const asked = [];
    const onRequest = ({ method }) => (asked.push(method), answer[method.split("/")[0]] ?? {});
    const client = new McpClient(server.url, { ...(capabilities && { capabilities }), onRequest });
    await client.connect();
    const result = await within(10_000, client.callTool("ask", {}), "the call");
    const got = JSON.parse(result.content[0].text).sort((a, b) => a.id.localeCompare(b.id));
    const how = JSON.stringify(capabilities);
    assert.deepEqual(asked.sort(), [...reached].sort(), how);
    requests.forEach(([method], i) => {
      if (reached.includes(method)) assert.ok(got[i].result, `${how} ${method}`);
      else assert.deepEqual(got[i], notFound(i), `${how} ${method}`);
    });
    await client.close();
    server.close();
  }
});

test("a hub's servers declare their own capabilities: each server's onRequest is asked only for what its config declares", async () => {
  const requests = [["elicitation/create", { message: "Name?", requestedSchema: { type: "object", properties: {} } }], ["roots/list", {}]];
  const [plain, rooted] = [await startServer({ requests }), await startServer({ requests })];
  const asked = { plain: [], rooted: [] };
  const onRequest = (name) => ({ method }) => (asked[name].push(method), method === "roots/list" ? { roots: [] } : { action: "decline" });
  const hub = new McpHub({
    plain: { url: plain.url, onRequest: onRequest("plain") },
    rooted: { url: rooted.url, capabilities: { roots: {} }, onRequest: onRequest("rooted") },
  });
  const answers = {};
  for (const name of ["plain", "rooted"]) {
    const result = await within(10_000, hub.request(name, "tools/call", { name: "ask", arguments: {} }), `${name}'s call`);
    answers[name] = JSON.parse(result.content[0].text).sort((a, b) => a.id.localeCompare(b.id));
  }
  assert.deepEqual(asked, { plain: [], rooted: ["roots/list"] });
  assert.deepEqual(answers.plain.map((a) => a.error?.code), [-32601, -32601]);
  assert.deepEqual(answers.rooted, [{ id: "call-0", error: { code: -32601, message: "Method not found: elicitation/create" } }, { id: "call-1", result: { roots: [] } }]);
  await hub.closeAll();
  plain.close();
  rooted.close();
});

test("an onRequest answer that is no ElicitResult or CreateMessageResult is not sent: the server gets -32602, console.error says it", async () => {
  const form = { mode: "form", message: "n?", requestedSchema: { type: "object", properties: { n: { type: "number" } } } };
  const sampling = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 };
  const withTools = { ...sampling, tools: [{ name: "t", inputSchema: { type: "object" } }] };
  // [method, params, answer, refused as]
  const cases = [
    ["elicitation/create", form, { action: "maybe" }, "elicitation"],
    ["elicitation/create", form, { action: "accept", content: { nested: { a: 1 } } }, "elicitation"],
    ["elicitation/create", form, { action: "accept", content: { n: [1] } }, "elicitation"],
    ["elicitation/create", form, { action: "accept", content: "n" }, "elicitation"],
    ["sampling/createMessage", sampling, { foo: 1 }, "sampling"],
    ["sampling/createMessage", sampling, { role: "assistant", model: "m", content: { type: "video", text: "x" } }, "sampling"],
    ["sampling/createMessage", sampling, { role: "assistant", model: "m", content: [{ type: "text", text: "x" }] }, "sampling"],
    // What the SDK's schemas take: null content, an array of strings, extra fields; blocks of tools when tools were offered.
    ["elicitation/create", form, { action: "accept", content: { n: 1, tags: ["a"], ok: true } }, null],
    ["elicitation/create", form, { action: "decline", content: null }, null],
    ["sampling/createMessage", sampling, { role: "assistant", model: "m", content: { type: "text", text: "x" }, stopReason: "endTurn", extra: 1 }, null],
    ["sampling/createMessage", withTools, { role: "assistant", model: "m", content: [{ type: "tool_use", id: "u", name: "t", input: {} }] }, null],
  ];
  const reported = [];
  const consoleError = console.error;
  console.error = (...args) => reported.push(args);
  try {
    for (const [method, params, answer, refused] of cases) {
      const server = await startServer({ requests: [[method, params]] });
      const client = new McpClient(server.url, { capabilities: { elicitation: {}, sampling: {} }, onRequest: () => answer });
      await client.connect();
      const result = await within(10_000, client.callTool("ask", {}), "the call");
      const [got] = JSON.parse(result.content[0].text);
      const how = JSON.stringify(answer);
      if (refused) {
        assert.equal(got.error?.code, -32602, how);
        assert.match(got.error.message, new RegExp(`^Invalid ${refused} result: `), how);
        assert.equal(got.result, undefined, how);
        const said = reported.splice(0);
        assert.equal(said.length, 1, how);
        assert.match(said[0][0], /the onRequest callback failed/);
        assert.match(String(said[0][1]), new RegExp(`its answer to ${method} was refused: Invalid ${refused} result`), how);
      } else {
        assert.deepEqual(got.result, answer.content === null ? { action: "decline", content: null } : answer, how);
        assert.deepEqual(reported.splice(0), [], how);
      }
      await client.close();
      server.close();
    }
  } finally {
    console.error = consoleError;
  }
});
