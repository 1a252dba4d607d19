// The browser/bundler entry (pkg/web.mjs), run in Node with the .wasm bytes passed in (Node's fetch has
// no file: URLs). Checks the init protocol, then the same contract as the Node entries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import contract from "./contract.cjs";
import * as web from "../../pkg/web.mjs";

const wasmUrl = new URL("../../pkg/web/toolwire_bg.wasm", import.meta.url);

test("web: before initAsync every export throws a clear error", () => {
  assert.equal(typeof web.ToolwireError, "function", "the error class needs no wasm");
  const message = "toolwire: call `await initAsync()` first";
  assert.throws(() => web.convertMcpTools([], "openai"), (e) => e instanceof web.ToolwireError && e.code === "NOT_INITIALIZED" && e.message === message);
  assert.throws(() => web.convertMcpTools([], "openai"), { message });
  assert.throws(() => web.convertMcpToolsJson("[]", "openai"), { message });
  assert.throws(() => web.checkTools([], "openai"), { message });
  assert.throws(() => web.flattenContent([]), { message });
  assert.throws(() => web.version(), { message });
  assert.throws(() => web.NameMap.fromTools([], "openai"), { message });
  assert.throws(() => web.NameMap.fromJSON("{}"), { message });
  assert.throws(() => web.parseToolCalls({}, "openai"), { message });
  assert.throws(() => web.toolResultMessage({ id: "c", name: "t" }, [], "openai"), { message });
  assert.throws(() => web.toolResultMessages([], [], "openai"), { message });
  assert.throws(() => web.toolsSystemPrompt([]), { message });
  assert.throws(() => new web.ToolCallAccumulator("openai"), { message });
  assert.throws(() => new web.PermissionPolicy({}), { message });
});

/** The LOAD_FAILED error initAsync(input) rejects with. */
async function loadFailure(input) {
  const e = await web.initAsync(input).then(() => null, (e) => e);
  assert.ok(e instanceof web.ToolwireError, String(e));
  assert.equal(e.code, "LOAD_FAILED");
  assert.ok(e.cause instanceof Error, "the error met is kept as `cause`");
  return e;
}

test("web: a failed load says what it met and what to do", async () => {
  // Bytes that are no module: what to pass.
  let e = await loadFailure(new Uint8Array([0, 1, 2, 3]));
  assert.match(e.message, /^toolwire: loading the WebAssembly module failed: .*magic.*; pass the file to initAsync .*"toolwire\/toolwire\.wasm"/);
  // The default location, which Node's fetch cannot read (file:): pass the bytes.
  e = await loadFailure(undefined);
  assert.match(e.message, /fetch cannot read file:\/\/\/.*\/web\/toolwire_bg\.wasm here: pass initAsync the file's bytes/);

  // An HTML page where the .wasm should be (a single-page app's fallback), a 404, and a server that is not there.
  const server = createServer((req, res) => {
    if (req.url === "/missing.wasm") return res.writeHead(404, { "content-type": "text/plain" }).end("no");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>app</title>");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    e = await loadFailure(`${base}/assets/toolwire_bg.wasm`);
    assert.match(e.message, new RegExp(`failed: ${base}/assets/toolwire_bg\\.wasm is an HTML page \\(content-type text/html; charset=utf-8\\), not the WebAssembly module \\(`));
    assert.match(e.message, /no file is served at that URL/);
    e = await loadFailure(new URL(`${base}/missing.wasm`));
    assert.match(e.message, /404 Not Found.*missing\.wasm.*pass the file to initAsync/);
  } finally {
    await new Promise((r) => server.close(r));
  }
  e = await loadFailure(`${base}/toolwire_bg.wasm`);
  assert.match(e.message, new RegExp(`failed: ${base}/toolwire_bg\\.wasm could not be fetched \\(fetch failed\\): .*CORS.*connect-src`));
  // A relative URL outside a page or worker: nothing to take it against, said as such (not "unreachable").
  e = await loadFailure("web/toolwire_bg.wasm");
  assert.match(e.message, /failed: "web\/toolwire_bg\.wasm" is a relative URL, and only a page or a worker takes it against its location; there is none here \(.*\): pass initAsync an absolute URL or the file's bytes/);
  assert.doesNotMatch(e.message, /unreachable|CORS/);
  // A file's path (what a file loader gives in Bun and Node), POSIX or Windows: read it first.
  for (const path of ["/srv/app/dist/toolwire_bg-HASH.wasm", "C:\\Users\\me\\dist\\toolwire_bg-HASH.wasm", "d:/dist/toolwire_bg.wasm"]) {
    e = await loadFailure(path);
    assert.match(e.message, /is a file's path, which fetch cannot read \(.*\): pass initAsync the file's bytes/, path);
    assert.doesNotMatch(e.message, /unreachable|CORS|relative URL/, path);
  }
});

test("web and node: a runtime without WebAssembly gets LOAD_FAILED saying so", () => {
  // node --jitless turns WebAssembly off, as iOS Lockdown Mode does in Safari.
  const script = `
    const out = [];
    try { require(${JSON.stringify(fileURLToPath(new URL("../../pkg/index.cjs", import.meta.url)))}); out.push("loaded"); } catch (e) { out.push(e.code + ": " + e.message); }
    import(${JSON.stringify(new URL("../../pkg/web.mjs", import.meta.url).href)}).then((web) => web.initAsync(new Uint8Array(8))).then(
      () => out.push("loaded"), (e) => out.push(e.code + ": " + e.message)).then(() => console.log(JSON.stringify(out)));`;
  const r = spawnSync(process.execPath, ["--jitless", "-e", script], { encoding: "utf8" });
  const [node, web] = JSON.parse(r.stdout);
  assert.match(node, /^LOAD_FAILED: toolwire: this runtime has no WebAssembly/);
  assert.match(web, /^LOAD_FAILED: toolwire: loading the WebAssembly module failed: this runtime has no WebAssembly/);
});

test("web: a failed load can be retried; initAsync is memoised once it succeeds", async () => {
  await loadFailure(new Uint8Array([0, 1, 2, 3]));
  assert.throws(() => web.version(), { code: "NOT_INITIALIZED" }, "still not loaded");
  const bytes = readFileSync(wasmUrl);
  const first = web.initAsync(bytes);
  assert.equal(web.initAsync(), first, "same promise, input ignored");
  await first;
  assert.ok(web.ToolwireError.prototype instanceof Error);
  assert.ok(new web.PermissionPolicy({}) instanceof web.PermissionPolicy);
  assert.ok(new web.ToolCallAccumulator("openai") instanceof web.ToolCallAccumulator);
  assert.equal(web.default, web.initAsync);
  // Every class's prototype is the module class's, as on Node (a spy on NameMap.prototype.resolve reaches maps).
  const map = web.NameMap.fromTools([{ name: "t", serverName: "s" }], "openai");
  assert.ok(map instanceof web.NameMap);
  for (const [cls, method] of [[web.NameMap, "resolve"], [web.ToolCallAccumulator, "push"], [web.PermissionPolicy, "check"], [web.McpClient, "connect"], [web.McpHub, "tools"]]) {
    assert.equal(typeof cls.prototype[method], "function", `${cls.name}.prototype.${method}`);
  }
  assert.equal(Object.getPrototypeOf(map), Object.getPrototypeOf(web.NameMap.prototype));
  assert.equal(map.resolve("mcp__s__t").tool, "t");
});

contract(web, "web");
