// McpClient's `oauth` option through the built package, against a small OAuth-protected MCP server on
// 127.0.0.1 that is its own authorization server (protected resource metadata behind a redirect, RFC 8414 metadata, dynamic
// registration, an authorization endpoint that redirects at once, a token endpoint that checks PKCE and spends
// refresh tokens). The official conformance suite's auth/* scenarios (scripts/conformance.sh) cover the
// discovery variants; this covers what an app sees: the callbacks, what is saved and restored, the hub, errors.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { loadPkg, rejectsWith } from "./helpers.mjs";

const { McpClient, McpHub } = await loadPkg();

let server;
let base;
/** What the server saw: requests by path, codes issued, tokens issued. */
const seen = { requests: [], codes: new Map(), tokens: new Set(), refresh: new Set(), clients: new Set(), scopes: new Map() };
/** The status the resource metadata answers with instead of itself (a server down for a moment). */
let metadataStatus = null;
/** The MCP endpoint refuses every token with 401 (one for another audience, a server that lost its keys). */
let refuseAll = false;
/** A scope the authorization server leaves out of what it grants (a user who unticks it on the consent screen). */
let withheld = null;
/** The authorization server lists `offline_access` (an OpenID provider that issues refresh tokens only when asked). */
let offlineAccess = false;
/** The registration endpoint answers 201 without a `client_id`. */
let registerWithoutId = false;
/** Told when a token request arrives, which is then answered 300 ms later (the server acts on it meanwhile). */
let onTokenRequest = null;
/** The streams of `ask` calls waiting for the answer to their elicitation, by its id. */
const asking = new Map();

const b64url = (buf) => buf.toString("base64").replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

let issued = 0;
function issue(res, scope) {
  const access = `at-${issued}`;
  const refresh = `rt-${issued++}`;
  seen.tokens.add(access);
  seen.refresh.add(refresh);
  seen.scopes.set(access, scope ?? "");
  json(res, 200, { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: refresh, ...(scope ? { scope } : {}) });
}

async function handle(req, res) {
  const url = new URL(req.url, base);
  let body = "";
  for await (const chunk of req) body += chunk;
  seen.requests.push({ method: req.method, path: url.pathname, authorization: req.headers.authorization ?? null, body });
  // The challenge names this URL: metadata behind a redirect, which discovery follows.
  if (url.pathname === "/moved-metadata") {
    res.writeHead(302, { location: "/metadata/mcp.json" });
    return res.end();
  }
  if (url.pathname === "/metadata/mcp.json") {
    if (metadataStatus) return json(res, metadataStatus, { error: "try again later" });
    return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ["tools"] });
  }
  // The metadata of the same server at a path with a non-ASCII character, which names it as fetch writes it.
  if (url.pathname === "/metadata/cafe.json") {
    return json(res, 200, { resource: `${base}/caf%C3%A9/mcp`, authorization_servers: [base], scopes_supported: ["tools"] });
  }
  if (url.pathname === "/.well-known/oauth-authorization-server") {
    return json(res, 200, {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      ...(offlineAccess ? { scopes_supported: ["tools", "offline_access"] } : {}),
    });
  }
  if (url.pathname === "/register") {
    if (registerWithoutId) return json(res, 201, JSON.parse(body));
    const id = `client-${seen.clients.size}`;
    seen.clients.add(id);
    return json(res, 201, { ...JSON.parse(body), client_id: id });
  }
  if (url.pathname === "/authorize") {
    const q = url.searchParams;
    const code = `code-${seen.codes.size}`;
    const scope = q.get("scope") && q.get("scope").split(" ").filter((s) => s !== withheld).join(" ");
    seen.codes.set(code, { challenge: q.get("code_challenge"), client: q.get("client_id"), scope });
    const back = new URL(q.get("redirect_uri"));
    back.searchParams.set("code", code);
    back.searchParams.set("state", q.get("state"));
    res.writeHead(302, { location: back.href });
    return res.end();
  }
  if (url.pathname === "/token") {
    const f = new URLSearchParams(body);
    if (onTokenRequest) {
      onTokenRequest();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    if (!seen.clients.has(f.get("client_id"))) return json(res, 401, { error: "invalid_client" });
    if (f.get("grant_type") === "refresh_token") {
      if (!seen.refresh.delete(f.get("refresh_token"))) return json(res, 400, { error: "invalid_grant", error_description: "refresh token revoked" });
      return issue(res, "tools");
    }
    const code = seen.codes.get(f.get("code"));
    const verified = code && b64url(createHash("sha256").update(f.get("code_verifier") ?? "").digest()) === code.challenge;
    if (!verified) return json(res, 400, { error: "invalid_grant" });
    seen.codes.delete(f.get("code"));
    return issue(res, code.scope);
  }
  if (url.pathname === "/mcp" || url.pathname === "/caf%C3%A9/mcp") {
    const token = req.headers.authorization?.replace(/^Bearer /, "");
    if (refuseAll || !seen.tokens.has(token)) {
      const metadata = url.pathname === "/mcp" ? `${base}/moved-metadata` : `${base}/metadata/cafe.json`;
      res.writeHead(401, { "www-authenticate": `Bearer error="invalid_token", resource_metadata="${metadata}"` });
      return res.end();
    }
    if (req.method !== "POST") {
      res.writeHead(405);
      return res.end();
    }
    const msg = JSON.parse(body);
    // The answer to an `ask` call's elicitation: its result goes on that call's stream.
    if (msg.method === undefined && asking.has(msg.id)) {
      const stream = asking.get(msg.id);
      asking.delete(msg.id);
      res.writeHead(202);
      res.end();
      stream.res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: stream.call, result: { content: [{ type: "text", text: `answered ${msg.result?.action} with token ${token}` }] } })}\n\n`);
      return;
    }
    if (msg.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    // The `admin` tool needs the `admin` scope too (a step-up).
    if (msg.method === "tools/call" && msg.params?.name === "admin" && !seen.scopes.get(token).split(" ").includes("admin")) {
      res.writeHead(403, { "content-type": "application/json", "www-authenticate": `Bearer error="insufficient_scope", scope="tools admin", resource_metadata="${base}/moved-metadata"` });
      return res.end(JSON.stringify({ error: "insufficient_scope", error_description: "ask your workspace owner for the admin role" }));
    }
    // The `deploy` tool needs `admin` and `write`: the challenge names the first the token misses (one at a time).
    const missing = msg.method === "tools/call" && msg.params?.name === "deploy" && ["admin", "write"].find((s) => !seen.scopes.get(token).split(" ").includes(s));
    if (missing) {
      res.writeHead(403, { "www-authenticate": `Bearer error="insufficient_scope", scope="${missing}", resource_metadata="${base}/moved-metadata"` });
      return res.end();
    }
    if (msg.method === "tools/call" && msg.params?.name === "ask") {
      const id = `ask-${asking.size}-${seen.requests.length}`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, method: "elicitation/create", params: { message: "go?", requestedSchema: { type: "object" } } })}\n\n`);
      asking.set(id, { res, call: msg.id });
      return;
    }
    const result =
      msg.method === "initialize"
        ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "oauth-test", version: "1" } }
        : msg.method === "tools/list"
          ? { tools: [{ name: "whoami", inputSchema: { type: "object" } }] }
          : { content: [{ type: "text", text: `token ${token}` }] };
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, result });
  }
  res.writeHead(404);
  res.end();
}

before(async () => {
  server = createServer((req, res) => handle(req, res).catch((e) => json(res, 500, { error: String(e) })));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

/** The user: follows nothing, reads where the authorization server sends them back. */
async function user({ url }) {
  const res = await fetch(url, { redirect: "manual" });
  return res.headers.get("location");
}

describe("McpClient oauth", () => {
  test("a first connection authorizes the user once; what is saved restores the next session without them", async () => {
    const asked = [];
    const saved = [];
    const oauth = {
      redirectUrl: "http://127.0.0.1/callback",
      authorize: (request) => {
        asked.push(request);
        return user(request);
      },
      onSaved: (s) => saved.push(s),
    };
    const client = new McpClient(`${base}/mcp`, { oauth });
    await client.connect();
    assert.deepEqual((await client.listTools()).map((t) => t.name), ["whoami"]);
    assert.equal(asked.length, 1);
    // The metadata was reached through its redirect.
    assert.deepEqual(seen.requests.slice(0, 3).map((r) => r.path), ["/mcp", "/moved-metadata", "/metadata/mcp.json"]);
    const q = new URL(asked[0].url).searchParams;
    assert.equal(q.get("code_challenge_method"), "S256");
    assert.equal(q.get("resource"), `${base}/mcp`);
    assert.equal(q.get("scope"), "tools");
    assert.equal(q.get("state"), asked[0].state);
    assert.equal(asked[0].scope, "tools");
    const last = saved.at(-1);
    assert.match(last.client.client_id, /^client-\d+$/);
    assert.match(last.tokens.access_token, /^at-\d+$/);
    assert.equal((await client.callTool("whoami", {})).content[0].text, `token ${last.tokens.access_token}`);
    await client.close();

    // The next page load: the saved tokens go out from the first request, nobody is asked.
    const before = seen.requests.length;
    const again = new McpClient(`${base}/mcp`, { oauth: { ...oauth, saved: last } });
    await again.connect();
    assert.equal(asked.length, 1);
    assert.equal(seen.requests[before].authorization, `Bearer ${last.tokens.access_token}`);
    assert.equal(seen.requests.slice(before).filter((r) => r.path !== "/mcp").length, 0, "no discovery, no token request");

    // The token expires: the refresh token is spent, still without the user.
    seen.tokens.delete(last.tokens.access_token);
    assert.equal((await again.listTools()).length, 1);
    assert.equal(asked.length, 1);
    const refreshed = saved.at(-1);
    assert.notEqual(refreshed.tokens.access_token, last.tokens.access_token);
    assert.equal(new URLSearchParams(seen.requests.findLast((r) => r.path === "/token").body).get("grant_type"), "refresh_token");
    await again.close();
  });

  test("the hub authorizes each server with its own oauth", async () => {
    let asked = 0;
    const hub = new McpHub({ a: { url: `${base}/mcp`, oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++, user(r)) } } });
    const { tools, errors } = await hub.listTools();
    assert.deepEqual(errors, []);
    assert.deepEqual(tools.map((t) => t.name), ["whoami"]);
    assert.equal(asked, 1);
    const [tool] = await hub.tools("openai");
    assert.equal(tool.function.name, "mcp__a__whoami");
    assert.match((await hub.callTool(tool.function.name, {})).text, /^token at-/);
    await hub.closeAll();
  });

  test("failures are UNAUTHORIZED with the step; the client stays usable", async () => {
    let closes = 1;
    const refused = new McpClient(`${base}/mcp`, {
      oauth: {
        redirectUrl: "http://127.0.0.1/cb",
        authorize: async (request) => {
          if (closes-- > 0) throw new Error("the user closed the popup");
          return user(request);
        },
      },
    });
    const err = await rejectsWith(refused.connect(), "UNAUTHORIZED");
    assert.equal(err.oauthStep, "authorization");
    assert.match(err.message, /the user closed the popup/);
    // The same client, the next time: the user agrees.
    await refused.connect();
    assert.equal((await refused.listTools()).length, 1);
    await refused.close();

    const forged = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: async () => "http://127.0.0.1/cb?code=code-0&state=forged" } });
    assert.match((await rejectsWith(forged.connect(), "UNAUTHORIZED")).message, /state/);

    const revoked = new McpClient(`${base}/mcp`, {
      oauth: { redirectUrl: "http://127.0.0.1/cb", clientId: "unknown", authorize: user },
    });
    const e = await rejectsWith(revoked.connect(), "UNAUTHORIZED");
    assert.equal(e.oauthStep, "token");
    assert.equal(e.oauthError, "invalid_client");
  });

  test("an answer to a server request that meets an expired token is sent again after a refresh", async () => {
    const oauth = { redirectUrl: "http://127.0.0.1/cb", authorize: user };
    const client = new McpClient(`${base}/mcp`, {
      oauth,
      timeoutMs: 5000,
      capabilities: { elicitation: {} },
      // The user takes a moment to answer, and the access token expires meanwhile.
      onRequest: async () => {
        seen.tokens.clear();
        return { action: "accept", content: {} };
      },
    });
    await client.connect();
    const refreshes = () => seen.requests.filter((r) => r.path === "/token" && new URLSearchParams(r.body).get("grant_type") === "refresh_token").length;
    const before = refreshes();
    const result = await client.callTool("ask", {});
    assert.match(result.content[0].text, /^answered accept with token at-\d+$/);
    assert.equal(refreshes(), before + 1, "refreshed once, for the answer");
    const answers = seen.requests.filter((r) => r.path === "/mcp" && r.body.includes('"result"'));
    assert.equal(answers.length, 2, "sent again with the new token");
    assert.notEqual(answers[0].authorization, answers[1].authorization);
    await client.close();
  });

  test("a step-up needed by a call whose token has just expired: refreshed, then the user asked for the scopes", async () => {
    const asked = [];
    const client = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked.push(r), user(r)) } });
    await client.connect();
    seen.tokens.clear();
    const from = seen.requests.length;
    assert.match((await client.callTool("admin", {})).content[0].text, /^token at-\d+$/);
    const grants = seen.requests.slice(from).filter((r) => r.path === "/token").map((r) => new URLSearchParams(r.body).get("grant_type"));
    assert.deepEqual(grants, ["refresh_token", "authorization_code"]);
    assert.deepEqual(asked.map((r) => r.scope), ["tools", "tools admin"]);
    await client.close();
  });

  test("onUnauthorized: a step-up that answers the request sent again after a 401 asks once more; a second 401 does not", async () => {
    // Tokens: "expired" meets 401, "narrow" 403 insufficient_scope, "wide" goes through.
    const fetch = async (url, init) => {
      const token = new Headers(init.headers).get("authorization");
      if (token === "Bearer expired" || token === "Bearer refused") {
        return new Response("", { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
      }
      if (token === "Bearer narrow") {
        return new Response("", { status: 403, headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="tools admin"' } });
      }
      const msg = JSON.parse(init.body);
      if (msg.id === undefined) return new Response(null, { status: 202 });
      const result = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } };
      return Response.json({ jsonrpc: "2.0", id: msg.id, result });
    };
    const asked = [];
    const hook = (answers) => (info) => (asked.push(info), { authorization: `Bearer ${answers[asked.length - 1]}` });
    const client = new McpClient("https://mcp.example/mcp", { fetch, headers: { authorization: "Bearer expired" }, onUnauthorized: hook(["narrow", "wide"]) });
    await client.connect();
    assert.deepEqual(asked.map((i) => [i.status, i.retried]), [[401, undefined], [403, 401]]);
    client.free();
    asked.length = 0;
    const again = new McpClient("https://mcp.example/mcp", { fetch, headers: { authorization: "Bearer expired" }, onUnauthorized: hook(["refused", "wide"]) });
    const err = await rejectsWith(again.connect(), "UNAUTHORIZED");
    assert.equal(asked.length, 1);
    assert.match(err.message, /refused the credentials just obtained/);
    again.free();
  });

  test("a server that refuses every token: one sign-in, not one per call, until a call succeeds or connect()", async () => {
    let asked = 0;
    const url = `${base}/mcp`;
    const client = new McpClient(url, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++, user(r)) } });
    await client.connect();
    assert.equal(asked, 1);
    const tokenRequests = () => seen.requests.filter((r) => r.path === "/token").length;
    refuseAll = true;
    try {
      const tokensBefore = tokenRequests();
      // The first call: the refresh token spent, then the user asked; the new token refused too.
      const first = await rejectsWith(client.callTool("whoami", {}), "UNAUTHORIZED");
      assert.equal(first.credentialsRefused, true);
      assert.match(first.message, /refused the credentials just obtained/);
      assert.equal(asked, 2);
      assert.equal(tokenRequests(), tokensBefore + 2, "a refresh and a code exchange");
      // An app that calls on: each call is that error at once, no sign-in, no token request.
      for (let i = 0; i < 5; i++) {
        const e = await rejectsWith(client.callTool("whoami", {}), "UNAUTHORIZED");
        assert.equal(e.credentialsRefused, true);
        assert.equal(e.status, 401);
        assert.equal(e.challenge.error, "invalid_token");
        assert.ok(e.message.includes(`the server ${url} refused the token`), e.message);
        assert.match(e.message, /call connect\(\) to sign in again/);
      }
      assert.equal(asked, 2, "no sign-in per call");
      assert.equal(tokenRequests(), tokensBefore + 2, "no token request per call");
      // The user asks to sign in again (connect()): asked once more, refused once more.
      assert.equal((await rejectsWith(client.connect(), "UNAUTHORIZED")).credentialsRefused, true);
      assert.equal(asked, 3);
      await rejectsWith(client.listTools(), "NOT_CONNECTED");
      // The hub connects its servers on each use: asked once too.
      let hubAsked = 0;
      const hub = new McpHub({ a: { url, oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (hubAsked++, user(r)) } } });
      for (let i = 0; i < 3; i++) {
        const { errors } = await hub.listTools();
        assert.deepEqual(errors.map((e) => [e.server, e.error.code, e.error.credentialsRefused]), [["a", "UNAUTHORIZED", true]]);
      }
      assert.equal(hubAsked, 1);
      // Closed, the hub starts over: asked once more.
      await hub.closeAll();
      await hub.listTools();
      await hub.listTools();
      assert.equal(hubAsked, 2);
      await hub.closeAll();
    } finally {
      refuseAll = false;
    }
    // The server takes tokens again: connect() goes through with the token held, nobody asked.
    await client.connect();
    assert.equal((await client.listTools()).length, 1);
    assert.equal(asked, 3);
    // A call that succeeded cleared it: the token expiring is a refresh without the user, again and again.
    for (let i = 0; i < 3; i++) {
      seen.tokens.clear();
      assert.match((await client.callTool("whoami", {})).content[0].text, /^token at-\d+$/);
    }
    assert.equal(asked, 3);
    await client.close();
  });

  test("a step-up the authorization server does not grant: one sign-in, not one per call, until a call succeeds", async () => {
    let asked = 0;
    const url = `${base}/mcp`;
    const client = new McpClient(url, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++, user(r)) } });
    await client.connect();
    withheld = "admin";
    try {
      const refused = (e) => {
        assert.equal(e.credentialsRefused, true);
        assert.equal(e.status, 403);
        assert.equal(e.challenge.scope, "tools admin");
        assert.ok(e.message.includes(`the server ${url} asks for the scope "tools admin"`), e.message);
        assert.match(e.message, /granted "tools"/);
      };
      // The first call asks the user for the scope; the token without it is refused again.
      refused(await rejectsWith(client.callTool("admin", {}), "UNAUTHORIZED"));
      assert.equal(asked, 2);
      // An app that calls on: each call is that error at once, no sign-in.
      for (let i = 0; i < 3; i++) refused(await rejectsWith(client.callTool("admin", {}), "UNAUTHORIZED"));
      assert.equal(asked, 2, "no sign-in per call");
      // A call that succeeds: the next refusal asks the user again, once.
      assert.match((await client.callTool("whoami", {})).content[0].text, /^token at-\d+$/);
      refused(await rejectsWith(client.callTool("admin", {}), "UNAUTHORIZED"));
      refused(await rejectsWith(client.callTool("admin", {}), "UNAUTHORIZED"));
      assert.equal(asked, 3);
    } finally {
      withheld = null;
    }
    await client.close();
  });

  test("a step-up not granted: calls that meet it together, and one after a sign-in, say so; the 403's body is kept", async () => {
    let asked = 0;
    const client = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++, user(r)) } });
    await client.connect();
    withheld = "admin";
    try {
      const refused = (e) => {
        assert.equal(e.credentialsRefused, true, e.message);
        assert.equal(e.challenge.scope, "tools admin");
        assert.equal(JSON.parse(e.bodyPreview).error_description, "ask your workspace owner for the admin role");
      };
      // Three calls at once (a model's parallel tool calls): one step-up, each call told it was declined.
      const calls = await Promise.allSettled([1, 2, 3].map(() => client.callTool("admin", {})));
      for (const c of calls) refused(c.reason);
      assert.equal(asked, 2, "the connect and one step-up, not one per call");
      // The token no longer taken (revoked: 401, no refresh): a sign-in, then the 403 whose step-up
      // was declined, not asked again (the new token changes nothing to that), in one call, whose
      // error says so as the next call's does.
      seen.tokens.clear();
      seen.refresh.clear();
      refused(await rejectsWith(client.callTool("admin", {}), "UNAUTHORIZED"));
      refused(await rejectsWith(client.callTool("admin", {}), "UNAUTHORIZED"));
      assert.equal(asked, 3);
    } finally {
      withheld = null;
    }
    await client.close();
  });

  test("a server that names the scopes a token misses one at a time: a step-up for each, not one declined", async () => {
    const asked = [];
    const client = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked.push(r.scope), user(r)) } });
    await client.connect();
    assert.match((await client.callTool("deploy", {})).content[0].text, /^token at-\d+$/);
    assert.match((await client.callTool("deploy", {})).content[0].text, /^token at-\d+$/);
    assert.deepEqual(asked, ["tools", "tools admin", "tools admin write"]);
    // The second scope not granted: that step-up is the one declined, and the error names it.
    const again = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked.push(r.scope), user(r)) } });
    await again.connect();
    withheld = "write";
    try {
      for (let i = 0; i < 2; i++) {
        const e = await rejectsWith(again.callTool("deploy", {}), "UNAUTHORIZED");
        assert.equal(e.credentialsRefused, true);
        assert.ok(e.message.includes(`asks for the scope "write"`) && e.message.includes(`granted "tools admin"`), e.message);
      }
      assert.deepEqual(asked.slice(3), ["tools", "tools admin", "tools admin write"]);
    } finally {
      withheld = null;
    }
    await client.close();
    await again.close();
  });

  test("offline_access, added where the authorization server lists it, goes with prompt=consent (OpenID Connect Core 11)", async () => {
    const asked = [];
    offlineAccess = true;
    try {
      const client = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked.push(new URL(r.url)), user(r)) } });
      await client.connect();
      assert.equal(asked[0].searchParams.get("scope"), "tools offline_access");
      assert.equal(asked[0].searchParams.get("prompt"), "consent");
      await client.close();
    } finally {
      offlineAccess = false;
    }
    // Without offline_access, no prompt: the authorization server decides whether to ask.
    const client = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked.push(new URL(r.url)), user(r)) } });
    await client.connect();
    assert.equal(asked[1].searchParams.get("scope"), "tools");
    assert.equal(asked[1].searchParams.get("prompt"), null);
    await client.close();
  });

  test("a registration answered 201 without a client_id names its status, as the token step does", async () => {
    registerWithoutId = true;
    try {
      const client = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: user } });
      const e = await rejectsWith(client.connect(), "UNAUTHORIZED");
      assert.equal(e.oauthStep, "registration");
      assert.equal(e.status, 201);
      assert.match(e.message, /HTTP 201 without a client_id/);
      client.free();
    } finally {
      registerWithoutId = false;
    }
  });

  test("a server that takes the token refreshed after one refusal: each call refreshed, the user never asked", async () => {
    let asked = 0;
    const client = new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++, user(r)) } });
    await client.connect();
    const refreshes = () => seen.requests.filter((r) => r.path === "/token" && new URLSearchParams(r.body).get("grant_type") === "refresh_token").length;
    const before = refreshes();
    for (let i = 0; i < 4; i++) {
      // Every token expires at once: each call meets a 401, and the refreshed token serves.
      seen.tokens.clear();
      assert.match((await client.callTool("whoami", {})).content[0].text, /^token at-\d+$/);
    }
    assert.equal(refreshes(), before + 4);
    assert.equal(asked, 1);
    await client.close();
  });

  test("resource metadata answered 503 is that error: nothing guessed, the saved credentials kept", async () => {
    const saved = [];
    const oauth = { redirectUrl: "http://127.0.0.1/cb", authorize: user, onSaved: (s) => saved.push(s) };
    const first = new McpClient(`${base}/mcp`, { oauth });
    await first.connect();
    await first.close();
    const kept = saved.at(-1);
    const asked = [];
    const again = new McpClient(`${base}/mcp`, { oauth: { ...oauth, saved: kept, authorize: (r) => (asked.push(r), user(r)) } });
    seen.tokens.delete(kept.tokens.access_token);
    metadataStatus = 503;
    const count = saved.length;
    try {
      const e = await rejectsWith(again.connect(), "UNAUTHORIZED");
      assert.equal(e.oauthStep, "discovery");
      assert.equal(e.status, 503);
      assert.equal(saved.length, count, "nothing saved (nor erased)");
    } finally {
      metadataStatus = null;
    }
    // Back: the saved refresh token serves, without the user.
    await again.connect();
    assert.equal(asked.length, 0);
    assert.equal(saved.at(-1).client.client_id, kept.client.client_id);
    await again.close();
  });

  test("a server URL spelled otherwise than fetch writes it is the resource its metadata names in fetch's spelling", async () => {
    const port = new URL(base).port;
    // A non-ASCII path typed as is, a dot segment, an IPv4 shorthand: fetch reaches the server the
    // metadata names, and so its `resource` is this server's.
    for (const url of [`${base}/café/mcp`, `${base}/x/../mcp`, `http://127.1:${port}/mcp`]) {
      const client = new McpClient(url, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: user } });
      await client.connect();
      assert.deepEqual((await client.listTools()).map((t) => t.name), ["whoami"], url);
      await client.close();
    }
  });

  test("saved tokens go only to the server they were saved for; saved without it, the access token is withheld", async () => {
    const saved = [];
    let asked = 0;
    const oauth = { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++, user(r)), onSaved: (s) => saved.push(s) };
    const first = new McpClient(`${base}/mcp`, { oauth });
    await first.connect();
    await first.close();
    const kept = saved.at(-1);
    assert.equal(kept.server, `${base}/mcp`);
    const mine = `Bearer ${kept.tokens.access_token}`;

    // Another server (one storage key for both): not one request carries the first's token.
    let before = seen.requests.length;
    const other = new McpClient(`${base}/café/mcp`, { oauth: { ...oauth, saved: kept } });
    await other.connect();
    await other.close();
    assert.equal(seen.requests[before].authorization, null);
    assert.ok(seen.requests.slice(before).every((r) => r.authorization !== mine));
    assert.equal(saved.at(-1).server, `${base}/caf%C3%A9/mcp`);
    assert.equal(saved.at(-1).client.client_id, kept.client.client_id, "the authorization server's client is kept");

    // Saved without `server` (an earlier version): the access token is withheld, the refresh token
    // gets one for this server, without the user.
    const { server, ...legacy } = kept;
    asked = 0;
    before = seen.requests.length;
    const again = new McpClient(`${base}/mcp`, { oauth: { ...oauth, saved: legacy } });
    await again.connect();
    await again.close();
    assert.equal(asked, 0);
    assert.ok(seen.requests.slice(before).every((r) => r.authorization !== mine));
    assert.equal(new URLSearchParams(seen.requests.findLast((r) => r.path === "/token").body).get("grant_type"), "refresh_token");
    assert.equal(saved.at(-1).server, server);

    // Saved without `issuer` either (before it was recorded): nothing says the authorization server
    // this server names issued them, so neither its refresh token nor its client goes there.
    const { issuer, ...older } = legacy;
    asked = 0;
    before = seen.requests.length;
    const oldest = new McpClient(`${base}/mcp`, { oauth: { ...oauth, saved: older } });
    await oldest.connect();
    await oldest.close();
    assert.equal(asked, 1, "the user signs in again");
    for (const r of seen.requests.slice(before)) {
      assert.notEqual(r.authorization, mine);
      assert.ok(!(r.body ?? "").includes(older.tokens.refresh_token) && !(r.body ?? "").includes(older.client.client_id), r.body);
    }
    assert.equal(saved.at(-1).issuer, issuer);
  });

  test("a user who takes longer than the request's timeout: authorize's signal aborts", async () => {
    let signal;
    const slow = new McpClient(`${base}/mcp`, {
      oauth: {
        redirectUrl: "http://127.0.0.1/cb",
        authorize: (request) => {
          signal = request.signal;
          return new Promise(() => {}); // the user never comes back
        },
      },
    });
    await rejectsWith(slow.connect({ timeoutMs: 300 }), "TIMEOUT");
    assert.ok(signal instanceof AbortSignal);
    assert.equal(signal.aborted, true, "no request waits for the sign-in any more");
    slow.free();
  });

  test("a call that times out while the user signs in sends no notifications/cancelled, and asks no second sign-in", async () => {
    let asked = 0;
    const client = new McpClient(`${base}/mcp`, {
      oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++ === 0 ? user(r) : new Promise(() => {})) },
    });
    await client.connect();
    seen.tokens.clear();
    seen.refresh.clear();
    const from = seen.requests.length;
    await rejectsWith(client.listTools({ timeoutMs: 300 }), "TIMEOUT");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(asked, 2, "the first sign-in, and the one the call waited for");
    const posts = seen.requests.slice(from).filter((r) => r.path === "/mcp").map((r) => JSON.parse(r.body).method);
    assert.deepEqual(posts, ["tools/list"]);
    client.free();
  });

  test("a refresh the call stops waiting for (close() as the app shuts down) still keeps the refresh token the server rotated", async () => {
    const saved = [];
    let asked = 0;
    const oauth = { redirectUrl: "http://127.0.0.1/cb", authorize: (r) => (asked++, user(r)), onSaved: (s) => saved.push(s) };
    const client = new McpClient(`${base}/mcp`, { oauth });
    await client.connect();
    const first = saved.at(-1).tokens;
    seen.tokens.delete(first.access_token);
    const arrived = new Promise((resolve) => (onTokenRequest = resolve));
    try {
      const call = client.listTools().then(() => "listed", (e) => e.code);
      await arrived;
      await client.close();
      assert.equal(await call, "NOT_CONNECTED");
      const saves = saved.length;
      for (let i = 0; i < 50 && saved.length === saves; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      onTokenRequest = null;
    }
    const last = saved.at(-1).tokens;
    assert.notEqual(last.refresh_token, first.refresh_token);
    assert.ok(!seen.refresh.has(first.refresh_token), "the server spent the old one");
    assert.ok(seen.refresh.has(last.refresh_token), "what was saved is the refresh token the server holds valid");
    // The next session, restored from what was saved: nobody is asked.
    const again = new McpClient(`${base}/mcp`, { oauth: { ...oauth, saved: saved.at(-1) } });
    await again.connect();
    assert.equal((await again.listTools()).length, 1);
    assert.equal(asked, 1);
    await again.close();
  });

  test("issuer pins the authorization server: another is refused before anything is sent to it", async () => {
    const pinned = (issuer) => new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", issuer, authorize: user } });
    const ok = pinned(`${base}/`); // a trailing slash aside
    await ok.connect();
    await ok.close();
    const from = seen.requests.length;
    const other = pinned("http://127.0.0.1:1");
    const err = await rejectsWith(other.connect(), "UNAUTHORIZED");
    assert.equal(err.oauthStep, "discovery");
    assert.equal(err.oauthRefused, "issuer-mismatch");
    assert.match(err.message, /oauth\.issuer http:\/\/127\.0\.0\.1:1/);
    const paths = seen.requests.slice(from).map((r) => r.path);
    assert.deepEqual(paths.filter((p) => ["/register", "/authorize", "/token", "/.well-known/oauth-authorization-server"].includes(p)), [], paths.join(" "));
    other.free();
  });

  test("a public server cannot send the client into the user's network (a fetch that reaches nothing)", async () => {
    // Hosts as the runtime's URL parser reads them: a soft hyphen, circled digits, a zero-width space
    // and a tab are all 127.0.0.1 or 192.168.1.1 to fetch, and refused as such.
    for (const host of ["127.0.0.1\u00ad", "\u2460\u2468\u2461.\u2460\u2465\u2467.\u2460.\u2460", "192.168.1.1\u200b", "127.0.\t0.1"]) {
      const asked = [];
      const fetch = async (url) => {
        asked.push(url);
        const u = new URL(url);
        if (u.href === "https://mcp.example/mcp") {
          return new Response("", { status: 401, headers: { "www-authenticate": 'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"' } });
        }
        if (u.pathname === "/.well-known/oauth-protected-resource/mcp") {
          return Response.json({ resource: "https://mcp.example/mcp", authorization_servers: [`https://${host}:8443`] });
        }
        return new Response("", { status: 404 });
      };
      const client = new McpClient("https://mcp.example/mcp", { fetch, oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: user } });
      const err = await rejectsWith(client.connect(), "UNAUTHORIZED");
      assert.equal(err.oauthRefused, "private-network", JSON.stringify(host));
      assert.equal(asked.length, 2, `${JSON.stringify(host)}: nothing asked of it: ${asked.join(" ")}`);
      client.free();
    }
    // mcp.example stands for a server on the internet: this fetch answers for it, and records what was asked.
    const asked = [];
    const fetch = async (url) => {
      asked.push(url);
      const u = new URL(url);
      if (u.href === "https://mcp.example/mcp") {
        return new Response("", { status: 401, headers: { "www-authenticate": 'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"' } });
      }
      if (u.pathname === "/.well-known/oauth-protected-resource/mcp") {
        return Response.json({ resource: "https://mcp.example/mcp", authorization_servers: [`http://127.0.0.1:${new URL(base).port}`] });
      }
      return new Response("", { status: 404 });
    };
    const client = new McpClient("https://mcp.example/mcp", { fetch, oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: user } });
    const err = await rejectsWith(client.connect(), "UNAUTHORIZED");
    assert.equal(err.oauthStep, "discovery");
    assert.equal(err.oauthRefused, "private-network");
    assert.match(err.message, /on this machine \(loopback\), but the server https:\/\/mcp\.example\/mcp is on the public internet/);
    assert.deepEqual(asked, ["https://mcp.example/mcp", "https://mcp.example/.well-known/oauth-protected-resource/mcp"]);
    client.free();
  });

  test("bad oauth options are INVALID_OPTIONS", () => {
    for (const [oauth, message] of [
      [{ authorize: user }, /redirectUrl/],
      [{ redirectUrl: "http://127.0.0.1/cb" }, /authorize/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: "yes" }, /authorize/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, grantType: "password" }, /grantType/],
      [{ grantType: "client_credentials", clientId: "x" }, /clientSecret/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, clientSecret: "s3cret" }, /clientSecret needs clientId/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, saved: { tokens: {} } }, /access_token/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, saved: { tokens: JSON.stringify({ access_token: "at" }) } }, /oauth\.saved\.tokens must be an object/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, saved: { client: "client-7" } }, /oauth\.saved\.client must be an object/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, saved: { issuer: 7 } }, /oauth\.saved\.issuer must be a string/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, clientMetadata: [] }, /clientMetadata/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, issuer: "auth.example" }, /issuer/],
      [{ redirectUrl: "javascript:alert(1)", authorize: user }, /redirectUrl/],
      [{ redirectUrl: "data:text/html,hi", authorize: user }, /redirectUrl/],
      [{ redirectUrl: "http://app.example/cb", authorize: user }, /redirectUrl .*loopback/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, clientMetadataUrl: "http://app.example/client.json" }, /clientMetadataUrl/],
      [{ redirectUrl: "http://127.0.0.1/cb", authorize: user, clientMetadataUrl: "https://app.example" }, /clientMetadataUrl/],
      ["yes", /oauth/],
    ]) {
      assert.throws(() => new McpClient(`${base}/mcp`, { oauth }), (e) => e.code === "INVALID_OPTIONS" && message.test(e.message), JSON.stringify(oauth));
    }
    assert.throws(
      () => new McpClient(`${base}/mcp`, { oauth: { redirectUrl: "http://127.0.0.1/cb", authorize: user }, onUnauthorized: () => null }),
      { code: "INVALID_OPTIONS" },
    );
  });
});
