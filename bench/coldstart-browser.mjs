// Cold start of the npm package's browser build (pkg/web.mjs + web/toolwire_bg.wasm) in headless
// Chromium, driven by playwright-core (no browser download: the system's /usr/bin/chromium).
//
// pkg/ is served by a tiny HTTP server on 127.0.0.1 (an ephemeral port; .wasm as application/wasm, so
// wasm-bindgen's init uses WebAssembly.instantiateStreaming), with one generated page, /__bench.html.
// Every run launches a NEW browser with a NEW empty --user-data-dir (no HTTP cache, no V8 code cache),
// loads the page, and the page times with performance.now():
//   import = `await import("/web.mjs")`: fetching and evaluating the JS glue;
//   init   = `await initAsync()`: fetching, compiling and instantiating the .wasm (the cold-start figure);
//   first  = the first convertMcpToolsJson(text, "openai") call;
//   total  = import + init + first.
// Then, in the same browser, the page is reloaded once and timed again ("warm": HTTP cache and V8's
// cached wasm code may now be used), to show what a returning visitor pays.
import { createServer } from "node:http";
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";
import { median } from "./lib.mjs";

export const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
];

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
};

const PAGE = `<!doctype html><meta charset="utf-8"><title>toolwire cold start</title>
<script type="module">
  const text = await (await fetch("/__input.json")).text();   // not timed
  const t0 = performance.now();
  const mod = await import("/web.mjs");
  const t1 = performance.now();
  await mod.initAsync();
  const t2 = performance.now();
  const out = mod.convertMcpToolsJson(text, "openai", { server: "bench" });
  const t3 = performance.now();
  window.__bench = { import: t1 - t0, init: t2 - t1, first: t3 - t2, total: t3 - t0, outBytes: out.length };
</script>`;

/** Serves `root` and the bench page on 127.0.0.1; resolves to {url, close}. */
function serve(root, inputText) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === "/__bench.html") return void res.writeHead(200, { "content-type": TYPES[".html"] }).end(PAGE);
    if (path === "/__input.json") return void res.writeHead(200, { "content-type": TYPES[".json"] }).end(inputText);
    const file = resolve(join(root, decodeURIComponent(path)));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () =>
      ok({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }),
    );
  });
}

/**
 * Runs `runs` cold starts. Resolves to {runs, cold: {import, init, first, total} medians, warm: {...},
 * chromium: version} or {unavailable: reason} (never throws: the bench prints the reason instead).
 */
export async function browserColdStart({ pkgDir, inputText, runs }) {
  if (!existsSync(CHROMIUM)) {
    return { unavailable: `${CHROMIUM} not found (apt-get install chromium)` };
  }
  let chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch (e) {
    return { unavailable: `playwright-core cannot be imported: ${e.message}` };
  }
  const root = resolve(pkgDir);
  let srv;
  const cold = [];
  const warm = [];
  let version = null;
  try {
    srv = await serve(root, inputText);
    // Run -1 is an unmeasured warm-up: the first Chromium launch on a machine can be very slow (font and
    // disk caches), which is not the page's cold start. A run that fails is retried once.
    for (let i = -1, retried = false; i < runs; i++) {
      const profile = mkdtempSync(join(tmpdir(), "toolwire-bench-chromium-"));
      let context;
      try {
        context = await chromium.launchPersistentContext(profile, {
          executablePath: CHROMIUM,
          headless: true,
          args: ARGS,
          timeout: 60_000,
        });
        version ??= context.browser()?.version() ?? null;
        const page = context.pages()[0] ?? (await context.newPage());
        if (process.env.BENCH_DEBUG) {
          page.on("console", (m) => console.error("page console:", m.text()));
          page.on("pageerror", (e) => console.error("page error:", e.message));
          page.on("response", (r) => console.error("page response:", r.status(), r.url()));
        }
        const measure = async (load) => {
          await load();
          await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 20_000 });
          return page.evaluate(() => window.__bench);
        };
        const c = await measure(() => page.goto(`${srv.url}/__bench.html`));
        const w = await measure(() => page.reload());
        if (i >= 0) {
          cold.push(c);
          warm.push(w);
        }
      } catch (e) {
        if (retried) throw e;
        retried = true;
        i--;
      } finally {
        await context?.close().catch(() => {});
        rmSync(profile, { recursive: true, force: true });
      }
    }
  } catch (e) {
    return { unavailable: `Chromium run failed: ${String(e.message).split("\n")[0]}` };
  } finally {
    await srv?.close();
  }
  const med = (list) => Object.fromEntries(["import", "init", "first", "total"].map((k) => [k, median(list.map((r) => r[k]))]));
  return { runs: cold.length, cold: med(cold), warm: med(warm), chromium: version };
}
