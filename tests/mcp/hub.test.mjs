// McpHub (the built package) over several endpoints of tests/servers/misbehaving.mjs: listing with per-server
// errors, selection, provider tools with collision-proof names, routing calls back, policy, cancellation, closeAll.
// Run: make pkg && node --test tests/mcp/hub.test.mjs
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { freePort, freshTag, loadPkg, rejectsWith, repo, startMisbehaving, waitFor, within } from "./helpers.mjs";
import { COLLIDE_TOOLS, NORMAL_TOOLS, SHIFTING_TOOLS, UNCONVERTIBLE_TOOLS } from "../servers/misbehaving.mjs";

const { McpHub, NameMap, prefixToolName } = await loadPkg();

let srv;
before(async () => {
  srv = await startMisbehaving();
});
after(async () => {
  await srv?.stop();
});

/** {name: scenario} -> {servers: {name: {url}}, key(name), stats(name)} on fresh endpoints. */
function endpoints(spec) {
  const keys = {};
  const servers = {};
  for (const [name, scenario] of Object.entries(spec)) {
    const tag = freshTag();
    keys[name] = `${scenario}/${tag}`;
    servers[name] = { url: srv.url(scenario, tag) };
  }
  return { servers, key: (n) => keys[n], stats: (n) => srv.stats(keys[n]) };
}

/** The provider name of (server, tool) in the hub's last name map. */
function providerName(hub, server, tool) {
  const map = NameMap.fromJSON(hub.nameMap);
  const name = map.names().find((n) => {
    const r = map.resolve(n);
    return r.server === server && r.tool === tool;
  });
  assert.ok(name, `no provider name for ${server}/${tool}`);
  return name;
}

/**
 * A tool the hub's policy denies (or, `decision` "ask", asks for where the hub has no confirm callback), after
 * `tools(provider, naming)`: not offered (not in the name map), in `droppedTools` with `PERMISSION_DENIED`, and a
 * call of the name a model may guess for it (prefixToolName's, under the same naming) is refused
 * `PERMISSION_DENIED` with that `decision`. Returns that error.
 */
async function assertDenied(hub, server, tool, provider, naming, how, decision = "deny") {
  const map = NameMap.fromJSON(hub.nameMap);
  assert.ok(!map.names().some((n) => map.resolve(n).server === server && map.resolve(n).tool === tool), `${how}: ${server}/${tool} is offered`);
  assert.ok(hub.droppedTools.some((d) => d.server === server && d.name === tool && d.code === "PERMISSION_DENIED"), `${how}: ${server}/${tool} not in droppedTools`);
  const name = prefixToolName(server, tool, { provider, ...naming });
  const err = await rejectsWith(hub.callTool(name, { message: "x" }), "PERMISSION_DENIED");
  assert.equal(err.decision, decision, `${how} ${name}`);
  return err;
}

const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe("McpHub", () => {
  test("new McpHub(servers): a null-prototype servers object, and another realm's, are read as a plain one", async () => {
    const { runInNewContext } = await import("node:vm");
    const url = "http://127.0.0.1:9/mcp";
    const nullProto = Object.assign(Object.create(null), { one: { url }, two: { url } });
    const otherRealm = runInNewContext(`({ one: { url: ${JSON.stringify(url)} }, two: { url: ${JSON.stringify(url)} } })`);
    for (const servers of [nullProto, otherRealm]) {
      const hub = new McpHub(servers);
      assert.deepEqual(hub.servers, ["one", "two"]);
      hub.free();
    }
    for (const bad of [null, [], () => {}, "x"]) {
      assert.throws(() => new McpHub(bad), (err) => err.code === "INVALID_INPUT" && /servers must be an object/.test(err.message) && !/got an object/.test(err.message));
    }
  });

  test("listTools: tools of every server with serverName; failing servers in errors, not thrown", async () => {
    const deadPort = await freePort();
    const e = endpoints({ alpha: "normal", beta: "paginate3", locked: "unauthorized" });
    const hub = new McpHub({ ...e.servers, down: { url: `http://127.0.0.1:${deadPort}/mcp` } });
    const { tools, errors } = await within(15_000, hub.listTools(), "listTools");
    const names = NORMAL_TOOLS.map((t) => t.name);
    assert.deepEqual(tools.filter((t) => t.serverName === "alpha").map((t) => t.name), names);
    assert.deepEqual(tools.filter((t) => t.serverName === "beta").map((t) => t.name), names);
    assert.equal(tools.length, 2 * names.length);
    const byServer = Object.fromEntries(errors.map((x) => [x.server, x.error]));
    assert.deepEqual(Object.keys(byServer).sort(), ["down", "locked"]);
    assert.equal(byServer.locked.code, "UNAUTHORIZED");
    assert.equal(byServer.locked.status, 401);
    assert.equal(byServer.down.code, "NETWORK");
    await hub.closeAll();
  });

  test("tools() without listTools(): a server whose listing fails is in listErrors, not a rejection", async () => {
    const deadPort = await freePort();
    const e = endpoints({ alpha: "normal", locked: "unauthorized" });
    const hub = new McpHub({ ...e.servers, down: { url: `http://127.0.0.1:${deadPort}/mcp` } });
    assert.deepEqual(hub.listErrors, []);
    const tools = await within(15_000, hub.tools("openai"), "tools");
    assert.equal(tools.length, NORMAL_TOOLS.length);
    const byServer = Object.fromEntries(hub.listErrors.map((x) => [x.server, x.error]));
    assert.deepEqual(Object.keys(byServer).sort(), ["down", "locked"]);
    assert.equal(byServer.down.code, "NETWORK");
    assert.equal(byServer.locked.code, "UNAUTHORIZED");
    assert.equal(byServer.down.server, "down");
    // A listing that asks only alpha, which answers: the failures it set are its own (none).
    await hub.listTools({ selectedServers: ["alpha"] });
    assert.deepEqual(hub.listErrors, []);
    await hub.closeAll();
  });

  test("a server without the tools capability lists none and is not asked for tools", async () => {
    const e = endpoints({ alpha: "normal", prompts: "no-tools" });
    const hub = new McpHub(e.servers);
    const { tools, errors } = await within(15_000, hub.listTools(), "listTools");
    assert.deepEqual(errors, []);
    assert.deepEqual([...new Set(tools.map((t) => t.serverName))], ["alpha"]);
    const stats = await e.stats("prompts");
    assert.equal(stats.initialize.length, 1, "the server was connected");
    assert.deepEqual(stats.violations, []);
    // Any other request goes to the server named, connecting it when needed.
    const more = endpoints({ prompts: "no-tools" });
    const fresh = new McpHub(more.servers);
    // What cannot be sent by name fails before the server is connected.
    const byName = await rejectsWith(fresh.request("prompts", "initialize"), "INVALID_INPUT");
    assert.equal(byName.server, "prompts");
    const notAList = await rejectsWith(fresh.listAll("prompts", "resources/read"), "INVALID_INPUT");
    assert.equal(notAList.server, "prompts");
    assert.equal((await more.stats("prompts")).initialize.length, 0);
    const err = await rejectsWith(fresh.request("prompts", "resources/list"), "CAPABILITY_NOT_NEGOTIATED");
    assert.deepEqual([err.server, err.capability], ["prompts", "resources"]);
    assert.equal((await rejectsWith(fresh.request("nope", "ping"), "INVALID_INPUT")).server, "nope");
    assert.equal((await rejectsWith(fresh.request("prompts", "resources/read", [1]), "INVALID_INPUT")).server, "prompts");
    assert.deepEqual(await hub.request("alpha", "ping"), {});
    // Lists by name: a capability the server lacks lists nothing; errors name the server.
    assert.deepEqual(await fresh.listAll("prompts", "resources/list"), []);
    assert.deepEqual((await hub.listAll("alpha", "tools/list")).map((t) => t.name), (await hub.listTools({ mode: "manual", selectedServers: ["alpha"] })).tools.map((t) => t.name));
    assert.equal((await rejectsWith(fresh.listAll("nope", "tools/list"), "INVALID_INPUT")).server, "nope");
    assert.equal((await rejectsWith(fresh.listAll("prompts", "prompts/get"), "INVALID_INPUT")).server, "prompts");
    // First uses of a server together open one session.
    const together = endpoints({ beta: "normal" });
    const hub2 = new McpHub(together.servers);
    const [p1, p2, listed] = await Promise.all([hub2.request("beta", "ping"), hub2.request("beta", "ping"), hub2.listTools()]);
    assert.deepEqual([p1, p2, listed.errors], [{}, {}, []]);
    assert.equal((await together.stats("beta")).initialize.length, 1);
    await hub2.closeAll();
    await fresh.closeAll();
    await hub.closeAll();
  });

  test("selection: manual selectedServers asks only those; enabled:false asks none", async () => {
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const hub = new McpHub(e.servers);
    const manual = await hub.listTools({ mode: "manual", selectedServers: ["beta"] });
    assert.deepEqual([...new Set(manual.tools.map((t) => t.serverName))], ["beta"]);
    assert.equal((await e.stats("alpha")).http.POST, 0, "alpha not contacted");
    const off = await hub.listTools({ enabled: false });
    assert.deepEqual(off.tools, []);
    assert.deepEqual(off.errors, []);
    assert.equal((await e.stats("alpha")).http.POST, 0);
    // A selection of the wrong type is refused, not read as "all" or narrowed quietly.
    for (const bad of [{ enabled: "no" }, { enabled: 0 }, { mode: 5 }, { mode: "manual", selectedServers: [1, "beta"] }, { mode: "manual", selectedServers: "beta" }]) {
      await assert.rejects(hub.listTools(bad), (err) => err.code === "INVALID_OPTIONS", JSON.stringify(bad));
    }
    assert.equal((await e.stats("alpha")).http.POST, 0, "nobody was asked");
    await hub.closeAll();
  });

  test("selection: selectedServers without mode is manual; with mode auto it is not read", async () => {
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const hub = new McpHub(e.servers);
    const picked = await hub.listTools({ selectedServers: ["beta"] });
    assert.deepEqual([...new Set(picked.tools.map((t) => t.serverName))], ["beta"]);
    assert.equal((await e.stats("alpha")).http.POST, 0, "alpha not contacted");
    await hub.tools("openai");
    await rejectsWith(hub.callTool("mcp__alpha__echo", { message: "x" }), "UNKNOWN_TOOL_NAME");
    const all = await hub.listTools({ mode: "auto", selectedServers: ["beta"] });
    assert.deepEqual([...new Set(all.tools.map((t) => t.serverName))], ["alpha", "beta"]);
    await hub.closeAll();
  });

  test("tools(openai) + callTool: routed to the right server and tool; text, isError; JSON-string arguments", async () => {
    const e = endpoints({ alpha: "normal", beta: "sse" });
    const hub = new McpHub(e.servers);
    await hub.listTools();
    const tools = await hub.tools("openai");
    assert.equal(tools.length, 2 * NORMAL_TOOLS.length);
    const names = tools.map((t) => t.function.name);
    assert.equal(new Set(names).size, names.length, "unique names");
    for (const n of names) assert.match(n, OPENAI_NAME);
    const echoBeta = providerName(hub, "beta", "echo");
    const r = await hub.callTool(echoBeta, { message: "via hub → ✓" });
    assert.equal(r.server, "beta");
    assert.equal(r.tool, "echo");
    assert.equal(r.text, "via hub → ✓");
    assert.equal(r.isError, false);
    assert.deepEqual(r.result, { content: [{ type: "text", text: "via hub → ✓" }] });
    const r2 = await hub.callTool(providerName(hub, "alpha", "add"), '{"a":1,"b":2}');
    assert.equal(r2.server, "alpha");
    assert.deepEqual(r2.result.structuredContent, { sum: 3 });
    const fail = await hub.callTool(providerName(hub, "alpha", "fail"), {});
    assert.equal(fail.isError, true);
    assert.match(fail.text, /deliberate tool failure/);
    assert.equal((await e.stats("alpha")).calls.length, 2);
    assert.equal((await e.stats("beta")).calls.length, 1);
    await hub.closeAll();
  });

  test("tools(): lists once; lists again only a server that announced tools/list_changed", async () => {
    const e = endpoints({ alpha: "grows", beta: "normal" });
    const changed = [];
    const hub = new McpHub({ alpha: { ...e.servers.alpha, onToolListChanged: () => changed.push("alpha") }, beta: e.servers.beta });
    const listCalls = async (n) => (await e.stats(n)).counters.toolsListCalls ?? 0;
    const first = await hub.tools("openai");
    assert.equal(first.length, 2 * NORMAL_TOOLS.length);
    assert.deepEqual([await listCalls("alpha"), await listCalls("beta")], [1, 1]);
    // Nothing announced: no new listing.
    await hub.tools("anthropic");
    assert.deepEqual([await listCalls("alpha"), await listCalls("beta")], [1, 1]);
    // alpha's chatty call announces a change (and adds grown_1): only alpha is listed again.
    await hub.callTool(providerName(hub, "alpha", "chatty"), {});
    assert.deepEqual(changed, ["alpha"]);
    const second = await hub.tools("openai");
    assert.deepEqual([await listCalls("alpha"), await listCalls("beta")], [2, 1]);
    assert.equal(second.length, 2 * NORMAL_TOOLS.length + 1);
    const grown = providerName(hub, "alpha", "grown_1");
    assert.ok(second.some((t) => t.function.name === grown));
    // The order stays the hub's: alpha's tools, then beta's.
    const servers = second.map((t) => NameMap.fromJSON(hub.nameMap).resolve(t.function.name).server);
    assert.deepEqual(servers, [...Array(NORMAL_TOOLS.length + 1).fill("alpha"), ...Array(NORMAL_TOOLS.length).fill("beta")]);
    // Announced once, listed once.
    await hub.tools("openai");
    assert.deepEqual([await listCalls("alpha"), await listCalls("beta")], [2, 1]);
    // beta's chatty call announces a change too (its list stays the same): beta alone is asked.
    await hub.callTool(providerName(hub, "beta", "chatty"), {});
    assert.equal((await hub.tools("openai")).length, 2 * NORMAL_TOOLS.length + 1);
    assert.deepEqual([await listCalls("alpha"), await listCalls("beta")], [2, 2]);
    await hub.closeAll();
  });

  test("tools() after listTools() lists nothing again; a failed re-listing keeps the server's tools and waits 5 s", async () => {
    // A server of its own, stopped and started again on the same port.
    let own = await startMisbehaving();
    try {
      const tag = freshTag();
      const hub = new McpHub({ alpha: { url: own.url("grows", tag) } });
      await hub.listTools();
      await hub.tools("gemini");
      assert.equal((await own.stats(`grows/${tag}`)).counters.toolsListCalls, 1);
      await hub.callTool(providerName(hub, "alpha", "chatty"), {});
      await own.stop();
      // The server is gone when the hub lists it again: its previous tools stay.
      const kept = await within(15_000, hub.tools("openai"), "tools with the server down");
      assert.equal(kept.length, NORMAL_TOOLS.length);
      assert.equal(NameMap.fromJSON(hub.nameMap).resolve(kept[0].function.name).server, "alpha");
      // Back (a new process: a new session, nothing grown): the change is still pending, but a refresh that
      // failed waits 5 s before it asks the server again.
      const failedAt = Date.now();
      own = await startMisbehaving({ env: { PORT: String(own.port) } });
      await hub.tools("openai");
      if (Date.now() - failedAt < 4_500) assert.equal((await own.stats(`grows/${tag}`)).counters.toolsListCalls ?? 0, 0, "not asked within 5 s");
      await new Promise((r) => setTimeout(r, Math.max(0, failedAt + 5_200 - Date.now())));
      const again = await within(15_000, hub.tools("openai"), "tools with the server back");
      assert.equal(again.length, NORMAL_TOOLS.length);
      const stats = await own.stats(`grows/${tag}`);
      assert.equal(stats.counters.toolsListCalls, 1, "listed again once the server is back and 5 s have passed");
      assert.equal(stats.methods.initialize, 1, "re-initialized on the expired session");
      // Listed: nothing pending now.
      await hub.tools("openai");
      assert.equal((await own.stats(`grows/${tag}`)).counters.toolsListCalls, 1);
      await hub.closeAll();
    } finally {
      await own.stop();
    }
  });

  test("tools(): a server that failed listTools() is not asked again by tools() within 5 s, by listTools() at once; enabled:false gives []", async () => {
    const port = await freePort();
    const e = endpoints({ alpha: "normal" });
    const tag = freshTag();
    const hub = new McpHub({ alpha: e.servers.alpha, beta: { url: `http://127.0.0.1:${port}/mcp/normal/${tag}` } });
    const first = await hub.listTools();
    assert.deepEqual(first.errors.map((x) => [x.server, x.error.code]), [["beta", "NETWORK"]]);
    const late = await startMisbehaving({ env: { PORT: String(port) } });
    try {
      assert.equal((await hub.tools("openai")).length, NORMAL_TOOLS.length, "alpha's tools only");
      assert.equal((await late.stats(`normal/${tag}`)).http.POST, 0, "beta not asked by tools()");
      const again = await hub.listTools();
      assert.deepEqual(again.errors, []);
      assert.equal((await hub.tools("openai")).length, 2 * NORMAL_TOOLS.length);
      await hub.listTools({ enabled: false });
      assert.deepEqual(await hub.tools("openai"), []);
      await hub.closeAll();
    } finally {
      await late.stop();
    }
  });

  // A server down when the hub first lists it (here by tools() itself) was once never asked again by tools(): its
  // tools stayed out until an explicit listTools().
  test("tools(): a server down at the first tools() is offered by a later tools() once back, after a 5 s wait; listErrors until then", async () => {
    const port = await freePort();
    const e = endpoints({ alpha: "normal" });
    const tag = freshTag();
    const hub = new McpHub({ alpha: e.servers.alpha, beta: { url: `http://127.0.0.1:${port}/mcp/normal/${tag}` } });
    assert.equal((await within(15_000, hub.tools("openai"), "the first tools()")).length, NORMAL_TOOLS.length, "alpha's tools only");
    const failedAt = Date.now();
    assert.deepEqual(hub.listErrors.map((x) => [x.server, x.error.code]), [["beta", "NETWORK"]]);
    // The message names the server, not only the `server` field.
    assert.match(hub.listErrors[0].error.message, /\(server "beta"\)$/);
    const late = await startMisbehaving({ env: { PORT: String(port) } });
    try {
      await hub.tools("openai");
      if (Date.now() - failedAt < 4_500) assert.equal((await late.stats(`normal/${tag}`)).http.POST, 0, "not asked within 5 s");
      assert.deepEqual(hub.listErrors.map((x) => x.server), ["beta"], "still said");
      await new Promise((r) => setTimeout(r, Math.max(0, failedAt + 5_200 - Date.now())));
      const back = await within(15_000, hub.tools("openai"), "tools() with beta back");
      assert.equal(back.length, 2 * NORMAL_TOOLS.length);
      assert.deepEqual(hub.listErrors, []);
      // In the hub's order: alpha's tools, then beta's; and beta's are called.
      const servers = back.map((t) => NameMap.fromJSON(hub.nameMap).resolve(t.function.name).server);
      assert.deepEqual(servers, [...Array(NORMAL_TOOLS.length).fill("alpha"), ...Array(NORMAL_TOOLS.length).fill("beta")]);
      assert.equal((await hub.callTool(providerName(hub, "beta", "echo"), { message: "back" })).text, "back");
      assert.equal((await late.stats(`normal/${tag}`)).counters.toolsListCalls, 1);
      await hub.closeAll();
    } finally {
      await late.stop();
    }
  });

  test("closeAll() during the first tools(): tools() rejects NOT_CONNECTED, nothing is sent after the close but DELETE; a later tools() lists again at once", async () => {
    const { createServer } = await import("node:net");
    const sockets = [];
    // Takes the connection and never answers: hole's handshake is under way at the close.
    const hole = createServer((socket) => sockets.push(socket));
    await new Promise((resolve) => hole.listen(0, "127.0.0.1", resolve));
    const e = endpoints({ alpha: "normal" });
    let closing = false;
    let holdList = true;
    const afterClose = [];
    // alpha's first tools/list is held until aborted (a slow server): its listing is under way at the close.
    const watching = (url, init) => {
      const method = init.method === "POST" ? JSON.parse(init.body).method : init.method;
      if (closing) afterClose.push(method);
      if (method === "tools/list" && holdList) {
        holdList = false;
        return new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
      }
      return fetch(url, init);
    };
    const unhandled = [];
    const onUnhandled = (reason) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const hub = new McpHub({ alpha: { url: e.servers.alpha.url, fetch: watching }, hole: { url: `http://127.0.0.1:${hole.address().port}/mcp`, timeoutMs: 1_000 } });
    try {
      const converting = hub.tools("openai");
      assert.ok(await waitFor(() => !holdList && sockets.length > 0, { timeoutMs: 5_000 }), "alpha's listing and hole's handshake under way");
      closing = true;
      assert.deepEqual(await within(5_000, hub.closeAll(), "closeAll()"), []);
      const err = await rejectsWith(within(5_000, converting, "tools() after closeAll()"), "NOT_CONNECTED");
      assert.match(err.message, /^tools\(\) was abandoned: closeAll\(\) was called while the servers were being listed/);
      assert.deepEqual(afterClose, ["DELETE"], "nothing but alpha's DELETE after the close");
      const failing = Object.fromEntries(hub.listErrors.map((x) => [x.server, x.error]));
      assert.deepEqual(Object.keys(failing).sort(), ["alpha", "hole"]);
      assert.equal(failing.alpha.code, "NOT_CONNECTED");
      assert.match(failing.alpha.message, /\(server "alpha"\)$/);
      // A later tools() connects and lists them again, without the wait a server's own failure brings.
      closing = false;
      const tools = await within(10_000, hub.tools("openai"), "tools() after closeAll()");
      assert.equal(tools.length, NORMAL_TOOLS.length);
      assert.deepEqual(hub.listErrors.map((x) => [x.server, x.error.code]), [["hole", "TIMEOUT"]]);
      assert.equal((await e.stats("alpha")).methods.initialize, 2);
      await hub.closeAll();
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      for (const socket of sockets) socket.destroy();
      hole.close();
    }
  });

  test("closeAll() during the first tools(): a script that does only that exits by itself, with no unhandled rejection", async () => {
    const { createServer } = await import("node:net");
    const sockets = [];
    const hole = createServer((socket) => sockets.push(socket));
    await new Promise((resolve) => hole.listen(0, "127.0.0.1", resolve));
    const e = endpoints({ alpha: "normal" });
    const script = `
      import { McpHub } from ${JSON.stringify(pathToFileURL(join(repo, "pkg", "index.mjs")).href)};
      process.on("unhandledRejection", (r) => { console.error("UNHANDLED", r); process.exitCode = 3; });
      const hub = new McpHub({ alpha: { url: process.env.ALPHA }, hole: { url: process.env.HOLE } });
      const tools = hub.tools("openai").then(() => "resolved", (e) => e.code);
      hub.listen();
      await new Promise((r) => setTimeout(r, 300));
      const failures = await hub.closeAll();
      console.log(JSON.stringify({ tools: await tools, failures: failures.length }));
    `;
    try {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        env: { ...process.env, ALPHA: e.servers.alpha.url, HOLE: `http://127.0.0.1:${hole.address().port}/mcp` },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let errText = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (errText += d));
      const started = Date.now();
      const code = await within(15_000, new Promise((resolve) => child.on("exit", resolve)), "the script's exit");
      assert.equal(code, 0, `${out}\n${errText}`);
      assert.ok(Date.now() - started < 8_000, `exited after ${Date.now() - started} ms`);
      assert.deepEqual(JSON.parse(out), { tools: "NOT_CONNECTED", failures: 0 });
      assert.doesNotMatch(errText, /UNHANDLED|Unhandled/);
    } finally {
      for (const socket of sockets) socket.destroy();
      hole.close();
    }
  });

  test("tools(): a tool that cannot be converted is left out and reported with its server and index; the others convert", async () => {
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const hub = new McpHub({ alpha: e.servers.alpha, beta: { url: `${e.servers.beta.url}?v=unconvertible` } });
    const listed = await hub.listTools();
    const n = NORMAL_TOOLS.length;
    // The tool with an empty name is left out by its server's listing (no call could name it).
    assert.equal(listed.tools.length, 2 * n + UNCONVERTIBLE_TOOLS.length - 1);
    assert.deepEqual(listed.errors, []);
    assert.deepEqual(listed.dropped.map((d) => [d.server, d.name, d.index, d.code]), [["beta", "", n + 1, undefined]]);
    assert.equal((await hub.tools("anthropic")).length, 2 * n, "every tool but beta's two");
    const left = hub.droppedTools;
    assert.deepEqual(left.map((d) => [d.server, d.name, d.index, d.code]), [["beta", "", n + 1, undefined], ["beta", "deep", n, "LIMIT_EXCEEDED"]]);
    assert.equal(left[0].reason, `the entry at index ${n + 1} of \`tools\` has an empty name, so no tool`);
    assert.match(left[1].reason, /^schema nesting exceeds the limit of 64 levels \(tool "deep", at \/properties\/x\//);
    assert.equal((await hub.callTool(providerName(hub, "beta", "echo"), { message: "fine" })).text, "fine");
    // listTools() reports them too, until a tools() converts them.
    assert.deepEqual((await hub.listTools()).dropped, left);
    assert.equal((await hub.tools("openai", { limits: { maxDepth: 128 } })).length, 2 * n + 1);
    assert.deepEqual(hub.droppedTools.map((d) => [d.server, d.name]), [["beta", ""]]);
    // More tools than limits.maxTools: a server is left out whole (of two alike, the later), the others convert.
    const fitting = await hub.tools("openai", { limits: { maxTools: n } });
    assert.equal(fitting.length, n, "alpha's tools");
    assert.ok(NameMap.fromJSON(hub.nameMap).has(providerName(hub, "alpha", "echo")));
    const over = hub.droppedTools.filter((d) => d.code === "LIMIT_EXCEEDED" && /offers/.test(d.reason));
    assert.deepEqual([...new Set(over.map((d) => d.server))], ["beta"]);
    assert.equal(over.length, n, "beta's convertible tools");
    assert.match(over[0].reason, new RegExp(`^server "beta" offers ${n} tools: with the other servers' tools more than limits\\.maxTools \\(${n}\\)`));
    await hub.closeAll();
  });

  test("tools(): a server that restarted with other tools (no list_changed) is listed again once its session is renewed", async () => {
    const e = endpoints({ docs: "restart", other: "normal" });
    const hub = new McpHub(e.servers);
    const listCalls = async () => Promise.all(["docs", "other"].map(async (n) => (await e.stats(n)).counters.toolsListCalls));
    await hub.listTools();
    await hub.tools("openai");
    const echo = providerName(hub, "docs", "echo");
    await hub.callTool(providerName(hub, "docs", "restart"), {});
    // The next call meets the 404 and renews the session.
    assert.equal((await hub.callTool(echo, { message: "again" })).text, "again");
    assert.equal((await e.stats("docs")).methods.initialize, 2);
    const names = (await hub.tools("openai")).map((t) => t.function.name);
    assert.deepEqual(await listCalls(), [2, 1], "docs listed again, other not");
    assert.ok(names.includes(providerName(hub, "docs", "echo_v2")));
    assert.ok(!names.includes(echo), "the old tool is no longer offered");
    await hub.tools("openai");
    assert.deepEqual(await listCalls(), [2, 1], "listed on the new session: nothing pending");
    await hub.closeAll();
  });

  test("tools(): a name the hub gave one tool is never given another, whatever the server lists since", async () => {
    // X and Y of server A have hashed names that coincide: listed X, then X and Y, then Y, a NameMap.fromTools of each
    // listing alone gives Y the name X had at first; the hub never does, for any provider.
    const [X, Y] = SHIFTING_TOOLS.map((t) => t.name);
    const hub = new McpHub({ A: { url: srv.url("normal", freshTag()) + "?v=shifting" } });
    const turn = async () => {
      await hub.listTools();
      const names = {};
      for (const provider of ["openai", "gemini"]) {
        await hub.tools(provider);
        names[provider] = hub.nameMapFor(provider).entries.map((e) => `${e.name} ${e.tool}`);
      }
      return names;
    };
    const t1 = await turn();
    const old = t1.openai[0].split(" ")[0];
    assert.equal(NameMap.fromTools([{ ...SHIFTING_TOOLS[1], serverName: "A" }], "openai").names()[0], old, "the names coincide");
    const t2 = await turn();
    assert.deepEqual(t2.openai[0], `${old} ${X}`, "X keeps its name");
    const t3 = await turn();
    assert.deepEqual(t3.openai, [t2.openai[1]], "Y keeps the name it was given");
    assert.deepEqual(t3.gemini, [t2.gemini[1]]);
    // The call an older turn made to X is refused, not run on Y.
    await rejectsWith(hub.callTool(old, {}), "UNKNOWN_TOOL_NAME");
    assert.equal((await hub.callTool(t3.openai[0].split(" ")[0], {})).text, Y);
    // X, listed again, has its own name again.
    assert.deepEqual((await turn()).openai, [t2.openai[1], `${old} ${X}`]);
    assert.equal((await hub.callTool(old, {})).text, X);
    await hub.closeAll();
  });

  test("callTool: a name the hub gave a tool no longer offered says so, and suggests no other server's tool", async () => {
    // Naming "bare": A's echo is named "echo"; once A is left out, B's echo is hashed, and the old call "echo" names
    // A's tool, not B's (which the name was kept from).
    const tag = freshTag();
    const hub = new McpHub({ A: { url: srv.url("normal", `${tag}a`) }, B: { url: srv.url("normal", `${tag}b`) } });
    await hub.listTools({ selectedServers: ["A"] });
    await hub.tools("openai", { naming: "bare" });
    assert.ok(hub.nameMapFor("openai").entries.some((e) => e.name === "echo" && e.server === "A"));
    await hub.listTools({ selectedServers: ["B"] });
    await hub.tools("openai", { naming: "bare" });
    const b = hub.nameMapFor("openai").entries.find((e) => e.tool === "echo").name;
    assert.match(b, /^echo_/);
    const err = await rejectsWith(hub.callTool("echo", {}), "UNKNOWN_TOOL_NAME");
    assert.match(err.message, /it was the name of server "A"'s tool "echo", which the last tools\(\) no longer offers/);
    assert.ok(!err.message.includes(b), err.message);
    assert.equal(err.suggestions, undefined);
    assert.equal((await hub.callTool(b, { message: "x" })).text, "x");
    await hub.closeAll();
  });

  test("tools(): a change on one server renames no other server's tool (naming \"bare\")", async () => {
    // A's and B's echo coincide, so both are hashed; once B's is gone, A's keeps its hashed name (it was renamed
    // "echo", and a call of the name the model had was UNKNOWN_TOOL_NAME naming no tool).
    const tag = freshTag();
    const hub = new McpHub({ A: { url: srv.url("normal", `${tag}a`) }, B: { url: srv.url("normal", `${tag}b`) } });
    const echoOf = (server) => hub.nameMapFor("openai").entries.find((e) => e.server === server && e.tool === "echo")?.name;
    await hub.listTools();
    await hub.tools("openai", { naming: "bare" });
    const a = echoOf("A");
    assert.match(a, /^echo_[a-z0-9]{8}$/);
    await hub.listTools({ selectedServers: ["A"] });
    await hub.tools("openai", { naming: "bare" });
    assert.equal(echoOf("B"), undefined);
    assert.equal(echoOf("A"), a, "A's echo keeps its name");
    const call = await hub.callTool(a, { message: "x" });
    assert.deepEqual([call.server, call.tool, call.text], ["A", "echo", "x"]);
    // With other naming options, the name the model had names the tool and its name now, which it suggests.
    await hub.tools("openai");
    const now = echoOf("A");
    const err = await rejectsWith(hub.callTool(a, {}), "UNKNOWN_TOOL_NAME");
    assert.match(err.message, new RegExp(`it was the name of server "A"'s tool "echo", which this map names "${now}"`));
    assert.deepEqual(err.suggestions, [now]);
    await hub.closeAll();
  });

  test("tools(): a listing that started earlier and ends later does not overwrite a newer one", async () => {
    const tag = freshTag();
    const key = `grows/${tag}`;
    const hub = new McpHub({ alpha: { url: `${srv.url("grows", tag)}?v=slow-second` } });
    await hub.listTools(); // listing 1
    await hub.tools("openai");
    const slow = hub.listTools(); // listing 2: answered 500 ms late, without grown_1
    await waitFor(async () => (await srv.stats(key)).counters.toolsListCalls === 2);
    await hub.callTool(providerName(hub, "alpha", "chatty"), {}); // grown_1, announced
    assert.equal((await hub.tools("openai")).length, NORMAL_TOOLS.length + 1, "listing 3 has grown_1");
    const late = await slow;
    assert.equal((await srv.stats(key)).counters.toolsListCalls, 3);
    // Listing 2 ended last but started before listing 3: the hub keeps listing 3's tools.
    assert.equal(late.tools.length, NORMAL_TOOLS.length + 1);
    assert.equal((await hub.tools("openai")).length, NORMAL_TOOLS.length + 1);
    await hub.closeAll();
  });

  test("listTools: of two overlapping listings, the one started last wins, whichever ends last", async () => {
    const tag = freshTag();
    const e = endpoints({ beta: "normal" });
    // alpha's second listing is answered 500 ms late.
    const hub = new McpHub({ alpha: { url: `${srv.url("grows", tag)}?v=slow-second` }, beta: e.servers.beta });
    await hub.listTools();
    const older = hub.listTools({ mode: "manual", selectedServers: ["alpha"] });
    await waitFor(async () => (await srv.stats(`grows/${tag}`)).counters.toolsListCalls === 2);
    const newer = await hub.listTools({ mode: "manual", selectedServers: ["beta"] });
    assert.ok(newer.tools.every((t) => t.serverName === "beta"));
    const late = await older;
    assert.ok(late.tools.length > 0 && late.tools.every((t) => t.serverName === "alpha"), "the older one answers with what it found");
    const offered = (await hub.tools("openai")).map((t) => t.function.name);
    assert.deepEqual(offered, NORMAL_TOOLS.map((t) => `mcp__beta__${t.name}`));
    assert.equal((await hub.callTool("mcp__beta__echo", { message: "b" })).text, "b");
    await rejectsWith(hub.callTool("mcp__alpha__echo", { message: "a" }), "UNKNOWN_TOOL_NAME");
    await hub.closeAll();
  });

  test("callTool: an unknown provider name is UNKNOWN_TOOL_NAME (never a guess)", async () => {
    const e = endpoints({ alpha: "normal" });
    const hub = new McpHub(e.servers);
    await hub.tools("anthropic");
    await rejectsWith(hub.callTool("mcp__alpha__nope", {}), "UNKNOWN_TOOL_NAME");
    await rejectsWith(hub.callTool("echo", {}), "UNKNOWN_TOOL_NAME");
    // options.provider of the wrong type is the options' error, as every other option's.
    const wrongType = await rejectsWith(hub.callTool("mcp__alpha__echo", {}, { provider: 1 }), "INVALID_OPTIONS");
    assert.match(wrongType.message, /options\.provider must be a string, got the number 1/);
    await rejectsWith(hub.callTool("mcp__alpha__echo", {}, { provider: "claude" }), "UNKNOWN_PROVIDER");
    assert.equal((await e.stats("alpha")).calls.length, 0);
    await hub.closeAll();
  });

  test("policy: deny -> PERMISSION_DENIED without calling; ask -> confirm() decides", async () => {
    const e = endpoints({ alpha: "normal" });
    const asked = [];
    let answer = false;
    const hub = new McpHub(e.servers, {
      policy: { deny: ["*fail*"], ask: ["*add*"], defaultAction: "allow" },
      confirm: (name, args) => {
        asked.push([name, args]);
        return typeof answer === "function" ? answer() : answer;
      },
    });
    await hub.listTools();
    await hub.tools("openai");
    await assertDenied(hub, "alpha", "fail", "openai", {}, "deny *fail*");
    const add = providerName(hub, "alpha", "add");
    await rejectsWith(hub.callTool(add, { a: 1, b: 1 }), "PERMISSION_DENIED");
    // Only `true` confirms: not a truthy "yes" or 1 (the error says what was returned), nor a confirm
    // that throws or rejects (whose reason the error gives).
    for (const [a, said] of [["yes", /options\.confirm returned the string "yes", not true or false/], [1, /returned the number 1/], [() => Promise.resolve("true"), /returned the string "true"/]]) {
      answer = a;
      const e = await rejectsWith(hub.callTool(add, { a: 1, b: 1 }), "PERMISSION_DENIED");
      assert.match(e.message, said);
    }
    const fail = () => {
      throw new Error("dialog closed");
    };
    for (const a of [() => Promise.reject(new Error("dialog closed")), fail, () => ({ then: fail })]) {
      answer = a;
      const e = await rejectsWith(hub.callTool(add, { a: 1, b: 1 }), "PERMISSION_DENIED");
      assert.match(e.message, /asking for it failed: Error: dialog closed/);
      assert.equal(e.decision, "ask");
    }
    // One that gives no reason is named as what it was.
    for (const [a, said] of [
      [() => Promise.reject(), /asking for it failed: options\.confirm rejected with undefined, which gives no reason/],
      [() => Promise.reject(new Error()), /asking for it failed: options\.confirm rejected with an Error, which gives no reason/],
      [() => { throw undefined; }, /asking for it failed: options\.confirm threw undefined, which gives no reason/],
      [() => { throw "no"; }, /asking for it failed: no \(server "alpha", tool "add"\)$/],
    ]) {
      answer = a;
      const e = await rejectsWith(hub.callTool(add, { a: 1, b: 1 }), "PERMISSION_DENIED");
      assert.match(e.message, said);
    }
    answer = true;
    assert.deepEqual((await hub.callTool(add, { a: 1, b: 1 })).result.structuredContent, { sum: 2 });
    assert.equal(asked.length, 12);
    assert.deepEqual(asked.at(-1), [add, { a: 1, b: 1 }]);
    assert.equal((await hub.callTool(providerName(hub, "alpha", "echo"), { message: "ok" })).text, "ok");
    assert.deepEqual((await e.stats("alpha")).calls.map((c) => c.name), ["add", "echo"]);
    await hub.closeAll();
  });

  test("policy: tools() leaves out the tools the policy denies, says why in droppedTools, and refuses their names unsent", async () => {
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const n = NORMAL_TOOLS.length;
    const policy = { deny: ["mcp__alpha__fail"], allow: ["mcp__alpha"], ask: ["mcp__beta__add"], defaultAction: "deny" };
    const hub = new McpHub(e.servers, { policy, confirm: () => false });
    await hub.listTools();
    // Every tool beta has but add (asked for: offered, as the hub can ask) is denied by default; alpha's fail by a rule.
    const tools = await hub.tools("anthropic", { limits: { maxTools: n } });
    const offered = NORMAL_TOOLS.map((t) => t.name).filter((t) => t !== "fail").map((t) => `mcp__alpha__${t}`).concat("mcp__beta__add");
    assert.deepEqual(tools.map((t) => t.name), offered, "denied tools count for no limit: maxTools is the offered tools' count");
    assert.deepEqual(NameMap.fromJSON(hub.nameMap).names(), offered);
    const dropped = hub.droppedTools;
    assert.ok(dropped.every((d) => d.code === "PERMISSION_DENIED"), JSON.stringify(dropped));
    const index = (t) => NORMAL_TOOLS.findIndex((x) => x.name === t);
    assert.deepEqual(
      dropped.map((d) => [d.server, d.name, d.index]),
      [["alpha", "fail", index("fail")], ...NORMAL_TOOLS.filter((t) => t.name !== "add").map((t) => ["beta", t.name, index(t.name)])],
    );
    assert.equal(
      dropped[0].reason,
      'the permission policy denies server "alpha"\'s tool "fail" (its deny rule "mcp__alpha__fail" matches it): it is not offered, as every call of it would be refused PERMISSION_DENIED; to offer it, take it out of that rule',
    );
    assert.match(dropped[1].reason, /\(no rule matches it, and its defaultAction is "deny"\).*add an allow or ask rule for it \("mcp__beta__echo", or "mcp__beta" for the whole server\)/);
    assert.deepEqual((await hub.listTools()).dropped, dropped);
    await hub.tools("anthropic");
    // A model that guesses a denied tool's name is refused, saying why; nothing is sent.
    for (const name of ["mcp__alpha__fail", "functions.mcp__beta__echo"]) {
      const err = await rejectsWith(hub.callTool(name, { message: "x" }), "PERMISSION_DENIED");
      assert.equal(err.decision, "deny");
      assert.match(err.message, /which the permission policy denies \(.*\): tools\(\) did not offer it, and it was not called/);
      assert.deepEqual([err.server, err.tool], name.includes("alpha") ? ["alpha", "fail"] : ["beta", "echo"]);
    }
    // An asked-for tool is offered and asks (confirm answers false: refused, decision ask); an allowed one is called.
    assert.equal((await rejectsWith(hub.callTool("mcp__beta__add", { a: 1, b: 2 }), "PERMISSION_DENIED")).decision, "ask");
    assert.equal((await hub.callTool("mcp__alpha__echo", { message: "ok" })).text, "ok");
    assert.deepEqual((await e.stats("alpha")).calls.map((c) => c.name), ["echo"]);
    assert.deepEqual((await e.stats("beta")).calls, []);
    await hub.closeAll();
    // Without a confirm callback, what the policy asks for is left out too (every call of it would be
    // refused), reported with how it would be offered; a call of its name is refused, decision ask.
    const unasking = new McpHub(e.servers, { policy });
    await unasking.listTools();
    assert.deepEqual((await unasking.tools("anthropic")).map((t) => t.name), offered.filter((t) => t !== "mcp__beta__add"));
    const add = unasking.droppedTools.find((d) => d.server === "beta" && d.name === "add");
    assert.match(add.reason, /^server "beta"'s tool "add" needs confirmation, and the hub has no confirm callback to ask \(give McpHub options\.confirm\): it is not offered.*an ask rule of the policy matches "mcp__beta__add"/);
    const err = await rejectsWith(unasking.callTool("mcp__beta__add", { a: 1, b: 2 }), "PERMISSION_DENIED");
    assert.deepEqual([err.decision, err.server, err.tool], ["ask", "beta", "add"]);
    assert.deepEqual((await e.stats("beta")).calls, []);
    await unasking.closeAll();
  });

  test("report: the last tools()' conversion report over every server's tools, with the hub's names; reportFor(provider)", async () => {
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const hub = new McpHub(e.servers);
    assert.equal(hub.report, null);
    await hub.listTools();
    await hub.tools("anthropic", { naming: "bare", strict: true });
    const map = NameMap.fromJSON(hub.nameMap);
    const report = hub.report;
    assert.equal(report.provider, "anthropic");
    assert.deepEqual(report.tools.map((t) => t.name), map.names(), "the names the hub gave (both echos hashed)");
    assert.deepEqual(report.tools.map((t) => [t.server, t.tool]), map.names().map((n) => [map.resolve(n).server, map.resolve(n).tool]));
    assert.ok(report.tools.every((t) => typeof t.strict === "boolean"));
    assert.ok(report.tools.some((t) => t.changes.some((c) => c.rule.startsWith("names/"))), JSON.stringify(report.tools.map((t) => t.changes)));
    assert.equal(hub.reportFor("gemini"), null);
    await hub.tools("gemini");
    assert.equal(hub.report.provider, "gemini");
    assert.deepEqual(hub.reportFor("anthropic"), report, "kept until the next tools() for anthropic");
    await assert.rejects(async () => hub.reportFor("gpt"), { code: "UNKNOWN_PROVIDER" });
    await hub.closeAll();
  });

  test("confirm: told the call's server, tool and provider (naming bare), and a signal the call's abort aborts", async () => {
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const asked = [];
    let answer = false;
    const hub = new McpHub(e.servers, {
      policy: { ask: ["*add*"], defaultAction: "allow" },
      confirm: (name, args, call) => {
        asked.push([name, args, call]);
        return answer;
      },
    });
    await hub.listTools();
    await hub.tools("openai-chat", { naming: "bare" });
    const names = [providerName(hub, "alpha", "add"), providerName(hub, "beta", "add")];
    for (const name of names) await rejectsWith(hub.callTool(name, { a: 1, b: 2 }), "PERMISSION_DENIED");
    assert.deepEqual(
      asked.map(([name, args, { server, tool, provider }]) => [name, args, server, tool, provider]),
      [
        [names[0], { a: 1, b: 2 }, "alpha", "add", "openai"],
        [names[1], { a: 1, b: 2 }, "beta", "add", "openai"],
      ],
    );
    for (const [, , { signal }] of asked) {
      assert.ok(signal instanceof AbortSignal);
      assert.equal(signal.aborted, false, "answered: not aborted");
    }
    // Aborted while the answer is awaited: ABORTED at once, and the callback's signal aborted.
    answer = new Promise(() => {});
    const ac = new AbortController();
    const pending = hub.callTool(names[0], { a: 1, b: 2 }, { signal: ac.signal });
    await waitFor(() => asked.length === 3);
    ac.abort();
    const err = await within(2_000, rejectsWith(pending, "ABORTED"), "the aborted call");
    assert.match(err.message, /aborted while its confirmation was asked for/);
    assert.equal(asked[2][2].signal.aborted, true);
    assert.deepEqual((await e.stats("alpha")).calls, []);
    await hub.closeAll();
  });

  test("closeAll() while a call waits for confirm: NOT_CONNECTED at once, confirm's signal aborted, nothing sent after it", async () => {
    const e = endpoints({ alpha: "normal" });
    const asked = [];
    let answer;
    const hub = new McpHub(e.servers, {
      policy: { ask: ["*add*"], defaultAction: "allow" },
      confirm: (name, args, call) => {
        asked.push(call);
        return new Promise((r) => (answer = r));
      },
    });
    await hub.tools("openai");
    const pending = hub.callTool(providerName(hub, "alpha", "add"), { a: 1, b: 2 });
    pending.catch(() => {});
    assert.ok(await waitFor(() => asked.length === 1), "confirm asked");
    assert.deepEqual(await hub.closeAll(), []);
    const err = await within(2_000, rejectsWith(pending, "NOT_CONNECTED"), "the call waiting for confirm");
    assert.deepEqual([err.server, err.tool], ["alpha", "add"]);
    assert.match(err.message, /closeAll\(\) was called while its confirmation was asked for; it was not sent/);
    assert.equal(asked[0].signal.aborted, true, "the dialog can be closed");
    // The user's answer after the close opens no session and calls nothing.
    const before = await e.stats("alpha");
    answer(true);
    await new Promise((r) => setTimeout(r, 300));
    const after = await e.stats("alpha");
    assert.deepEqual([after.initialize.length, after.calls.length], [before.initialize.length, 0]);
    // A call made after the close connects again, as documented.
    assert.equal((await hub.callTool(providerName(hub, "alpha", "echo"), { message: "again" })).text, "again");
    await hub.closeAll();
  });

  test("policy: rules name the server and the tool, whatever naming the provider sees", async () => {
    // `a_b` against `a`, a dotted name OpenAI sanitises, and one too long to stay whole.
    const long = "s".repeat(70);
    const e = endpoints({ a: "normal", a_b: "normal", "my.server": "normal", [long]: "normal" });
    const hub = new McpHub(e.servers, {
      policy: { allow: ["mcp__a"], deny: ["mcp__my.server", `mcp__${long}__echo`], defaultAction: "ask" },
    });
    await hub.listTools();
    for (const naming of [{}, { naming: "server" }, { prefix: "x" }, { separator: "-" }]) {
      await hub.tools("openai", naming);
      const how = JSON.stringify(naming);
      assert.equal((await hub.callTool(providerName(hub, "a", "echo"), { message: "ok" })).text, "ok", how);
      // Not covered by `mcp__a`: the default, "ask", with no confirm: not offered, and refused.
      const notA = await assertDenied(hub, "a_b", "echo", "openai", naming, how, "ask");
      // The message says how it would be allowed.
      assert.match(notA.message, /no confirm callback to ask \(give McpHub options\.confirm\).*add an allow rule \("mcp__a_b__echo", or "mcp__a_b" for the whole server\) or set defaultAction: "allow"/, how);
      for (const server of ["my.server", long]) await assertDenied(hub, server, "echo", "openai", naming, `${how} ${server}`);
    }
    assert.equal((await e.stats("a")).calls.length, 4);
    for (const server of ["a_b", "my.server", long]) assert.equal((await e.stats(server)).calls.length, 0, server);
    await hub.closeAll();
  });

  test("policy: a deny for one server stops no other server whose sanitised name starts with it and _", async () => {
    // "docs - internal" is mcp__docs___internal__... in portable names, "a.-b" mcp__a__b__...: neither is docs's or a's.
    const e = endpoints({ docs: "normal", "docs - internal": "normal", a: "normal", "a.-b": "normal" });
    const hub = new McpHub(e.servers, { policy: { allow: ["mcp__docs - internal", "mcp__a.-b"], deny: ["mcp__docs__*", "mcp__a"], defaultAction: "deny" } });
    await hub.listTools();
    for (const [provider, naming] of [["openai", {}], ["openai", { portableNames: true }], ["gemini", {}], ["openai", { naming: "server" }]]) {
      await hub.tools(provider, naming);
      const how = `${provider} ${JSON.stringify(naming)}`;
      for (const server of ["docs", "a"]) await assertDenied(hub, server, "echo", provider, naming, `${how} ${server}`);
      for (const server of ["docs - internal", "a.-b"]) assert.equal((await hub.callTool(providerName(hub, server, "echo"), { message: "ok" })).text, "ok", `${how} ${server}`);
    }
    for (const server of ["docs", "a"]) assert.equal((await e.stats(server)).calls.length, 0, server);
    for (const server of ["docs - internal", "a.-b"]) assert.equal((await e.stats(server)).calls.length, 4, server);
    await hub.closeAll();
  });

  test("policy: an allow server__* is that server's, never another server's tool whose own name starts so", async () => {
    // Server evil lists a tool named b__c: under naming "server" it is evil__b__c, under "bare" b__c, which
    // reads as server b's tool c. The allow written for server b covers b's tools and not that one.
    const e = endpoints({ b: "normal", evil: "collide" });
    const hub = new McpHub(e.servers, { policy: { allow: ["b__*"], defaultAction: "deny" } });
    await hub.listTools();
    for (const naming of [{}, { naming: "server" }, { naming: "bare" }]) {
      await hub.tools("openai", naming);
      const how = JSON.stringify(naming);
      assert.equal((await hub.callTool(providerName(hub, "b", "echo"), { message: "ok" })).text, "ok", how);
      await assertDenied(hub, "evil", "b__c", "openai", naming, how);
    }
    assert.equal((await e.stats("b")).calls.length, 3);
    assert.equal((await e.stats("evil")).calls.length, 0);
    await hub.closeAll();
  });

  test("policy: a deny or ask written mcp__S__T holds for a gateway's tool of that own name, under every naming", async () => {
    // Server gw lists a tool named mcp__other__echo (as a gateway re-exporting server other's tools would).
    const e = endpoints({ gw: "collide" });
    for (const [policy, code, decision] of [
      [{ deny: ["mcp__other__echo"], defaultAction: "allow" }, "PERMISSION_DENIED", "deny"],
      [{ deny: ["MCP__Other__*"], defaultAction: "allow" }, "PERMISSION_DENIED", "deny"],
      [{ ask: ["mcp__other__echo"], defaultAction: "allow" }, "PERMISSION_DENIED", "ask"],
    ]) {
      let asked = 0;
      const hub = new McpHub(e.servers, { policy, confirm: () => (asked++, false) });
      await hub.listTools();
      for (const naming of [{}, { naming: "server" }, { naming: "bare" }]) {
        await hub.tools("openai", naming);
        const how = `${JSON.stringify(policy)} ${JSON.stringify(naming)}`;
        if (decision === "deny") await assertDenied(hub, "gw", "mcp__other__echo", "openai", naming, how);
        else assert.equal((await rejectsWith(hub.callTool(providerName(hub, "gw", "mcp__other__echo"), {}), code)).decision, decision, how);
        assert.equal((await hub.callTool(providerName(hub, "gw", "b__c"), {})).text, `called b__c on ${e.key("gw")}`, how);
      }
      assert.equal(asked, decision === "ask" ? 3 : 0);
      await hub.closeAll();
    }
    assert.deepEqual([...new Set((await e.stats("gw")).calls.map((c) => c.name))], ["b__c"]);
  });

  test("policy: a glob over the whole name, and a bare tool name, deny under every naming (letter case aside)", async () => {
    // Two servers with the same tools: under naming "bare" every name is hashed.
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const hub = new McpHub(e.servers, { policy: { deny: ["mcp__*fai*", "ECHO"], defaultAction: "allow" } });
    await hub.listTools();
    for (const naming of [{}, { naming: "server" }, { naming: "bare" }, { prefix: "x" }, { separator: "-" }, { portableNames: true }]) {
      await hub.tools("openai", naming);
      const how = JSON.stringify(naming);
      for (const server of ["alpha", "beta"]) {
        for (const tool of ["fail", "echo"]) await assertDenied(hub, server, tool, "openai", naming, `${how} ${server} ${tool}`);
        assert.deepEqual((await hub.callTool(providerName(hub, server, "add"), { a: 1, b: 1 })).result.structuredContent, { sum: 2 }, how);
      }
    }
    for (const server of ["alpha", "beta"]) assert.deepEqual([...new Set((await e.stats(server)).calls.map((c) => c.name))], ["add"], server);
    await hub.closeAll();
  });

  test("policy: a call is judged on the tool its name maps to, as tools() saw it; a deselected server is not called", async () => {
    const e = endpoints({ fs: "normal", web: "normal" });
    let failLists = false;
    const failing = (url, init) => (failLists && JSON.parse(init.body ?? "null")?.method === "tools/list" ? Promise.reject(new TypeError("fetch failed")) : fetch(url, init));
    const asked = [];
    const hub = new McpHub(
      { fs: { url: `${e.servers.fs.url}?v=destructive`, fetch: failing }, web: e.servers.web },
      { policy: { allow: ["mcp__fs", "mcp__web"], askDestructive: true }, confirm: (name) => asked.push(name) && false },
    );
    await hub.listTools();
    await hub.tools("anthropic");
    const fail = providerName(hub, "fs", "fail");
    const echo = providerName(hub, "fs", "echo");
    assert.equal((await rejectsWith(hub.callTool(fail, {}), "PERMISSION_DENIED")).decision, "ask");
    // fs's listing fails: its tools are still called through the map, and `fail` is still destructive.
    failLists = true;
    const { tools, errors } = await hub.listTools();
    assert.deepEqual(errors.map((x) => [x.server, x.error.code]), [["fs", "NETWORK"]]);
    assert.ok(tools.every((t) => t.serverName === "web"));
    assert.equal((await rejectsWith(hub.callTool(fail, {}), "PERMISSION_DENIED")).decision, "ask");
    assert.equal((await hub.callTool(echo, { message: "still here" })).text, "still here");
    assert.deepEqual(asked, [fail, fail]);
    // fs deselected: none of its names is called, through the map of the last tools() or any other.
    await hub.listTools({ mode: "manual", selectedServers: ["web"] });
    for (const [name, tool] of [[fail, "fail"], [echo, "echo"]]) {
      const err = await rejectsWith(hub.callTool(name, { message: "x" }), "UNKNOWN_TOOL_NAME");
      assert.deepEqual([err.server, err.tool], ["fs", tool]);
      assert.match(err.message, /which the last listing did not select/);
    }
    assert.equal(asked.length, 2, "nobody asked");
    assert.deepEqual((await e.stats("fs")).calls.map((c) => c.name), ["echo"]);
    assert.equal((await hub.callTool(providerName(hub, "web", "echo"), { message: "web" })).text, "web");
    await hub.closeAll();
  });

  test("confirm: a server deselected (or tools turned off) while a call waits for its answer is not called", async () => {
    for (const deselect of [{ mode: "manual", selectedServers: ["beta"] }, { enabled: false }]) {
      const e = endpoints({ alpha: "normal", beta: "normal" });
      let answer;
      const hub = new McpHub(e.servers, { policy: { ask: ["mcp__alpha"], defaultAction: "allow" }, confirm: () => new Promise((resolve) => (answer = resolve)) });
      await hub.listTools();
      await hub.tools("openai");
      const pending = hub.callTool(providerName(hub, "alpha", "echo"), { message: "x" });
      await waitFor(() => answer !== undefined);
      await hub.listTools(deselect);
      answer(true);
      const err = await rejectsWith(pending, "UNKNOWN_TOOL_NAME");
      assert.deepEqual([err.server, err.tool], ["alpha", "echo"]);
      assert.match(err.message, /made while the call waited for its confirmation, did not select/);
      assert.deepEqual((await e.stats("alpha")).calls, [], JSON.stringify(deselect));
      await hub.closeAll();
    }
  });

  test("callTool: signal -> ABORTED and timeoutMs -> TIMEOUT, each with notifications/cancelled and the socket closed", async () => {
    const e = endpoints({ slow: "hang" });
    const hub = new McpHub(e.servers);
    await hub.tools("openai");
    const echo = providerName(hub, "slow", "echo");
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    await rejectsWith(within(10_000, hub.callTool(echo, { message: "x" }, { signal: ac.signal }), "aborted call"), "ABORTED");
    const timedOut = await rejectsWith(within(10_000, hub.callTool(echo, { message: "y" }, { timeoutMs: 300 }), "timed-out call"), "TIMEOUT");
    assert.deepEqual([timedOut.server, timedOut.tool], ["slow", "echo"], "the error names the server and the MCP tool");
    const st = await waitFor(async () => { const st = await e.stats("slow"); return st.cancelled.length === 2 && st.calls.every((c) => c.closedByClient) && st; });
    assert.ok(st, JSON.stringify(await e.stats("slow")));
    assert.deepEqual(st.cancelled.map((c) => c.requestId), st.calls.map((c) => c.id));
    await hub.closeAll();
  });

  test("a server whose session expires is re-initialized transparently", async () => {
    const e = endpoints({ alpha: "expire" });
    const hub = new McpHub(e.servers);
    const { tools, errors } = await hub.listTools();
    assert.deepEqual(errors, []);
    assert.equal(tools.length, NORMAL_TOOLS.length);
    assert.equal((await e.stats("alpha")).methods.initialize, 2);
    await hub.closeAll();
  });

  test("listTools: a server that takes the connection and never answers is a TIMEOUT after timeoutMs; the others do not wait", async () => {
    const { createServer } = await import("node:net");
    const sockets = [];
    const hole = createServer((socket) => sockets.push(socket));
    await new Promise((resolve) => hole.listen(0, "127.0.0.1", resolve));
    const e = endpoints({ alpha: "normal" });
    const hub = new McpHub({ ...e.servers, hole: { url: `http://127.0.0.1:${hole.address().port}/mcp` } });
    await rejectsWith(hub.listTools({ timeoutMs: "soon" }), "INVALID_OPTIONS");
    const started = Date.now();
    const { tools, errors } = await within(10_000, hub.listTools({ timeoutMs: 500 }), "listTools");
    assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
    assert.equal(tools.length, NORMAL_TOOLS.length);
    assert.deepEqual(errors.map((x) => [x.server, x.error.code, x.error.timeoutMs]), [["hole", "TIMEOUT", 500]]);
    await hub.closeAll();
    for (const socket of sockets) socket.destroy();
    hole.close();
  });

  test("listTools: a tools/list given up at the hub's timeoutMs is cancelled, as a timeoutMs of the client's is", async () => {
    // A fetch that holds every tools/list (until aborted) and notes the notifications/cancelled sent.
    const told = [];
    let lists = 0;
    const holding = (url, init) => {
      const body = String(init?.body ?? "");
      if (body.includes('"notifications/cancelled"')) told.push(JSON.parse(body).params);
      if (!body.includes('"tools/list"') || lists++ === 0) return fetch(url, init);
      return new Promise((resolve, reject) => init.signal?.addEventListener("abort", () => reject(init.signal.reason)));
    };
    const e = endpoints({ slow: "normal" });
    const hub = new McpHub({ slow: { url: e.servers.slow.url, fetch: holding } });
    assert.deepEqual((await hub.listTools()).errors, [], "the first listing goes through");
    const { errors } = await within(10_000, hub.listTools({ timeoutMs: 300 }), "listTools");
    assert.deepEqual(errors.map((x) => [x.error.code, x.error.timeoutMs]), [["TIMEOUT", 300]]);
    await waitFor(() => told.length === 1);
    assert.equal(told.length, 1, "notifications/cancelled sent");
    assert.equal(told[0].reason, "timeout");
    assert.equal(typeof told[0].requestId, "number");
    await hub.closeAll();
  });

  test("arguments: a non-object is INVALID_ARGUMENTS; a tool whose input schema is not an object is not called", async () => {
    const e = endpoints({ alpha: "normal" });
    const hub = new McpHub({ alpha: { url: `${e.servers.alpha.url}?v=string-root` } });
    const tools = await hub.tools("openai");
    const add = providerName(hub, "alpha", "add");
    for (const bad of [[1, 2], "[1]", 42, '"x"']) {
      const err = await rejectsWith(hub.callTool(add, bad), "INVALID_ARGUMENTS", JSON.stringify(bad));
      assert.match(err.message, /must be a JSON object, got/);
    }
    // The provider was given `shout` wrapped as {input}; its arguments unwrap to a string, which MCP cannot send.
    const shout = providerName(hub, "alpha", "shout");
    assert.deepEqual(tools.find((t) => t.function.name === shout).function.parameters.required, ["input"]);
    const err = await rejectsWith(hub.callTool(shout, { input: "hi" }), "INVALID_ARGUMENTS");
    assert.match(err.message, /cannot be called through MCP: its input schema is not an object schema, and its arguments are string/);
    assert.equal((await e.stats("alpha")).methods["tools/call"], undefined, "nothing was sent");
    assert.deepEqual((await hub.callTool(add, '{"a":1,"b":2}')).result.structuredContent, { sum: 3 });
    // The text "null" is no arguments, as null is: the tool is called with {} (its message missing: the tool's error).
    for (const none of [null, "null"]) {
      const r = await hub.callTool(providerName(hub, "alpha", "echo"), none);
      assert.deepEqual([r.isError, (await e.stats("alpha")).calls.at(-1).arguments], [true, {}], JSON.stringify(none));
    }
    await hub.closeAll();
  });

  test("tools(anthropic) renames keys Claude refuses; callTool gives the server its own keys", async () => {
    const e = endpoints({ alpha: "normal" });
    const hub = new McpHub({ alpha: { url: `${e.servers.alpha.url}?v=odata` } });
    for (const provider of ["anthropic", "bedrock"]) {
      const tools = await hub.tools(provider);
      const odata = providerName(hub, "alpha", "odata");
      const tool = tools.find((t) => (t.toolSpec?.name ?? t.name) === odata);
      const schema = provider === "bedrock" ? tool.toolSpec.inputSchema.json : tool.input_schema;
      assert.deepEqual(Object.keys(schema.properties), ["dollar_filter", "dollar_top", "at_odata.type"], provider);
      assert.deepEqual(schema.required, ["dollar_filter"]);
      const r = await hub.callTool(odata, { dollar_filter: "x eq 1", dollar_top: 3, "at_odata.type": "#t" }, { provider });
      assert.deepEqual(JSON.parse(r.text), { $filter: "x eq 1", $top: 3, "@odata.type": "#t" }, provider);
    }
    // OpenAI keeps them.
    const openai = await hub.tools("openai");
    const odata = providerName(hub, "alpha", "odata");
    assert.deepEqual(Object.keys(openai.find((t) => t.function.name === odata).function.parameters.properties), ["$filter", "$top", "@odata.type"]);
    await hub.closeAll();
  });

  test("a call's reconnection after closeAll is bounded by the call's timeoutMs and signal", async () => {
    const e = endpoints({ alpha: "normal" });
    let hang = false;
    // After closeAll, the server takes requests and never answers (the fetch ends only when aborted).
    const fetchLike = (url, init) =>
      hang ? new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))) : fetch(url, init);
    const hub = new McpHub({ alpha: { url: e.servers.alpha.url, fetch: fetchLike } });
    await hub.tools("openai");
    const echo = providerName(hub, "alpha", "echo");
    await hub.closeAll();
    hang = true;
    const started = Date.now();
    const timedOut = await rejectsWith(within(10_000, hub.callTool(echo, { message: "x" }, { timeoutMs: 300 }), "the call"), "TIMEOUT");
    assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
    assert.deepEqual([timedOut.server, timedOut.tool], ["alpha", "echo"]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    await rejectsWith(within(10_000, hub.callTool(echo, { message: "x" }, { signal: ac.signal }), "the aborted call"), "ABORTED");
    hang = false;
    await hub.closeAll();
  });

  test("closeAll: DELETE for every connected server; a 405 is fine; a call afterwards connects again", async () => {
    const e = endpoints({ alpha: "normal", beta: "delete-405" });
    const hub = new McpHub(e.servers);
    await hub.tools("openai");
    const failures = await hub.closeAll();
    assert.deepEqual(failures, []);
    assert.equal((await e.stats("alpha")).deletes[0].status, 200);
    assert.equal((await e.stats("beta")).deletes[0].status, 405);
    const r = await hub.callTool(providerName(hub, "alpha", "echo"), { message: "again" });
    assert.equal(r.text, "again");
    assert.equal((await e.stats("alpha")).methods.initialize, 2);
    await hub.closeAll();
  });
});

describe("McpHub against malicious servers", () => {
  test("collide: server names and tool names that read alike once prefixed get distinct names, each routed right", async () => {
    // A server named a__b is refused (see hostile.test.mjs); with `_` as the separator, a_b's tool c and a's
    // tool b_c would both be mcp_a_b_c, and a's tool b__c reads like a_b's tool _c.
    const e = endpoints({ a: "collide", a_b: "collide" });
    const hub = new McpHub(e.servers);
    const { tools, errors } = await hub.listTools();
    assert.deepEqual(errors, []);
    assert.equal(tools.length, 2 * COLLIDE_TOOLS.length);
    for (const provider of ["openai", "anthropic", "gemini"]) {
      const out = await hub.tools(provider, { separator: "_" });
      const map = NameMap.fromJSON(hub.nameMap);
      const names = map.names();
      assert.equal(new Set(names).size, names.length, `${provider}: unique names`);
      if (provider === "openai") {
        for (const n of out.map((t) => t.function.name)) assert.match(n, OPENAI_NAME);
        assert.ok(names.length >= 2 * (COLLIDE_TOOLS.length - 1), "at most the duplicate `dup` of a server is dropped");
      }
    }
    // Each server's second `dup` is said, and still offered (each name calls the one tool).
    assert.deepEqual(
      hub.droppedTools.map((d) => [d.server, d.name, d.index, d.code]),
      [["a", "dup", 5, "INVALID_TOOL"], ["a_b", "dup", 5, "INVALID_TOOL"]],
    );
    assert.match(hub.droppedTools[0].reason, /server "a" lists tool "dup" again \(first at index 4\)/);
    assert.deepEqual((await hub.listTools()).dropped, hub.droppedTools);
    await hub.tools("openai", { separator: "_" });
    const x = providerName(hub, "a", "b__c");
    const y = providerName(hub, "a_b", "c");
    assert.notEqual(x, y);
    assert.equal(x, "mcp_a_b__c", "a server without the separator keeps the plain name");
    assert.match(y, /^mcp_a_b_c_[0-9a-z]{8}$/, "a server holding the separator is hashed");
    const rx = await hub.callTool(x, {});
    const ry = await hub.callTool(y, {});
    assert.deepEqual([rx.server, rx.tool, rx.text], ["a", "b__c", `called b__c on ${e.key("a")}`]);
    assert.deepEqual([ry.server, ry.tool, ry.text], ["a_b", "c", `called c on ${e.key("a_b")}`]);
    // every name routes to the server and tool it claims
    const map = NameMap.fromJSON(hub.nameMap);
    for (const n of map.names()) {
      const { server, tool } = map.resolve(n);
      const r = await hub.callTool(n, {});
      assert.equal(r.text, `called ${tool} on ${e.key(server)}`, n);
    }
    await hub.closeAll();
  });

  test("tools() for two providers: each keeps its map; callTool's provider picks it, nameMapFor gives it", async () => {
    const e = endpoints({ alpha: "normal" });
    const hub = new McpHub(e.servers);
    await within(15_000, hub.tools("openai", { strict: true }), "tools(openai)");
    await hub.tools("anthropic");
    const name = providerName(hub, "alpha", "long");
    // The OpenAI strict model's null for the absent intervalMs is dropped by OpenAI's map only.
    await hub.callTool(name, { steps: 1, intervalMs: null }, { provider: "openai" });
    await hub.callTool(name, { steps: 1, intervalMs: null });
    const calls = (await e.stats("alpha")).calls.map((c) => c.arguments);
    assert.deepEqual(calls, [{ steps: 1 }, { steps: 1, intervalMs: null }]);
    assert.ok(NameMap.fromJSON(hub.nameMapFor("openai")).prepareArguments(name, { steps: 1, intervalMs: null }).intervalMs === undefined);
    assert.deepEqual(hub.nameMapFor("anthropic"), hub.nameMap, "without a provider: the last tools() map");
    assert.equal(hub.nameMapFor("gemini"), null);
    const err = await rejectsWith(hub.callTool(name, { steps: 1 }, { provider: "gemini" }), "UNKNOWN_TOOL_NAME");
    assert.match(err.message, /call tools\("gemini"\) first/);
    await rejectsWith(hub.callTool(name, { steps: 1 }, { provider: "mistral" }), "UNKNOWN_PROVIDER");
    await hub.closeAll();
  });

  test("huge-list: that server's error is LIMIT_EXCEEDED; the others still list", async () => {
    const e = endpoints({ huge: "huge-list", fine: "normal" });
    const hub = new McpHub(e.servers);
    const { tools, errors } = await within(20_000, hub.listTools(), "listTools");
    assert.deepEqual(errors.map((x) => [x.server, x.error.code]), [["huge", "LIMIT_EXCEEDED"]]);
    assert.deepEqual(tools.map((t) => t.serverName), NORMAL_TOOLS.map(() => "fine"));
    await hub.closeAll();
  });

  // Closing ends in-flight calls too (rejecting them and aborting their fetches), not only the sessions.
  test("closeAll: a hanging server does not block it for more than ~3 s, and ends the pending call", async () => {
    const e = endpoints({ slow: "hang", fine: "normal" });
    const hub = new McpHub(e.servers);
    await hub.tools("openai");
    const pending = hub.callTool(providerName(hub, "slow", "echo"), {}).catch((err) => err);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await within(8000, hub.closeAll(), "closeAll");
    assert.ok(Date.now() - started < 4000);
    const err = await within(8000, pending, "the pending call");
    assert.equal(err?.name, "ToolwireError", String(err));
    assert.ok(await waitFor(async () => (await e.stats("slow")).calls[0]?.closedByClient), "the pending call's request was aborted");
  });

  test("free(): the calls and requests it abandons reject NOT_CONNECTED with their server (and the call's tool)", async () => {
    const e = endpoints({ slow: "hang", fine: "normal" });
    const hub = new McpHub(e.servers);
    await hub.tools("openai");
    const call = hub.callTool(providerName(hub, "slow", "echo"), {}).catch((err) => err);
    const request = hub.request("slow", "tools/call", { name: "echo", arguments: {} }).catch((err) => err);
    assert.ok(await waitFor(async () => (await e.stats("slow")).calls.length === 2), "both sent");
    hub.free();
    const [c, r] = await within(3_000, Promise.all([call, request]), "the abandoned calls");
    assert.deepEqual([c.code, c.server, c.tool], ["NOT_CONNECTED", "slow", "echo"]);
    assert.match(c.message, /callTool was abandoned: the McpHub was freed/);
    assert.deepEqual([r.code, r.server, r.tool], ["NOT_CONNECTED", "slow", undefined]);
    assert.match(r.message, /request was abandoned: the McpHub was freed/);
  });

  test("listen: servers without a standalone stream (GET 405) say so; servers the last listTools() left out and not connected are not listened to", async () => {
    const e = endpoints({ alpha: "normal", beta: "normal" });
    const hub = new McpHub(e.servers);
    await hub.listTools({ mode: "manual", selectedServers: ["alpha"] });
    assert.deepEqual(await within(5_000, hub.listen(), "listen()"), { servers: { alpha: false }, errors: [] });
    await hub.closeAll();
  });

  // listen() called first (as an app starts it beside its first turn) once listened on nothing: no server was
  // connected yet.
  test("listen() before any listing: connects every server and listens on it (a change announced on the stream is heard)", async () => {
    const { startMcpServer } = await import("../../www-demo/server.mjs");
    const demo = await startMcpServer({ port: 0 });
    try {
      const e = endpoints({ plain: "normal" });
      const changes = [];
      let gets = 0;
      const counting = (url, init) => {
        if (init.method === "GET") gets++;
        return fetch(url, init);
      };
      const hub = new McpHub({ demo: { url: demo.url, fetch: counting, onToolListChanged: () => changes.push("demo") }, plain: e.servers.plain });
      const ends = [];
      const listening = hub.listen({ onEnd: (end) => ends.push(end) });
      const first = (await hub.tools("openai")).map((t) => t.function.name);
      assert.ok(first.includes("mcp__demo__toggle_tools") && !first.includes("mcp__demo__moon_phase"));
      assert.ok(await waitFor(() => gets > 0 && ends.length === 1, { timeoutMs: 5_000 }), "demo's stream opened, plain's refused");
      assert.deepEqual(ends, [{ server: "plain", offered: false }]);
      assert.equal((await e.stats("plain")).methods.initialize, 1, "one session for listen() and tools()");
      await new Promise((r) => setTimeout(r, 200));
      // toggle_tools announces the change on the standalone stream only.
      await hub.callTool("mcp__demo__toggle_tools", {});
      assert.ok(await waitFor(() => changes.length > 0, { timeoutMs: 5_000 }), "notifications/tools/list_changed heard on the stream");
      assert.ok((await hub.tools("openai")).some((t) => t.function.name === "mcp__demo__moon_phase"));
      assert.deepEqual(await hub.closeAll(), []);
      assert.deepEqual(await within(5_000, listening, "listen() after closeAll()"), { servers: { demo: true, plain: false }, errors: [] });
    } finally {
      await demo.close();
    }
  });
});
