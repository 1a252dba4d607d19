// Converts the whole corpus ROUNDS times (default 1,000) in one process, for one provider (default
// "gemini", the heaviest path), and reports the module's linear memory and the process RSS before and
// after: growth would mean a leak in the core or at the boundary. Prints figures; exits 1 if the wasm
// memory grew after the warm-up.
//
//   node scripts/memcheck.mjs [rounds] [provider]      (make memcheck)
// `provider` may end in "-strict" (e.g. anthropic-strict) for that provider's strict mode; PKG names
// another built package directory than pkg/.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const pkg = resolve(process.env.PKG ?? join(repo, "pkg"));
const tw = require(pkg);
// The module conversions run in (Node loads the MCP client's module apart: pkg-template/index.cjs).
const raw = require(join(pkg, "node", "toolwire_convert.js"));
const shared = process.env.TOOLWIRE_SHARED ?? join(repo, "..", "shared");
const dir = join(shared, "corpus", "tools");
const rounds = Number(process.argv[2] ?? 1000);
const path = process.argv[3] ?? "gemini";
const strict = path.endsWith("-strict");
const provider = strict ? path.slice(0, -"-strict".length) : path;

const texts = readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
  .map((f) => JSON.stringify(JSON.parse(readFileSync(join(dir, f), "utf8")).tools));
const mb = (n) => (n / 1048576).toFixed(1);
const convertAll = () => { for (const t of texts) tw.convertMcpToolsJson(t, provider, { strict }); };

for (let i = 0; i < 3; i++) convertAll(); // warm-up: the allocator reaches its working size
globalThis.gc?.();
const wasmBefore = raw.__wasmMemoryBytes();
const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
for (let i = 1; i <= rounds; i++) {
  convertAll();
  if (i % 100 === 0) process.stdout.write(`  ${i}/${rounds} wasm ${mb(raw.__wasmMemoryBytes())} MiB, rss ${mb(process.memoryUsage().rss)} MiB\n`);
}
globalThis.gc?.();
const wasmAfter = raw.__wasmMemoryBytes();
const rssAfter = process.memoryUsage().rss;
console.log(`${rounds} x corpus (${texts.length} servers) for ${path} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
console.log(`wasm linear memory: ${mb(wasmBefore)} MiB -> ${mb(wasmAfter)} MiB (${wasmAfter === wasmBefore ? "no growth" : "GREW"})`);
console.log(`process RSS:        ${mb(rssBefore)} MiB -> ${mb(rssAfter)} MiB`);
process.exit(wasmAfter === wasmBefore ? 0 : 1);
