// toolwire/convert (pkg/convert.mjs): the browser/bundler entry without the MCP client, on the module built
// without it. Run in Node with the .wasm bytes passed in (Node's fetch has no file: URLs), as web.test.mjs runs
// web.mjs; then the entries' contract, its client tests on the web entry's McpClient and McpHub.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import contract from "./contract.cjs";
import * as convert from "../../pkg/convert.mjs";
import * as web from "../../pkg/web.mjs";

const pkg = new URL("../../pkg/", import.meta.url);
const convertWasm = new URL("web/toolwire_convert_bg.wasm", pkg);
const wholeWasm = new URL("web/toolwire_bg.wasm", pkg);

test("convert: the web entry's exports but the MCP client's, and nothing works before initAsync", () => {
  assert.deepEqual(
    Object.keys(web).filter((k) => !(k in convert)),
    ["McpClient", "McpHub"],
  );
  assert.deepEqual(Object.keys(convert).filter((k) => !(k in web)), []);
  assert.equal(convert.default, convert.initAsync);
  assert.throws(() => convert.convertMcpTools([], "openai"), (e) => e instanceof convert.ToolwireError && e.code === "NOT_INITIALIZED");
  assert.throws(() => new convert.ToolCallAccumulator("openai"), { code: "NOT_INITIALIZED" });
});

test("convert: its default file is the module without the client, a third smaller than the whole one", async () => {
  const e = await convert.initAsync(undefined).then(() => null, (e) => e);
  assert.equal(e?.code, "LOAD_FAILED");
  assert.match(e.message, /fetch cannot read file:\/\/\/.*\/web\/toolwire_convert_bg\.wasm here: pass initAsync the file's bytes/);
  // Bytes that are no module: what to pass names this entry's file.
  const bad = await convert.initAsync(new Uint8Array([0, 1, 2, 3])).then(() => null, (e) => e);
  assert.match(bad?.message, /^toolwire: loading the WebAssembly module failed: .*magic.*; pass the file to initAsync .*"toolwire\/convert\.wasm"/);
  // The whole module is refused (its imports are not this glue's): the message says what was given, and the
  // web entry refuses this one's the same way.
  const wrong = await convert.initAsync(readFileSync(wholeWasm)).then(() => null, (e) => e);
  assert.equal(wrong?.code, "LOAD_FAILED", String(wrong));
  assert.match(wrong.message, /the WebAssembly module given is "toolwire\/toolwire\.wasm", the module with the MCP client; this entry takes "toolwire\/convert\.wasm", the module without the MCP client/);
  const other = await web.initAsync(readFileSync(convertWasm)).then(() => null, (e) => e);
  assert.equal(other?.code, "LOAD_FAILED", String(other));
  assert.match(other.message, /the WebAssembly module given is "toolwire\/convert\.wasm", the module without the MCP client; this entry takes "toolwire\/toolwire\.wasm", the module with the MCP client/);
  // In Cloudflare Workers it is told to pass its own module (the workerd entry is the whole module's).
  const text = readFileSync(new URL("convert.mjs", pkg), "utf8");
  assert.ok(text.includes("Cloudflare Workers compile no WebAssembly at run time: import the module and pass it: "), "the Workers hint");
  assert.ok(text.includes('import wasm from "toolwire/convert.wasm"; await initAsync(wasm)'), "names toolwire/convert.wasm");
  assert.ok(!text.includes("its workerd build"), "and not the main entry's workerd build");
  const ratio = statSync(convertWasm).size / statSync(wholeWasm).size;
  assert.ok(ratio < 0.75, `the module without the client is ${ratio.toFixed(2)} of the whole one`);
});

test("convert: initAsync with its file, then conversions (the same output as the web entry's)", async () => {
  await convert.initAsync(readFileSync(convertWasm));
  await web.initAsync(readFileSync(wholeWasm));
  const tools = JSON.parse(readFileSync(new URL("../../../shared/corpus/tools/server-github.json", import.meta.url), "utf8")).tools;
  for (const provider of ["openai", "gemini", "anthropic"]) {
    assert.deepEqual(convert.convertMcpTools(tools, provider, { server: "gh" }), web.convertMcpTools(tools, provider, { server: "gh" }), provider);
  }
  assert.equal(convert.version(), web.version());
});

contract(Object.assign(Object.create(null), convert, { McpClient: web.McpClient, McpHub: web.McpHub }), "convert");
