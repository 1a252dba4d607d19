// The browser entry (pkg/web.mjs) inside Web Workers of headless Chromium, each kind as the package README
// says to load it there:
// - a module worker (`new Worker(url, {type: "module"})`) importing the package: `await initAsync()` finds the
//   .wasm from import.meta.url as a page does;
// - a classic worker loading it with a dynamic `import()`, and a classic worker bundled by esbuild as an IIFE
//   (import.meta.url empty: initAsync() says to pass the file, and initAsync(new URL(..., location.href)) works);
// - a module SharedWorker, and a module service worker that initialises in its event handler;
// - a module worker started from a blob: URL, whose location no path resolves against: initAsync and McpClient given
//   a path fail saying so (not as an unreachable server), and absolute URLs work.
// In each, tests/browser/worker-scenario.mjs converts real corpus tools for gemini and openai (the results must
// equal the Node entry's), then an McpClient connects to server-everything on another origin (through its
// CORS), lists the tools, calls one, aborts a call with an AbortSignal (ABORTED), closes; a client and a hub given
// a path (`/mcp`, proxied by the worker's own origin to the same server) reach it from the worker's location, as
// does a client given `/sse` (server-everything's deprecated HTTP+SSE transport, whose endpoint must be of the
// stream's origin); and a server of another origin without CORS headers is refused with NETWORK, saying CORS.
//
// Needs pkg/ (make pkg), server-everything (npm ci), the corpus ($TOOLWIRE_SHARED) and /usr/bin/chromium
// (bash scripts/setup.sh --browser). Fails, never skips, when one is missing. CHROMIUM=/path overrides the browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { createRequire } from "node:module";
import { extname, join, normalize } from "node:path";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { corpusDir, repo } from "../js/shared.mjs";
import { startEverything } from "../servers/everything.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
const SCENARIO = join(repo, "tests", "browser", "worker-scenario.mjs");

// Real tools: a small server, one with anyOf/nullable/enums throughout, one with $defs and long descriptions.
const CORPUS = ["mcp-server-sqlite", "google-calendar-mcp", "notion-mcp-server"];

// A worker's side of the exchange: one message in (the scenario's input), one out ({result} or {error}).
const ANSWER = `async (tw, run, input) => {
  try {
    return { result: await run(tw, input) };
  } catch (e) {
    return { error: { name: e?.name, code: e?.code, message: String(e?.message ?? e), stack: String(e?.stack ?? "") } };
  }
}`;

// A module worker started from a blob: URL (as a bundler's inline worker is): its location is that URL, which no
// path resolves against, so it imports the package by absolute URL (ORIGIN is the site's), and a path given to
// initAsync or McpClient is refused saying so; the page's absolute URLs work.
const BLOB_WORKER = `
import * as tw from "ORIGIN/pkg/web.mjs";
import { run } from "ORIGIN/scenario.mjs";
const answer = ${ANSWER};
self.onmessage = async (e) => {
  const { path, wasmPath } = e.data;
  const failure = async (fn) => fn().then(() => null, (err) => ({ code: err.code, message: err.message, isToolwireError: err instanceof tw.ToolwireError }));
  // A failed load is not kept: the scenario then loads from import.meta.url.
  const wasmByPath = await failure(() => tw.initAsync(wasmPath));
  const reply = await answer(tw, run, e.data);
  const mcpByPath = await failure(() => new tw.McpClient(path).connect());
  if (reply.result) Object.assign(reply.result, { location: location.href, wasmByPath, mcpByPath });
  self.postMessage(reply);
};
`;

const WORKERS = {
  // A module worker: the package imported statically, initAsync() with no argument.
  "/worker-module.mjs": `
import * as tw from "/pkg/web.mjs";
import { run } from "/scenario.mjs";
const answer = ${ANSWER};
self.onmessage = async (e) => self.postMessage(await answer(tw, run, e.data));
`,
  // A classic worker: no static import; the README's dynamic import().
  "/worker-classic.js": `
const answer = ${ANSWER};
self.onmessage = async (e) => {
  let reply;
  try {
    const tw = await import("/pkg/web.mjs");
    const { run } = await import("/scenario.mjs");
    reply = await answer(tw, run, e.data);
  } catch (err) {
    reply = { error: { message: "the import failed: " + String(err?.message ?? err) } };
  }
  self.postMessage(reply);
};
`,
  // A module SharedWorker: each connection's port asks once.
  "/worker-shared.mjs": `
import * as tw from "/pkg/web.mjs";
import { run } from "/scenario.mjs";
const answer = ${ANSWER};
self.onconnect = (c) => {
  const port = c.ports[0];
  port.onmessage = async (e) => port.postMessage(await answer(tw, run, e.data));
};
`,
  // A module service worker: no top-level await; initAsync() (in the scenario) inside the event's waitUntil.
  "/sw.mjs": `
import * as tw from "/pkg/web.mjs";
import { run } from "/scenario.mjs";
const answer = ${ANSWER};
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("message", (e) => {
  e.waitUntil((async () => {
    const reply = await answer(tw, run, e.data);
    // import() is not allowed in a service worker: a static import (or a bundle) is the only way in.
    if (reply.result) reply.result.dynamicImport = await import("/scenario.mjs").then(() => "loaded", (err) => err.name);
    e.source.postMessage(reply);
  })());
});
`,
};

// The page: window.runIn(kind, input) starts that worker, sends the input, resolves to its reply.
const PAGE_SCRIPT = `
const TIMEOUT_MS = 45_000;
function exchange(kind) {
  if (kind === "module") return viaWorker(new Worker("/worker-module.mjs", { type: "module" }));
  if (kind === "classic") return viaWorker(new Worker("/worker-classic.js"));
  if (kind === "classic-iife") return viaWorker(new Worker("/worker-iife.js"));
  if (kind === "blob") return viaBlob();
  if (kind === "shared") {
    const w = new SharedWorker("/worker-shared.mjs", { type: "module", name: "toolwire-" + Math.random() });
    return { target: w.port, send: (m) => w.port.postMessage(m), errors: w, start: () => w.port.start() };
  }
  throw new Error("unknown kind " + kind);
}
function viaWorker(w) {
  return { target: w, send: (m) => w.postMessage(m), errors: w, start() {} };
}
async function viaBlob() {
  const source = await (await fetch("/worker-blob.mjs")).text();
  return viaWorker(new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" }));
}
async function viaServiceWorker() {
  const reg = await navigator.serviceWorker.register("/sw.mjs", { type: "module", scope: "/" });
  const sw = reg.installing ?? reg.waiting ?? reg.active;
  if (sw.state !== "activated") {
    await new Promise((resolve, reject) => sw.addEventListener("statechange", () => {
      if (sw.state === "activated") resolve();
      if (sw.state === "redundant") reject(new Error("the service worker became redundant (its script failed?)"));
    }));
  }
  return { target: navigator.serviceWorker, send: (m) => sw.postMessage(m), errors: null, start() {} };
}
window.runIn = async (kind, input) => {
  const ch = kind === "service" ? await viaServiceWorker() : await exchange(kind);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ error: { message: kind + " worker: no answer in " + TIMEOUT_MS + " ms" } }), TIMEOUT_MS);
    ch.target.addEventListener("message", (e) => {
      clearTimeout(timer);
      resolve(e.data);
    });
    ch.errors?.addEventListener("error", (e) => {
      clearTimeout(timer);
      resolve({ error: { message: kind + " worker failed: " + (e.message || "an error event (the script did not load?)") } });
    });
    ch.start();
    ch.send(input);
  });
};
window.ready = true;
`;

/** Bundles a classic worker as an IIFE with esbuild (import.meta.url is empty there), as the README's recipe. */
async function iifeWorker() {
  const source = `
import * as tw from ${JSON.stringify(join(repo, "pkg", "web.mjs"))};
import { run } from ${JSON.stringify(SCENARIO)};
const answer = ${ANSWER};
self.onmessage = async (e) => {
  // initAsync() cannot find the file here: it says to pass it.
  let noUrl = null;
  try {
    await tw.initAsync();
  } catch (err) {
    noUrl = { code: err.code, message: err.message, isToolwireError: err instanceof tw.ToolwireError };
  }
  const reply = await answer(tw, run, { ...e.data, wasm: new URL("/pkg/web/toolwire_bg.wasm", location.href) });
  if (reply.result) reply.result.noUrl = noUrl;
  self.postMessage(reply);
};
`;
  const out = await build({
    stdin: { contents: source, resolveDir: repo, sourcefile: "worker-iife.js", loader: "js" },
    bundle: true,
    format: "iife",
    write: false,
    logLevel: "silent",
  });
  assert.deepEqual(out.errors, []);
  return out.outputFiles[0].text;
}

let everything; // server-everything, streamable HTTP, on its own origin
let everythingSse; // server-everything, the deprecated HTTP+SSE transport, reached through the site
let noCors; // another origin: answers everything, with no CORS headers
let site; // the page, the workers, pkg/, and /mcp proxied to server-everything
let browser;
let iife;
const tools = CORPUS.flatMap((name) => JSON.parse(readFileSync(join(corpusDir, `${name}.json`), "utf8")).tools);
const node = createRequire(import.meta.url)(join(repo, "pkg", "index.cjs"));

/** Forwards the request to 127.0.0.1:port, streaming both ways, as a site's reverse proxy does. */
function proxy(req, res, port) {
  const upstream = request({ host: "127.0.0.1", port, path: req.url, method: req.method, headers: { ...req.headers, host: `127.0.0.1:${port}` } }, (up) => {
    res.writeHead(up.statusCode, up.headers);
    up.pipe(res);
  });
  upstream.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end(String(e));
  });
  res.on("close", () => upstream.destroy());
  req.pipe(upstream);
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

function startSite() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
      res.end(body);
    };
    if (url.pathname === "/page.html") return send(200, TYPES[".html"], `<!doctype html><meta charset=utf-8><script type=module src="/page.mjs"></script>`);
    if (url.pathname === "/page.mjs") return send(200, TYPES[".mjs"], PAGE_SCRIPT);
    if (url.pathname === "/scenario.mjs") return send(200, TYPES[".mjs"], readFileSync(SCENARIO));
    if (url.pathname === "/worker-iife.js") return send(200, TYPES[".js"], iife);
    if (WORKERS[url.pathname]) return send(200, TYPES[extname(url.pathname)], WORKERS[url.pathname]);
    if (url.pathname === "/worker-blob.mjs") return send(200, TYPES[".mjs"], BLOB_WORKER.replaceAll("ORIGIN", `http://${req.headers.host}`));
    // The same origin's paths to the MCP servers.
    if (url.pathname === "/mcp") return proxy(req, res, everything.port);
    if (url.pathname === "/sse" || url.pathname === "/message") return proxy(req, res, everythingSse.port);
    if (url.pathname.startsWith("/pkg/")) {
      const file = join(repo, "pkg", normalize(url.pathname.slice(5)));
      if (file.startsWith(join(repo, "pkg")) && existsSync(file)) return send(200, TYPES[extname(file)] ?? "application/octet-stream", readFileSync(file));
    }
    send(404, "text/plain", "not found");
  });
  return listen(server);
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: bash scripts/setup.sh --browser`);
  assert.ok(existsSync(join(repo, "pkg", "web.mjs")), "pkg/ is not built: run make pkg first");
  assert.equal(tools.length, 6 + 13 + 24, "the corpus files this test converts");
  iife = await iifeWorker();
  [everything, everythingSse] = await Promise.all([startEverything(), startEverything({ mode: "sse" })]);
  site = await startSite();
  noCors = await listen(createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }));
  }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
});

after(async () => {
  await browser?.close().catch(() => {});
  for (const s of [site, noCors]) s?.server.closeAllConnections?.(), s?.server.close();
  await Promise.all([everything?.stop(), everythingSse?.stop()]);
});

/** Opens the page, runs the scenario in that kind of worker; resolves to its result (fails on its error). */
async function runIn(kind, extra = {}) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    await page.goto(new URL("/page.html", site.origin).href);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20_000 });
    const input = { tools, server: everything.url, relativeServer: "/mcp", relativeSse: "/sse", noCors: `${noCors.origin}/mcp`, ...extra };
    const reply = await page.evaluate(({ kind, input }) => window.runIn(kind, input), { kind, input });
    assert.equal(reply.error, undefined, `the ${kind} worker threw: ${JSON.stringify(reply.error)}`);
    assert.deepEqual(errors, []);
    return reply.result;
  } finally {
    await page.close();
  }
}

/** What every kind of worker must show. */
function assertScenario(r, { scope }) {
  // A worker's global: no document, no window.
  assert.equal(r.scope, scope);
  assert.equal(r.hasDocument, false);
  assert.equal(r.hasWindow, false);
  assert.deepEqual(r.beforeInit, { name: "ToolwireError", code: "NOT_INITIALIZED", message: "toolwire: call `await initAsync()` first", isToolwireError: true });
  assert.equal(r.version, node.version());

  // The conversions are those of the Node entry, to the byte.
  assert.equal(r.gemini.length, 1);
  assert.equal(r.gemini[0].functionDeclarations.length, tools.length);
  assert.equal(r.gemini[0].functionDeclarations[0].parameters.type, "OBJECT");
  assert.deepEqual(r.gemini, node.convertMcpTools(tools, "gemini"));
  assert.equal(r.openai.length, tools.length);
  assert.deepEqual(r.openai.map((t) => t.function.name), tools.map((t) => t.name));
  assert.deepEqual(r.openai, node.convertMcpTools(tools, "openai"));
  assert.equal(r.unknownProvider.code, "UNKNOWN_PROVIDER");
  assert.equal(r.unknownProvider.isToolwireError, true);
  assert.match(r.unknownProvider.message, /did you mean "openai"/);

  // MCP over the worker's fetch, cross-origin through server-everything's CORS.
  assert.equal(r.transport, "streamable-http");
  assert.equal(r.serverName, "mcp-servers/everything");
  for (const name of ["echo", "get-sum", "trigger-long-running-operation"]) assert.ok(r.tools.includes(name), `${name} in ${r.tools.join()}`);
  assert.equal(r.echo, "Echo: from a worker");
  assert.equal(r.aborted?.code, "ABORTED", JSON.stringify(r.aborted));
  assert.equal(r.aborted.isToolwireError, true);
  assert.deepEqual(r.abortedProgress, [1], "aborted at the first progress notification");
  assert.ok(r.abortedAfterMs < 10_000, `the abort settled the call at once (${r.abortedAfterMs} ms; the operation takes 30 s)`);
  assert.equal(r.echoAfterAbort, "Echo: after the abort");
  assert.equal(r.closed, null, `close(): ${JSON.stringify(r.closed)}`);

  // Paths are the worker's: taken against its location, compared with its origin.
  assert.equal(r.relativeClosed, null);
  assert.deepEqual(r.hubErrors, []);
  assert.equal(r.hubEcho, "mcp__site__echo");
  assert.equal(r.hubCall.text, "Echo: through the hub");
  assert.equal(r.hubCall.isError, false);
  assert.equal(r.sseTransport, "sse");
  assert.equal(r.sseEcho, "Echo: over the old transport");
  assert.equal(r.sseClosed, null);

  // A worker is a browser's: a request CORS refused is explained as such.
  assert.equal(r.noCors?.code, "NETWORK", JSON.stringify(r.noCors));
  assert.match(r.noCors.message, /by CORS: the server must answer OPTIONS preflights/);
}

test("a module worker: initAsync() finds the .wasm from import.meta.url; convert, and MCP by absolute and relative URLs", async () => {
  const r = await runIn("module");
  assertScenario(r, { scope: "DedicatedWorkerGlobalScope" });
});

test("a classic worker, the package loaded with a dynamic import()", async () => {
  const r = await runIn("classic");
  assertScenario(r, { scope: "DedicatedWorkerGlobalScope" });
});

test("a classic worker bundled as an IIFE: initAsync() says to pass the file; initAsync(new URL(...)) works", async () => {
  const r = await runIn("classic-iife");
  assert.equal(r.noUrl?.code, "LOAD_FAILED", JSON.stringify(r.noUrl));
  assert.equal(r.noUrl.isToolwireError, true);
  assert.match(r.noUrl.message, /import\.meta\.url is empty here/);
  assert.match(r.noUrl.message, /pass the file to initAsync/);
  assertScenario(r, { scope: "DedicatedWorkerGlobalScope" });
});

test("a module SharedWorker", async () => {
  const r = await runIn("shared");
  assertScenario(r, { scope: "SharedWorkerGlobalScope" });
});

test("a module service worker, initialised in its event handler", async () => {
  const r = await runIn("service");
  assertScenario(r, { scope: "ServiceWorkerGlobalScope" });
  assert.equal(r.dynamicImport, "TypeError", "import() is refused in a service worker");
});

test("a module worker started from a blob: URL: a path is refused saying why; the page's absolute URLs work", async () => {
  // What the page sends instead of paths: new URL(path, location.href).href.
  const r = await runIn("blob", { path: "/mcp", wasmPath: "/pkg/web/toolwire_bg.wasm", relativeServer: `${site.origin}/mcp`, relativeSse: `${site.origin}/sse` });
  assert.match(r.location, /^blob:http:\/\/127\.0\.0\.1:\d+\//);
  assert.equal(r.wasmByPath?.code, "LOAD_FAILED", JSON.stringify(r.wasmByPath));
  assert.equal(r.wasmByPath.isToolwireError, true);
  assert.ok(
    r.wasmByPath.message.startsWith(`toolwire: loading the WebAssembly module failed: "/pkg/web/toolwire_bg.wasm" is a relative URL, and this worker's location, ${r.location}, is no base for it (as in a worker started from a blob: or data: URL; `),
    r.wasmByPath.message,
  );
  assert.match(r.wasmByPath.message, /pass initAsync an absolute URL \(in the page, new URL\("\/pkg\/web\/toolwire_bg\.wasm", location\.href\)\.href, sent to the worker\)/);
  assert.doesNotMatch(r.wasmByPath.message, /unreachable|CORS/);
  assert.equal(r.mcpByPath?.code, "NETWORK", JSON.stringify(r.mcpByPath));
  assert.equal(
    r.mcpByPath.message,
    `initialize: the URL "/mcp" is relative, and this worker's location, "${r.location}", is no base for it (as in a worker started from a blob: or data: URL): ` +
      'give the server\'s absolute URL (in the page, new URL("/mcp", document.baseURI).href, sent to the worker)',
  );
  assertScenario(r, { scope: "DedicatedWorkerGlobalScope" });
});
