// OAuth from a page with a <base href>: the page (on one origin) sets its base to a sub-path of another origin,
// that of an MCP server which requires OAuth and is its own authorization server (an issuer with a path), behind
// CORS. An McpClient given the relative URL "/tenant/mcp" must take it as fetch does, against document.baseURI,
// not location.href: the MCP requests, the protected resource metadata found from it (the challenge names none,
// so the client builds the well-known URL from its server's), the authorization server metadata, the registration
// and the token requests all go to the server's origin, the resource indicator is the server's absolute URL, and
// the call succeeds with the token. Against the page's location they would go to the page's origin, which has none
// of them.
//
// Needs pkg/ (make pkg) and /usr/bin/chromium; CHROMIUM=/path overrides the browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";
import { repo } from "../js/shared.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };

// The page: an OAuth client of "/tenant/mcp"; its `authorize` follows the authorization endpoint's redirect as a popup
// would, and gives back the URL it landed on. What happened in window.__result.
const PAGE_SCRIPT = `
import initAsync, { McpClient } from "/pkg/web.mjs";
const out = { baseURI: document.baseURI };
try {
  await initAsync();
  const client = new McpClient("/tenant/mcp", {
    oauth: {
      redirectUrl: new URL("callback", document.baseURI).href,
      authorize: async ({ url }) => {
        out.authorizeUrl = url;
        return (await fetch(url)).url;
      },
      onSaved: (saved) => (out.saved = saved),
    },
  });
  await client.connect();
  out.tools = (await client.listTools()).map((t) => t.name);
  out.whoami = (await client.callTool("whoami", {})).content[0].text;
  await client.close();
} catch (e) {
  out.error = { code: e.code, message: e.message, oauthStep: e.oauthStep };
}
window.__result = out;
`;

let site; // the page's origin: the page, its script, pkg/
let mcp; // the MCP server and its authorization server, on another origin
let browser;

const b64url = (buf) => buf.toString("base64").replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

/** The MCP server at /tenant/mcp, its own authorization server at /tenant/auth, with CORS for any page. */
function startMcp() {
  const seen = { requests: [], codes: new Map(), tokens: new Set(), clients: new Set() };
  const server = createServer(async (req, res) => {
    const origin = `http://${req.headers.host}`;
    const url = new URL(req.url, origin);
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.requests.push({ method: req.method, url: url.href, authorization: req.headers.authorization ?? null, body });
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST, DELETE",
      "access-control-allow-headers": "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id",
      "access-control-expose-headers": "www-authenticate, mcp-session-id",
    };
    const send = (status, value, headers = {}) => {
      res.writeHead(status, { ...cors, ...(value === undefined ? {} : { "content-type": "application/json" }), ...headers });
      res.end(value === undefined ? undefined : JSON.stringify(value));
    };
    if (req.method === "OPTIONS") return send(204);
    const issuer = `${origin}/tenant/auth`;
    switch (`${req.method} ${url.pathname}`) {
      case "GET /.well-known/oauth-protected-resource/tenant/mcp":
        return send(200, { resource: `${origin}/tenant/mcp`, authorization_servers: [issuer] });
      case "GET /.well-known/oauth-authorization-server/tenant/auth":
        return send(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      case "POST /tenant/auth/register": {
        const id = `client-${seen.clients.size}`;
        seen.clients.add(id);
        return send(201, { ...JSON.parse(body), client_id: id });
      }
      case "GET /tenant/auth/authorize": {
        const q = url.searchParams;
        const code = `code-${seen.codes.size}`;
        seen.codes.set(code, { challenge: q.get("code_challenge"), client: q.get("client_id"), redirect: q.get("redirect_uri") });
        const back = new URL(q.get("redirect_uri"));
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state"));
        return send(302, undefined, { location: back.href });
      }
      case "GET /sub/callback":
        return send(200, { signedIn: true });
      case "POST /tenant/auth/token": {
        const f = new URLSearchParams(body);
        const code = seen.codes.get(f.get("code"));
        const verified = code && code.client === f.get("client_id") && code.redirect === f.get("redirect_uri") && b64url(createHash("sha256").update(f.get("code_verifier") ?? "").digest()) === code.challenge;
        if (!verified) return send(400, { error: "invalid_grant" });
        seen.codes.delete(f.get("code"));
        const token = `at-${seen.tokens.size}`;
        seen.tokens.add(token);
        return send(200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
      }
      case "POST /tenant/mcp": {
        const token = req.headers.authorization?.replace(/^Bearer /, "");
        // No resource_metadata: the client finds the metadata at the well-known URL of its server's URL.
        if (!seen.tokens.has(token)) return send(401, undefined, { "www-authenticate": 'Bearer error="invalid_token"' });
        const msg = JSON.parse(body);
        if (msg.id === undefined) return send(202);
        const result =
          msg.method === "initialize"
            ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "oauth-base", version: "1" } }
            : msg.method === "tools/list"
              ? { tools: [{ name: "whoami", inputSchema: { type: "object" } }] }
              : { content: [{ type: "text", text: `token ${token}` }] };
        return send(200, { jsonrpc: "2.0", id: msg.id, result });
      }
      default:
        return send(404, { error: "not found" });
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, seen, origin: `http://127.0.0.1:${server.address().port}` })));
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: bash scripts/setup.sh --browser`);
  assert.ok(existsSync(join(repo, "pkg", "web.mjs")), "pkg/ is not built: run make pkg first");
  mcp = await startMcp();
  const requests = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    requests.push(`${req.method} ${url.pathname}`);
    const send = (status, type, body) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(body);
    };
    // The page, its base at a sub-path of the MCP server's origin; its script's src absolute, as the base would move it.
    if (url.pathname === "/app/page.html") {
      return send(200, TYPES[".html"], `<!doctype html><meta charset=utf-8><base href="${mcp.origin}/sub/"><script type=module src="${site.origin}/page.mjs"></script>`);
    }
    if (url.pathname === "/page.mjs") return send(200, TYPES[".mjs"], PAGE_SCRIPT);
    if (url.pathname.startsWith("/pkg/")) {
      const file = join(repo, "pkg", normalize(url.pathname.slice(5)));
      if (file.startsWith(join(repo, "pkg")) && existsSync(file)) return send(200, TYPES[extname(file)] ?? "application/octet-stream", readFileSync(file));
    }
    send(404, "text/plain", "not found");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  site = { server, requests, origin: `http://127.0.0.1:${server.address().port}` };
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
});

after(async () => {
  await browser?.close().catch(() => {});
  for (const s of [site?.server, mcp?.server]) {
    s?.closeAllConnections?.();
    s?.close();
  }
});

test("OAuth from a page with a <base href>: every request of a relative server URL goes where fetch takes it", async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    await page.goto(new URL("/app/page.html", site.origin).href);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 });
    const result = await page.evaluate(() => window.__result);
    const M = mcp.origin;
    assert.equal(result.baseURI, `${M}/sub/`);
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    assert.deepEqual(result.tools, ["whoami"]);
    assert.equal(result.whoami, `token ${result.saved.tokens.access_token}`);

    // Every request the client made, in order (the preflights aside), at the server's absolute URLs.
    const made = mcp.seen.requests.filter((r) => r.method !== "OPTIONS");
    const wire = made.map((r) => `${r.method} ${r.url.split("?")[0]}${r.method === "POST" && r.url.endsWith("/tenant/mcp") ? ` ${JSON.parse(r.body).method}` : ""}`);
    assert.deepEqual(wire, [
      `POST ${M}/tenant/mcp initialize`,
      `GET ${M}/.well-known/oauth-protected-resource/tenant/mcp`,
      `GET ${M}/.well-known/oauth-authorization-server/tenant/auth`,
      `POST ${M}/tenant/auth/register`,
      `GET ${M}/tenant/auth/authorize`,
      `GET ${M}/sub/callback`,
      `POST ${M}/tenant/auth/token`,
      `POST ${M}/tenant/mcp initialize`,
      `POST ${M}/tenant/mcp notifications/initialized`,
      `POST ${M}/tenant/mcp tools/list`,
      `POST ${M}/tenant/mcp tools/call`,
    ]);
    const mcpPosts = made.filter((r) => r.url === `${M}/tenant/mcp`);
    assert.equal(mcpPosts[0].authorization, null);
    for (const r of mcpPosts.slice(1)) assert.equal(r.authorization, `Bearer ${result.saved.tokens.access_token}`);
    // The resource indicator and the redirect URI are absolute: the server's URL, and the callback under the base.
    const authorize = new URL(result.authorizeUrl);
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${M}/tenant/auth/authorize`);
    assert.equal(authorize.searchParams.get("resource"), `${M}/tenant/mcp`);
    assert.equal(authorize.searchParams.get("redirect_uri"), `${M}/sub/callback`);
    const token = new URLSearchParams(made.find((r) => r.url === `${M}/tenant/auth/token`).body);
    assert.equal(token.get("grant_type"), "authorization_code");
    assert.equal(token.get("resource"), `${M}/tenant/mcp`);
    assert.equal(result.saved.issuer, `${M}/tenant/auth`);
    // Nothing went to the page's own origin but the page and its code (and the browser's favicon).
    assert.deepEqual(site.requests.filter((r) => !r.startsWith("GET /pkg/") && r !== "GET /favicon.ico"), ["GET /app/page.html", "GET /page.mjs"]);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
