#!/usr/bin/env node
// A scripted MCP Streamable HTTP server (protocol revisions 2025-03-26 / 2025-06-18 / 2025-11-25) for
// toolwire's client tests. Plain `node:http`, no framework, no dependency.
//
//   node tests/servers/misbehaving.mjs            # ephemeral port; prints "listening <port>" on stdout
//   PORT=38200 node tests/servers/misbehaving.mjs # fixed port
//   import { startServer } from "./misbehaving.mjs"; const s = await startServer({ port: 0 }); ... await s.close();
//
// Endpoints (every one bound to 127.0.0.1):
//   POST|GET|DELETE|OPTIONS /mcp/<scenario>[/<tag>][?v=<variant>]   the MCP endpoint of one behaviour
//   GET    /stats/<scenario>[/<tag>]    what the server saw and did for that endpoint (JSON; see newStats())
//   DELETE /stats/<scenario>[/<tag>]    forget it;  GET /stats  every key;  GET /health  "ok"
// The optional <tag> gives a test its own stats and sessions (e.g. /mcp/expire/t1) with the same behaviour.
// `startServer({mode})` serves one scenario at /mcp as well (e.g. mode "sse": /mcp behaves like /mcp/sse).
//
// Scenarios (everything not mentioned behaves like `normal`):
//   normal          JSON responses; session id; instructions; tools echo, add (structuredContent), image (PNG),
//                   long (progress over SSE; on notifications/cancelled it stops, sends no result and leaves the
//                   stream open (bounded) so only the client can close it), chatty (notifications/message and
//                   notifications/tools/list_changed before the result, over SSE), fail (isError); GET -> 405;
//                   DELETE -> 200; `?v=string-root`: also lists `shout`, whose input schema is a string's;
//                   `?v=destructive`: lists `fail` with the annotation destructiveHint: true; `?v=unconvertible`: also
//                   lists `deep` (an input schema 80 objects deep, past a converter's default 64 levels) and a tool
//                   whose name is empty; `?v=shifting`: lists SHIFTING_TOOLS in turn, the first alone, both, the
//                   second alone, both (listing after listing; tools/call echoes the tool's name)
//   stateless       like normal but never issues a session id (a client must then send none)
//   sse             every response is SSE: a BOM, comments, a `retry:` field, a priming event (id + empty data),
//                   CRLF line ends, multi-line `data:` (pretty-printed JSON), `data:` without the space, an
//                   unknown field, bytes written in small chunks (splitting CRLF pairs and UTF-8 sequences);
//                   tools/call first sends a `ping` (id 0, then 1, 2...) and an unknown request
//                   (`toolwire-test/unknown`, id "srv-<n>") and waits (up to 3 s) for the client's answers
//   grows           like normal, but each chatty call (which announces notifications/tools/list_changed) adds a tool
//                   to this endpoint's tools/list: grown_1, grown_2...; `?v=slow-second`: the second tools/list is
//                   answered 500 ms late, with the list as it was when the request came
//   paginate3       tools/list in exactly 3 pages (cursors "cGFnZTox", "cGFnZToy"); a bad cursor -> -32602
//   endless         every tools/list page has one tool and a new cursor (bounded: 10,000 pages per session)
//   repeat-cursor   every page returns nextCursor "again" (page 1 and page 2 differ; bounded like endless)
//   expire          the first tools/list on this endpoint answers 404 "Session not found" and drops the session
//   expire-always   every tools/list answers 404 and drops the session (a client must not loop)
//   restart         like normal, and also lists `restart`: a call of it answers, then the endpoint forgets every
//                   session (as a server that restarts does: the next request with one gets 404) and from then on
//                   lists `echo_v2` in place of `echo` (either is answered), without notifications/tools/list_changed
//                   (with `?v=400`, in these and wherever a session is unknown: 400 -32000 "Bad Request: No valid
//                   session ID provided", as server-everything and servers after the SDK's examples answer)
//   hang            tools/call answers 200 + SSE headers and then nothing (bounded: the server closes it after
//                   MISBEHAVING_BOUND_MS, default 30 s); stats record notifications/cancelled and whether the
//                   client closed the socket
//   rpc-error       tools/call -> JSON-RPC error {code:-32602, message, data:{field, hint}}
//   big             tools/call -> 2 MiB text (bigText(), ASCII) as one SSE data line (`?v=json`: a JSON body)
//   drop-resume     tools/call -> SSE: priming event (id "<stream>:0", retry: 50), a progress event if a token
//                   was given, then the server closes the stream before the response. GET + Last-Event-ID
//                   replays the rest and the result, then ends. GET without Last-Event-ID -> 405.
//   unauthorized    every request -> 401 + WWW-Authenticate: Bearer realm="mcp", error="invalid_token",
//                   resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"
//   bearer          like unauthorized (401) for any request without `Authorization: Bearer good`, else normal
//   forbidden       every request -> 403 + WWW-Authenticate: Bearer error="insufficient_scope", scope="tools:call", ...
//   bad-content-type  tools/list -> 200 text/plain (tools/call works: the client must stay usable)
//   bad-json        tools/list -> 200 application/json with a truncated JSON body (tools/call works)
//   http-500        tools/list -> 500 text/html (about 10 KB; `?v=json`: a JSON-RPC error body) (tools/call works)
//   wrong-version   initialize answers protocolVersion "1999-01-01"
//   no-tools        initialize declares only `prompts` among its capabilities; tools/list and tools/call are
//                   counted as violations (a client uses only negotiated capabilities) and answered -32601
//   delete-405      DELETE -> 405 (Allow: POST)
//   collide         tools named to collide after prefixing (`b__c`, `c`, `X`/`x`, a 100-char name, `dup` twice...);
//                   tools/call answers "called <tool> on <key>" so a test can tell which endpoint was reached
//   huge-list       tools/list returns 20,000 tools in one page
//   endless-sse     tools/call -> SSE with keep-alive comments and log notifications, never the response
//                   (bounded: MISBEHAVING_BOUND_MS or 10,000 events)
//   invalid-utf8    tools/call -> application/json whose text contains the bytes 0xFF 0xFE
//   unknown-id      tools/call -> SSE: a response with an id never sent, one with the id's type changed
//                   (number <-> string), the real response, then the real response again (a duplicate)
//   flood           like normal, and a call of the tool `flood` (not listed) -> SSE: `count` (default 100, at most 1,000) elicitation/create requests at once (ids
//                   "flood-<call>-<i>"), then, once every one is answered (or after 10 s), the result: a text of
//                   JSON {answered, results, errors: {code: count}} (the answers are in stats.clientResponses)
//   crlf-header     Node refuses CR/LF (and other controls but TAB) in header values, so the initialize
//                   response carries an Mcp-Session-Id that is invalid in another way: `?v=tab` (default)
//                   "bad\tsession id-<uuid>" (TAB and SPACE: not visible ASCII 0x21-0x7E), `?v=utf8`
//                   "sessión-<uuid>" (Node writes the UTF-8 bytes C3 B3; fetch reads them as latin1 "Ã³"),
//                   `?v=long` 8,192 visible-ASCII characters (valid, but absurd)
//
// Strictness (all scenarios): POST needs Content-Type application/json (else 415) and an Accept with both
// application/json and text/event-stream (else 406); batches -> 400; a request without the session id -> 400;
// an unknown or dropped session -> 404 (-32001); an unsupported MCP-Protocol-Version header -> 400. Client
// mistakes that the spec does not make the server reject (a missing MCP-Protocol-Version header, a reused id,
// a request before notifications/initialized, a session id on initialize...) are listed in stats.violations.
//
// Bounds: every loop (endless pages, endless SSE, hang, long) stops by itself; when run as a program the server
// exits when its parent process dies (and after MISBEHAVING_MAX_LIFETIME_MS, default 1 hour).

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { runAsProgram } from "./program.mjs";

export const SUPPORTED_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];
export const LATEST_VERSION = "2025-11-25";
export const TINY_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
export const WWW_AUTHENTICATE_401 =
  'Bearer realm="mcp", error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"';
export const WWW_AUTHENTICATE_403 =
  'Bearer realm="mcp", error="insufficient_scope", scope="tools:call", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"';
export const BIG_TEXT_LENGTH = 2 * 1024 * 1024;
export const PAGE_CURSORS = ["cGFnZTox", "cGFnZToy"]; // base64 "page:1", "page:2" (as in the SDK fixture)
export const HUGE_LIST_COUNT = 20_000;
export const MAX_PAGES = 10_000;
export const MAX_EVENTS = 10_000;
export const SCENARIOS = [
  "normal", "stateless", "sse", "paginate3", "endless", "repeat-cursor", "expire", "expire-always", "restart", "hang",
  "rpc-error", "big", "drop-resume", "unauthorized", "forbidden", "bearer", "bad-content-type", "bad-json", "http-500",
  "wrong-version", "no-tools", "delete-405", "collide", "grows", "huge-list", "endless-sse", "invalid-utf8", "unknown-id", "crlf-header",
  "flood",
];

const SERVER_INFO = { name: "toolwire-misbehaving", title: "toolwire misbehaving test server", version: "1.0.0" };
const INSTRUCTIONS = "Test server for toolwire. Tools: echo, add, image, long, chatty, fail.";
const CORS_ALLOW_HEADERS = "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id";
const CORS_EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate";
const MAX_BODY = 1 << 20;
const MAX_LOG = 500; // entries kept per stats list

/** Deterministic ASCII text of exactly 2 MiB: lines "000000 0123456789abcdef...\n" (64 bytes each). */
export function bigText(length = BIG_TEXT_LENGTH) {
  const lines = [];
  const filler = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"; // 56 chars
  for (let i = 0; i * 64 < length; i++) lines.push(String(i).padStart(6, "0") + " " + filler + "\n");
  return lines.join("").slice(0, length);
}

export const NORMAL_TOOLS = [
  {
    name: "echo",
    title: "Echo",
    description: "Echoes the message back as text",
    inputSchema: { type: "object", properties: { message: { type: "string", description: "Text to echo" } }, required: ["message"] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: "add",
    title: "Add",
    description: "Adds a and b; the sum as structuredContent and as text",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
  },
  { name: "image", description: "Returns a 1x1 PNG image", inputSchema: { type: "object", properties: {} } },
  {
    name: "long",
    description: "Sends progress notifications over SSE (when a progressToken is given), then a result; honours notifications/cancelled",
    inputSchema: {
      type: "object",
      properties: { steps: { type: "integer", minimum: 1, maximum: 1000 }, intervalMs: { type: "integer", minimum: 1, maximum: 10000 } },
    },
  },
  {
    name: "chatty",
    description: "Sends notifications/message and notifications/tools/list_changed before its result (SSE)",
    inputSchema: { type: "object", properties: {} },
  },
  { name: "fail", description: "Always fails: a result with isError true", inputSchema: { type: "object", properties: {} } },
];

const PAGES = [NORMAL_TOOLS.slice(0, 2), NORMAL_TOOLS.slice(2, 4), NORMAL_TOOLS.slice(4)];

/** Listed by `normal` with `?v=string-root`: an input schema that is not an object schema (MCP wants one). */
export const STRING_ROOT_TOOL = { name: "shout", description: "Input schema of type string", inputSchema: { type: "string" } };

/**
 * Listed by `normal` with `?v=odata`, after NORMAL_TOOLS: top-level keys Claude refuses (`$filter`...), which the
 * conversion renames for Anthropic and Bedrock; answers with its arguments as JSON text, as the server got them.
 */
export const ODATA_TOOL = {
  name: "odata",
  description: "Echoes its arguments as JSON (OData-style keys)",
  inputSchema: { type: "object", properties: { $filter: { type: "string" }, $top: { type: "integer" }, "@odata.type": { type: "string" } }, required: ["$filter"] },
};

/** Listed by `normal` with `?v=unconvertible`, after NORMAL_TOOLS: tools no provider conversion takes by default. */
export const UNCONVERTIBLE_TOOLS = [
  { name: "deep", description: "An input schema 80 objects deep", inputSchema: Array.from({ length: 80 }).reduce((inner) => ({ type: "object", properties: { x: inner } }), { type: "object" }) },
  { name: "", description: "A tool with an empty name", inputSchema: { type: "object", properties: {} } },
];

/**
 * Listed by `normal` with `?v=shifting`, in turn: the first alone, both, the second alone, both. Of a server named `A`,
 * their hashed names coincide (the same 55 first characters and hash, as a birthday search finds two).
 */
export const SHIFTING_TOOLS = ["t".repeat(60) + "4mjcaa", "t".repeat(60) + "p0fjba"].map((name) => ({ name, inputSchema: { type: "object", properties: {} } }));

/** Listed by `restart` after its other tools. */
export const RESTART_TOOL = { name: "restart", description: "Forgets every session and renames echo to echo_v2, announcing nothing", inputSchema: { type: "object", properties: {} } };

export const COLLIDE_TOOLS = [
  { name: "b__c", description: "With server a: mcp__a__b__c (as tool c of a server a__b would be)" },
  { name: "c", description: "With server a_b and the separator _: mcp_a_b_c (as tool b_c of a server a would be)" },
  { name: "x", description: "lower-case x" },
  { name: "X", description: "upper-case X (collides with x where names are case-insensitive)" },
  { name: "dup", description: "first of two tools with the same name" },
  { name: "dup", description: "second of two tools with the same name" },
  { name: "a".repeat(100), description: "a 100-character name (over every provider's limit once prefixed)" },
  { name: "with space.and:punct/uation", description: "characters no provider accepts" },
  { name: "naïve-ünïcödé", description: "non-ASCII name" },
  { name: "mcp__other__echo", description: "looks already prefixed" },
].map((t) => ({ ...t, inputSchema: { type: "object", properties: {} } }));

// ------------------------------------------------------------------------------------------------
// Stats

function newStats(key, scenario) {
  return {
    key,
    scenario,
    http: { POST: 0, GET: 0, DELETE: 0, OPTIONS: 0 },
    methods: {}, // JSON-RPC method -> count (requests and notifications from the client)
    initialize: [], // {id, protocolVersion, clientInfo, capabilities, sessionHeader, answeredVersion, sessionId}
    sessions: [], // session ids issued, in order
    requests: [], // one entry per HTTP request: {seq, httpMethod, rpcMethod, id, kind, headers, status, contentType, closedByClient, closedByServer}
    calls: [], // tools/call: {id, name, arguments, progressToken, sessionId, outcome, closedByClient}
    cancelled: [], // notifications/cancelled params {requestId, reason} (+ sessionId)
    serverRequests: [], // requests this server sent to the client: {id, method}
    clientResponses: [], // the client's answers to them: {id, result} | {id, error}
    toolsList: [], // {id, cursor, page, status}
    resume: [], // GETs with Last-Event-ID: {lastEventId, delayMs, replayed, known}
    deletes: [], // {sessionId, status}
    progressTokens: [],
    violations: [], // client behaviour the spec forbids or requires otherwise
    counters: {}, // scenario-specific numbers
  };
}

function push(list, item) {
  if (list.length < MAX_LOG) list.push(item);
}

function pickHeaders(req) {
  const out = {};
  for (const name of ["accept", "content-type", "mcp-session-id", "mcp-protocol-version", "authorization", "last-event-id", "origin", "user-agent"]) {
    if (req.headers[name] !== undefined) out[name] = name === "mcp-session-id" && req.headers[name].length > 200 ? `${req.headers[name].slice(0, 40)}...(${req.headers[name].length} chars)` : req.headers[name];
  }
  for (const [name, value] of Object.entries(req.headers)) if (name.startsWith("x-")) out[name] = value;
  return out;
}

function truncateJson(v, max = 2000) {
  const s = JSON.stringify(v);
  if (s === undefined || s.length <= max) return v;
  return { truncated: true, length: s.length, head: s.slice(0, 200) };
}

// ------------------------------------------------------------------------------------------------
// Small HTTP helpers

function setCors(res) {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
}

function sendJson(res, status, body, headers = {}) {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendRaw(res, status, contentType, body, headers = {}) {
  if (res.headersSent || res.destroyed) return;
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
  res.writeHead(status, { ...(contentType ? { "Content-Type": contentType } : {}), "Content-Length": buf.length, ...headers });
  res.end(buf);
}

function rpcError(id, code, message, data) {
  return { jsonrpc: "2.0", id: id === undefined ? null : id, error: data === undefined ? { code, message } : { code, message, data } };
}

function rpcResult(id, result) {
  return { jsonrpc: "2.0", id, result };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(res) {
  return !res.destroyed && !res.writableEnded;
}

function mediaEssence(ct) {
  return String(ct ?? "").split(";")[0].trim().toLowerCase();
}

function acceptsBoth(accept) {
  const types = String(accept ?? "").split(",").map((s) => s.split(";")[0].trim().toLowerCase());
  const star = types.includes("*/*");
  return (star || types.includes("application/json") || types.includes("application/*")) && (star || types.includes("text/event-stream") || types.includes("text/*"));
}

// ------------------------------------------------------------------------------------------------
// SSE writers

const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" };

/** A plain SSE stream (LF line ends, `event: message`), like the SDK servers. */
class PlainSse {
  constructor(res, headers = {}, { status = 200 } = {}) {
    this.res = res;
    res.writeHead(status, { ...SSE_HEADERS, ...headers });
    res.flushHeaders?.();
  }
  raw(text) {
    if (alive(this.res)) this.res.write(text);
  }
  message(msg, id) {
    this.raw(`event: message\n${id !== undefined ? `id: ${id}\n` : ""}data: ${JSON.stringify(msg)}\n\n`);
  }
  priming(id, retry) {
    this.raw(`id: ${id}\n${retry !== undefined ? `retry: ${retry}\n` : ""}data: \n\n`);
  }
  comment(text = "keep-alive") {
    this.raw(`: ${text}\n\n`);
  }
  end() {
    if (alive(this.res)) this.res.end();
  }
}

const CHUNK_SIZES = [1, 3, 7, 2, 13, 1, 5, 64, 2, 31];

/**
 * The `sse` scenario's stream: BOM, CRLF, comments, retry, priming event, multi-line data, `data:` without the
 * space, an unknown field, written in small chunks with a short pause between them so that the client's reads
 * split CRLF pairs, field names and UTF-8 sequences.
 */
class FancySse {
  constructor(res, headers, stream) {
    this.res = res;
    this.stream = stream;
    this.n = 0;
    this.queue = Promise.resolve();
    res.writeHead(200, { ...SSE_HEADERS, "Content-Type": "text/event-stream; charset=utf-8", ...headers });
    res.flushHeaders?.();
    this.write("\uFEFF: toolwire misbehaving server, scenario sse\r\nretry: 3000\r\n\r\n");
    this.write(`id: ${stream}:${this.n++}\r\ndata:\r\n\r\n`); // priming event: id + empty data
  }
  write(text) {
    const buf = Buffer.from(text, "utf8");
    this.queue = this.queue.then(async () => {
      let off = 0;
      let i = 0;
      while (off < buf.length) {
        if (!alive(this.res)) return;
        const size = buf.length - off > 4096 ? 4096 : CHUNK_SIZES[i++ % CHUNK_SIZES.length];
        this.res.write(buf.subarray(off, off + size));
        off += size;
        await sleep(1);
      }
    });
    return this.queue;
  }
  message(msg) {
    const lines = JSON.stringify(msg, null, 1).split("\n");
    // Odd lines as "data:<value>" (no space), even ones as "data: <value>"; JSON whitespace is free to change.
    const data = lines.map((l, i) => (i % 2 ? `data:${l.trimStart()}` : `data: ${l}`)).join("\r\n");
    const unknown = this.n % 2 ? "x-unknown-field: ignored\r\n" : "";
    return this.write(`: event ${this.n}\r\n${unknown}event: message\r\nid: ${this.stream}:${this.n++}\r\n${data}\r\n\r\n`);
  }
  async end() {
    await this.queue;
    if (alive(this.res)) this.res.end();
  }
}

// ------------------------------------------------------------------------------------------------
// The server

/**
 * Starts the server. `port` 0 (default) = ephemeral. `mode`: a scenario also served at plain /mcp. `boundMs`
 * (default $MISBEHAVING_BOUND_MS or 30 s), `maxPages` (10,000), `maxEvents` (10,000): the bounds of the loops.
 * Returns {server, port, url(scenario, tag?), baseUrl, stats(key), close()}.
 */
export async function startServer({ port = 0, mode = "normal", host = "127.0.0.1", boundMs, maxPages = MAX_PAGES, maxEvents = MAX_EVENTS } = {}) {
  if (!["127.0.0.1", "::1", "localhost"].includes(host)) throw new Error(`misbehaving: loopback only, not ${host}`);
  const BOUND_MS = boundMs ?? (Number(process.env.MISBEHAVING_BOUND_MS) || 30_000);
  const statsByKey = new Map();
  const sessions = new Map(); // id -> session
  const dropped = new Set(); // session ids that were expired/deleted
  const perKey = new Map(); // key -> scenario state (e.g. expire done)
  const timers = new Set();
  let seq = 0;

  const later = (ms, fn) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };
  const every = (ms, fn) => {
    const t = setInterval(fn, ms);
    timers.add(t);
    return { stop: () => (clearInterval(t), timers.delete(t)) };
  };

  const statsFor = (key, scenario) => {
    let s = statsByKey.get(key);
    if (!s) statsByKey.set(key, (s = newStats(key, scenario)));
    return s;
  };
  const keyState = (key) => {
    let s = perKey.get(key);
    if (!s) perKey.set(key, (s = {}));
    return s;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      process.stderr.write(`misbehaving: ${err?.stack ?? err}\n`);
      if (!res.headersSent) sendJson(res, 500, rpcError(null, -32603, `server bug: ${err?.message ?? err}`));
      else if (alive(res)) res.end();
    });
  });
  server.keepAliveTimeout = 5000;

  async function handle(req, res) {
    const url = new URL(req.url, "http://127.0.0.1");
    const parts = url.pathname.split("/").filter(Boolean);
    setCors(res);

    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
        "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
        "Access-Control-Max-Age": "600",
        "Content-Length": "0",
      });
      res.end();
      if (parts[0] === "mcp") {
        const key = parts.length > 1 ? parts.slice(1).join("/") : mode;
        statsFor(key, key.split("/")[0]).http.OPTIONS++;
      }
      return;
    }
    if (parts[0] === "health") return sendRaw(res, 200, "text/plain", "ok");
    if (parts[0] === "stats") {
      const key = parts.slice(1).join("/");
      if (!key && req.method === "GET") return sendJson(res, 200, Object.fromEntries(statsByKey));
      if (req.method === "DELETE") {
        statsByKey.delete(key);
        perKey.delete(key);
        return sendJson(res, 200, { ok: true });
      }
      return sendJson(res, 200, statsByKey.get(key) ?? newStats(key, key.split("/")[0]));
    }
    if (parts[0] !== "mcp") return sendJson(res, 404, { error: "not found; use /mcp/<scenario>" });

    const key = parts.length > 1 ? parts.slice(1).join("/") : mode;
    const scenario = key.split("/")[0];
    if (!SCENARIOS.includes(scenario)) return sendJson(res, 404, rpcError(null, -32600, `unknown scenario ${scenario}; one of ${SCENARIOS.join(", ")}`));
    const stats = statsFor(key, scenario);
    const variant = url.searchParams.get("v") ?? "";
    if (stats.http[req.method] !== undefined) stats.http[req.method]++;
    const entry = { seq: ++seq, httpMethod: req.method, headers: pickHeaders(req), at: Date.now() };
    push(stats.requests, entry);
    const ctx = { req, res, key, scenario, stats, entry, variant, session: null };
    res.on("close", () => {
      entry.status = res.statusCode;
      entry.contentType = res.getHeader("content-type");
      if (!res.writableFinished && !entry.closedByServer) entry.closedByClient = true;
      if (ctx.onClose) ctx.onClose();
    });

    const unauthorized = scenario === "bearer" && req.headers.authorization !== "Bearer good";
    if (scenario === "unauthorized" || scenario === "forbidden" || unauthorized) {
      await readBody(req).catch(() => null);
      const status = scenario === "forbidden" ? 403 : 401;
      return sendJson(
        res,
        status,
        { error: status === 401 ? "invalid_token" : "insufficient_scope", error_description: status === 401 ? "Missing or invalid access token" : "The token lacks scope tools:call" },
        { "WWW-Authenticate": status === 401 ? WWW_AUTHENTICATE_401 : WWW_AUTHENTICATE_403 },
      );
    }

    if (req.method === "POST") return handlePost(ctx);
    if (req.method === "GET") return handleGet(ctx);
    if (req.method === "DELETE") return handleDelete(ctx);
    res.setHeader("Allow", "GET, POST, DELETE, OPTIONS");
    return sendJson(res, 405, rpcError(null, -32000, "Method not allowed."));
  }

  function readBody(req) {
    return new Promise((resolve, reject) => {
      const chunks = [];
      let size = 0;
      req.on("data", (c) => {
        size += c.length;
        if (size > MAX_BODY) {
          reject(Object.assign(new Error("body too large"), { status: 413 }));
          req.destroy();
        } else chunks.push(c);
      });
      req.on("end", () => resolve(Buffer.concat(chunks)));
      req.on("error", reject);
    });
  }

  /** A session the server does not know: 404, as the spec says; `?v=400`: 400, as server-everything says. */
  function sessionGone(ctx) {
    if (ctx.variant === "400") return sendJson(ctx.res, 400, rpcError(null, -32000, "Bad Request: No valid session ID provided"));
    return sendJson(ctx.res, 404, rpcError(null, -32001, "Session not found"));
  }

  // ---- session checks shared by POST/GET/DELETE (not initialize) --------------------------------------
  /** Returns the session, or null after answering the request with an error. */
  function requireSession(ctx, msg) {
    const { req, res, stats, key, scenario } = ctx;
    const sid = req.headers["mcp-session-id"];
    if (scenario === "stateless") {
      if (sid !== undefined) push(stats.violations, `${req.method} ${msg?.method ?? ""}: Mcp-Session-Id sent to a server that issued none`);
      const session = keyState(key).stateless ?? (keyState(key).stateless = newSession(null, key, LATEST_VERSION));
      if (!checkVersionHeader(ctx, session, msg)) return null;
      return session;
    }
    if (sid === undefined) {
      push(stats.violations, `${req.method} ${msg?.method ?? ""}: no Mcp-Session-Id header`);
      sendJson(res, 400, rpcError(msg?.id, -32000, "Bad Request: Mcp-Session-Id header is required"));
      return null;
    }
    const session = sessions.get(sid);
    if (!session || session.key !== key) {
      if (!dropped.has(sid)) push(stats.violations, `${req.method} ${msg?.method ?? ""}: unknown session id ${sid.slice(0, 60)}`);
      sessionGone(ctx);
      return null;
    }
    if (!checkVersionHeader(ctx, session, msg)) return null;
    return session;
  }

  function checkVersionHeader(ctx, session, msg) {
    const { req, res, stats } = ctx;
    const v = req.headers["mcp-protocol-version"];
    const what = `${req.method} ${msg?.method ?? (msg && ("result" in msg || "error" in msg) ? "response" : "")}`.trim();
    if (v === undefined) {
      if (session.protocolVersion !== "2025-03-26") push(stats.violations, `${what}: no MCP-Protocol-Version header`);
      return true;
    }
    if (!SUPPORTED_VERSIONS.includes(v)) {
      push(stats.violations, `${what}: unsupported MCP-Protocol-Version ${v}`);
      sendJson(res, 400, rpcError(msg?.id, -32000, `Bad Request: Unsupported protocol version: ${v} (supported versions: ${SUPPORTED_VERSIONS.join(", ")})`));
      return false;
    }
    if (v !== session.protocolVersion) push(stats.violations, `${what}: MCP-Protocol-Version ${v} but ${session.protocolVersion} was negotiated`);
    return true;
  }

  function newSession(id, key, protocolVersion) {
    return { id, key, protocolVersion, initialized: false, ids: new Set(), cancelled: new Map(), serverReqN: 0, pending: new Map(), streams: new Map(), openCalls: new Map() };
  }

  function dropSession(session) {
    if (!session.id) return;
    sessions.delete(session.id);
    dropped.add(session.id);
    for (const call of session.openCalls.values()) call.abort?.();
  }

  // ---- POST ----------------------------------------------------------------------------------------------
  async function handlePost(ctx) {
    const { req, res, stats, entry } = ctx;
    let body;
    try {
      body = await readBody(req);
    } catch (e) {
      return sendJson(res, e.status ?? 400, rpcError(null, -32600, `Bad Request: ${e.message}`));
    }
    if (mediaEssence(req.headers["content-type"]) !== "application/json") {
      push(stats.violations, `POST with Content-Type ${req.headers["content-type"]}`);
      return sendJson(res, 415, rpcError(null, -32000, "Unsupported Media Type: Content-Type must be application/json"));
    }
    if (!acceptsBoth(req.headers.accept)) {
      push(stats.violations, `POST with Accept ${req.headers.accept}`);
      return sendJson(res, 406, rpcError(null, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream"));
    }
    let msg;
    try {
      msg = JSON.parse(body.toString("utf8"));
    } catch (e) {
      push(stats.violations, "POST body is not JSON");
      return sendJson(res, 400, rpcError(null, -32700, `Parse error: ${e.message}`));
    }
    if (Array.isArray(msg)) {
      push(stats.violations, "POST body is a JSON-RPC batch");
      return sendJson(res, 400, rpcError(null, -32600, "Invalid Request: batches are not accepted (protocol >= 2025-06-18)"));
    }
    if (!msg || typeof msg !== "object") {
      push(stats.violations, "POST body is not a JSON-RPC object");
      return sendJson(res, 400, rpcError(null, -32600, "Invalid Request"));
    }
    if (msg.jsonrpc !== "2.0") push(stats.violations, `message without jsonrpc "2.0": ${JSON.stringify(msg).slice(0, 120)}`);
    if ("id" in msg && msg.id === null) push(stats.violations, "message with id null");

    const isRequest = typeof msg.method === "string" && "id" in msg;
    const isNotification = typeof msg.method === "string" && !("id" in msg);
    const isResponse = !("method" in msg) && "id" in msg && ("result" in msg || "error" in msg);
    entry.kind = isRequest ? "request" : isNotification ? "notification" : isResponse ? "response" : "invalid";
    entry.rpcMethod = msg.method;
    entry.id = msg.id;
    if (typeof msg.method === "string") stats.methods[msg.method] = (stats.methods[msg.method] ?? 0) + 1;

    if (entry.kind === "invalid") {
      push(stats.violations, `not a request, notification or response: ${JSON.stringify(msg).slice(0, 120)}`);
      return sendJson(res, 400, rpcError(msg.id, -32600, "Invalid Request"));
    }
    if (msg.method === "initialize") return handleInitialize(ctx, msg);

    const session = requireSession(ctx, msg);
    if (!session) return;
    ctx.session = session;

    if (isResponse) {
      push(stats.clientResponses, "error" in msg ? { id: msg.id, error: msg.error } : { id: msg.id, result: msg.result });
      const pending = session.pending.get(JSON.stringify(msg.id));
      if (pending) {
        session.pending.delete(JSON.stringify(msg.id));
        pending(msg);
      } else push(stats.violations, `response to an id this server never sent: ${JSON.stringify(msg.id)}`);
      return sendRaw(res, 202, null, "");
    }
    if (isNotification) {
      if (msg.method === "notifications/initialized") session.initialized = true;
      else if (msg.method === "notifications/cancelled") {
        const requestId = msg.params?.requestId;
        push(stats.cancelled, { requestId, reason: msg.params?.reason, sessionId: session.id, at: Date.now() });
        if (session.initializeId !== undefined && JSON.stringify(requestId) === JSON.stringify(session.initializeId)) push(stats.violations, "notifications/cancelled for initialize");
        session.cancelled.set(JSON.stringify(requestId), msg.params?.reason ?? "");
        const call = session.openCalls.get(JSON.stringify(requestId));
        if (call) call.onCancel?.();
      } else if (!session.initialized) push(stats.violations, `notification ${msg.method} before notifications/initialized`);
      return sendRaw(res, 202, null, "");
    }
    // a request
    const idKey = JSON.stringify(msg.id);
    if (session.ids.has(idKey)) push(stats.violations, `request id ${idKey} reused in the session`);
    session.ids.add(idKey);
    if (!session.initialized && msg.method !== "ping") push(stats.violations, `${msg.method} before notifications/initialized`);
    return handleRequest(ctx, msg);
  }

  function handleInitialize(ctx, msg) {
    const { req, res, stats, key, scenario, variant } = ctx;
    const requested = msg.params?.protocolVersion;
    const sidHeader = req.headers["mcp-session-id"];
    const record = { id: msg.id, protocolVersion: requested, clientInfo: msg.params?.clientInfo, capabilities: msg.params?.capabilities, sessionHeader: sidHeader ?? null };
    push(stats.initialize, record);
    if (!("id" in msg)) return sendJson(res, 400, rpcError(null, -32600, "initialize must be a request"));
    if (sidHeader !== undefined) {
      push(stats.violations, "initialize carried an Mcp-Session-Id header");
      return sendJson(res, 400, rpcError(msg.id, -32600, "Invalid Request: initialize must not carry Mcp-Session-Id"));
    }
    if (!msg.params?.clientInfo?.name || !msg.params?.clientInfo?.version) push(stats.violations, "initialize without clientInfo.name/version");
    if (req.headers["mcp-protocol-version"] !== undefined) push(stats.violations, "initialize carried an MCP-Protocol-Version header");
    let answered = SUPPORTED_VERSIONS.includes(requested) ? requested : LATEST_VERSION;
    if (scenario === "wrong-version") answered = "1999-01-01";
    record.answeredVersion = answered;

    let sessionId = null;
    if (scenario !== "stateless") {
      if (scenario === "crlf-header") {
        sessionId = variant === "long" ? "L".repeat(8192) : variant === "utf8" ? "sessi\u00f3n-" + randomUUID() : `bad\tsession id-${randomUUID()}`;
      } else sessionId = randomUUID();
    }
    const session = newSession(sessionId, key, answered);
    session.initializeId = msg.id;
    session.ids.add(JSON.stringify(msg.id));
    if (sessionId !== null) {
      sessions.set(sessionId, session);
      push(stats.sessions, sessionId.length > 200 ? `${sessionId.slice(0, 40)}...(${sessionId.length} chars)` : sessionId);
    } else keyState(key).stateless = session;
    record.sessionId = sessionId;
    ctx.session = session;
    const result = {
      protocolVersion: answered,
      capabilities: scenario === "no-tools" ? { prompts: {} } : { tools: { listChanged: true }, logging: {} },
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
    const headers = sessionId !== null ? { "Mcp-Session-Id": sessionId } : {};
    return reply(ctx, msg, result, headers);
  }

  /** Answers a request as JSON, or as SSE in the sse scenario. */
  async function reply(ctx, msg, result, headers = {}) {
    const body = rpcResult(msg.id, result);
    if (ctx.scenario === "sse") {
      const sse = new FancySse(ctx.res, headers, `s${++seq}`);
      await sse.message(body);
      return sse.end();
    }
    return sendJson(ctx.res, 200, body, headers);
  }

  async function replyError(ctx, msg, code, message, data) {
    const body = rpcError(msg.id, code, message, data);
    if (ctx.scenario === "sse") {
      const sse = new FancySse(ctx.res, {}, `s${++seq}`);
      await sse.message(body);
      return sse.end();
    }
    return sendJson(ctx.res, 200, body);
  }

  function sessionHeaders(session) {
    return session?.id ? { "Mcp-Session-Id": session.id } : {};
  }

  async function handleRequest(ctx, msg) {
    const { stats, session } = ctx;
    if (ctx.scenario === "no-tools" && msg.method.startsWith("tools/")) {
      push(stats.violations, `${msg.method} to a server without the tools capability`);
      return replyError(ctx, msg, -32601, `Method not found: ${msg.method}`);
    }
    switch (msg.method) {
      case "ping":
        return reply(ctx, msg, {}, sessionHeaders(session));
      case "tools/list":
        return toolsList(ctx, msg);
      case "tools/call":
        return toolsCall(ctx, msg);
      case "logging/setLevel":
        return reply(ctx, msg, {}, sessionHeaders(session));
      default:
        push(stats.counters.unknownMethods ?? (stats.counters.unknownMethods = []), msg.method);
        return replyError(ctx, msg, -32601, `Method not found: ${msg.method}`);
    }
  }

  // ---- tools/list ----------------------------------------------------------------------------------------
  async function toolsList(ctx, msg) {
    const { scenario, stats, session, res, key } = ctx;
    const cursor = msg.params?.cursor;
    const record = { id: msg.id, cursor: cursor ?? null };
    push(stats.toolsList, record);
    stats.counters.toolsListCalls = (stats.counters.toolsListCalls ?? 0) + 1;
    const h = sessionHeaders(session);

    if (scenario === "expire" || scenario === "expire-always") {
      const ks = keyState(key);
      if (scenario === "expire-always" || !ks.expired) {
        ks.expired = true;
        record.status = ctx.variant === "400" ? 400 : 404;
        stats.counters.expired = (stats.counters.expired ?? 0) + 1;
        dropSession(session);
        return sessionGone(ctx);
      }
    }
    if (scenario === "bad-content-type") {
      record.status = 200;
      return sendRaw(res, 200, "text/plain; charset=utf-8", "this is not JSON-RPC, just text\n", h);
    }
    if (scenario === "bad-json") {
      record.status = 200;
      return sendRaw(res, 200, "application/json", `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"tools":[{"name":"echo",`, h);
    }
    if (scenario === "http-500") {
      record.status = 500;
      if (ctx.variant === "json") return sendJson(res, 500, rpcError(msg.id, -32603, "Internal error: deliberate failure", { hint: "http-500 scenario" }), h);
      const filler = "<p>" + "lorem ipsum dolor sit amet ".repeat(20) + "</p>\n";
      const html = `<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head><body>\n<h1>Internal Server Error</h1>\n<p>toolwire misbehaving server: deliberate failure</p>\n${filler.repeat(18)}</body></html>\n`;
      return sendRaw(res, 500, "text/html; charset=utf-8", html, h);
    }

    let page;
    let nextCursor;
    if (scenario === "paginate3") {
      const index = cursor === undefined ? 0 : PAGE_CURSORS.indexOf(cursor) + 1;
      if (cursor !== undefined && index === 0) {
        record.status = "invalid-cursor";
        return replyError(ctx, msg, -32602, "Invalid cursor");
      }
      record.page = index + 1;
      page = PAGES[index];
      nextCursor = PAGE_CURSORS[index];
    } else if (scenario === "endless" || scenario === "repeat-cursor") {
      session.pages = (session.pages ?? 0) + 1;
      record.page = session.pages;
      page = [{ name: `page_${session.pages}_tool`, description: `tool of page ${session.pages}`, inputSchema: { type: "object", properties: {} } }];
      if (session.pages < maxPages) nextCursor = scenario === "endless" ? `cursor-${session.pages}-${randomUUID().slice(0, 8)}` : "again";
      else stats.counters.boundReached = true;
    } else if (scenario === "collide") {
      page = COLLIDE_TOOLS;
    } else if (scenario === "grows") {
      const grown = keyState(key).grown ?? 0;
      page = [...NORMAL_TOOLS, ...Array.from({ length: grown }, (_, i) => ({ name: `grown_${i + 1}`, description: `added by chatty call ${i + 1}`, inputSchema: { type: "object", properties: {} } }))];
      // `?v=slow-second`: the second listing is answered 500 ms late, with the tools as they were when it came.
      if (ctx.variant === "slow-second" && stats.counters.toolsListCalls === 2) await new Promise((r) => setTimeout(r, 500));
    } else if (scenario === "huge-list") {
      page = Array.from({ length: HUGE_LIST_COUNT }, (_, i) => ({ name: `tool_${String(i).padStart(5, "0")}`, description: `tool number ${i}`, inputSchema: { type: "object", properties: { x: { type: "string" } } } }));
    } else if (scenario === "restart") {
      const tools = keyState(key).restarted ? NORMAL_TOOLS.map((t) => (t.name === "echo" ? { ...t, name: "echo_v2" } : t)) : NORMAL_TOOLS;
      page = [...tools, RESTART_TOOL];
    } else if (ctx.variant === "odata") {
      page = [...NORMAL_TOOLS, ODATA_TOOL];
    } else if (ctx.variant === "unconvertible") {
      page = [...NORMAL_TOOLS, ...UNCONVERTIBLE_TOOLS];
    } else if (ctx.variant === "shifting") {
      const [x, y] = SHIFTING_TOOLS;
      page = [[x], [x, y], [y], [y, x]][(stats.counters.toolsListCalls - 1) % 4];
    } else if (ctx.variant === "destructive") {
      page = NORMAL_TOOLS.map((t) => (t.name === "fail" ? { ...t, annotations: { destructiveHint: true } } : t));
    } else {
      page = ctx.variant === "string-root" ? [...NORMAL_TOOLS, STRING_ROOT_TOOL] : NORMAL_TOOLS;
    }
    record.status = 200;
    record.count = page.length;
    const result = nextCursor === undefined ? { tools: page } : { tools: page, nextCursor };
    return reply(ctx, msg, result, h);
  }

  // ---- tools/call ----------------------------------------------------------------------------------------
  async function toolsCall(ctx, msg) {
    const { scenario, stats, session, res, key } = ctx;
    const name = msg.params?.name;
    const args = msg.params?.arguments ?? {};
    const progressToken = msg.params?._meta?.progressToken;
    const call = { id: msg.id, name, arguments: truncateJson(args), progressToken: progressToken ?? null, sessionId: session.id, outcome: "open", at: Date.now() };
    push(stats.calls, call);
    if (progressToken !== undefined) push(stats.progressTokens, progressToken);
    const idKey = JSON.stringify(msg.id);
    const open = { call };
    session.openCalls.set(idKey, open);
    const finish = (outcome) => {
      if (call.outcome === "open") call.outcome = outcome;
      session.openCalls.delete(idKey);
    };
    ctx.onClose = () => {
      call.closedByClient = !!ctx.entry.closedByClient;
      if (call.closedByClient) call.closedByClientAt = Date.now();
      finish(ctx.entry.closedByClient ? "closed-by-client" : "closed");
      open.onClientClose?.();
    };
    const h = sessionHeaders(session);

    // Scenario-specific behaviour first.
    switch (scenario) {
      case "hang": {
        const sse = new PlainSse(res, h);
        void sse;
        later(BOUND_MS, () => {
          if (alive(res)) {
            ctx.entry.closedByServer = true;
            call.outcome = "bounded";
            res.destroy();
          }
        });
        return; // never answers
      }
      case "rpc-error":
        finish("rpc-error");
        return replyError(ctx, msg, -32602, "MCP error -32602: Invalid arguments for tool " + name, { field: "message", hint: "rpc-error scenario" });
      case "big": {
        const result = { content: [{ type: "text", text: bigText() }] };
        finish("answered");
        if (ctx.variant === "json") return sendJson(res, 200, rpcResult(msg.id, result), h);
        const sse = new PlainSse(res, h);
        sse.message(rpcResult(msg.id, result));
        return sse.end();
      }
      case "drop-resume":
        return dropResumeCall(ctx, msg, call, progressToken, finish);
      case "endless-sse":
        return endlessSse(ctx, msg, call, finish);
      case "invalid-utf8": {
        finish("answered");
        const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":"text","text":"bad bytes: `);
        const tail = Buffer.from(` end"}]}}`);
        return sendRaw(res, 200, "application/json", Buffer.concat([head, Buffer.from([0xff, 0xfe]), tail]), h);
      }
      case "unknown-id": {
        const sse = new PlainSse(res, h);
        const bogusId = 987654321;
        const swapped = typeof msg.id === "number" ? String(msg.id) : Number.isFinite(Number(msg.id)) ? Number(msg.id) : `${msg.id}-x`;
        sse.message(rpcResult(bogusId, { content: [{ type: "text", text: "bogus: response to an id never sent" }] }));
        sse.message(rpcResult(swapped, { content: [{ type: "text", text: "bogus: response with the id's type changed" }] }));
        sse.message(rpcResult(msg.id, { content: [{ type: "text", text: "real" }] }));
        sse.message(rpcResult(msg.id, { content: [{ type: "text", text: "bogus: duplicate response" }] }));
        finish("answered");
        return sse.end();
      }
      case "collide":
        finish("answered");
        return reply(ctx, msg, { content: [{ type: "text", text: `called ${name} on ${key}` }] }, h);
      case "restart":
        if (name !== "restart") break;
        finish("answered");
        await reply(ctx, msg, { content: [{ type: "text", text: "restarted" }] }, h);
        keyState(key).restarted = true;
        for (const s of [...sessions.values()]) if (s.key === key) dropSession(s);
        return;
      case "sse":
        return sseCall(ctx, msg, call, finish);
      case "flood":
        if (name === "flood") return floodCall(ctx, msg, call, finish);
        break;
      default:
        break;
    }
    return normalCall(ctx, msg, call, progressToken, finish);
  }

  /** The `normal` tools (used by every scenario without its own tools/call). */
  async function normalCall(ctx, msg, call, progressToken, finish) {
    const { res, session } = ctx;
    const name = msg.params?.name;
    const args = msg.params?.arguments ?? {};
    const h = sessionHeaders(session);
    const answer = (result) => {
      finish(result.isError ? "is-error" : "answered");
      return reply(ctx, msg, result, h);
    };
    switch (name) {
      case "echo":
      case "echo_v2":
        if (typeof args.message !== "string") return answer({ content: [{ type: "text", text: "Input validation error: message must be a string" }], isError: true });
        return answer({ content: [{ type: "text", text: args.message }] });
      case "add": {
        if (typeof args.a !== "number" || typeof args.b !== "number") return answer({ content: [{ type: "text", text: "Input validation error: a and b must be numbers" }], isError: true });
        const sum = args.a + args.b;
        return answer({ content: [{ type: "text", text: JSON.stringify({ sum }) }], structuredContent: { sum } });
      }
      case "image":
        return answer({ content: [{ type: "image", data: TINY_PNG_BASE64, mimeType: "image/png" }] });
      case "fail":
        return answer({ content: [{ type: "text", text: "deliberate tool failure" }], isError: true });
      case "odata":
        return answer({ content: [{ type: "text", text: JSON.stringify(args) }] });
      case "chatty": {
        if (ctx.scenario === "grows") keyState(ctx.key).grown = (keyState(ctx.key).grown ?? 0) + 1;
        const sse = new PlainSse(res, h);
        sse.message({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", logger: "chatty", data: "about to answer" } });
        sse.message({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
        sse.message(rpcResult(msg.id, { content: [{ type: "text", text: "done" }] }));
        finish("answered");
        return sse.end();
      }
      case "long": {
        const steps = Math.min(Math.max(Number(args.steps) || 5, 1), 1000);
        const intervalMs = Math.min(Math.max(Number(args.intervalMs) || 50, 1), 10_000);
        const sse = new PlainSse(res, h);
        const idKey = JSON.stringify(msg.id);
        const open = session.openCalls.get(idKey);
        let step = 0;
        const started = Date.now();
        const timer = every(intervalMs, () => {
          if (!alive(res)) return timer.stop();
          if (Date.now() - started > BOUND_MS) {
            timer.stop();
            sse.message(rpcError(msg.id, -32603, `long: stopped by the server's bound (${BOUND_MS} ms)`));
            finish("bounded");
            return sse.end();
          }
          if (session.cancelled.has(idKey)) {
            // Like server-everything: stop the work, send no response, but leave the stream open (bounded), so
            // that only the client can close it: a client must abort its own fetch after cancelling.
            timer.stop();
            call.stoppedAtStep = step;
            finish("cancelled");
            later(BOUND_MS, () => {
              if (alive(res)) {
                ctx.entry.closedByServer = true;
                res.end();
              }
            });
            return;
          }
          step++;
          if (progressToken !== undefined) {
            sse.message({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: step, total: steps, message: `step ${step}/${steps}` } });
          }
          if (step >= steps) {
            timer.stop();
            sse.message(rpcResult(msg.id, { content: [{ type: "text", text: `long done after ${steps} steps` }] }));
            finish("answered");
            sse.end();
          }
        });
        if (open) {
          open.onCancel = () => {}; // checked on the next tick
          open.onClientClose = () => timer.stop();
        }
        return;
      }
      default:
        if (ctx.variant === "shifting" && SHIFTING_TOOLS.some((t) => t.name === name)) return answer({ content: [{ type: "text", text: name }] });
        finish("unknown-tool");
        return replyError(ctx, msg, -32602, `Unknown tool: ${name}`);
    }
  }

  /** `sse` scenario tools/call: ping + unknown request first, wait for the answers, then the result. */
  async function sseCall(ctx, msg, call, finish) {
    const { res, session, stats } = ctx;
    const sse = new FancySse(res, sessionHeaders(session), `s${++seq}`);
    const ask = (method, id) => {
      push(stats.serverRequests, { id, method });
      const answered = new Promise((resolve) => session.pending.set(JSON.stringify(id), resolve));
      sse.message({ jsonrpc: "2.0", id, method, ...(method === "ping" ? {} : { params: { note: "an unknown server request; answer -32601" } }) });
      return answered;
    };
    const n = session.serverReqN++;
    const answers = Promise.all([ask("ping", n), ask("toolwire-test/unknown", `srv-${n}`)]);
    const timeout = new Promise((r) => later(3000, () => r("timeout")));
    const outcome = await Promise.race([answers, timeout]);
    if (outcome === "timeout") {
      push(stats.violations, "the client did not answer the server's ping and unknown request within 3 s");
      call.serverRequestsAnswered = false;
    } else call.serverRequestsAnswered = true;
    if (!alive(res)) return;
    // Fall back to the normal tools for the result itself.
    const name = msg.params?.name;
    const args = msg.params?.arguments ?? {};
    let result;
    if (name === "echo") result = { content: [{ type: "text", text: String(args.message ?? "") }] };
    else if (name === "add") result = { content: [{ type: "text", text: JSON.stringify({ sum: args.a + args.b }) }], structuredContent: { sum: args.a + args.b } };
    else if (name === "image") result = { content: [{ type: "image", data: TINY_PNG_BASE64, mimeType: "image/png" }] };
    else if (name === "fail") result = { content: [{ type: "text", text: "deliberate tool failure" }], isError: true };
    await sse.message({ jsonrpc: "2.0", method: "notifications/message", params: { level: "debug", data: "sse: answering now ✓" } });
    await sse.message(result ? rpcResult(msg.id, result) : rpcError(msg.id, -32602, `Unknown tool: ${name}`));
    finish("answered");
    return sse.end();
  }

  /** `flood` tools/call: many elicitation/create requests at once, then the result once they are all answered. */
  async function floodCall(ctx, msg, call, finish) {
    const { res, session, stats } = ctx;
    const count = Math.min(Math.max(Number(msg.params?.arguments?.count) || 100, 1), 1000);
    const sse = new PlainSse(res, sessionHeaders(session));
    const n = session.serverReqN++;
    const answers = [];
    for (let i = 0; i < count; i++) {
      const id = `flood-${n}-${i}`;
      push(stats.serverRequests, { id, method: "elicitation/create" });
      answers.push(new Promise((resolve) => session.pending.set(JSON.stringify(id), resolve)));
      sse.message({ jsonrpc: "2.0", id, method: "elicitation/create", params: { message: `flood ${i}`, requestedSchema: { type: "object", properties: {} } } });
    }
    const got = [];
    for (const a of answers) a.then((m) => got.push(m));
    await Promise.race([Promise.all(answers), new Promise((r) => later(10_000, r))]);
    const errors = {};
    for (const m of got) if (m.error) errors[m.error.code] = (errors[m.error.code] ?? 0) + 1;
    call.serverRequestsAnswered = got.length === count;
    const tally = { answered: got.length, results: got.filter((m) => "result" in m).length, errors };
    sse.message(rpcResult(msg.id, { content: [{ type: "text", text: JSON.stringify(tally) }] }));
    finish("answered");
    sse.end();
  }

  /** `drop-resume`: priming (retry 50), maybe progress, close; the result waits for GET + Last-Event-ID. */
  async function dropResumeCall(ctx, msg, call, progressToken, finish) {
    const { res, session, stats } = ctx;
    const streamId = `st${++seq}`;
    const stream = { id: streamId, events: [], droppedAt: null, callId: msg.id };
    session.streams.set(streamId, stream);
    const add = (message) => {
      const id = `${streamId}:${stream.events.length + 1}`;
      stream.events.push({ id, message });
      return id;
    };
    const sse = new PlainSse(res, sessionHeaders(session));
    sse.priming(`${streamId}:0`, 50);
    if (progressToken !== undefined) {
      const id = add({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: 1, total: 2, message: "before the drop" } });
      sse.message(stream.events.at(-1).message, id);
    }
    // What the client has not seen yet: one more progress (if any) and the result.
    if (progressToken !== undefined) add({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: 2, total: 2, message: "after the drop" } });
    add(rpcResult(msg.id, { content: [{ type: "text", text: "resumed result" }] }));
    await sleep(20);
    stream.droppedAt = Date.now();
    stats.counters.drops = (stats.counters.drops ?? 0) + 1;
    ctx.entry.closedByServer = true;
    finish("dropped");
    call.outcome = "dropped";
    sse.end();
  }

  /** `endless-sse`: comments and log notifications, never the response; bounded. */
  async function endlessSse(ctx, msg, call, finish) {
    const { res, session, stats } = ctx;
    const sse = new PlainSse(res, sessionHeaders(session));
    sse.priming(`endless:${msg.id}`, 1000);
    let n = 0;
    const started = Date.now();
    const timer = every(50, () => {
      if (!alive(res)) return timer.stop();
      n++;
      stats.counters.endlessEvents = (stats.counters.endlessEvents ?? 0) + 1;
      if (n % 2) sse.comment(`keep-alive ${n}`);
      else sse.message({ jsonrpc: "2.0", method: "notifications/message", params: { level: "debug", data: `still busy (${n})` } });
      if (n >= maxEvents || Date.now() - started >= BOUND_MS) {
        timer.stop();
        ctx.entry.closedByServer = true;
        call.outcome = "bounded";
        finish("bounded");
        sse.end();
      }
    });
  }

  // ---- GET -----------------------------------------------------------------------------------------------
  function handleGet(ctx) {
    const { req, res, stats, scenario } = ctx;
    const accept = String(req.headers.accept ?? "");
    if (!accept.includes("text/event-stream") && !accept.includes("*/*")) push(stats.violations, `GET with Accept ${accept}`);
    const session = requireSession(ctx, null);
    if (!session) return;
    const lastEventId = req.headers["last-event-id"];
    if (scenario !== "drop-resume" || lastEventId === undefined) {
      res.setHeader("Allow", "POST, DELETE");
      return sendJson(res, 405, rpcError(null, -32000, "Method not allowed: this server offers no standalone GET stream"));
    }
    const [streamId, nStr] = String(lastEventId).split(":");
    const stream = session.streams.get(streamId);
    const n = Number(nStr);
    const resume = { lastEventId, known: !!stream && Number.isInteger(n), delayMs: stream?.droppedAt ? Date.now() - stream.droppedAt : null, replayed: 0 };
    push(stats.resume, resume);
    if (!resume.known) return sendJson(res, 400, rpcError(null, -32000, `Bad Request: unknown Last-Event-ID ${lastEventId}`));
    const sse = new PlainSse(res, sessionHeaders(session));
    for (const ev of stream.events.slice(n)) {
      sse.message(ev.message, ev.id);
      resume.replayed++;
    }
    const call = stats.calls.find((c) => JSON.stringify(c.id) === JSON.stringify(stream.callId));
    if (call) call.outcome = "resumed";
    ctx.entry.closedByServer = true;
    sse.end();
  }

  // ---- DELETE --------------------------------------------------------------------------------------------
  function handleDelete(ctx) {
    const { res, stats, scenario, req } = ctx;
    if (scenario === "delete-405" || scenario === "stateless") {
      const record = { sessionId: req.headers["mcp-session-id"] ?? null, status: 405 };
      push(stats.deletes, record);
      res.setHeader("Allow", "POST");
      return sendJson(res, 405, rpcError(null, -32000, "Method not allowed."));
    }
    const session = requireSession(ctx, null);
    if (!session) {
      push(stats.deletes, { sessionId: req.headers["mcp-session-id"] ?? null, status: res.statusCode });
      return;
    }
    push(stats.deletes, { sessionId: session.id, status: 200 });
    dropSession(session);
    return sendRaw(res, 200, null, "");
  }

  // ---- lifecycle -----------------------------------------------------------------------------------------
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actualPort = server.address().port;
  const baseUrl = `http://${host}:${actualPort}`;
  return {
    server,
    port: actualPort,
    baseUrl,
    url: (scenario = mode, tag) => `${baseUrl}/mcp/${scenario}${tag ? `/${tag}` : ""}`,
    stats: (key) => statsByKey.get(key) ?? newStats(key, key.split("/")[0]),
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) {
          clearTimeout(t);
          clearInterval(t);
        }
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

// ------------------------------------------------------------------------------------------------
// Run as a program

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === (await import("node:fs")).realpathSync(process.argv[1]);
if (isMain) {
  const port = Number(process.env.PORT ?? 0);
  const mode = process.env.MODE ?? "normal";
  const s = await startServer({ port, mode });
  runAsProgram(s, { name: "misbehaving", announce: `listening ${s.port}` });
}
