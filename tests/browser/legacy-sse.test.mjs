// A page connecting to a server of the deprecated HTTP+SSE transport (server-everything in `sse` mode, on another
// origin, behind its own CORS): `transport: "auto"` finds it from the /sse URL, lists its tools and calls one, with
// the browser's fetch and its CORS rules (a preflight for each POST to the endpoint, no Mcp-* headers sent).
//
// Needs pkg/ (make pkg) and /usr/bin/chromium; CHROMIUM=/path overrides the browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";
import { repo } from "../js/shared.mjs";
import { startEverything } from "../servers/everything.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };

// The page: connect to ?server=, list, call echo and a long call with progress; what happened in window.__result.
const PAGE_SCRIPT = `
import initAsync, { McpClient } from "/pkg/web.mjs";
const out = {};
try {
  await initAsync();
  const client = new McpClient(new URL(location.href).searchParams.get("server"));
  await client.connect();
  out.transport = client.transport;
  out.tools = (await client.listTools()).map((t) => t.name);
  out.echo = (await client.callTool("echo", { message: "from the page" })).content[0].text;
  const progress = [];
  await client.callTool("trigger-long-running-operation", { duration: 1, steps: 2 }, { onProgress: (p) => progress.push(p.progress) });
  out.progress = progress;
  await client.close();
} catch (e) {
  out.error = { code: e.code, message: e.message };
}
window.__result = out;
`;

let site;
let sse;
let browser;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: bash scripts/setup.sh --browser`);
  assert.ok(existsSync(join(repo, "pkg", "web.mjs")), "pkg/ is not built: run make pkg first");
  sse = await startEverything({ mode: "sse" });
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const send = (status, type, body) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(body);
    };
    if (url.pathname === "/page.html") return send(200, TYPES[".html"], `<!doctype html><meta charset=utf-8><script type=module src="/page.mjs"></script>`);
    if (url.pathname === "/page.mjs") return send(200, TYPES[".mjs"], PAGE_SCRIPT);
    // The same script under a <base href> (?base=): its src absolute, as the base would move it.
    if (url.pathname === "/base.html") {
      const base = url.searchParams.get("base").replaceAll('"', "&quot;");
      return send(200, TYPES[".html"], `<!doctype html><meta charset=utf-8><base href="${base}"><script type=module src="${site.origin}/page.mjs"></script>`);
    }
    if (url.pathname.startsWith("/pkg/")) {
      const file = join(repo, "pkg", normalize(url.pathname.slice(5)));
      if (file.startsWith(join(repo, "pkg")) && existsSync(file)) return send(200, TYPES[extname(file)] ?? "application/octet-stream", readFileSync(file));
    }
    send(404, "text/plain", "not found");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  site = { server, origin: `http://127.0.0.1:${server.address().port}` };
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
});

after(async () => {
  await browser?.close().catch(() => {});
  site?.server.closeAllConnections?.();
  site?.server.close();
  await sse?.stop();
});

test("a page finds the old transport from the /sse URL, lists the tools and calls them, progress included", async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    const url = new URL("/page.html", site.origin);
    url.searchParams.set("server", sse.url);
    await page.goto(url.href);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 });
    const result = await page.evaluate(() => window.__result);
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    assert.equal(result.transport, "sse");
    assert.ok(result.tools.includes("echo"), result.tools.join());
    assert.equal(result.echo, "Echo: from the page");
    assert.deepEqual(result.progress, [1, 2]);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

// A relative server URL is the page's base URL's (<base href>), as fetch takes it: here the base is the SSE
// server's origin, not the page's, so "/sse" is that server's /sse, and the endpoint its stream names is compared
// with that origin (against location.href it would be taken for another origin's, and refused).
test("a relative server URL is taken against the page's <base href>, as fetch takes it", async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    const url = new URL("/base.html", site.origin);
    url.searchParams.set("base", new URL("/sub/", sse.url).href);
    url.searchParams.set("server", new URL(sse.url).pathname);
    await page.goto(url.href);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 });
    const result = await page.evaluate(() => window.__result);
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    assert.equal(result.transport, "sse");
    assert.equal(result.echo, "Echo: from the page");
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
