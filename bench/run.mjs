// Times converting the whole shared corpus (every server's tools/list) for each provider, through both
// entry points, against the floor any JS-side converter pays: JSON.parse + JSON.stringify of the same
// text, in the same process. Prints medians and ratios to the floor.
//
//   node bench/run.mjs            (make bench builds pkg/ first)
//   BENCH_RUNS=31 node bench/run.mjs   (default 9 measured runs after 2 warm-up runs)
//
// Corpus: $TOOLWIRE_SHARED/corpus/tools/*.json, default ../shared beside the repository.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import * as toolwire from "../pkg/index.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const shared = process.env.TOOLWIRE_SHARED ?? join(repo, "..", "shared");
const corpusDir = join(shared, "corpus", "tools");
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const WARMUP = 2;
const PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock"];

const servers = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => {
    const tools = JSON.parse(readFileSync(join(corpusDir, f), "utf8")).tools;
    return { file: f, tools, text: JSON.stringify(tools) };
  });
const toolCount = servers.reduce((n, s) => n + s.tools.length, 0);
const bytes = servers.reduce((n, s) => n + Buffer.byteLength(s.text), 0);

/** Median wall time in ms of `fn` over RUNS runs, after WARMUP unmeasured ones. */
function median(fn) {
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    fn();
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

const floor = median(() => {
  for (const s of servers) JSON.stringify(JSON.parse(s.text));
});

const rows = [];
for (const provider of PROVIDERS) {
  try {
    const json = median(() => {
      for (const s of servers) toolwire.convertMcpToolsJson(s.text, provider);
    });
    const js = median(() => {
      for (const s of servers) toolwire.convertMcpTools(s.tools, provider);
    });
    rows.push([provider, json.toFixed(1), js.toFixed(1), (json / floor).toFixed(2), (js / floor).toFixed(2)]);
  } catch (e) {
    rows.push([provider, `error: ${e.code ?? e.name}: ${e.message}`, "", "", ""]);
    process.exitCode = 1;
  }
}

const header = ["provider", "json ms", "objects ms", "json/floor", "objects/floor"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");

console.log(
  `toolwire ${toolwire.version()}, node ${process.version}: ${servers.length} servers, ${toolCount} tools, ` +
    `${(bytes / 1e6).toFixed(2)} MB of tools JSON; median of ${RUNS} runs over the whole corpus`,
);
console.log(`floor (JSON.parse + JSON.stringify of the same text): ${floor.toFixed(1)} ms`);
console.log();
console.log(line(header));
for (const r of rows) console.log(r[1].startsWith("error") ? `${r[0].padEnd(widths[0])}  ${r[1]}` : line(r));
console.log();
console.log("json = convertMcpToolsJson(text) -> text; objects = convertMcpTools(objects) -> objects.");
