// Shared pieces of the Node benchmark (bench/run.mjs): the corpus and the inputs built from it, the
// timing loop, package versions and table printing. Nothing here times anything by itself.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const shared = process.env.TOOLWIRE_SHARED ?? join(repo, "..", "shared");
export const corpusDir = join(shared, "corpus", "tools");

// ---------------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------------

/**
 * Every corpus file in file-name order: [{server, tools}]. `tools` is the server's `tools/list` array as
 * captured (nothing cleaned).
 */
export function loadCorpus() {
  return readdirSync(corpusDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const doc = JSON.parse(readFileSync(join(corpusDir, f), "utf8"));
      return { server: doc.server ?? f.replace(/\.json$/, ""), tools: doc.tools };
    });
}

/**
 * A benchmark input: a list of servers, each with its tools as objects (as an MCP client holds them after
 * `listTools()`), as JSON text (the `tools/list` array as bytes) and as a Buffer of those bytes. Every
 * conversion in a table converts each server's tools in one call, server by server, as an app with that
 * many MCP servers does when it builds a request.
 */
export function makeSet(label, servers) {
  const list = servers.map(({ server, tools }) => {
    const text = JSON.stringify(tools);
    return { server, tools, text, buf: Buffer.from(text) };
  });
  const bytes = list.reduce((n, s) => n + s.buf.length, 0);
  const toolCount = list.reduce((n, s) => n + s.tools.length, 0);
  return { label, servers: list, bytes, toolCount };
}

/**
 * The "typical 200-tool" set: the first `n` tools in file order across the corpus (servers sorted by file
 * name, tools in the order each server listed them), keeping each tool with its server. With the current
 * corpus that is the first 13 servers whole (airbnb-mcp ... kubernetes-mcp-server), mastra-mcp-docs-server,
 * and the first 5 tools of mcp-atlassian.
 */
export function firstTools(servers, n) {
  const out = [];
  let left = n;
  for (const s of servers) {
    if (left <= 0) break;
    const tools = s.tools.slice(0, left);
    out.push({ server: s.server, tools });
    left -= tools.length;
  }
  return out;
}

/**
 * The corpus concatenated `k` times into ONE tool list (one conversion call), for the scaling figures.
 * Copy 0 keeps the names; copy i > 0 renames every tool `<name>_<i>`. Each tool carries `serverName`, so
 * toolwire prefixes `mcp__<server>__<name>` and every name stays unique (some tool names occur in more
 * than one server).
 */
export function replicate(servers, k) {
  const tools = [];
  for (let i = 0; i < k; i++) {
    for (const s of servers) {
      for (const t of s.tools) tools.push({ ...t, name: i === 0 ? t.name : `${t.name}_${i}`, serverName: s.server });
    }
  }
  const text = JSON.stringify(tools);
  return { k, tools, text, bytes: Buffer.byteLength(text), toolCount: tools.length };
}

// ---------------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------------

/**
 * A full garbage collection, run between timed runs (never inside one) so that one candidate's garbage
 * is not collected on the next one's clock. `--expose-gc` gives `gc` directly; without it the same
 * function is obtained through V8's flag API (a documented Node idiom), so GC between runs always
 * happens.
 */
export const gc = (() => {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  try {
    setFlagsFromString("--expose-gc");
    const fn = runInNewContext("gc");
    if (typeof fn === "function") return fn;
  } catch {}
  return null;
})();

/** A place to put results so that no conversion is ever optimised away. */
export let sink = 0;
export function consume(value) {
  if (typeof value === "string") sink += value.length;
  else if (Array.isArray(value)) sink += value.length;
  else if (value != null) sink += 1;
}

/**
 * Times candidates against each other, round-robin: `warmup` unmeasured rounds, then `runs` rounds in
 * each of which every candidate runs once (GC before each run, outside the clock). Interleaving keeps
 * slow drift (a neighbour process, CPU frequency) from landing on one candidate only, so the ratios
 * between rows are fair. Each candidate is `{id, run, prepare?}`:
 *   - `prepare()` (optional, untimed) builds that run's input, e.g. fresh copies for a peer that mutates
 *     its input;
 *   - `run(input)` is the timed part, sync or async (an async one is awaited inside the clock).
 * A candidate that throws is marked failed with the message, and is not run again.
 * `budgetMs` (optional) stops after the first measured round that ends past that much time, for inputs
 * where one run takes many seconds; each result says how many runs it has.
 * Returns Map id -> {median, min, runs} | {error}.
 */
export async function timeAll(candidates, { warmup, runs, budgetMs = Infinity }) {
  const samples = new Map(candidates.map((c) => [c.id, []]));
  const errors = new Map();
  const start = performance.now();
  for (let round = 0; round < warmup + runs; round++) {
    if (round > warmup && performance.now() - start > budgetMs) break;
    for (const c of candidates) {
      if (errors.has(c.id)) continue;
      try {
        const input = c.prepare ? await c.prepare() : undefined;
        gc?.();
        const t0 = performance.now();
        let out = c.run(input);
        if (out && typeof out.then === "function") out = await out;
        const t1 = performance.now();
        consume(out);
        if (round >= warmup) samples.get(c.id).push(t1 - t0);
      } catch (e) {
        errors.set(c.id, e);
      }
    }
  }
  const result = new Map();
  for (const c of candidates) {
    if (errors.has(c.id)) {
      const e = errors.get(c.id);
      result.set(c.id, { error: `${e?.code ? e.code + ": " : ""}${String(e?.message ?? e).split("\n")[0].slice(0, 160)}` });
    } else {
      const s = samples.get(c.id);
      result.set(c.id, { median: median(s), min: Math.min(...s), runs: s.length });
    }
  }
  return result;
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// ---------------------------------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------------------------------

const requireHere = createRequire(join(repo, "package.json"));

/** The installed version of an npm package (from its package.json), or null if it is not installed. */
export function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(requireHere.resolve(`${name}/package.json`), "utf8")).version;
  } catch {
    // Some packages do not export ./package.json: find it on disk under node_modules.
    try {
      return JSON.parse(readFileSync(join(repo, "node_modules", name, "package.json"), "utf8")).version;
    } catch {
      return null;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------------------------------

/** Fixed-point milliseconds with a precision that suits the magnitude. */
export function ms(v) {
  if (v == null || Number.isNaN(v)) return "-";
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  if (v >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

export function ratio(a, b) {
  if (a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return "-";
  const r = a / b;
  return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}x`;
}

export function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function mb(bytes) {
  return `${(bytes / 1e6).toFixed(2)} MB`;
}

/** "PASS" / "FAIL" text for a target (a figure to read, never an assertion: the bench exits 0). */
export function verdict(ok) {
  return ok == null ? "n/a" : ok ? "PASS" : "FAIL";
}

/**
 * Prints a table: `header` is an array of column titles, `rows` arrays of cells (strings). The first
 * column is left-aligned, the others right-aligned, unless `align` says otherwise ("l"/"r" per column).
 * A row that is a plain string is printed as is (a note inside the table).
 */
export function printTable(header, rows, align) {
  const cellRows = rows.filter((r) => Array.isArray(r));
  const widths = header.map((h, i) => Math.max(h.length, ...cellRows.map((r) => String(r[i] ?? "").length)));
  const al = align ?? header.map((_, i) => (i === 0 ? "l" : "r"));
  const line = (cells) =>
    cells
      .map((c, i) => (al[i] === "l" ? String(c ?? "").padEnd(widths[i]) : String(c ?? "").padStart(widths[i])))
      .join("  ")
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(Array.isArray(r) ? line(r) : `  ${r}`);
}

export function heading(text) {
  console.log();
  console.log(`== ${text} ${"=".repeat(Math.max(0, 100 - text.length))}`);
}
