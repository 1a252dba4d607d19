// The demo's bundled MCP server (www-demo/server.mjs), driven by the built package: a session that listens on
// its standalone stream is not dropped as idle; one that does not listen is. And its tool list changes. It
// refuses pages of other sites (Origin, Host), and its authorization server redirects only where a client
// registered.
// Run: make pkg && node --test tests/mcp/demo-server.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { createHash } from "node:crypto";
import { loadPkg, waitFor } from "./helpers.mjs";
import { startMcpServer } from "../../www-demo/server.mjs";

const { McpClient } = await loadPkg();

test("demo server: idle sessions are dropped, listening ones are kept; toggle_tools is announced to a listener", async () => {
  const events = [];
  const server = await startMcpServer({ port: 0, idleMs: 400, log: (line) => events.push(line) });
  try {
    const closed = (id) => events.includes(`session ${id} closed`);
    const changes = [];
    const listener = new McpClient(server.url, { onToolListChanged: () => changes.push("changed") });
    const quiet = new McpClient(server.url);
    await listener.connect();
    await quiet.connect();
    const listening = listener.listen();
    // Three idle periods: the quiet session goes, the listening one stays.
    assert.ok(await waitFor(() => closed(quiet.sessionId), { timeoutMs: 5000 }), "the quiet session was dropped");
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(closed(listener.sessionId), false, "the listening session is kept");
    // Its tool list changes, and the listener hears it on the standalone stream.
    const before = (await listener.listTools()).map((t) => t.name);
    assert.equal(before.includes("moon_phase"), false);
    await listener.callTool("toggle_tools", {});
    assert.ok(await waitFor(() => changes.length > 0), "notifications/tools/list_changed heard");
    assert.ok((await listener.listTools()).some((t) => t.name === "moon_phase"));
    const id = listener.sessionId;
    await listener.close();
    assert.equal(await listening, true);
    assert.ok(await waitFor(() => closed(id)), "closed by DELETE");
    quiet.free();
    listener.free();
  } finally {
    await server.close();
  }
});

test("demo server restarted: a listening client renews its session and hears the new server on its stream", async () => {
  let server = await startMcpServer({ port: 0 });
  const port = server.port;
  const changes = [];
  const listener = new McpClient(server.url, { onToolListChanged: () => changes.push("changed") });
  let settled = null;
  try {
    await listener.connect();
    const old = listener.sessionId;
    const listening = listener.listen().then((v) => (settled = { v }), (e) => (settled = { e }));
    await new Promise((r) => setTimeout(r, 200));
    // The server goes and comes back on the same port, forgetting every session.
    await server.close();
    server = await startMcpServer({ port });
    assert.ok(await waitFor(() => changes.length > 0, { timeoutMs: 8000 }), "the renewal announced a changed tool list");
    assert.ok(await waitFor(() => listener.sessionId !== old, { timeoutMs: 2000 }), "a new session");
    assert.equal(settled, null, `listen() goes on: ${JSON.stringify(settled)}`);
    // The stream is open on the new session: the server announces a change there (its toggle_tools
    // answers on the call's stream, the announcement goes to the standalone one).
    const heard = changes.length;
    assert.match((await listener.callTool("toggle_tools", {})).content[0].text, /moon_phase is on/);
    assert.ok(await waitFor(() => changes.length > heard, { timeoutMs: 5000 }), "a change after the restart heard on the stream");
    await listener.close();
    await listening;
    assert.deepEqual(settled, { v: true });
  } finally {
    listener.free();
    await server.close();
  }
});

test("demo server: resources are listed one per page; a bad cursor is refused", async () => {
  const server = await startMcpServer({ port: 0 });
  const client = new McpClient(server.url);
  try {
    await client.connect();
    const first = await client.request("resources/list");
    assert.deepEqual(first.resources.map((r) => r.uri), ["demo://about"]);
    assert.equal(first.nextCursor, "1");
    const second = await client.request("resources/list", { cursor: first.nextCursor });
    assert.deepEqual(second.resources.map((r) => r.uri), ["demo://tools"]);
    assert.equal(second.nextCursor, undefined);
    assert.deepEqual((await client.listAll("resources/list")).map((r) => r.uri), ["demo://about", "demo://tools"]);
    await assert.rejects(client.request("resources/list", { cursor: "7" }), (err) => err.code === "JSONRPC_ERROR" && err.rpcCode === -32602 && /Invalid cursor/.test(err.message));
    const { contents } = await client.request("resources/read", { uri: "demo://tools" });
    assert.match(contents[0].text, /^echo\n/);
  } finally {
    await client.close();
    client.free();
    await server.close();
  }
});

/** A raw request to the server, with the headers given (Host and Origin included); resolves {status, headers, body}. */
function raw(port, { method = "GET", path = "/", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

test("demo server: /mcp-auth takes the Bearer scheme in any case (RFC 9110 §11.1), and only the demo token", async () => {
  const server = await startMcpServer({ port: 0 });
  const post = (authorization) =>
    raw(server.port, { method: "POST", path: "/mcp-auth", headers: { ...mcpHeaders, ...(authorization === undefined ? {} : { authorization }) }, body: initialize });
  try {
    for (const good of ["Bearer demo-token", "bearer demo-token", "BEARER demo-token", "Bearer  demo-token"]) {
      assert.equal((await post(good)).status, 200, good);
    }
    for (const bad of [undefined, "Bearer", "Bearer ", "demo-token", "Basic demo-token", "Bearer demo-token2", "Bearer demo-token x", "Bearerdemo-token"]) {
      const res = await post(bad);
      assert.equal(res.status, 401, String(bad));
      assert.match(res.headers["www-authenticate"], /^Bearer realm="toolwire-demo"/);
    }
  } finally {
    await server.close();
  }
});

test("demo server: pages of other sites and other Host names are refused (DNS rebinding); local pages get their own origin back", async () => {
  const server = await startMcpServer({ port: 0, allowedOrigins: ["https://demo.example"] });
  const { port } = server;
  try {
    const requests = [
      { method: "POST", path: "/mcp", headers: mcpHeaders, body: initialize },
      { method: "OPTIONS", path: "/mcp", headers: { "access-control-request-method": "POST" } },
      { path: "/mcp-oauth" },
      { path: "/.well-known/oauth-protected-resource/mcp-oauth" },
      { path: "/.well-known/oauth-authorization-server" },
      { method: "POST", path: "/register", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/cb"] }) },
      { method: "POST", path: "/token", body: "grant_type=refresh_token&refresh_token=x" },
      { path: "/" },
    ];
    for (const r of requests) {
      for (const origin of ["http://evil.example", "https://127.0.0.1.evil.example", "null"]) {
        const res = await raw(port, { ...r, headers: { ...r.headers, origin } });
        assert.equal(res.status, 403, `${r.method ?? "GET"} ${r.path} from ${origin}: ${res.body}`);
        assert.equal(res.headers["access-control-allow-origin"], undefined);
        assert.match(res.body, /Origin .* is not allowed/);
      }
      // A rebound name: the browser sends its own Host (and no Origin on a same-origin GET).
      const rebound = await raw(port, { ...r, headers: { ...r.headers, host: `evil.example:${port}` } });
      assert.equal(rebound.status, 403, `${r.method ?? "GET"} ${r.path} for Host evil.example: ${rebound.body}`);
      // Pages on this machine, on any port, and the origins allowed: their origin back, never "*".
      for (const origin of [`http://127.0.0.1:${port + 1}`, "http://localhost:8080", "https://demo.example"]) {
        const res = await raw(port, { ...r, headers: { ...r.headers, origin } });
        assert.ok(res.status < 403 || (r.path === "/mcp-oauth" && res.status === 401), `${r.method ?? "GET"} ${r.path} from ${origin}: ${res.status} ${res.body}`);
        assert.equal(res.headers["access-control-allow-origin"], origin);
        assert.match(res.headers.vary ?? "", /origin/i);
      }
    }
    // Node clients send no Origin.
    const client = new McpClient(server.url);
    await client.connect();
    await client.close();
    client.free();
  } finally {
    await server.close();
  }
});

/** Registers a client on the demo server; resolves to its client_id. */
async function registerClient(port, redirect_uris = ["http://127.0.0.1:9/cb"]) {
  const res = await raw(port, { method: "POST", path: "/register", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "t", redirect_uris }) });
  assert.equal(res.status, 201, res.body);
  return JSON.parse(res.body).client_id;
}

/** GET /authorize; for a consent page, also its one-time ticket (the hidden field of its form). */
async function authorize(port, params, headers = {}) {
  const res = await raw(port, { path: `/authorize?${new URLSearchParams(params)}`, headers });
  res.ticket = /name="ticket" value="([^"]+)"/.exec(res.body)?.[1];
  return res;
}

/** The consent page's answer: POST /authorize/decide with the ticket, from the server's own origin unless told. */
function decide(port, fields, { origin = `http://127.0.0.1:${port}`, host } = {}) {
  const headers = { "content-type": "application/x-www-form-urlencoded", ...(origin ? { origin } : {}), ...(host ? { host } : {}) };
  return raw(port, { method: "POST", path: "/authorize/decide", headers, body: new URLSearchParams(fields).toString() });
}

test("demo authorization server: redirects only to a redirect_uri the client registered, exactly; registers only local ones", async () => {
  const server = await startMcpServer({ port: 0 });
  const { port } = server;
  const register = (redirect_uris) =>
    raw(port, { method: "POST", path: "/register", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "t", redirect_uris }) });
  try {
    // A client may not register a redirect to another site: the consent page would send the user there.
    for (const uris of [["https://evil.example/cb"], ["http://127.0.0.1:9/cb", "http://evil.example/cb"], ["http://127.0.0.1:9/cb#x"], ["javascript:alert(1)"]]) {
      const res = await register(uris);
      assert.equal(res.status, 400, `${uris}: ${res.body}`);
      assert.equal(JSON.parse(res.body).error, "invalid_redirect_uri");
    }
    const client_id = await registerClient(port);
    const params = { client_id, response_type: "code", state: "s", code_challenge: "c", code_challenge_method: "S256" };
    // Anything but the exact URI registered is answered, never redirected to.
    for (const redirect_uri of ["https://evil.example/cb", "http://127.0.0.1:9/cb/", "http://127.0.0.1:9/cb?x=1", "http://127.0.0.1:9/CB", "http://localhost:9/cb", ""]) {
      const r = await authorize(port, { ...params, redirect_uri });
      assert.equal(r.status, 400, `/authorize to ${redirect_uri}: ${r.status} ${r.headers.location ?? ""}`);
      assert.equal(r.headers.location, undefined);
    }
    const unknown = await authorize(port, { ...params, client_id: "nobody", redirect_uri: "http://127.0.0.1:9/cb" });
    assert.equal(unknown.status, 400);
    // The one registered: the consent page names where the answer goes, and the user's answer goes there.
    const page = await authorize(port, { ...params, redirect_uri: "http://127.0.0.1:9/cb" });
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /sends you back to <code>http:\/\/127\.0\.0\.1:9\/cb<\/code>/);
    const denied = await decide(port, { ticket: page.ticket, allow: "0" });
    assert.equal(denied.status, 302, denied.body);
    const back = new URL(denied.headers.location);
    assert.equal(`${back.origin}${back.pathname}`, "http://127.0.0.1:9/cb");
    assert.equal(back.searchParams.get("error"), "access_denied");
    assert.equal(back.searchParams.get("state"), "s");
  } finally {
    await server.close();
  }
});

test("demo authorization server: consent needs the consent page (a POST with its one-time ticket, from its origin), which no page may frame or read", async () => {
  const server = await startMcpServer({ port: 0 });
  const { port } = server;
  try {
    const client_id = await registerClient(port);
    const params = { client_id, response_type: "code", state: "s", code_challenge: "c", code_challenge_method: "S256", redirect_uri: "http://127.0.0.1:9/cb", scope: "demo" };
    // A link (GET) that says allow, as the consent page's buttons once were: no code.
    for (const path of [`/authorize/decide?${new URLSearchParams({ ...params, allow: "1" })}`]) {
      const r = await raw(port, { path, headers: { origin: "http://127.0.0.1:1234" } });
      assert.equal(r.status, 405, r.body);
      assert.equal(r.headers.location, undefined);
    }
    // The consent page may not be framed, and a page on another port (whose Origin the server's CORS allows)
    // does not get it through CORS: it could read the ticket.
    const page = await authorize(port, params, { origin: "http://127.0.0.1:1234" });
    assert.equal(page.status, 200);
    assert.equal(page.headers["x-frame-options"], "DENY");
    assert.match(page.headers["content-security-policy"], /frame-ancestors 'none'/);
    assert.equal(page.headers["access-control-allow-origin"], undefined, "the consent page is readable by another page");
    assert.match(page.body, /<form method="post" action="\/authorize\/decide">/);
    // Without the ticket, with one made up, or from another page: refused, and no redirect.
    for (const [fields, opts] of [
      [{ allow: "1" }, {}],
      [{ ticket: "made-up", allow: "1" }, {}],
      [{ ticket: page.ticket, allow: "1" }, { origin: "http://127.0.0.1:1234" }],
    ]) {
      const r = await decide(port, fields, opts);
      assert.equal(r.status, 400, `${JSON.stringify(fields)} ${JSON.stringify(opts)}: ${r.status} ${r.headers.location ?? ""}`);
      assert.equal(r.headers.location, undefined);
      assert.equal(r.headers["access-control-allow-origin"], undefined);
    }
    // The ticket is spent by a refused answer too; a fresh page's ticket, from the page's origin, gives a code, once.
    const fresh = await authorize(port, params);
    const allowed = await decide(port, { ticket: fresh.ticket, allow: "1" });
    assert.equal(allowed.status, 302, allowed.body);
    assert.ok(new URL(allowed.headers.location).searchParams.get("code"));
    assert.equal(allowed.headers["x-frame-options"], "DENY");
    const again = await decide(port, { ticket: fresh.ticket, allow: "1" });
    assert.equal(again.status, 400, "a ticket taken twice");
  } finally {
    await server.close();
  }
});

test("demo authorization server: response_type must be code, and only the scope it has is granted", async () => {
  const server = await startMcpServer({ port: 0 });
  const { port } = server;
  try {
    const client_id = await registerClient(port);
    const params = { client_id, response_type: "code", state: "s", code_challenge: "c", code_challenge_method: "S256", redirect_uri: "http://127.0.0.1:9/cb" };
    const refused = async (changes, error) => {
      const p = { ...params, ...changes };
      for (const [k, v] of Object.entries(p)) if (v === undefined) delete p[k];
      const r = await authorize(port, p);
      assert.equal(r.status, 302, `${JSON.stringify(changes)}: ${r.status} ${r.body.slice(0, 200)}`);
      const back = new URL(r.headers.location);
      assert.equal(back.searchParams.get("error"), error, `${JSON.stringify(changes)}`);
      assert.equal(back.searchParams.get("state"), "s");
      assert.equal(back.searchParams.get("code"), null);
    };
    await refused({ response_type: "token" }, "unsupported_response_type");
    await refused({ response_type: undefined }, "invalid_request");
    await refused({ scope: "admin write:all" }, "invalid_scope");
    await refused({ scope: "demo admin" }, "invalid_scope");
    await refused({ code_challenge_method: "plain" }, "invalid_request");
    // The scope it has, or none (the default): a consent page for demo, and a token for demo.
    for (const scope of ["demo", undefined]) {
      const p = scope ? { ...params, scope } : params;
      const page = await authorize(port, p);
      assert.equal(page.status, 200, page.body);
      assert.match(page.body, /scope <code>demo<\/code>/);
    }
  } finally {
    await server.close();
  }
});

test("demo authorization server: access and refresh tokens expire, expired ones are pruned, and registrations are bounded", async () => {
  const server = await startMcpServer({ port: 0, oauthLimits: { tokenTtlMs: 300, refreshTtlMs: 600, maxClients: 2 } });
  const { port } = server;
  const form = (fields) => ({ method: "POST", path: "/token", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
  const mcp = (token, scheme = "Bearer") =>
    raw(port, { method: "POST", path: "/mcp-oauth", headers: { authorization: `${scheme} ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
  try {
    const redirect_uri = "http://127.0.0.1:9/cb";
    const first = await registerClient(port);
    const verifier = "v".repeat(43);
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const page = await authorize(port, { client_id: first, response_type: "code", state: "s", code_challenge: challenge, code_challenge_method: "S256", redirect_uri });
    assert.equal(page.status, 200, page.body);
    const allowed = await decide(port, { ticket: page.ticket, allow: "1" });
    const code = new URL(allowed.headers.location).searchParams.get("code");
    const granted = await raw(port, form({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: first, redirect_uri }));
    assert.equal(granted.status, 200, granted.body);
    const { access_token, refresh_token, expires_in } = JSON.parse(granted.body);
    assert.equal(expires_in, 1, "expires_in in whole seconds, rounded up");
    assert.notEqual((await mcp(access_token)).status, 401, "a fresh token is taken");
    assert.notEqual((await mcp(access_token, "bearer")).status, 401, "the scheme is case-insensitive (RFC 9110 §11.1)");
    assert.equal((await mcp(access_token, "Basic")).status, 401, "another scheme is refused");
    // A refresh within its life gives new tokens; the access token expires on its own.
    const renewed = await raw(port, form({ grant_type: "refresh_token", refresh_token, client_id: first }));
    assert.equal(renewed.status, 200, renewed.body);
    const again = JSON.parse(renewed.body);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal((await mcp(access_token)).status, 401, "an expired access token is refused");
    const late = await raw(port, form({ grant_type: "refresh_token", refresh_token: again.refresh_token, client_id: first }));
    assert.equal(late.status, 400, late.body);
    assert.equal(JSON.parse(late.body).error, "invalid_grant", "an expired refresh token is refused");
    // Registrations past maxClients push out the oldest: its authorize is refused as an unknown client.
    const second = await registerClient(port);
    await registerClient(port);
    const gone = await authorize(port, { client_id: first, response_type: "code", state: "s", code_challenge: challenge, code_challenge_method: "S256", redirect_uri });
    assert.equal(gone.status, 400, gone.body);
    assert.match(gone.body, /Unknown client/);
    const kept = await authorize(port, { client_id: second, response_type: "code", state: "s", code_challenge: challenge, code_challenge_method: "S256", redirect_uri });
    assert.equal(kept.status, 200, kept.body);
  } finally {
    await server.close();
  }
});

test("demo authorization server: /register answers a body that is not a JSON object with 400 invalid_client_metadata", async () => {
  const server = await startMcpServer({ port: 0 });
  try {
    for (const body of ["{not json", "null", "[]", '"x"', "42", JSON.stringify({ client_name: 7, redirect_uris: ["http://127.0.0.1:9/cb"] })]) {
      const res = await raw(server.port, { method: "POST", path: "/register", headers: { "content-type": "application/json" }, body });
      assert.equal(res.status, 400, `${body}: ${res.status} ${res.body}`);
      assert.equal(JSON.parse(res.body).error, "invalid_client_metadata", body);
    }
  } finally {
    await server.close();
  }
});

test("demo server reached as localhost: its challenge and metadata name localhost, and the package signs in through it", async () => {
  const server = await startMcpServer({ port: 0 });
  const { port } = server;
  try {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const challenge = await raw(port, { method: "POST", path: "/mcp-oauth", headers: { ...mcpHeaders, host }, body: initialize });
      assert.equal(challenge.status, 401);
      assert.match(challenge.headers["www-authenticate"], new RegExp(`resource_metadata="http://${host}/\\.well-known/oauth-protected-resource/mcp-oauth"`));
      const prm = JSON.parse((await raw(port, { path: "/.well-known/oauth-protected-resource/mcp-oauth", headers: { host } })).body);
      assert.equal(prm.resource, `http://${host}/mcp-oauth`);
      assert.deepEqual(prm.authorization_servers, [`http://${host}`]);
      const as = JSON.parse((await raw(port, { path: "/.well-known/oauth-authorization-server", headers: { host } })).body);
      assert.equal(as.issuer, `http://${host}`);
    }
    // McpClient through localhost: discovery, registration, the consent page (answered as a browser would), tokens.
    const client = new McpClient(`http://localhost:${port}/mcp-oauth`, {
      oauth: {
        redirectUrl: "http://127.0.0.1:9/cb",
        authorize: async ({ url }) => {
          const at = new URL(url);
          assert.equal(at.origin, `http://localhost:${port}`);
          const page = await raw(port, { path: `${at.pathname}${at.search}`, headers: { host: at.host } });
          const ticket = /name="ticket" value="([^"]+)"/.exec(page.body)?.[1];
          const r = await decide(port, { ticket, allow: "1" }, { origin: at.origin, host: at.host });
          assert.equal(r.status, 302, r.body);
          return r.headers.location;
        },
      },
    });
    try {
      await client.connect();
      assert.ok((await client.listTools()).some((t) => t.name === "echo"));
    } finally {
      await client.close();
      client.free();
    }
  } finally {
    await server.close();
  }
});
