// The demo's bundled MCP server: Streamable HTTP with CORS, on 127.0.0.1 only, built on the official SDK
// (@modelcontextprotocol/sdk, a devDependency) and node:http.
//
// Against DNS rebinding (a page of another site whose name is made to resolve to 127.0.0.1), as MCP asks of
// servers: every request must name this server in Host (127.0.0.1 or localhost, with its port), and one that
// carries an Origin must come from a page on this machine (http(s) on localhost, 127.0.0.0/8 or [::1], any port:
// the demo page, tests on other ports) or from one of `allowedOrigins`; anything else gets 403. Node clients
// send no Origin. CORS allows the Origin it was sent, never `*`.
//
//   node www-demo/server.mjs                 # http://127.0.0.1:8081/mcp (MCP_PORT=0 picks a free port)
//   import { startMcpServer } from "./server.mjs"; const s = await startMcpServer({ port: 0 }); ... await s.close();
//
// Endpoints:
//   /mcp        open
//   /mcp-auth   the same tools behind `Authorization: Bearer demo-token`; anything else gets a 401 with a
//               WWW-Authenticate challenge (what toolwire reports as UNAUTHORIZED, with `err.challenge`)
//   /mcp-oauth  the same tools behind OAuth 2.1, this server being its own authorization server, as MCP's
//               authorization describes it: a 401 names its protected resource metadata
//               (/.well-known/oauth-protected-resource/mcp-oauth), which names this origin as the issuer
//               (/.well-known/oauth-authorization-server), under the name the request came by (127.0.0.1 or
//               localhost); /register (dynamic registration), /authorize (response_type code, scope demo, PKCE
//               S256; a consent page, Allow or Deny, whose answer is a POST to /authorize/decide carrying the
//               page's one-time ticket; no frames, no CORS), /token (PKCE S256 checked; refresh tokens). Tokens
//               live an hour (TOKEN_TTL_MS), refresh tokens a day, in memory (expired ones pruned at each issue;
//               at most MAX_CLIENTS registrations). The page signs in through McpClient's `oauth` option.
//
// Tools: echo, add (structured content + outputSchema), get_weather (enum, optional parameters),
// tiny_image (a 16x16 PNG), slow (progress notifications, then a result), fail (an isError result),
// ask_name (asks the user through the client: an MCP elicitation, in the call's stream), toggle_tools (adds
// or removes moon_phase: notifications/tools/list_changed on the standalone stream).
// Sessions are stateful (Mcp-Session-Id), one McpServer per session, dropped on DELETE or after 10 idle minutes
// (a session whose standalone stream is open is not idle).

import { createServer } from "node:http";
import { createHash, randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitResultSchema, ErrorCode, ListResourcesRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export const DEMO_TOKEN = "demo-token";
const TOKEN_TTL_MS = 60 * 60 * 1000;
// A refresh token lives a day; registered clients are kept up to MAX_CLIENTS (the oldest go first), so a
// long-running demo server's memory stays bounded however many sign-ins and registrations it sees.
const REFRESH_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_CLIENTS = 1000;
const HOST = "127.0.0.1";
const IDLE_MS = 10 * 60 * 1000; // the default of startMcpServer's idleMs

/** CORS headers for a request from an allowed page (its Origin is allowed: `access-control-allow-origin`). */
export const CORS_HEADERS = {
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
  // www-authenticate too, so a page can read the 401 challenge.
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version, www-authenticate",
  "access-control-max-age": "600",
};

// ---------------------------------------------------------------------------------------------
// A small PNG, made here so the file carries no binary blob: 16x16 RGB, a diagonal two-colour gradient.

function crc32(buf) {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function tinyPng(size = 16) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3); // filter byte 0, then RGB triples
    for (let x = 0; x < size; x++) {
      const t = (x + y) / (2 * (size - 1));
      row[1 + x * 3] = Math.round(0x25 + t * (0xf5 - 0x25));
      row[2 + x * 3] = Math.round(0x63 + t * (0x9e - 0x63));
      row[3 + x * 3] = Math.round(0xeb + t * (0x0b - 0xeb));
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const PNG_BASE64 = tinyPng().toString("base64");

// ---------------------------------------------------------------------------------------------
// The tools.

const WEATHER = {
  paris: { tempC: 14, conditions: "light rain", humidity: 81, windKph: 17 },
  tokyo: { tempC: 22, conditions: "clear", humidity: 55, windKph: 9 },
  "new york": { tempC: 9, conditions: "cloudy", humidity: 62, windKph: 24 },
  nairobi: { tempC: 24, conditions: "sunny", humidity: 40, windKph: 12 },
};

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new Error("cancelled"));
    }, { once: true });
  });

function makeServer(moreTools) {
  const server = new McpServer(
    { name: "toolwire-demo", title: "toolwire demo server", version: "1.0.0" },
    { instructions: "A local demo server for the toolwire page: small, deterministic tools." },
  );

  server.registerTool(
    "echo",
    {
      title: "Echo",
      description: "Returns the message it is given.",
      inputSchema: { message: z.string().meta({ description: "Text to send back", examples: ["Hello, toolwire!"] }) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
  );

  server.registerTool(
    "add",
    {
      title: "Add",
      description: "Adds two numbers; the sum comes back as structured content too.",
      inputSchema: {
        a: z.number().meta({ description: "First addend", examples: [2] }),
        b: z.number().meta({ description: "Second addend", examples: [40] }),
      },
      outputSchema: { sum: z.number(), expression: z.string() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ a, b }) => {
      const structuredContent = { sum: a + b, expression: `${a} + ${b} = ${a + b}` };
      return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );

  server.registerTool(
    "get_weather",
    {
      title: "Get weather",
      description: "Current weather for a city (made-up figures for Paris, Tokyo, New York and Nairobi).",
      inputSchema: {
        city: z.string().min(1).meta({ description: "City name", examples: ["Paris", "Tokyo", "New York", "Nairobi"] }),
        units: z.enum(["metric", "imperial"]).optional().describe("Unit system (default metric)"),
        include_forecast: z.boolean().optional().describe("Also return a 3-day forecast"),
        days: z.number().int().min(1).max(3).optional().describe("Forecast length in days (1-3)"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ city, units = "metric", include_forecast = false, days = 3 }) => {
      const w = WEATHER[city.trim().toLowerCase()];
      if (!w) {
        return { isError: true, content: [{ type: "text", text: `Unknown city "${city}". Try Paris, Tokyo, New York or Nairobi.` }] };
      }
      const temp = units === "imperial" ? `${Math.round((w.tempC * 9) / 5 + 32)} °F` : `${w.tempC} °C`;
      const lines = [`${city}: ${temp}, ${w.conditions}, humidity ${w.humidity}%, wind ${w.windKph} km/h`];
      if (include_forecast) {
        for (let d = 1; d <= days; d++) lines.push(`  day +${d}: ${["sunny", "cloudy", "showers"][(d + w.humidity) % 3]}`);
      }
      return { content: [{ type: "text", text: lines.join("\n") }] };
    },
  );

  server.registerTool(
    "tiny_image",
    {
      title: "Tiny image",
      description: "Returns a 16x16 PNG image and a caption.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => ({
      content: [
        { type: "text", text: "A 16x16 gradient:" },
        { type: "image", data: PNG_BASE64, mimeType: "image/png" },
      ],
    }),
  );

  server.registerTool(
    "slow",
    {
      title: "Slow",
      description: "Works for a while, sending progress notifications, then returns.",
      inputSchema: {
        steps: z.number().int().min(1).max(20).optional().describe("Number of steps (default 5)"),
        delay_ms: z.number().int().min(0).max(5000).optional().describe("Pause per step in ms (default 300)"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ steps = 5, delay_ms = 300 }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await sleep(delay_ms, extra.signal);
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` },
          });
        }
      }
      return { content: [{ type: "text", text: `Done after ${steps} steps of ${delay_ms} ms.` }] };
    },
  );

  server.registerTool(
    "fail",
    {
      title: "Fail",
      description: "Always fails: returns a tool error (isError: true), as a server does for a failed operation.",
      inputSchema: { reason: z.string().optional().describe("What to say went wrong") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ reason }) => ({ isError: true, content: [{ type: "text", text: `Failed on purpose: ${reason ?? "no reason given"}` }] }),
  );

  server.registerTool(
    "ask_name",
    {
      title: "Ask name",
      description: "Asks the user for their name through the client (an MCP elicitation), then greets them.",
      inputSchema: {
        wait_s: z.number().int().min(1).max(600).optional().describe("How long to wait for the answer, in seconds (default 300); then the question is withdrawn"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ wait_s = 300 }, extra) => {
      let answer;
      try {
        answer = await extra.sendRequest(
          {
            method: "elicitation/create",
            params: {
              message: "What should the demo call you?",
              requestedSchema: {
                type: "object",
                properties: {
                  name: { type: "string", title: "Your name", default: "Ada" },
                  formal: { type: "boolean", title: "Formal greeting", default: false },
                },
                required: ["name"],
              },
            },
          },
          ElicitResultSchema,
          // Past it the SDK withdraws the question (notifications/cancelled), and the client's form closes.
          { timeout: wait_s * 1000 },
        );
      } catch (e) {
        if (e?.code === ErrorCode.RequestTimeout) return { content: [{ type: "text", text: `No name: no answer within ${wait_s} s.` }] };
        return { isError: true, content: [{ type: "text", text: `The client could not ask: ${e.message}` }] };
      }
      if (answer.action !== "accept") return { content: [{ type: "text", text: `No name: the user chose to ${answer.action}.` }] };
      const { name, formal } = answer.content ?? {};
      return { content: [{ type: "text", text: formal ? `Good day, ${name}.` : `Hello, ${name}!` }] };
    },
  );

  // A tool list that changes: moon_phase is off until toggle_tools turns it on (and off again). The SDK
  // announces each change with notifications/tools/list_changed on the session's standalone stream, where a
  // client that listens (the page does) hears it and lists the tools again.
  const moon = server.registerTool(
    "moon_phase",
    {
      title: "Moon phase",
      description: "The moon's phase on a date (a tool that toggle_tools adds and removes).",
      inputSchema: { date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe("YYYY-MM-DD; today when omitted") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ date }) => {
      const day = date ? new Date(`${date}T12:00:00Z`) : new Date();
      if (Number.isNaN(day.getTime()) || (date && day.toISOString().slice(0, 10) !== date)) {
        return { isError: true, content: [{ type: "text", text: `No such date: ${date}.` }] };
      }
      // Days since a known new moon (2000-01-06 18:14 UTC), over the synodic month.
      const age = (((day.getTime() - Date.UTC(2000, 0, 6, 18, 14)) / 86_400_000) % 29.530589 + 29.530589) % 29.530589;
      const names = ["new moon", "waxing crescent", "first quarter", "waxing gibbous", "full moon", "waning gibbous", "last quarter", "waning crescent"];
      const phase = names[Math.floor((age / 29.530589) * 8 + 0.5) % 8];
      return { content: [{ type: "text", text: `${date ?? "Today"}: ${phase} (${age.toFixed(1)} days old).` }] };
    },
  );
  moon.disable();
  server.registerTool(
    "toggle_tools",
    {
      title: "Toggle tools",
      description: "Adds moon_phase to this server's tools, or removes it; the server then announces that its tool list changed.",
      inputSchema: {},
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    },
    async () => {
      if (moon.enabled) moon.disable();
      else moon.enable();
      return { content: [{ type: "text", text: `moon_phase is ${moon.enabled ? "on" : "off"} now.` }] };
    },
  );

  // Two resources, listed a page at a time and read through McpClient.request on the page.
  server.registerResource(
    "about",
    "demo://about",
    { title: "About this server", description: "What the demo server offers.", mimeType: "text/markdown" },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "text/markdown",
          text: "# toolwire demo server\n\nEight small tools (echo, add, get_weather, tiny_image, slow, fail, ask_name, toggle_tools) and two resources.",
        },
      ],
    }),
  );
  server.registerResource(
    "tools",
    "demo://tools",
    { title: "Tool list", description: "The names of the demo tools.", mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "echo\nadd\nget_weather\ntiny_image\nslow\nfail\nask_name\ntoggle_tools\nmoon_phase (after toggle_tools)" }] }),
  );
  // The SDK lists every resource at once; this server lists one per page, so that the page's
  // listing follows nextCursor as a client must.
  const listed = [
    { uri: "demo://about", name: "about", title: "About this server", description: "What the demo server offers.", mimeType: "text/markdown" },
    { uri: "demo://tools", name: "tools", title: "Tool list", description: "The names of the demo tools.", mimeType: "text/plain" },
  ];
  server.server.removeRequestHandler("resources/list");
  server.server.setRequestHandler(ListResourcesRequestSchema, ({ params }) => {
    const at = params?.cursor === undefined ? 0 : Number(params.cursor);
    if (!Number.isInteger(at) || at < 0 || at >= listed.length) throw Object.assign(new Error("Invalid cursor"), { code: -32602 });
    return { resources: [listed[at]], ...(at + 1 < listed.length ? { nextCursor: String(at + 1) } : {}) };
  });

  moreTools?.(server);
  return server;
}

// ---------------------------------------------------------------------------------------------
// The authorization server of /mcp-oauth (in memory).

/** The scopes this authorization server grants (one: demo). */
const SCOPES = ["demo"];
/** How long a consent page's answer is taken (its one-time ticket lives this long), and an unused code. */
const CONSENT_MS = 10 * 60 * 1000;
/** The consent page and its answers may not be shown in a frame of any page (a click there would be the user's). */
const NO_FRAMES = { "x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'" };

/** Sends the user back to the client's (registered) redirect_uri with `params`, its state and the issuer. */
function redirectBack(res, redirect, state, issuer, params) {
  const back = new URL(redirect);
  if (state) back.searchParams.set("state", state);
  back.searchParams.set("iss", issuer);
  for (const [k, v] of Object.entries(params)) back.searchParams.set(k, v);
  res.writeHead(302, { location: back.href, "cache-control": "no-store", ...NO_FRAMES });
  res.end();
}

const b64url = (buf) => buf.toString("base64").replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Whether an http(s) origin or URL is on this machine (localhost, 127.0.0.0/8, [::1]). */
function isLoopback(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const host = u.hostname;
  return (u.protocol === "http:" || u.protocol === "https:") && (host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127(\.\d+){3}$/.test(host));
}

function authorizationServer(log, allowedOrigins, { tokenTtlMs = TOKEN_TTL_MS, refreshTtlMs = REFRESH_TTL_MS, maxClients = MAX_CLIENTS } = {}) {
  const clients = new Map(); // client_id -> {client_name, redirect_uris}
  const codes = new Map(); // code -> {client_id, redirect_uri, challenge, scope, expires}
  const pending = new Map(); // consent page ticket -> the request it shows: {client_id, redirect_uri, state, challenge, scope, base, expires}
  const tokens = new Map(); // access token -> expiry (ms)
  const refresh = new Map(); // refresh token -> {client_id, scope, expires}

  const issue = (res, client_id, scope) => {
    const access = `at-${randomUUID()}`;
    const rt = `rt-${randomUUID()}`;
    const now = Date.now();
    for (const [k, expires] of tokens) if (expires <= now) tokens.delete(k);
    for (const [k, held] of refresh) if (held.expires <= now) refresh.delete(k);
    tokens.set(access, now + tokenTtlMs);
    refresh.set(rt, { client_id, scope, expires: now + refreshTtlMs });
    log(`oauth: token issued to ${client_id}`);
    sendJson(res, 200, { access_token: access, token_type: "Bearer", expires_in: Math.ceil(tokenTtlMs / 1000), refresh_token: rt, scope });
  };
  const tokenError = (res, error, description) => sendJson(res, 400, { error, error_description: description });

  return {
    valid(header) {
      const token = bearerToken(header);
      return token !== undefined && (tokens.get(token) ?? 0) > Date.now();
    },
    /** Answers the authorization server's own paths; false for any other. */
    async handle(req, res, pathname, base) {
      const url = new URL(req.url ?? "/", base);
      if (pathname === "/.well-known/oauth-protected-resource/mcp-oauth" && req.method === "GET") {
        sendJson(res, 200, { resource: `${base}/mcp-oauth`, authorization_servers: [base], scopes_supported: ["demo"], resource_name: "toolwire demo server" });
      } else if (pathname === "/.well-known/oauth-authorization-server" && req.method === "GET") {
        sendJson(res, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          scopes_supported: ["demo"],
          authorization_response_iss_parameter_supported: true,
        });
      } else if (pathname === "/register" && req.method === "POST") {
        // RFC 7591: metadata that is not a JSON object is invalid_client_metadata (400), never a server error.
        let meta;
        try {
          meta = JSON.parse(await readBody(req, 64 * 1024));
        } catch (err) {
          if (err?.status) throw err; // too large: 413
          return sendJson(res, 400, { error: "invalid_client_metadata", error_description: "The body is not JSON: client metadata is a JSON object" }), true;
        }
        if (meta === null || typeof meta !== "object" || Array.isArray(meta)) {
          return sendJson(res, 400, { error: "invalid_client_metadata", error_description: "Client metadata is a JSON object" }), true;
        }
        if (meta.client_name !== undefined && typeof meta.client_name !== "string") {
          return sendJson(res, 400, { error: "invalid_client_metadata", error_description: "client_name is a string" }), true;
        }
        const uris = Array.isArray(meta.redirect_uris) ? meta.redirect_uris.filter((u) => typeof u === "string") : [];
        if (uris.length === 0) return sendJson(res, 400, { error: "invalid_redirect_uri", error_description: "redirect_uris is required" }), true;
        // Only pages on this machine (or of allowedOrigins) get the code: the consent page's redirect must not
        // take a user anywhere a client registered.
        const foreign = uris.find((u) => !(isLoopback(u) || allowedOrigins.includes(originOf(u))) || u.includes("#"));
        if (foreign !== undefined) {
          return sendJson(res, 400, { error: "invalid_redirect_uri", error_description: `${foreign}: redirect URIs are http(s) URLs on this machine, without a fragment` }), true;
        }
        const client_id = `demo-client-${randomUUID()}`;
        if (clients.size >= maxClients) clients.delete(clients.keys().next().value);
        clients.set(client_id, { client_name: meta.client_name ?? "an app", redirect_uris: uris });
        log(`oauth: registered ${client_id} (${meta.client_name})`);
        sendJson(res, 201, { client_id, client_name: meta.client_name, redirect_uris: uris, token_endpoint_auth_method: "none" });
      } else if (pathname === "/authorize" && req.method === "GET") {
        const q = url.searchParams;
        const client = clients.get(q.get("client_id"));
        const redirect = q.get("redirect_uri");
        // The redirect_uri must be one the client registered, exactly: any other is answered here, never redirected to.
        if (!client || !client.redirect_uris.includes(redirect)) {
          res.writeHead(400, { "content-type": "text/plain; charset=utf-8", ...NO_FRAMES });
          res.end("Unknown client, or a redirect_uri it did not register.");
          return true;
        }
        // The request is checked before the user is asked (RFC 6749 4.1.2.1): the errors go back to the client.
        const refuse = (error, description) => redirectBack(res, redirect, q.get("state"), base, { error, error_description: description });
        const responseType = q.get("response_type");
        if (responseType === null) return refuse("invalid_request", "response_type is required (code)"), true;
        if (responseType !== "code") return refuse("unsupported_response_type", `response_type ${responseType}: only code is supported`), true;
        if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) return refuse("invalid_request", "PKCE with S256 is required."), true;
        // The scope asked for must be one this server has (none asked: the default, demo).
        const scopes = (q.get("scope") ?? "").split(" ").filter(Boolean);
        const unknown = scopes.filter((s) => !SCOPES.includes(s));
        if (unknown.length) return refuse("invalid_scope", `Unknown scope ${unknown.join(" ")}: this server has ${SCOPES.join(" ")}`), true;
        const scope = scopes.length ? [...new Set(scopes)].join(" ") : SCOPES.join(" ");
        // The consent page the user sees in the popup. Its answer comes back by POST with a one-time token that
        // only this page carries (no other page can read it: the consent page gets no CORS headers, and may not
        // be framed), so no other page can consent for the user, by a link or a click in a hidden frame.
        for (const [k, v] of [...pending, ...codes]) if (v.expires < Date.now()) pending.delete(k) || codes.delete(k);
        const ticket = randomUUID();
        pending.set(ticket, { client_id: q.get("client_id"), redirect_uri: redirect, state: q.get("state"), challenge: q.get("code_challenge"), scope, base, expires: Date.now() + CONSENT_MS });
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...NO_FRAMES });
        res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in: toolwire demo</title>
<style>body{font:16px system-ui,sans-serif;max-width:28em;margin:3em auto;padding:0 1em;overflow-wrap:anywhere}button{font:inherit;margin:.5em 1em 0 0;padding:.5em 1.2em;border-radius:6px;border:1px solid #2563eb;background:#fff;color:#2563eb;cursor:pointer}#allow{background:#2563eb;color:#fff}button:focus-visible{outline:3px solid #2563eb;outline-offset:2px}</style>
<main>
<h1>toolwire demo server</h1>
<p><strong>${escapeHtml(client.client_name)}</strong> asks to use this server's tools (scope <code>${escapeHtml(scope)}</code>).</p>
<p>Allowing sends you back to <code>${escapeHtml(redirect)}</code>.</p>
<form method="post" action="/authorize/decide">
<input type="hidden" name="ticket" value="${escapeHtml(ticket)}">
<button id="allow" type="submit" name="allow" value="1">Allow</button><button id="deny" type="submit" name="allow" value="0">Deny</button>
</form>
</main>
</html>`);
      } else if (pathname === "/authorize/decide") {
        if (req.method !== "POST") {
          res.writeHead(405, { "content-type": "text/plain; charset=utf-8", allow: "POST", ...NO_FRAMES });
          res.end("The consent page's answer comes by POST, from the consent page.");
          return true;
        }
        const f = new URLSearchParams(await readBody(req, 16 * 1024));
        // The consent page posts from this server's own origin (a browser always sends Origin on a POST).
        const held = pending.get(f.get("ticket") ?? "");
        pending.delete(f.get("ticket") ?? "");
        if (!held || req.headers.origin !== held.base || held.expires < Date.now()) {
          res.writeHead(400, { "content-type": "text/plain; charset=utf-8", ...NO_FRAMES });
          res.end("This answer did not come from a consent page this server showed (or it came too late, or twice): start signing in again.");
          return true;
        }
        if (f.get("allow") !== "1") {
          redirectBack(res, held.redirect_uri, held.state, held.base, { error: "access_denied", error_description: "The user denied access." });
          return true;
        }
        const code = randomUUID();
        codes.set(code, { client_id: held.client_id, redirect_uri: held.redirect_uri, challenge: held.challenge, scope: held.scope, expires: Date.now() + CONSENT_MS });
        redirectBack(res, held.redirect_uri, held.state, held.base, { code });
      } else if (pathname === "/token" && req.method === "POST") {
        const f = new URLSearchParams(await readBody(req, 64 * 1024));
        // A client this server did not register (one from before a restart): invalid_client (RFC 6749 5.2), on
        // which a client registers again; invalid_grant would keep it signing in with a client no page accepts.
        if (!clients.has(f.get("client_id") ?? "")) return sendJson(res, 401, { error: "invalid_client", error_description: "Unknown client: register again." }), true;
        if (f.get("grant_type") === "refresh_token") {
          const held = refresh.get(f.get("refresh_token"));
          if (!held || held.client_id !== f.get("client_id") || held.expires <= Date.now()) return tokenError(res, "invalid_grant", "Unknown refresh token."), true;
          refresh.delete(f.get("refresh_token"));
          issue(res, held.client_id, held.scope);
        } else if (f.get("grant_type") === "authorization_code") {
          const code = codes.get(f.get("code"));
          codes.delete(f.get("code"));
          const verified = code && code.expires > Date.now() && b64url(createHash("sha256").update(f.get("code_verifier") ?? "").digest()) === code.challenge;
          if (!verified || code.client_id !== f.get("client_id") || code.redirect_uri !== f.get("redirect_uri")) {
            return tokenError(res, "invalid_grant", "Unknown code, or a verifier, client or redirect_uri that does not match it."), true;
          }
          issue(res, code.client_id, code.scope);
        } else tokenError(res, "unsupported_grant_type", "authorization_code or refresh_token");
      } else return false;
      return true;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP.

/**
 * The token of an Authorization header of the Bearer scheme, or undefined. The scheme is case-insensitive (RFC 9110
 * §11.1: "bearer demo-token" is the demo token too), and one or more spaces follow it (§11.4).
 */
function bearerToken(header) {
  return /^bearer +(\S+)$/i.exec(header ?? "")?.[1];
}

function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const rpcError = (code, message) => ({ jsonrpc: "2.0", error: { code, message }, id: null });

const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/** Why a request is refused (DNS rebinding: see the top of this file), or undefined. */
function foreignRequest(req, port, allowedOrigins) {
  const host = req.headers.host;
  if (host !== `${HOST}:${port}` && host !== `localhost:${port}`) return `Forbidden: Host ${host ?? "(none)"} is not this server`;
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopback(origin) && !allowedOrigins.includes(origin)) return `Forbidden: Origin ${origin} is not allowed`;
  return undefined;
}

function readBody(req, limit = 4 * 1024 * 1024) {
  return new Promise((resolve, reject) => {
    const parts = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > limit) {
        reject(Object.assign(new Error("request body too large"), { status: 413 }));
        req.destroy();
      } else parts.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Starts the server; resolves to {url, authUrl, oauthUrl, port, close()} once it listens. `port` 0 picks a free one;
 * `idleMs`: how long a session may stay idle (10 minutes).
 * `log` receives one line per session event (default: none).
 * `allowedOrigins`: origins of pages allowed besides those on this machine (e.g. `["https://demo.example"]`).
 * `moreTools(server)`: registers tools of its own on each session's McpServer, after the demo's (tests use it).
 * `oauthLimits`: `{tokenTtlMs, refreshTtlMs, maxClients}` of the authorization server (TOKEN_TTL_MS, REFRESH_TTL_MS,
 * MAX_CLIENTS; tests shorten them).
 */
export function startMcpServer({ port = 8081, log = () => {}, idleMs = IDLE_MS, allowedOrigins = [], moreTools, oauthLimits = {} } = {}) {
  const sessions = new Map(); // session id -> {transport, server, timer}
  const oauth = authorizationServer(log, allowedOrigins, oauthLimits);

  // A session idle for idleMs is dropped, unless a client listens on its standalone stream (an open GET):
  // that one is idle only from when its stream closes.
  const touch = (id) => {
    const s = sessions.get(id);
    if (!s) return;
    clearTimeout(s.timer);
    if (s.listening > 0) return;
    s.timer = setTimeout(() => s.transport.close().catch(() => {}), idleMs);
    s.timer.unref();
  };

  async function newSession(actualPort) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: [`${HOST}:${actualPort}`, `localhost:${actualPort}`],
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, timer: null, listening: 0 });
        touch(id);
        log(`session ${id} started`);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.has(id)) {
        clearTimeout(sessions.get(id).timer);
        sessions.delete(id);
        log(`session ${id} closed`);
      }
    };
    const server = makeServer(moreTools);
    await server.connect(transport);
    return transport;
  }

  const http = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url ?? "/", "http://localhost");
      const foreign = foreignRequest(req, http.address().port, allowedOrigins);
      if (foreign) {
        log(`refused: ${foreign}`);
        sendJson(res, 403, rpcError(-32000, foreign));
        return;
      }
      res.setHeader("vary", "origin");
      // The consent page and its answer are for the user's browser window only: no page may read them through
      // CORS (a page that could read the consent page's one-time ticket could answer for the user).
      const consent = pathname === "/authorize" || pathname === "/authorize/decide";
      if (req.headers.origin !== undefined && !consent) {
        res.setHeader("access-control-allow-origin", req.headers.origin);
        for (const [k, v] of Object.entries(CORS_HEADERS)) res.setHeader(k, v);
      }
      if (req.method === "OPTIONS") {
        res.writeHead(204);
        res.end();
        return;
      }
      if (pathname === "/" && req.method === "GET") {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("toolwire demo MCP server: POST /mcp (open), /mcp-auth (Authorization: Bearer demo-token) or /mcp-oauth (OAuth)\n");
        return;
      }
      // This server as the request named it (127.0.0.1 or localhost: foreignRequest checked the Host), so that a
      // client that came by either name is told of a resource and an issuer under that name.
      const base = `http://${req.headers.host}`;
      if (await oauth.handle(req, res, pathname, base)) return;
      if (pathname !== "/mcp" && pathname !== "/mcp-auth" && pathname !== "/mcp-oauth") {
        sendJson(res, 404, rpcError(-32000, "not found: the MCP endpoint is /mcp"));
        return;
      }
      if (pathname === "/mcp-oauth" && !oauth.valid(req.headers.authorization)) {
        sendJson(res, 401, rpcError(-32001, "Unauthorized: sign in with OAuth"), {
          "www-authenticate": `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp-oauth"`,
        });
        return;
      }
      if (pathname === "/mcp-auth" && bearerToken(req.headers.authorization) !== DEMO_TOKEN) {
        const error = req.headers.authorization ? ', error="invalid_token", error_description="Expected the header Authorization: Bearer demo-token"' : "";
        sendJson(res, 401, rpcError(-32001, "Unauthorized: send Authorization: Bearer demo-token"), {
          "www-authenticate": `Bearer realm="toolwire-demo"${error}`,
        });
        return;
      }
      const sessionId = req.headers["mcp-session-id"];
      let body;
      if (req.method === "POST") {
        const text = await readBody(req);
        try {
          body = JSON.parse(text);
        } catch {
          sendJson(res, 400, rpcError(-32700, "Parse error: the body is not JSON"));
          return;
        }
      }
      let transport;
      if (typeof sessionId === "string" && sessions.has(sessionId)) {
        const session = sessions.get(sessionId);
        transport = session.transport;
        if (req.method === "GET") {
          session.listening++;
          res.once("close", () => {
            session.listening--;
            touch(sessionId);
          });
        }
        touch(sessionId);
      } else if (sessionId === undefined && req.method === "POST" && isInitialize(body)) {
        transport = await newSession(http.address().port);
      } else if (sessionId !== undefined) {
        sendJson(res, 404, rpcError(-32001, "Session not found (it expired or was closed): initialize again"));
        return;
      } else {
        sendJson(res, 400, rpcError(-32000, "Bad request: no Mcp-Session-Id header, and not an initialize request"));
        return;
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      log(`error: ${err.stack ?? err}`);
      if (!res.headersSent) sendJson(res, err.status ?? 500, rpcError(-32603, `Internal error: ${err.message}`));
      else res.end();
    }
  });

  const isInitialize = (body) =>
    Array.isArray(body) ? body.some((m) => m?.method === "initialize") : body?.method === "initialize";

  return new Promise((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, HOST, () => {
      http.off("error", reject);
      const actual = http.address().port;
      resolve({
        port: actual,
        url: `http://${HOST}:${actual}/mcp`,
        authUrl: `http://${HOST}:${actual}/mcp-auth`,
        oauthUrl: `http://${HOST}:${actual}/mcp-oauth`,
        http,
        async close() {
          await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
          http.closeAllConnections?.();
          await new Promise((r) => http.close(() => r()));
        },
      });
    });
  });
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const s = await startMcpServer({
    port: Number(process.env.MCP_PORT ?? 8081),
    log: process.env.MCP_LOG ? (line) => console.error(`mcp: ${line}`) : undefined,
  });
  console.log(`MCP server at ${s.url} (with auth: ${s.authUrl}, token ${DEMO_TOKEN}; with OAuth: ${s.oauthUrl})`);
  const stop = async () => {
    await s.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
