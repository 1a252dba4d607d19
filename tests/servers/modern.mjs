#!/usr/bin/env node
// An MCP server speaking protocol revision 2026-07-28 ("modern": no initialize, per-request `_meta` envelope,
// server/discover, Mcp-Method / Mcp-Name / Mcp-Param-* headers, MRTR input_required results,
// subscriptions/listen), built on the official TypeScript SDK v2 (`@modelcontextprotocol/server`, a pinned
// devDependency): `createMcpHandler(factory, {legacy})` behind a small node:http bridge (the SDK's handler is
// web-standard Request -> Response; `@modelcontextprotocol/node`'s toNodeHandler is not a dependency here).
//
//   node tests/servers/modern.mjs                     # ephemeral port; prints "LISTENING <port>" on stdout
//   PORT=38300 ERA=dual node tests/servers/modern.mjs # fixed port, dual era
//   import { startServer } from "./modern.mjs"; const s = await startServer({ port: 0, era: "modern" }); ... await s.close();
//
// Environment: PORT (default 0 = ephemeral), ERA = modern (default) | dual,
//   MODERN_MAX_LIFETIME_MS (default 1 hour; the process also exits when its parent dies),
//   MODERN_RESPONSE_MODE = auto (default) | sse | json (the SDK's responseMode for modern exchanges),
//   MODERN_TOOLS_TTL_MS (the `ttlMs` of tools/list results; default the SDK's, 0).
//
// ERA=modern  createMcpHandler(..., {legacy: "reject"}): 2026-07-28 only; a 2025-era request (initialize...) is
//             refused by the SDK with -32022 UnsupportedProtocolVersion (HTTP 400).
// ERA=dual    createMcpHandler(..., {legacy: "stateless"}) (the SDK default): 2026-07-28 requests on the modern
//             path, 2025-era requests (initialize, then session-less requests) on the SDK's stateless fallback.
//
// Endpoints (bound to 127.0.0.1):
//   POST|GET|DELETE /mcp   the SDK's handler; OPTIONS /mcp (and any path): a permissive CORS preflight (204)
//   GET    /stats          what the server saw (JSON, see newStats());  DELETE /stats  resets it
//   GET    /health         "ok"
//
// Tools (the same factory serves both eras):
//   echo {message}                 -> text "Echo: <message>"
//   regional {region (x-mcp-header Region), priority integer (Priority), verbose boolean (Verbose), note}
//                                  -> text: JSON {"mcp-param-*": ..., "mcp-method", "mcp-name", "mcp-protocol-version"}
//                                     of the request headers it received (the SDK checks Mcp-Param-* first: -32020)
//   bad_header {x number (x-mcp-header X)}  invalid annotation (number): conforming clients drop it from tools/list
//   confirm {}                     -> MRTR: input_required with inputRequests.confirm = elicitation/create
//                                     ("Proceed?", {ok: boolean}) and requestState "confirm-state-1"; the retry with
//                                     inputResponses.confirm -> "confirmed: <ok>" (action accept) or "declined"
//   progress {steps}               -> notifications/progress per step (with a progressToken), 50 ms apart; "done"
//   slow {ms}                      -> waits ms; "slept". A call whose HTTP exchange is closed by the client first is
//                                     counted in stats.slow.cancelled (and by the tool cancelled_count)
//   cancelled_count {}             -> text "<n>" (slow calls cancelled so far)
//   add_tool {}                    -> registers tool `added` (-> "added") for every later request and publishes
//                                     notifications/tools/list_changed to open subscriptions/listen streams
//   touch {uri}                    -> publishes notifications/resources/updated for uri to the subscriptions/listen
//                                     streams whose filter names it (resourceSubscriptions); test://counter's text
//                                     is the number of touches of it
// Resources test://hello (text "hello") and test://counter; prompt greet {name} -> user message "Hello, <name>!".
// The server declares resources.subscribe (the SDK honors a filter's resourceSubscriptions only then); stats.listens
// holds the filter (`params.notifications`) of each subscriptions/listen.

import { createServer } from "node:http";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runAsProgram } from "./program.mjs";
import { McpServer, createMcpHandler, fromJsonSchema, inputRequired, inputResponse } from "@modelcontextprotocol/server";

export const SERVER_INFO = { name: "toolwire-modern", title: "toolwire 2026-07-28 test server", version: "1.0.0" };
export const ERAS = ["modern", "dual"];
export const CONFIRM_STATE = "confirm-state-1";
export const ELICIT_SCHEMA = { type: "object", properties: { ok: { type: "boolean" } } };
const CORS_BASE_HEADERS = [
  "content-type", "accept", "authorization", "last-event-id", "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name",
  "mcp-param-region", "mcp-param-priority", "mcp-param-verbose", "mcp-param-x",
];
const CORS_EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, www-authenticate, *";
const MAX_BODY = 4 << 20;
const MAX_LOG = 200;

function text(t) {
  return { content: [{ type: "text", text: t }] };
}

/** The request headers `regional` reports: every mcp-param-*, and mcp-method / mcp-name / mcp-protocol-version. */
export function reportedHeaders(headers) {
  const out = {};
  const names = [];
  headers.forEach((_, k) => names.push(k));
  for (const k of names.sort()) if (k.startsWith("mcp-param-")) out[k] = headers.get(k);
  for (const k of ["mcp-method", "mcp-name", "mcp-protocol-version"]) out[k] = headers.get(k);
  return out;
}

function newStats() {
  return {
    http: { POST: 0, GET: 0, DELETE: 0, OPTIONS: 0 },
    factory: { modern: 0, legacy: 0 },
    requests: [], // {method, jsonrpc method, status, headers (mcp-*)}
    slow: { started: 0, completed: 0, cancelled: 0 },
    confirm: [], // {round: "ask" | "answer", requestState, response}
    progress: [], // {progressToken, sent}
    addTool: 0,
    touched: [], // the uri of each touch
    listens: [], // the filter of each subscriptions/listen
    errors: [], // the SDK's onerror reports (rejections, failures)
  };
}

function push(list, v) {
  list.push(v);
  if (list.length > MAX_LOG) list.splice(0, list.length - MAX_LOG);
}

/** Starts the server; resolves {port, url, era, stats, handler, close()}. */
export function startServer({ port = 0, era = "modern", responseMode, toolsTtlMs } = {}) {
  if (!ERAS.includes(era)) return Promise.reject(new Error(`modern server: ERA must be one of ${ERAS.join(", ")}, got ${era}`));
  let stats = newStats();
  let added = false;
  const timers = new Set();
  const sleep = (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve(false);
      const t = setTimeout(() => {
        timers.delete(t);
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      }, ms);
      timers.add(t);
      const onAbort = () => {
        clearTimeout(t);
        timers.delete(t);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });

  // One McpServer per request (the SDK's createMcpHandler calls the factory per HTTP request).
  const factory = (ctx) => {
    stats.factory[ctx.era] = (stats.factory[ctx.era] ?? 0) + 1;
    const request = ctx.requestInfo; // the web Request being served (for headers and the client-gone signal)
    const server = new McpServer(SERVER_INFO, {
      instructions: "toolwire test server for protocol revision 2026-07-28.",
      capabilities: { resources: { subscribe: true } },
      ...(toolsTtlMs === undefined ? {} : { cacheHints: { "tools/list": { ttlMs: toolsTtlMs } } }),
    });

    server.registerTool(
      "echo",
      {
        title: "Echo",
        description: "Echoes the message back as text",
        inputSchema: fromJsonSchema({ type: "object", properties: { message: { type: "string" } }, required: ["message"] }),
      },
      async ({ message }) => text(`Echo: ${message}`),
    );

    server.registerTool(
      "regional",
      {
        description: "Reports the Mcp-Param-*, Mcp-Method, Mcp-Name and MCP-Protocol-Version request headers it received (JSON)",
        inputSchema: fromJsonSchema({
          type: "object",
          properties: {
            region: { type: "string", "x-mcp-header": "Region" },
            priority: { type: "integer", "x-mcp-header": "Priority" },
            verbose: { type: "boolean", "x-mcp-header": "Verbose" },
            note: { type: "string" },
          },
        }),
      },
      async () => text(JSON.stringify(reportedHeaders(request?.headers ?? new Headers()))),
    );

    server.registerTool(
      "bad_header",
      {
        description: "Invalidly annotated (x-mcp-header on a number): a conforming client drops this tool",
        inputSchema: fromJsonSchema({ type: "object", properties: { x: { type: "number", "x-mcp-header": "X" } } }),
      },
      async ({ x }) => text(`bad_header: ${x}`),
    );

    server.registerTool(
      "confirm",
      { description: "Asks for confirmation through an MRTR input_required result (elicitation/create)", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
      async (_args, c) => {
        const state = c.mcpReq.requestState();
        const answer = inputResponse(c.mcpReq.inputResponses, "confirm");
        if (answer.kind === "missing") {
          push(stats.confirm, { round: "ask", requestState: state ?? null, dropped: c.mcpReq.droppedInputResponseKeys ?? [] });
          return inputRequired({
            inputRequests: { confirm: inputRequired.elicit({ message: "Proceed?", requestedSchema: ELICIT_SCHEMA }) },
            requestState: CONFIRM_STATE,
          });
        }
        push(stats.confirm, { round: "answer", requestState: state ?? null, response: c.mcpReq.inputResponses?.confirm ?? null });
        if (answer.kind === "elicit" && answer.action === "accept") return text(`confirmed: ${answer.content?.ok}`);
        return text("declined");
      },
    );

    server.registerTool(
      "progress",
      {
        description: "Sends notifications/progress for each step (when the request has a progressToken), 50 ms apart",
        inputSchema: fromJsonSchema({ type: "object", properties: { steps: { type: "integer", minimum: 0, maximum: 1000 } }, required: ["steps"] }),
      },
      async ({ steps }, c) => {
        const token = c.mcpReq._meta?.progressToken;
        let sent = 0;
        for (let i = 1; i <= steps; i++) {
          if (token !== undefined) {
            await c.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
            sent++;
          }
          if (!(await sleep(50, c.mcpReq.signal))) break;
        }
        push(stats.progress, { progressToken: token ?? null, steps, sent });
        return text("done");
      },
    );

    server.registerTool(
      "slow",
      {
        description: "Waits ms milliseconds, then answers 'slept'; a call the client abandons is counted as cancelled",
        inputSchema: fromJsonSchema({ type: "object", properties: { ms: { type: "integer", minimum: 0, maximum: 600000 } }, required: ["ms"] }),
      },
      async ({ ms }, c) => {
        stats.slow.started++;
        // Either signal: the SDK's per-request abort (the exchange closed) or the HTTP request's own signal.
        const both = AbortSignal.any([c.mcpReq.signal, ...(request?.signal ? [request.signal] : [])]);
        const done = await sleep(ms, both);
        if (!done) {
          stats.slow.cancelled++;
          return text("cancelled");
        }
        stats.slow.completed++;
        return text("slept");
      },
    );

    server.registerTool(
      "cancelled_count",
      { description: "How many slow calls were cancelled by the client so far", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
      async () => text(String(stats.slow.cancelled)),
    );

    server.registerTool(
      "add_tool",
      { description: "Registers the tool `added` and announces notifications/tools/list_changed", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
      async () => {
        stats.addTool++;
        added = true;
        queueMicrotask(() => handler.notify.toolsChanged());
        return text("tool 'added' registered");
      },
    );

    server.registerTool(
      "touch",
      {
        description: "Announces notifications/resources/updated for uri (to the subscriptions that name it)",
        inputSchema: fromJsonSchema({ type: "object", properties: { uri: { type: "string" } }, required: ["uri"] }),
      },
      async ({ uri }) => {
        push(stats.touched, uri);
        queueMicrotask(() => handler.notify.resourceUpdated(uri));
        return text(`touched ${uri}`);
      },
    );

    if (added) {
      server.registerTool(
        "added",
        { description: "Registered at runtime by add_tool", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
        async () => text("added"),
      );
    }

    server.registerResource("hello", "test://hello", { title: "Hello", mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "hello" }],
    }));

    server.registerResource("counter", "test://counter", { title: "Counter", mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: String(stats.touched.filter((u) => u === "test://counter").length) }],
    }));

    server.registerPrompt(
      "greet",
      { description: "Greets someone", argsSchema: fromJsonSchema({ type: "object", properties: { name: { type: "string" } }, required: ["name"] }) },
      async ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] }),
    );

    return server;
  };

  const handler = createMcpHandler(factory, {
    legacy: era === "modern" ? "reject" : "stateless",
    ...(responseMode ? { responseMode } : {}),
    onerror: (e) => push(stats.errors, String(e?.message ?? e)),
  });

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((e) => {
      push(stats.errors, `bridge: ${e?.stack ?? e}`);
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("internal error");
      } else res.destroy();
    });
  });

  async function handle(req, res) {
    const url = new URL(req.url, "http://127.0.0.1");
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    if (req.method in stats.http) stats.http[req.method]++;
    if (req.method === "OPTIONS") {
      // Exactly the headers a client of this server needs (the README's list, and the mcp-param-* its tools
      // mark): a client that sent another would fail its preflight, as with a real server.
      const allow = CORS_BASE_HEADERS.join(", ");
      res.writeHead(204, {
        "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
        "Access-Control-Allow-Headers": allow,
        "Access-Control-Max-Age": "600",
        "Content-Length": "0",
      });
      return res.end();
    }
    if (url.pathname === "/health") return sendPlain(res, 200, "ok");
    if (url.pathname === "/stats") {
      if (req.method === "DELETE") stats = newStats();
      return sendPlain(res, 200, JSON.stringify(stats), "application/json");
    }
    if (url.pathname !== "/mcp") return sendPlain(res, 404, "not found");

    // node:http -> web Request (body buffered; the abort signal fires when the client goes away first).
    const chunks = [];
    let size = 0;
    for await (const c of req) {
      size += c.length;
      if (size > MAX_BODY) return sendPlain(res, 413, "request body too large");
      chunks.push(c);
    }
    const body = Buffer.concat(chunks);
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" || body.length === 0 ? undefined : body,
      signal: abort.signal,
    });
    let rpcMethod;
    try {
      const message = JSON.parse(body.toString("utf8"));
      rpcMethod = message?.method;
      if (rpcMethod === "subscriptions/listen") push(stats.listens, message.params?.notifications ?? null);
    } catch {}
    const entry = { http: req.method, method: rpcMethod ?? null, status: null, headers: reportedHeaders(headers) };
    push(stats.requests, entry);

    const response = await handler.fetch(request);
    entry.status = response.status;
    const out = {};
    response.headers.forEach((v, k) => (out[k] = v));
    res.writeHead(response.status, out);
    if (!response.body) return res.end();
    const reader = response.body.getReader();
    res.on("close", () => reader.cancel().catch(() => {}));
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch {
        break;
      }
      if (chunk.done) break;
      if (!res.write(chunk.value)) await new Promise((r) => (res.writableEnded || res.destroyed ? r() : res.once("drain", r).once("close", r)));
      if (res.destroyed) break;
    }
    res.end();
  }

  return new Promise((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(port, "127.0.0.1", () => {
      const p = httpServer.address().port;
      resolve({
        port: p,
        url: `http://127.0.0.1:${p}/mcp`,
        era,
        handler,
        stats: () => stats,
        close: async () => {
          for (const t of timers) clearTimeout(t);
          timers.clear();
          await handler.close().catch(() => {});
          await new Promise((r) => {
            httpServer.close(() => r());
            httpServer.closeAllConnections?.();
          });
        },
      });
    });
  });
}

function sendPlain(res, status, body, type = "text/plain") {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

// ------------------------------------------------------------------------------------------------
// Run as a program

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1]);
if (isMain) {
  const s = await startServer({
    port: Number(process.env.PORT ?? 0),
    era: process.env.ERA ?? "modern",
    responseMode: process.env.MODERN_RESPONSE_MODE || undefined,
    toolsTtlMs: process.env.MODERN_TOOLS_TTL_MS ? Number(process.env.MODERN_TOOLS_TTL_MS) : undefined,
  });
  runAsProgram(s, { name: "modern", announce: `LISTENING ${s.port}` });
}
