// The package as the bundlers pkg/README.md ("Bundlers") says need nothing or one plugin, each building a small
// app that imports "toolwire" as the README shows for browsers (`await initAsync()` at the top level, no input),
// converts a tool for Gemini in the page and in a module worker (`new Worker(new URL("./worker.js",
// import.meta.url), { type: "module" })`), and writes the results into the page; the build is served from
// 127.0.0.1 and loaded in headless Chromium. The results must equal the Node entry's, and the .wasm must come
// from the build output (or, for Vite's dev server, from the package), emitted once.
// - Vite: `vite build`, and the dev server (`vite`), which pre-bundles toolwire into node_modules/.vite/deps;
//   and what Vite 7 and earlier do there (esbuild's bundle of it, with no .wasm beside it and index.html
//   answering for the missing file): LOAD_FAILED saying to exclude toolwire from optimizeDeps.
// - webpack 5: the production build, served from a directory below the page's.
// - Rollup with @rollup/plugin-node-resolve and @web/rollup-plugin-import-meta-assets (Rollup bundles no
//   workers: the page only); without that plugin, initAsync() fails with a 404 for the .wasm, and the file
//   copied from "toolwire/toolwire.wasm" loads when its URL is passed.
// esbuild has its own tests (tests/js/bundlers.test.mjs; tests/browser/worker.test.mjs for its IIFE in a worker).
// Parcel (too large an install for this suite) was checked by hand: see the README, "Bundlers".
//
// Needs pkg/ (make pkg), the bundlers (npm ci: pinned in package.json) and /usr/bin/chromium (bash
// scripts/setup.sh --browser). Fails, never skips, when one is missing. CHROMIUM=/path overrides the browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { extname, join, normalize, relative, sep } from "node:path";
import { build as esbuild } from "esbuild";
import { chromium } from "playwright-core";
import { rollup } from "rollup";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { importMetaAssets } from "@web/rollup-plugin-import-meta-assets";
import { build as viteBuild, createServer as viteServer } from "vite";
import webpack from "webpack";
import { repo } from "../js/shared.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

// A tool whose schema Gemini's conversion changes (upper-case types, the nullable anyOf folded, $defs inlined), so
// that a page showing the Node entry's output has run the module, not echoed its input.
const TOOL = {
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" }, units: { anyOf: [{ $ref: "#/$defs/units" }, { type: "null" }] } },
    required: ["city"],
    $defs: { units: { type: "string", enum: ["metric", "imperial"] } },
  },
};
const WORKER_TOOL = { name: "in_worker", inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 1 } } } };

const HTML = (script, classic = false) =>
  `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>toolwire</title></head>
<body><pre id="page">pending</pre><pre id="worker">pending</pre>
<script ${classic ? "" : 'type="module" '}src="${script}"></script></body></html>\n`;

// As the README has it for a page: the default export, awaited at the top level, with no input.
const MAIN = (worker) => `import initAsync, { convertMcpTools, version } from "toolwire";
const show = (id, text) => (document.getElementById(id).textContent = text);
const failure = (e) => "FAILED " + JSON.stringify({ name: e?.name, code: e?.code, message: String(e?.message ?? e) });
try {
  await initAsync();
  show("page", JSON.stringify({ version: version(), tools: convertMcpTools(${JSON.stringify([TOOL])}, "gemini") }));
} catch (e) {
  show("page", failure(e));
}
${
  worker
    ? `const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = (e) => show("worker", e.data);
worker.onerror = (e) => show("worker", "FAILED worker " + e.message);`
    : `show("worker", "none");`
}
`;
const WORKER = `import initAsync, { convertMcpTools } from "toolwire";
initAsync().then(
  () => postMessage(JSON.stringify(convertMcpTools(${JSON.stringify([WORKER_TOOL])}, "gemini"))),
  (e) => postMessage("FAILED " + JSON.stringify({ name: e?.name, code: e?.code, message: String(e?.message ?? e) })),
);
`;

const tmp = mkdtempSync(join(tmpdir(), "toolwire-bundlers-"));
const installed = join(tmp, "node_modules", "toolwire");
let expected; // the Node entry's conversions: {version, page, worker}
let site; // {server, origin}: tmp served over HTTP
let browser;

/** A directory of tmp with the app in it (index.html, main.js, worker.js); returns its path. */
function app(name, { worker = true, main = MAIN(worker), html = HTML("./main.js") } = {}) {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "index.html"), html);
  writeFileSync(join(dir, "main.js"), main);
  if (worker) writeFileSync(join(dir, "worker.js"), WORKER);
  return dir;
}

/** tmp over HTTP. A missing file under /vite7/ is answered with that index.html, as Vite's dev server answers. */
function serve() {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    let file = join(tmp, path);
    if (!file.startsWith(tmp + sep)) return res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file) && path.startsWith("/vite7/")) file = join(tmp, "vite7", "index.html");
    if (!existsSync(file)) return res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

/**
 * Loads `url` in a fresh page; resolves to what the page and its worker wrote, the .wasm responses ({url,
 * status}) and the page's uncaught errors.
 */
async function visit(url) {
  const page = await browser.newPage();
  const wasm = [];
  const errors = [];
  page.on("response", (r) => new URL(r.url()).pathname.endsWith(".wasm") && wasm.push({ url: r.url(), status: r.status() }));
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await page.goto(url);
    await page.waitForFunction(() => ["page", "worker"].every((id) => document.getElementById(id)?.textContent !== "pending"), null, { timeout: 20_000 });
    const read = (id) => page.textContent(`#${id}`);
    return { page: await read("page"), worker: await read("worker"), wasm, errors };
  } finally {
    await page.close();
  }
}

/** The page converted as Node does, and the worker too (unless there is none). */
function assertConverted(got, { worker = true } = {}) {
  assert.deepEqual(got.errors, []);
  assert.ok(!got.page.startsWith("FAILED"), got.page);
  assert.deepEqual(JSON.parse(got.page), { version: expected.version, tools: expected.page });
  if (worker) {
    assert.ok(!got.worker.startsWith("FAILED"), got.worker);
    assert.deepEqual(JSON.parse(got.worker), expected.worker);
  } else assert.equal(got.worker, "none");
}

/** The .wasm files in `dir` (recursively), as paths relative to it. */
function wasmFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".wasm"));
}

/** Every .wasm the page and its worker fetched was answered 200, from `dir` (a directory of tmp, served at its path). */
function assertWasmFrom(got, dir) {
  assert.ok(got.wasm.length >= 1, "no .wasm fetched");
  const prefix = `${site.origin}/${relative(tmp, dir).split(sep).join("/")}/`;
  for (const { url, status } of got.wasm) {
    assert.equal(status, 200, url);
    assert.ok(url.startsWith(prefix), `${url} is not under ${prefix}`);
  }
}

before(async () => {
  for (const need of [join(repo, "pkg", "package.json"), CHROMIUM]) assert.ok(existsSync(need), `${need} is missing (make pkg; bash scripts/setup.sh --browser)`);
  // The package as installed from its tarball, in a project of its own (Vite takes the nearest package.json
  // as the root of what its dev server may serve).
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const [packed] = JSON.parse(execFileSync(npm, ["pack", "--json", "--pack-destination", tmp], { cwd: join(repo, "pkg"), encoding: "utf8" }));
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", join(tmp, packed.filename), "-C", installed, "--strip-components=1"]);
  writeFileSync(join(tmp, "package.json"), JSON.stringify({ private: true, type: "module", dependencies: { toolwire: packed.version } }));
  const node = await import(join(installed, "index.mjs"));
  expected = { version: node.version(), page: node.convertMcpTools([TOOL], "gemini"), worker: node.convertMcpTools([WORKER_TOOL], "gemini") };
  assert.equal(expected.page[0].functionDeclarations[0].parameters.properties.units.type, "STRING", "the conversion changes the schema");
  site = await serve();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  site?.server.close();
  rmSync(tmp, { recursive: true, force: true });
});

test("Vite, vite build: the .wasm is emitted once, and the page and a module worker load it", async () => {
  const root = app("vite");
  const outDir = join(root, "dist");
  await viteBuild({ root, configFile: false, logLevel: "silent", build: { outDir, emptyOutDir: true } });
  assert.equal(wasmFiles(outDir).length, 1, wasmFiles(outDir).join(", "));
  // Vite writes absolute paths (base "/"): the build is served as the root of a site of its own.
  const own = await new Promise((resolve) => {
    const server = createServer((req, res) => {
      const file = join(outDir, normalize(new URL(req.url, "http://x").pathname).replace(/\/$/, "/index.html"));
      if (!file.startsWith(outDir + sep) || !existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
    });
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
  try {
    const got = await visit(`http://127.0.0.1:${own.address().port}/`);
    assertConverted(got);
    assert.ok(got.wasm.length >= 1 && got.wasm.every(({ url, status }) => status === 200 && new URL(url).pathname === `/${wasmFiles(outDir)[0]}`), JSON.stringify(got.wasm));
  } finally {
    own.close();
  }
});

test("Vite, dev server: toolwire pre-bundled into node_modules/.vite/deps, the .wasm served from the package", async () => {
  const root = app("vite-dev");
  const server = await viteServer({ root, configFile: false, logLevel: "silent", server: { host: "127.0.0.1", port: 0, strictPort: true, hmr: false } });
  await server.listen();
  try {
    const got = await visit(server.resolvedUrls.local[0]);
    assertConverted(got);
    // The case Vite 7 and earlier got wrong: the module was run from the optimizer's copy.
    const metadata = JSON.parse(readFileSync(join(server.config.cacheDir, "deps", "_metadata.json"), "utf8"));
    assert.ok(metadata.optimized?.toolwire, `toolwire was not pre-bundled: ${Object.keys(metadata.optimized ?? {})}`);
    assert.ok(got.wasm.length >= 1);
    for (const { url, status } of got.wasm) {
      assert.equal(status, 200, url);
      assert.ok(new URL(url).pathname.endsWith("/node_modules/toolwire/web/toolwire_bg.wasm"), url);
    }
  } finally {
    await server.close();
  }
});

test("Vite 7 and earlier, dev server: the pre-bundled module finds no .wasm beside it, and LOAD_FAILED says to exclude toolwire", async () => {
  // What their optimizer does: esbuild bundles toolwire into node_modules/.vite/deps/toolwire.js, and copies
  // nothing it names by new URL(..., import.meta.url); the dev server answers the missing file with index.html.
  const root = app("vite7", {
    worker: false,
    html: HTML("./main.js"),
    main: MAIN(false).replace('from "toolwire"', 'from "./node_modules/.vite/deps/toolwire.js"'),
  });
  await esbuild({ entryPoints: { toolwire: join(installed, "web.mjs") }, bundle: true, format: "esm", platform: "browser", outdir: join(root, "node_modules", ".vite", "deps"), logLevel: "silent" });
  const got = await visit(`${site.origin}/vite7/`);
  assert.ok(got.page.startsWith("FAILED "), got.page);
  const e = JSON.parse(got.page.slice("FAILED ".length));
  assert.equal(e.name, "ToolwireError");
  assert.equal(e.code, "LOAD_FAILED");
  assert.ok(
    e.message.startsWith(`toolwire: loading the WebAssembly module failed: ${site.origin}/vite7/node_modules/.vite/deps/web/toolwire_bg.wasm is not the WebAssembly module (content-type text/html; charset=utf-8) (`),
    e.message,
  );
  assert.match(e.message, /Vite's dev server has pre-bundled toolwire into node_modules\/\.vite\/deps without its \.wasm, as Vite 7 and earlier do: add optimizeDeps: \{ exclude: \["toolwire"\] \} to the Vite config \(README, "Bundlers"\)$/);
});

test("webpack 5, production build served below the page: the .wasm is emitted once, and the page and a module worker load it", async () => {
  const root = app("webpack", { html: HTML("./dist/main.js", true) });
  const out = join(root, "dist");
  const stats = await new Promise((resolve, reject) =>
    webpack({ mode: "production", context: root, entry: "./main.js", output: { path: out, clean: true }, performance: { hints: false } }, (err, s) => (err ? reject(err) : resolve(s))),
  );
  assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
  assert.equal(wasmFiles(out).length, 1, wasmFiles(out).join(", "));
  const got = await visit(`${site.origin}/webpack/`);
  assertConverted(got);
  assertWasmFrom(got, out);
});

test("Rollup with @rollup/plugin-node-resolve and @web/rollup-plugin-import-meta-assets: the .wasm is emitted once, and the page loads it", async () => {
  const root = app("rollup", { worker: false, html: HTML("./dist/main.js") });
  const out = join(root, "dist");
  const bundle = await rollup({ input: join(root, "main.js"), plugins: [nodeResolve({ browser: true }), importMetaAssets()], onwarn: () => {} });
  await bundle.write({ dir: out, format: "es" });
  await bundle.close();
  assert.equal(wasmFiles(out).length, 1, wasmFiles(out).join(", "));
  const got = await visit(`${site.origin}/rollup/`);
  assertConverted(got, { worker: false });
  assertWasmFrom(got, out);
});

test("Rollup without the plugin: initAsync() finds no .wasm (404, LOAD_FAILED); the file copied from toolwire/toolwire.wasm loads given its URL", async () => {
  const main = `import initAsync, { convertMcpTools, version } from "toolwire";
const show = (id, text) => (document.getElementById(id).textContent = text);
let first;
try {
  await initAsync();
  first = "loaded";
} catch (e) {
  first = { name: e.name, code: e.code, message: e.message };
}
await initAsync(new URL("./assets/toolwire.wasm", import.meta.url));
show("page", JSON.stringify({ first, version: version(), tools: convertMcpTools(${JSON.stringify([TOOL])}, "gemini") }));
show("worker", "none");
`;
  const root = app("rollup-copy", { worker: false, main, html: HTML("./dist/main.js") });
  const out = join(root, "dist");
  const bundle = await rollup({ input: join(root, "main.js"), plugins: [nodeResolve({ browser: true })], onwarn: () => {} });
  await bundle.write({ dir: out, format: "es" });
  await bundle.close();
  assert.deepEqual(wasmFiles(out), []);
  mkdirSync(join(out, "assets"));
  copyFileSync(createRequire(join(tmp, "package.json")).resolve("toolwire/toolwire.wasm"), join(out, "assets", "toolwire.wasm"));
  const got = await visit(`${site.origin}/rollup-copy/`);
  assert.deepEqual(got.errors, []);
  const { first, ...rest } = JSON.parse(got.page);
  assert.equal(first.code, "LOAD_FAILED", JSON.stringify(first));
  assert.match(first.message, new RegExp(`404 Not Found.*${site.origin}/rollup-copy/dist/web/toolwire_bg\\.wasm.*pass the file to initAsync`));
  assert.deepEqual(rest, { version: expected.version, tools: expected.page });
  assert.deepEqual(
    got.wasm.map(({ url, status }) => [new URL(url).pathname, status]),
    [
      ["/rollup-copy/dist/web/toolwire_bg.wasm", 404],
      ["/rollup-copy/dist/assets/toolwire.wasm", 200],
    ],
  );
});
