// Node loads two modules (pkg-template/index.cjs): everything but the MCP client runs in the one built without
// it, and McpClient and McpHub in the whole one, loaded on the first of them. These check that a process that
// only converts never loads the whole one, and that the client's classes behave as the module's own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { copyFileSync, cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));

/** Runs `body` in a fresh Node process (CommonJS, `tw` = the package, `loaded()` = which glue files are loaded). */
function fresh(body, dir = pkgDir) {
  const script = `
const tw = require(${JSON.stringify(dir)});
const loaded = () => Object.keys(require.cache).filter((f) => /[\\\\/]node[\\\\/]toolwire(_convert)?\\.js$/.test(f)).map((f) => f.replace(/.*[\\\\/]/, "")).sort();
${body}`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split("\n");
}

test("modules: converting, naming and flattening in Node load only the module without the MCP client", () => {
  const out = fresh(`
console.log(loaded().join());
const tools = [{ name: "search", inputSchema: { type: "object", properties: { q: { type: ["string", "null"] } } } }];
tw.convertMcpTools(tools, "gemini", { server: "s" });
tw.convertMcpToolsJson(JSON.stringify(tools), "openai", { strict: true });
const map = tw.NameMap.fromTools(tools, "anthropic", { server: "s" });
tw.parseToolCalls({ content: [{ type: "tool_use", id: "1", name: "mcp__s__search", input: {} }] }, "anthropic", map);
new tw.PermissionPolicy({ deny: ["mcp__s__*"] }).check("mcp__s__search");
tw.flattenContent({ content: [{ type: "text", text: "x" }] });
console.log(loaded().join());
console.log(typeof tw.McpClient, typeof tw.McpHub);
console.log(loaded().join());`);
  assert.deepEqual(out, ["toolwire_convert.js", "toolwire_convert.js", "function function", "toolwire_convert.js"]);
});

test("modules: the first McpClient or McpHub loads the whole module, once; its objects are the classes' own", () => {
  const out = fresh(`
const client = new tw.McpClient("http://127.0.0.1:9/mcp");
console.log(loaded().join());
console.log(client instanceof tw.McpClient, client instanceof tw.McpHub, typeof client.connect, typeof client[Symbol.asyncDispose]);
class Mine extends tw.McpHub { extra() { return "mine"; } }
const hub = new Mine({ a: { url: "http://127.0.0.1:9/mcp" } });
console.log(hub instanceof Mine, hub instanceof tw.McpHub, hub.extra(), typeof hub.tools, Object.getPrototypeOf(hub) === Mine.prototype);
console.log({} instanceof tw.McpClient, tw.McpClient.prototype.callTool === Object.getPrototypeOf(client).callTool);
client.free();
try { client.sessionId; } catch (e) { console.log(e.name, e.code, e.message); }
try { new tw.McpClient(5); } catch (e) { console.log(e instanceof tw.ToolwireError, e.code); }
console.log(client.constructor === tw.McpClient, tw.McpClient.prototype.isPrototypeOf(client), Object.getPrototypeOf(client) === tw.McpClient.prototype);
console.log(loaded().join());`);
  assert.deepEqual(out, [
    "toolwire.js,toolwire_convert.js",
    "true false function function",
    "true true mine function true",
    "false true",
    "ToolwireError INVALID_INPUT this McpClient was freed (free() was called on it): make a new one",
    "true INVALID_INPUT",
    "true true true",
    "toolwire.js,toolwire_convert.js",
  ]);
});

test("modules: a hub applies a PermissionPolicy made in the other module (read by its toJSON)", async () => {
  const tw = await import("../../pkg/index.mjs");
  const obj = { type: "object", properties: {} };
  const listed = { "http://github/mcp": [{ name: "list_issues", inputSchema: obj }], "http://evil/mcp": [{ name: "github__delete_repo", inputSchema: obj }] };
  const fetch = async (url, init = {}) => {
    if ((init.method ?? "GET") !== "POST") return new Response(null, { status: 405 });
    const m = JSON.parse(init.body);
    if (!("id" in m)) return new Response(null, { status: 202 });
    const result =
      m.method === "initialize"
        ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } }
        : m.method === "tools/list"
          ? { tools: listed[String(url)] }
          : {};
    return Response.json({ jsonrpc: "2.0", id: m.id, result });
  };
  const policy = new tw.PermissionPolicy({ allow: ["github__*"], defaultAction: "deny" });
  const hub = new tw.McpHub({ github: { url: "http://github/mcp" }, evil: { url: "http://evil/mcp" } }, { fetch, policy });
  const names = (await hub.tools("openai", { naming: "server" })).map((t) => t.function.name);
  assert.deepEqual(names, ["github__list_issues"]);
  assert.deepEqual(hub.droppedTools.map((d) => d.code), ["PERMISSION_DENIED"]);
  await hub.closeAll();
  hub.free();
  policy.free();
});

test("modules: a spy or stub set on McpClient.prototype before any client is made reaches the clients", () => {
  const out = fresh(`
const real = tw.McpClient.prototype.connect;
tw.McpClient.prototype.connect = function () { return "stubbed " + (this instanceof tw.McpClient); };
const client = new tw.McpClient("http://127.0.0.1:9/mcp");
console.log(client.connect(), typeof real);
tw.McpClient.prototype.connect = real; // (as a spy restores it)
const connecting = client.connect();
connecting.catch(() => {}); // (abandoned by free() below)
console.log(connecting instanceof Promise);
// A mock generator walking the prototype's own names and descriptors finds the methods.
const names = Object.getOwnPropertyNames(tw.McpHub.prototype);
console.log(names.includes("listTools"), names.includes("closeAll"), typeof Object.getOwnPropertyDescriptor(tw.McpHub.prototype, "tools").value);
// await using closes through the prototype's close (a spy there sees it), then frees.
let closed = 0;
const close = tw.McpClient.prototype.close;
tw.McpClient.prototype.close = function () { closed++; return close.call(this); };
(async () => {
  const disposed = new tw.McpClient("http://127.0.0.1:9/mcp");
  await disposed[Symbol.asyncDispose](); // what "await using" calls
  client.free();
  console.log(closed, Object.getPrototypeOf(tw.McpClient.prototype) === Object.prototype);
})();`);
  assert.deepEqual(out, ["stubbed true function", "true", "true true function", "1 true"]);
});

test("modules: using and await using call a subclass's own close() and free(); the module's internals refuse other objects", () => {
  const out = fresh(`
const said = [];
class Logged extends tw.McpClient {
  async close() { said.push("Logged.close"); return super.close(); }
  free() { said.push("Logged.free"); return super.free(); }
}
(async () => {
  const a = new Logged("http://127.0.0.1:9/mcp");
  await a[Symbol.asyncDispose]();
  const b = new Logged("http://127.0.0.1:9/mcp");
  b[Symbol.dispose]();
  console.log(said.join(), a.__wbg_ptr, b.__wbg_ptr);
  // wasm-bindgen's free() step, called on another object (a NameMap of the other module), does nothing to it.
  const map = tw.NameMap.fromTools([{ name: "t" }], "openai");
  console.log(tw.McpClient.prototype.__destroy_into_raw.call(map), map.has("t"));
})();`);
  assert.deepEqual(out, ["Logged.close,Logged.free,Logged.free 0 0", "0 true"]);
});

test("modules: the entry's McpClient and McpHub forward every member of the module's classes", () => {
  const out = fresh(`
const raw = require(${JSON.stringify(pkgDir + "node/toolwire.js")});
for (const name of ["McpClient", "McpHub"]) {
  const members = (proto) => Object.getOwnPropertyNames(proto).filter((k) => k !== "constructor" && !k.startsWith("__")).map((k) => k + (Object.getOwnPropertyDescriptor(proto, k).get ? " (get)" : "")).sort().join();
  console.log(members(raw[name].prototype) === members(tw[name].prototype), members(tw[name].prototype).length > 0);
}`);
  assert.deepEqual(out, ["true true", "true true"]);
});

test("modules: the two modules' objects are told apart while a method runs (their pointers may be equal)", () => {
  // An accumulator of the conversions' module and a client of the other's at the same address: a getter that
  // reads the client while the accumulator is busy is no reentry into the client.
  const out = fresh(`
const accs = [], clients = [];
for (let i = 0; i < 300; i++) accs.push(new tw.ToolCallAccumulator("openai"));
for (let i = 0; i < 300; i++) clients.push(new tw.McpClient("http://127.0.0.1:9/mcp"));
const byPtr = new Map(accs.map((a) => [a.__wbg_ptr, a]));
const pair = clients.map((c) => [c, byPtr.get(c.__wbg_ptr)]).find(([, a]) => a);
console.log(pair !== undefined);
const [client, acc] = pair;
let read;
const chunk = { choices: [{ index: 0, delta: { get tool_calls() { try { read = String(client.sessionId); } catch (e) { read = e.message; } return []; } } }] };
acc.push(chunk);
console.log(read);
// The same object is still refused, as before.
let again;
const self = { choices: [{ index: 0, delta: { get tool_calls() { try { acc.finish(); again = "no error"; } catch (e) { again = e.code; } return []; } } }] };
acc.push(self);
console.log(again);`);
  assert.deepEqual(out, ["true", "undefined", "INVALID_INPUT"]);
});

test("modules: reading McpClient.prototype loads nothing; a method called on something else loads the module and says so", () => {
  const out = fresh(`
const connect = tw.McpClient.prototype.connect;
console.log(typeof connect, "listTools" in tw.McpHub.prototype, "nope" in tw.McpHub.prototype, String(tw.McpClient.prototype), loaded().join());
try { connect.call({}); } catch (e) { console.log(e.code, loaded().join()); }
try { tw.McpClient.prototype.connect(); } catch (e) { console.log(e.message); }`);
  assert.deepEqual(out, [
    "function true false [object Object] toolwire_convert.js",
    "INVALID_INPUT toolwire.js,toolwire_convert.js",
    "McpClient.connect() was called on McpClient.prototype, not on an McpClient: use it on an McpClient toolwire made",
  ]);
});

test("modules: without the client's .wasm, converting works, the first client says LOAD_FAILED, and a retry after it is put back works", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolwire-modules-"));
  try {
    cpSync(pkgDir, dir, { recursive: true });
    const wasm = join(dir, "web", "toolwire_bg.wasm");
    renameSync(wasm, wasm + ".away");
    const out = fresh(
      `
console.log(tw.convertMcpTools([{ name: "a" }], "openai").length);
const make = () => { try { new tw.McpClient("http://127.0.0.1:9/mcp").free(); return "made"; } catch (e) { return e.code + " " + e.message.split(";")[0]; } };
console.log(make());
// Reading the classes' prototypes loads nothing, and so never throws.
console.log(typeof tw.McpClient.prototype.connect, "listTools" in tw.McpHub.prototype, require("node:util").inspect(tw, { showHidden: true }).length > 0);
require("node:fs").renameSync(${JSON.stringify(wasm + ".away")}, ${JSON.stringify(wasm)});
console.log(make(), typeof tw.McpClient.prototype.connect);`,
      dir,
    );
    assert.deepEqual(out, ["1", "LOAD_FAILED toolwire: cannot read its WebAssembly module", "function true true", "made function"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("modules: a client module a bundler kept half-loaded after it failed gives the first failure again, not a ReferenceError", () => {
  // webpack's runtime keeps the exports of a module that threw while loading; here the CommonJS cache is given
  // such exports after the first failure (functions that throw a ReferenceError, as the glue's then do).
  const dir = mkdtempSync(join(tmpdir(), "toolwire-modules-"));
  try {
    cpSync(pkgDir, dir, { recursive: true });
    rmSync(join(dir, "web", "toolwire_bg.wasm"));
    const glue = join(dir, "node", "toolwire.js");
    const out = fresh(
      `
const make = () => { try { new tw.McpHub({}).free(); return "made"; } catch (e) { return e.name + " " + e.code; } };
console.log(make());
const half = () => { throw new ReferenceError("Cannot access 'wasm' before initialization"); };
require.cache[${JSON.stringify(glue)}] = { id: ${JSON.stringify(glue)}, filename: ${JSON.stringify(glue)}, loaded: true, exports: { version: half, McpClient: half, McpHub: half } };
console.log(make());
console.log(make());`,
      dir,
    );
    assert.deepEqual(out, ["ToolwireError LOAD_FAILED", "ToolwireError LOAD_FAILED", "ToolwireError LOAD_FAILED"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("modules: a client module that is no module, or another build's, is LOAD_FAILED with what it met; converting goes on", () => {
  for (const [kind, make] of [
    ["truncated", (file) => writeFileSync(file, readFileSync(file).subarray(0, 100_000))],
    ["another build's", (file) => copyFileSync(join(dirname(file), "toolwire_convert_bg.wasm"), file)],
  ]) {
    const dir = mkdtempSync(join(tmpdir(), "toolwire-modules-"));
    try {
      cpSync(pkgDir, dir, { recursive: true });
      make(join(dir, "web", "toolwire_bg.wasm"));
      const out = fresh(
        `
try { new tw.McpClient("http://127.0.0.1:9/mcp"); } catch (e) { console.log(e instanceof tw.ToolwireError, e.code, e.message.startsWith("toolwire: cannot load the module with the MCP client (web/toolwire_bg.wasm, or its copy beside a bundle; another build's?): "), e.cause?.name); }
console.log(tw.convertMcpTools([{ name: "a" }], "openai").length);`,
        dir,
      );
      assert.match(out[0], /^true LOAD_FAILED true (CompileError|TypeError|LinkError)$/, kind);
      assert.equal(out[1], "1", kind);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test("modules: a hardened package (every export, prototype and member frozen) still gives working clients", () => {
  // (The language's own objects are left alone: SES's lockdown freezes those its own way.)
  const out = fresh(`
const seen = new Set([Object.prototype, Function.prototype, Error.prototype]);
const harden = (v) => {
  if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v)) return;
  seen.add(v);
  Object.freeze(v);
  harden(Object.getPrototypeOf(v));
  for (const k of Reflect.ownKeys(v)) { const d = Object.getOwnPropertyDescriptor(v, k); harden(d.value); harden(d.get); harden(d.set); }
};
harden(tw);
const c = new tw.McpClient("http://127.0.0.1:9/mcp");
console.log(c instanceof tw.McpClient, typeof c.connect, String(c.sessionId), [...Object.keys(c)].length);
(() => { "use strict"; try { c.sessionId = "forged"; } catch (e) { console.log(e.name); } })();
c.free();
c.connect().catch((e) => console.log(e.code));
// A new.target whose prototype is no object gives the class's own (as the language does).
const odd = function () {}; odd.prototype = 5;
const r = Reflect.construct(tw.McpHub, [{}], odd);
console.log(Object.getPrototypeOf(r) === tw.McpHub.prototype);
r.free();`);
  assert.deepEqual(out, ["true function undefined 0", "TypeError", "true", "INVALID_INPUT"]);
});

test("modules: a frozen McpClient.prototype (SES's harden) still gives working clients", () => {
  const out = fresh(`
Object.freeze(tw.McpClient.prototype);
const make = () => { try { const c = new tw.McpClient("http://127.0.0.1:9/mcp"); const r = [c instanceof tw.McpClient, typeof c.connect, String(c.sessionId)]; c.free(); return r.join(" "); } catch (e) { return e.name + " " + e.message; } };
console.log(make());
console.log(make());`);
  assert.deepEqual(out, ["true function undefined", "true function undefined"]);
});
