// Loading the .wasm in a real browser, where it fails in ways Node cannot show: a Content Security Policy
// without 'wasm-unsafe-eval', a page that serves HTML where the .wasm should be (a single-page app's
// fallback), a cross-origin file served without CORS, an opaque (no-cors) Response, an opaque redirect (a redirect
// "manual" fetch's), a page opened from file://.
// Each LOAD_FAILED message says what to do; with 'wasm-unsafe-eval' the same page works. And what only such a page
// shows once loaded: an MCP server its CSP's connect-src leaves out (NETWORK naming it), and a shared memory's
// buffer where there is no SharedArrayBuffer global (no cross-origin isolation) read as bytes.
//
// Needs pkg/ (make pkg) and /usr/bin/chromium; CHROMIUM=/path overrides the browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";
import { build } from "esbuild";
import { repo } from "../js/shared.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

// The page's script: initAsync(input from ?wasm=), then a conversion; what happened in window.__result.
const PAGE_SCRIPT = `
import * as tw from "/pkg/web.mjs";
const wasm = new URL(location.href).searchParams.get("wasm") ?? undefined;
const out = {};
try {
  await tw.initAsync(wasm);
  out.version = tw.version();
  out.name = tw.convertMcpTools([{ name: "a", inputSchema: { type: "object" } }], "gemini")[0].functionDeclarations[0].name;
} catch (e) {
  out.error = { name: e.name, code: e.code, message: e.message, cause: e.cause ? String(e.cause.message ?? e.cause) : null, isToolwireError: e instanceof tw.ToolwireError };
}
window.__result = out;
`;

/** Serves pkg/ at /pkg/ (CORS only when `cors`), the page at /page.html (CSP from ?csp=), HTML at /app/*. */
function startServer({ cors }) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...(cors ? { "access-control-allow-origin": "*" } : {}), ...headers });
      res.end(body);
    };
    if (url.pathname === "/page.html") {
      const csp = url.searchParams.get("csp");
      return send(200, TYPES[".html"], `<!doctype html><meta charset=utf-8><script type=module src="/page.mjs"></script>`, csp ? { "content-security-policy": csp } : {});
    }
    if (url.pathname === "/page.mjs") return send(200, TYPES[".mjs"], PAGE_SCRIPT);
    if (url.pathname === "/inline.js") return send(200, TYPES[".js"], inlineWorker);
    // A page that loads nothing: a test imports the package into it itself.
    if (url.pathname === "/blank.html") {
      const csp = url.searchParams.get("csp");
      return send(200, TYPES[".html"], "<!doctype html><meta charset=utf-8><title>blank</title>", csp ? { "content-security-policy": csp } : {});
    }
    // A .wasm URL that redirects to the file (a CDN's versionless URL).
    if (url.pathname === "/moved.wasm") return send(302, "text/plain", "", { location: "/pkg/web/toolwire_bg.wasm" });
    // A single-page app's server: any other path under /app/ is its index page.
    if (url.pathname.startsWith("/app/")) return send(200, TYPES[".html"], "<!doctype html><title>app</title><div id=root></div>");
    if (url.pathname.startsWith("/pkg/")) {
      const file = join(repo, "pkg", normalize(url.pathname.slice(5)));
      if (file.startsWith(join(repo, "pkg")) && existsSync(file)) return send(200, TYPES[extname(file)] ?? "application/octet-stream", readFileSync(file));
    }
    send(404, "text/plain", "not found");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

// A module worker bundled with the package in it (esbuild, ESM), to be run from a blob: or a data: URL as an inline
// worker is: initAsync() with no input, then with the URL the page sends.
let inlineWorker;
let site; // the page's origin, CORS on
let other; // another origin, serving the package without CORS
let browser;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: bash scripts/setup.sh --browser`);
  assert.ok(existsSync(join(repo, "pkg", "web.mjs")), "pkg/ is not built: run make pkg first");
  const contents = `import { initAsync, ToolwireError, convertMcpTools } from "./web.mjs";
    onmessage = async (m) => {
      const e = await initAsync().then(() => undefined, (e) => e);
      await initAsync(m.data);
      postMessage({ isToolwireError: e instanceof ToolwireError, code: e?.code, message: e?.message, name: convertMcpTools([{ name: "a" }], "gemini")[0].functionDeclarations[0].name });
    };`;
  const bundled = await build({ stdin: { contents, resolveDir: join(repo, "pkg"), loader: "js" }, bundle: true, format: "esm", platform: "browser", write: false, logLevel: "silent" });
  inlineWorker = bundled.outputFiles[0].text;
  site = await startServer({ cors: true });
  other = await startServer({ cors: false });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
});

after(async () => {
  await browser?.close().catch(() => {});
  for (const s of [site, other]) s?.server.closeAllConnections?.(), s?.server.close();
});

/** Opens the page with that CSP (or none) and .wasm input; resolves to window.__result. */
async function run({ csp, wasm } = {}) {
  const page = await browser.newPage();
  try {
    const url = new URL("/page.html", site.origin);
    if (csp) url.searchParams.set("csp", csp);
    if (wasm) url.searchParams.set("wasm", wasm);
    await page.goto(url.href);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 20_000 });
    return await page.evaluate(() => window.__result);
  } finally {
    await page.close();
  }
}

function assertLoadFailed(result) {
  assert.ok(result.error, `expected LOAD_FAILED, got ${JSON.stringify(result)}`);
  assert.equal(result.error.code, "LOAD_FAILED", result.error.message);
  assert.equal(result.error.isToolwireError, true);
  assert.ok(result.error.cause, "the error met is the cause");
  return result.error.message;
}

test("a CSP without 'wasm-unsafe-eval': LOAD_FAILED says to add it to script-src (and where, in an extension)", async () => {
  const message = assertLoadFailed(await run({ csp: "default-src 'none'; script-src 'self'; connect-src 'self'" }));
  assert.match(message, /^toolwire: loading the WebAssembly module failed: .*Content Security [Pp]olicy/);
  assert.match(message, /add 'wasm-unsafe-eval' to its script-src/);
  assert.match(message, /content_security_policy\.extension_pages/);
  assert.doesNotMatch(message, /pass the file to initAsync/, "passing the file elsewhere would not help");
});

test("the same CSP with 'wasm-unsafe-eval' loads and converts", async () => {
  const result = await run({ csp: "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'" });
  assert.equal(result.error, undefined, JSON.stringify(result.error));
  assert.match(result.version, /^\d+\.\d+\.\d+/);
  assert.equal(result.name, "a");
});

test("an HTML page where the .wasm should be: LOAD_FAILED names the URL and its content-type", async () => {
  const message = assertLoadFailed(await run({ wasm: "/app/assets/toolwire_bg.wasm" }));
  assert.ok(message.includes(`${site.origin}/app/assets/toolwire_bg.wasm is an HTML page (content-type text/html; charset=utf-8), not the WebAssembly module`), message);
  assert.match(message, /single-page app/);
});

test("a cross-origin .wasm without CORS headers: LOAD_FAILED names the URL, CORS and connect-src", async () => {
  const wasm = `${other.origin}/pkg/web/toolwire_bg.wasm`;
  const message = assertLoadFailed(await run({ wasm }));
  assert.ok(message.includes(`${wasm} could not be fetched (Failed to fetch)`), message);
  assert.match(message, /CORS headers \(Access-Control-Allow-Origin\)/);
  assert.match(message, /connect-src/);
});

/** Runs `fn(arg)` in a fresh page that has not loaded toolwire (served with that CSP, or none), and gives what it returns. */
async function inBlankPage(fn, arg, { csp } = {}) {
  const page = await browser.newPage();
  try {
    const url = new URL("/blank.html", site.origin);
    if (csp) url.searchParams.set("csp", csp);
    await page.goto(url.href);
    return await page.evaluate(fn, arg);
  } finally {
    await page.close();
  }
}

test("initAsync takes a DataView of the bytes, at an offset into a larger buffer (s23b F2)", async () => {
  const result = await inBlankPage(async () => {
    const tw = await import("/pkg/web.mjs");
    const bytes = new Uint8Array(await (await fetch("/pkg/web/toolwire_bg.wasm")).arrayBuffer());
    const big = new Uint8Array(bytes.length + 13).fill(0xee);
    big.set(bytes, 7);
    try {
      await tw.initAsync(new DataView(big.buffer, 7, bytes.length));
      return { version: tw.version() };
    } catch (e) {
      return { error: `${e.code}: ${e.message}` };
    }
  });
  assert.equal(result.error, undefined, result.error);
  assert.match(result.version, /^\d+\.\d+\.\d+/);
});

test("toolwire/convert (convert.mjs): initAsync() fetches the module without the MCP client from beside it, and converts", async () => {
  const result = await inBlankPage(async () => {
    const tw = await import("/pkg/convert.mjs");
    try {
      await tw.initAsync();
      const name = tw.convertMcpTools([{ name: "a", inputSchema: { type: "object" } }], "gemini")[0].functionDeclarations[0].name;
      const fetched = performance.getEntriesByType("resource").map((r) => new URL(r.name).pathname).filter((p) => p.endsWith(".wasm"));
      return { name, fetched, client: "McpClient" in tw || "McpHub" in tw, version: tw.version() };
    } catch (e) {
      return { error: `${e.code}: ${e.message}` };
    }
  });
  assert.equal(result.error, undefined, result.error);
  assert.equal(result.name, "a");
  assert.deepEqual(result.fetched, ["/pkg/web/toolwire_convert_bg.wasm"]);
  assert.equal(result.client, false);
  assert.match(result.version, /^\d+\.\d+\.\d+/);
});

test("a call made while a bad load is under way loads from its own input (s23b F3)", async () => {
  const result = await inBlankPage(async () => {
    const tw = await import("/pkg/web.mjs");
    const settled = await Promise.allSettled([tw.initAsync("/app/assets/toolwire_bg.wasm"), tw.initAsync("/pkg/web/toolwire_bg.wasm"), tw.initAsync()]);
    return { settled: settled.map((r) => (r.status === "fulfilled" ? "loaded" : `${r.reason.code}: ${r.reason.message}`)), version: tw.version() };
  });
  assert.match(result.settled[0], /^LOAD_FAILED: .*is an HTML page/);
  assert.deepEqual(result.settled.slice(1), ["loaded", "loaded"]);
  assert.match(result.version, /^\d+\.\d+\.\d+/);
});

test("a bundle run from a blob: or data: URL (an inline worker): initAsync() is LOAD_FAILED saying to pass an absolute URL, which then loads", async () => {
  const result = await inBlankPage(async () => {
    const code = await (await fetch("/inline.js")).text();
    const out = {};
    const urls = { blob: URL.createObjectURL(new Blob([code], { type: "text/javascript" })), data: `data:text/javascript;charset=utf-8,${encodeURIComponent(code)}` };
    for (const [kind, url] of Object.entries(urls)) {
      const w = new Worker(url, { type: "module" });
      w.postMessage(new URL("/pkg/web/toolwire_bg.wasm", document.baseURI).href);
      out[kind] = await new Promise((r) => ((w.onmessage = (e) => r(e.data)), (w.onerror = (e) => r({ onerror: e.message })), setTimeout(() => r("timeout"), 15_000)));
      w.terminate();
    }
    return out;
  });
  for (const kind of ["blob", "data"]) {
    const r = result[kind];
    assert.deepEqual([r.isToolwireError, r.code, r.name], [true, "LOAD_FAILED", "a"], JSON.stringify(r));
    assert.ok(r.message.startsWith(`toolwire: cannot tell where toolwire_bg.wasm is (this module runs from a ${kind}: URL`), r.message);
    assert.match(r.message, /pass initAsync the file's absolute URL/);
  }
});

test("an MCP server the page's CSP connect-src leaves out: NETWORK names connect-src beside CORS (s30c F1)", async () => {
  const csp = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";
  const result = await inBlankPage(async (url) => {
    const tw = await import("/pkg/web.mjs");
    await tw.initAsync();
    return new tw.McpClient(url).connect().then(() => "connected", (e) => `${e.code}: ${e.message}`);
  }, `${other.origin}/mcp`, { csp });
  assert.match(result, /^NETWORK: initialize: no HTTP response \(TypeError: Failed to fetch\); /);
  assert.match(result, /refused by a Content Security Policy \(its connect-src\) or by CORS/);
});

test("an opaque Response (a no-cors fetch), an opaque redirect (redirect \"manual\") and Response.error(): LOAD_FAILED says the body cannot be read, and CORS or the redirect (s30c F4, s30r2 F6)", async () => {
  const result = await inBlankPage(async (url) => {
    const tw = await import("/pkg/web.mjs");
    const failure = (input) => tw.initAsync(input).then(() => "loaded", (e) => `${e.code}: ${e.message}`);
    return {
      opaque: await failure(fetch(url, { mode: "no-cors" })),
      redirect: await failure(fetch("/moved.wasm", { redirect: "manual" })),
      error: await failure(Response.error()),
    };
  }, `${other.origin}/pkg/web/toolwire_bg.wasm`);
  assert.match(result.redirect, /^LOAD_FAILED: .*failed: the Response is a redirect that was not followed \(type "opaqueredirect", from a fetch with redirect "manual" of http:\/\/127\.0\.0\.1:\d+\/moved\.wasm\): it has no body; /);
  assert.match(result.redirect, /fetch the file with redirect "follow" \(fetch's default\) rather than "manual", or pass initAsync its URL$/);
  assert.match(result.opaque, /^LOAD_FAILED: .*failed: the Response is opaque \(type "opaque", from a fetch with mode "no-cors"\): its body cannot be read; /);
  assert.match(result.opaque, /served with CORS headers \(Access-Control-Allow-Origin\): serve it so and fetch it without mode "no-cors"/);
  assert.match(result.error, /^LOAD_FAILED: .*failed: the Response is a network error \(type "error", as Response\.error\(\) makes\): it has no body; /);
});

test("a shared memory's buffer in a page without cross-origin isolation (no SharedArrayBuffer global) is bytes: push and a fetch body read it (s30c F3)", async () => {
  const result = await inBlankPage(async () => {
    const tw = await import("/pkg/web.mjs");
    await tw.initAsync();
    const sharedOf = (bytes) => {
      const b = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer.slice(0, bytes.length);
      new Uint8Array(b).set(bytes);
      return b;
    };
    const chunk = (o) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, ...o }] })}\n\n`;
    const sse = chunk({ delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "echo", arguments: "{}" } }] }, finish_reason: null }) +
      chunk({ delta: {}, finish_reason: "tool_calls" }) + "data: [DONE]\n\n";
    const acc = new tw.ToolCallAccumulator("openai-chat");
    const calls = [...acc.push(sharedOf(new TextEncoder().encode(sse))), ...acc.finish()].map((c) => c.tool);
    // A custom fetch whose body yields such chunks.
    const body = (id) => JSON.stringify({ jsonrpc: "2.0", id, result: id === 0 ? { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "f", version: "1" } } : { tools: [{ name: "echo", inputSchema: { type: "object" } }] } });
    const fetch = async (_url, init) => {
      const m = JSON.parse(init.body);
      if (m.id === undefined) return new Response(null, { status: 202 });
      let done = false;
      const value = sharedOf(new TextEncoder().encode(body(m.id)));
      const read = async () => (done ? { done: true } : ((done = true), { done: false, value }));
      return { status: 200, ok: true, headers: new Headers({ "content-type": "application/json" }), body: { getReader: () => ({ read, cancel: async () => {}, releaseLock() {} }) } };
    };
    const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
    const tools = await client.connect().then(() => client.listTools()).then((t) => t.map((t) => t.name), (e) => `${e.code}: ${e.message}`);
    await client.close().catch(() => {});
    return { isolated: crossOriginIsolated, global: typeof SharedArrayBuffer, calls, tools };
  });
  assert.deepEqual([result.isolated, result.global], [false, "undefined"], "the case: no SharedArrayBuffer global");
  assert.deepEqual(result.calls, ["echo"], "the stream's call, not [] from the buffer read as the event {}");
  assert.deepEqual(result.tools, ["echo"]);
});

test("a page opened from file:// is told to serve it over http(s) or inline the bytes, which then load (s30c F2)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolwire-file-page-"));
  try {
    // The package as an app's dependency, for the bundler to resolve "toolwire" and "toolwire/toolwire.wasm".
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(join(repo, "pkg"), join(dir, "node_modules", "toolwire"), "dir");
    copyFileSync(join(repo, "pkg", "web", "toolwire_bg.wasm"), join(dir, "toolwire_bg.wasm"));
    const report = `.then(() => (window.__result = convertMcpTools([{ name: "a" }], "gemini")[0].functionDeclarations[0].name), (e) => (window.__result = \`\${e.code}: \${e.message}\`));`;
    const apps = {
      // The .wasm beside the page, by URL: fetch reads no file: URL.
      beside: `import { initAsync, convertMcpTools } from "toolwire";
        initAsync(new URL("toolwire_bg.wasm", location.href))${report}`,
      // The advice followed: the bytes in the bundle.
      inlined: `import { initAsync, convertMcpTools } from "toolwire";
        import bytes from "toolwire/toolwire.wasm";
        initAsync(bytes)${report}`,
    };
    const result = {};
    for (const [name, contents] of Object.entries(apps)) {
      await build({ stdin: { contents, resolveDir: dir, loader: "js" }, bundle: true, format: "iife", platform: "browser", loader: { ".wasm": "binary" }, outfile: join(dir, `${name}.js`), logLevel: "silent" });
      writeFileSync(join(dir, `${name}.html`), `<!doctype html><meta charset=utf-8><script src="${name}.js"></script>`);
      const page = await browser.newPage();
      try {
        await page.goto(pathToFileURL(join(dir, `${name}.html`)).href);
        await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 20_000 });
        result[name] = await page.evaluate(() => window.__result);
      } finally {
        await page.close();
      }
    }
    assert.match(result.beside, /^LOAD_FAILED: .*a page or worker cannot fetch file:\/\/.*\/toolwire_bg\.wasm \(fetch reads no file: URL\): serve the page over http\(s\), or pass initAsync the file's bytes, e\.g\. inlined by the bundler/);
    assert.doesNotMatch(result.beside, /readFileSync/);
    assert.equal(result.inlined, "a");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
