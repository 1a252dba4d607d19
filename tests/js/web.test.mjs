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
  // The same from a page opened from disk (a location; s30c F2): no fs there, but a server or the bundler's bytes.
  globalThis.location = { href: "file:///srv/app/index.html" };
  try {
    e = await loadFailure(new URL("toolwire_bg.wasm", location.href));
  } finally {
    delete globalThis.location;
  }
  assert.match(e.message, /a page or worker cannot fetch file:\/\/\/srv\/app\/toolwire_bg\.wasm \(fetch reads no file: URL\): serve the page over http\(s\), or pass initAsync the file's bytes, e\.g\. inlined by the bundler/);
  assert.doesNotMatch(e.message, /readFileSync|fs\./);
  // A Response that has no body to read: a no-cors fetch's (opaque; s30c F4) and Response.error(), said as such.
  const opaque = Object.defineProperty(Response.error(), "type", { value: "opaque" });
  e = await loadFailure(opaque);
  assert.match(e.message, /failed: the Response is opaque \(type "opaque", from a fetch with mode "no-cors"\): its body cannot be read; .*served with CORS headers \(Access-Control-Allow-Origin\): serve it so and fetch it without mode "no-cors"/);
  assert.doesNotMatch(e.message, /fetching ''|pass the file to initAsync/);
  // A redirect-"manual" fetch's answer to a redirect (opaqueredirect; s30r2 F6): not followed, so follow it or pass the URL.
  const redirect = Object.defineProperties(Response.error(), { type: { value: "opaqueredirect" }, url: { value: "https://cdn.example/toolwire.wasm" } });
  e = await loadFailure(redirect);
  assert.match(e.message, /failed: the Response is a redirect that was not followed \(type "opaqueredirect", from a fetch with redirect "manual" of https:\/\/cdn\.example\/toolwire\.wasm\): it has no body; fetch the file with redirect "follow" \(fetch's default\) rather than "manual", or pass initAsync its URL$/);
  e = await loadFailure(Response.error());
  assert.match(e.message, /failed: the Response is a network error \(type "error", as Response.error\(\) makes\): it has no body; pass the file to initAsync/);

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

test("web: a failed load can be retried; a call made during a load waits for it, and tries its own input where it fails (s23b F3)", async () => {
  await loadFailure(new Uint8Array([0, 1, 2, 3]));
  assert.throws(() => web.version(), { code: "NOT_INITIALIZED" }, "still not loaded");
  const bytes = readFileSync(wasmUrl);
  // A bad input, then calls with good ones while it loads (a library's wrong file, the app's right one): the first
  // fails with its own error, and the module loads from the next call's input. A promise that rejects while it waits
  // is that call's error, not an unhandled rejection.
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  let rejectLater;
  const order = [];
  const calls = [
    web.initAsync(new Uint8Array([0, 1, 2, 3])),
    web.initAsync(Promise.reject(new Error("no such file"))),
    web.initAsync(new Promise((_, reject) => (rejectLater = reject))),
    web.initAsync(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
    web.initAsync(new Uint8Array([9, 9, 9, 9])), // never read: the module is loaded by then
    web.initAsync(),
  ].map((p, i) => p.then(() => order.push(i), (e) => (order.push(i), Promise.reject(e))));
  rejectLater(new Error("fetch refused"));
  const settled = await Promise.allSettled(calls);
  process.off("unhandledRejection", onUnhandled);
  assert.deepEqual(settled.map((r) => r.status), ["rejected", "rejected", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5], "in turn");
  const [own, missing, refused] = settled.map((r) => r.reason);
  assert.equal(own.code, "LOAD_FAILED");
  assert.match(own.message, /magic/, "the first call's own error");
  assert.equal(missing.code, "LOAD_FAILED");
  assert.match(missing.message, /no such file/, "the second call's own error, not the first's");
  assert.match(refused.message, /fetch refused/);
  assert.deepEqual(unhandled, []);
  assert.equal(typeof web.version(), "string", "loaded");
  // Once loaded, a call resolves at once, reads no input, and returns the promise that resolved.
  const again = web.initAsync(new Uint8Array([0]));
  assert.equal(web.initAsync(), again);
  await again;
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

test("web: a load given a WebAssembly module that is not toolwire's leaves nothing behind: the next input loads (s26e F1)", () => {
  // Each in a process of its own: a module loads once per process. The empty module (8 bytes) and one with an export
  // but no imports both instantiate with toolwire's imports: they must be refused before wasm-bindgen keeps them.
  const inputs = {
    "empty bytes, queued": ["EMPTY", "bytes"],
    "a compiled empty module, queued": ["new WebAssembly.Module(EMPTY)", "bytes"],
    "another library's module, then a retry": ["OTHER", "bytes", true],
    "empty bytes, then a retry with a Response": ["EMPTY", "new Response(bytes, { headers: { 'content-type': 'application/wasm' } })", true],
  };
  for (const [kind, [wrong, right, later]] of Object.entries(inputs)) {
    const script = `
      import { readFileSync } from "node:fs";
      const web = await import(${JSON.stringify(new URL("../../pkg/web.mjs", import.meta.url).href)});
      const bytes = readFileSync(${JSON.stringify(fileURLToPath(wasmUrl))});
      const EMPTY = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
      // (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
      const OTHER = new Uint8Array([0,97,115,109,1,0,0,0,1,7,1,96,2,127,127,1,127,3,2,1,0,7,7,1,3,97,100,100,0,0,10,9,1,7,0,32,0,32,1,106,11]);
      const out = [];
      const wrong = web.initAsync(${wrong}).then(() => "resolved", (e) => e.code + " " + e.message);
      if (${Boolean(later)}) await wrong;
      const right = web.initAsync(${right}).then(() => "resolved", (e) => e.code + " " + e.message);
      out.push(await wrong, await right);
      try { out.push(web.version()); } catch (e) { out.push("version: " + e.code + " " + e.message); }
      try { out.push(web.convertMcpTools([{ name: "a", inputSchema: { type: "object" } }], "openai")[0].function.name); } catch (e) { out.push("convert: " + e.code + " " + e.message); }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    assert.equal(r.status, 0, `${kind}: ${r.stderr}`);
    const [wrongOut, rightOut, version, name] = JSON.parse(r.stdout);
    assert.match(wrongOut, /^LOAD_FAILED toolwire: loading the WebAssembly module failed: .*not toolwire's.*; pass the file to initAsync/, kind);
    assert.equal(rightOut, "resolved", kind);
    assert.match(version, /^\d+\.\d+\.\d+/, kind);
    assert.equal(name, "a", kind);
  }
});

test("web: initAsync takes any view of the bytes, as exactly the bytes it views (s23b F2)", () => {
  // Each in a process of its own: a module loads once per process.
  const views = {
    DataView: "new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)",
    Int8Array: "new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)",
    Uint8ClampedArray: "new Uint8ClampedArray(bytes.buffer, bytes.byteOffset, bytes.byteLength)",
    // Views into a larger buffer, with other bytes before and after them.
    "Uint8Array at an offset": "inside(Uint8Array)",
    "DataView at an offset": "inside(DataView)",
    "Promise of a DataView": "Promise.resolve(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength))",
  };
  for (const [kind, view] of Object.entries(views)) {
    const script = `
      import { readFileSync } from "node:fs";
      const web = await import(${JSON.stringify(new URL("../../pkg/web.mjs", import.meta.url).href)});
      const bytes = readFileSync(${JSON.stringify(fileURLToPath(wasmUrl))});
      const inside = (View) => {
        const big = new Uint8Array(bytes.length + 13).fill(0xee);
        big.set(bytes, 7);
        return new View(big.buffer, 7, bytes.length);
      };
      await web.initAsync(${view});
      console.log(web.version());`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    assert.equal(r.status, 0, `${kind}: ${r.stderr}`);
    assert.match(r.stdout, /^\d+\.\d+\.\d+/, kind);
  }
  // A view of other bytes is read as those bytes: the view's own, not its whole buffer.
  const script = `
    import { readFileSync } from "node:fs";
    const web = await import(${JSON.stringify(new URL("../../pkg/web.mjs", import.meta.url).href)});
    const bytes = readFileSync(${JSON.stringify(fileURLToPath(wasmUrl))});
    const e = await web.initAsync(new DataView(bytes.buffer, bytes.byteOffset + 1, bytes.byteLength - 1)).catch((e) => e);
    console.log(e.code, /magic/.test(e.message));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.stdout.trim(), "LOAD_FAILED true", r.stderr);
});

test("node: initAsync takes any input, and needs none (the module is loaded on import)", async () => {
  const node = await import("../../pkg/index.mjs");
  const bytes = readFileSync(wasmUrl);
  for (const input of [undefined, new DataView(bytes.buffer), new Float64Array(2), bytes]) assert.equal(await node.initAsync(input), undefined);
});

contract(web, "web");
