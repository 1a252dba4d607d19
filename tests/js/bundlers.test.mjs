// The package as bundled by esbuild, the bundler that needs the most from its users (it copies no file
// named by `new URL(..., import.meta.url)`): the setups pkg/README.md gives work, and the one it warns
// about fails with a ToolwireError saying what to do. Vite, webpack and Rollup are tested in a browser
// (tests/browser/bundlers.test.mjs).
// Bundles run in Node, the .wasm read from the bundle's output (Node's fetch has no file: URLs).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { repo } from "./shared.mjs";

const tmp = mkdtempSync(join(tmpdir(), "toolwire-bundle-"));
const installed = join(tmp, "node_modules", "toolwire");
const wasmFile = join(installed, "web", "toolwire_bg.wasm");
// Node's conversions run in the module built without the MCP client (index.cjs): a Node bundle reads it first.
const convertWasmFile = join(installed, "web", "toolwire_convert_bg.wasm");

before(() => {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const [packed] = JSON.parse(execFileSync(npm, ["pack", "--json", "--pack-destination", tmp], { cwd: join(repo, "pkg"), encoding: "utf8" }));
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", join(tmp, packed.filename), "-C", installed, "--strip-components=1"]);
});

/** Bundles `source` (an ES module) from a directory beside node_modules; returns the output directory. */
async function bundle(name, source, options) {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "app.mjs"), source);
  const out = join(dir, "dist");
  const result = await build({ entryPoints: [join(dir, "app.mjs")], bundle: true, outdir: out, logLevel: "silent", ...options });
  assert.deepEqual(result.errors, []);
  return out;
}

function run(file, prelude = "") {
  const r = spawnSync(process.execPath, ["-e", `${prelude}; require(${JSON.stringify(file)})`], { encoding: "utf8", cwd: tmp });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const convert = 'convertMcpTools([{ name: "x" }], "gemini")[0].functionDeclarations[0].name';

test("esbuild, browser ESM with the file loader: the .wasm imported as `toolwire/toolwire.wasm` is emitted once and loads", async () => {
  const out = await bundle(
    "esm-file",
    `import initAsync, { convertMcpTools } from "toolwire";
     import wasmUrl from "toolwire/toolwire.wasm";
     // As the README has it: the file loader's URL is relative to the bundle, not to the page.
     export async function main(load) { await initAsync(load(typeof wasmUrl === "string" ? new URL(wasmUrl, import.meta.url) : wasmUrl)); return ${convert}; }`,
    { platform: "browser", format: "esm", loader: { ".wasm": "file" } },
  );
  const wasm = readdirSync(out).filter((f) => f.endsWith(".wasm"));
  assert.equal(wasm.length, 1, readdirSync(out).join(", "));
  const app = pathToFileURL(join(out, "app.js"));
  const { main } = await import(app);
  const { readFileSync } = await import("node:fs");
  assert.equal(await main((url) => (assert.equal(url.href, new URL(wasm[0], app).href), readFileSync(url))), "x");
});

test("esbuild, browser IIFE (its default): initAsync() says it cannot find the .wasm, then takes it given", async () => {
  const out = await bundle(
    "iife",
    `import initAsync, { convertMcpTools, ToolwireError } from "toolwire";
     initAsync().then(
       () => console.log("loaded without input"),
       (e) => {
         console.log(e instanceof ToolwireError, e.code, /import\\.meta\\.url is empty/.test(e.message), /initAsync/.test(e.message));
         return initAsync(globalThis.wasmBytes).then(() => console.log(${convert}));
       },
     );`,
    { platform: "browser", format: "iife" },
  );
  const lines = run(join(out, "app.js"), `globalThis.wasmBytes = require("fs").readFileSync(${JSON.stringify(wasmFile)})`).split("\n");
  assert.deepEqual(lines, ["true LOAD_FAILED true true", "x"]);
});

test("esbuild, browser ESM run from a data: or blob: URL (an inline worker): initAsync() says it cannot find the .wasm, then takes it given", async () => {
  const out = await bundle(
    "inline",
    `import initAsync, { convertMcpTools, ToolwireError } from "toolwire";
     export async function main(bytes) {
       const e = await initAsync().then(() => undefined, (e) => e);
       return [e instanceof ToolwireError, e?.code, e?.message, await initAsync(bytes).then(() => ${convert})];
     }`,
    { platform: "browser", format: "esm" },
  );
  // Node imports a data: URL as a module (a browser also a blob: one); neither is a base for a relative URL.
  const source = (await import("node:fs")).readFileSync(join(out, "app.js"));
  const { main } = await import(`data:text/javascript;base64,${source.toString("base64")}`);
  const [isError, code, message, converted] = await main((await import("node:fs")).readFileSync(wasmFile));
  assert.deepEqual([isError, code, converted], [true, "LOAD_FAILED", "x"], message);
  assert.match(message, /^toolwire: cannot tell where toolwire_bg\.wasm is \(this module runs from a data: URL/);
  assert.match(message, /pass initAsync the file's absolute URL/);
});

test("esbuild, Node, CommonJS output with toolwire inside: the ES entry is followed, the .wasm read from beside the bundle", async () => {
  // With TW_CLIENT set, the app makes an McpClient too (its module is in the bundle, read on first use).
  const client = `if (process.env.TW_CLIENT) { try { new McpClient("http://127.0.0.1:9/mcp").free(); console.log("made", McpClient.name); } catch (e) { console.log(e.code, e.message.split(";")[1]); } }`;
  const out = await bundle("node-cjs", `import { convertMcpTools, McpClient } from "toolwire";\nconsole.log(${convert});\n${client}`, {
    platform: "node",
    format: "cjs",
  });
  const bundled = join(out, "app.js");
  // The library is in the bundle (index.mjs imports index.cjs statically), not left to a require() at run time.
  assert.match((await import("node:fs")).readFileSync(bundled, "utf8"), /convertMcpToolsJson/);
  // Before the file is there: a LOAD_FAILED naming the paths tried and the README's section, not a bare ENOENT.
  const r = spawnSync(process.execPath, ["-e", `try { require(${JSON.stringify(bundled)}) } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message, cause: e.cause?.code })) }`], { encoding: "utf8", cwd: tmp });
  const e = JSON.parse(r.stdout);
  assert.equal(e.name, "ToolwireError");
  assert.equal(e.code, "LOAD_FAILED");
  assert.equal(e.cause, "ENOENT");
  assert.ok(e.message.startsWith(`toolwire: cannot read its WebAssembly module; tried ${join(out, "toolwire_convert_bg.wasm")} (ENOENT), ${out}/../web/toolwire_convert_bg.wasm (ENOENT). `), e.message);
  // Where it looks, as the paths say (s25d F5): beside the bundle.
  assert.match(e.message, /A bundle with toolwire's Node build in it reads the file from beside itself \(a CommonJS bundle\)/);
  assert.match(e.message, /keep toolwire external, or copy web\/toolwire_convert_bg\.wasm next to the bundle/);
  assert.match(e.message, /README, "Bundlers"; Bun: "Bun, Deno and single-file executables"/);
  copyFileSync(convertWasmFile, join(out, "toolwire_convert_bg.wasm"));
  assert.equal(run(bundled), "x");
  // The MCP client's module is read from beside the bundle on the first McpClient.
  const withClient = () => spawnSync(process.execPath, [bundled], { encoding: "utf8", cwd: tmp, env: { ...process.env, TW_CLIENT: "1" } }).stdout.trim();
  assert.equal(withClient(), `x\nLOAD_FAILED  tried ${join(out, "toolwire_bg.wasm")} (ENOENT), ${out}/../web/toolwire_bg.wasm (ENOENT). A bundle with toolwire's Node build in it reads the file from beside itself (a CommonJS bundle) or beside the main script (an ES module bundle)`);
  copyFileSync(wasmFile, join(out, "toolwire_bg.wasm"));
  assert.equal(withClient(), "x\nmade McpClient");
});

test("esbuild, Node, ES module output with toolwire inside: node:fs from process.getBuiltinModule, the .wasm beside the bundle", async () => {
  // An ES module bundle has neither require nor __dirname (esbuild's require shim throws "Dynamic require of
  // "fs" is not supported"): the glue takes node:fs from process.getBuiltinModule, and the file from beside the
  // main script, where a CommonJS bundle looks too.
  const out = await bundle("node-esm", `import { convertMcpTools } from "toolwire";\nconsole.log(${convert});`, {
    platform: "node",
    format: "esm",
    outExtension: { ".js": ".mjs" },
  });
  const bundled = join(out, "app.mjs");
  const r = spawnSync(process.execPath, [bundled], { encoding: "utf8", cwd: tmp });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /ToolwireError|LOAD_FAILED/);
  assert.match(r.stderr, new RegExp(`cannot read its WebAssembly module; tried ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/toolwire_convert_bg\\.wasm \\(ENOENT\\)`));
  copyFileSync(convertWasmFile, join(out, "toolwire_convert_bg.wasm"));
  const ok = spawnSync(process.execPath, [bundled], { encoding: "utf8", cwd: tmp });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), "x");
});
