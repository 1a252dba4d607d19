// `make bench`: how fast and how small toolwire is, measured against the floor, the hand-written code
// apps ship, and the peers on npm, over the real MCP corpus. Prints tables of medians and ratios, each
// target next to its figure as PASS/FAIL text. The targets are figures to read, not assertions: this
// script exits 0 whatever they say (non-zero only if it cannot run at all).
//
//   node bench/run.mjs                    full run (make bench runs the native cargo bench first)
//   node bench/run.mjs --quick            tiny input, 1 run each, no Chromium, no slow peers: a few seconds
//   BENCH_QUICK=1 node bench/run.mjs      the same
//   BENCH_RUNS=21 node bench/run.mjs      measured runs per figure (default 11, after 2 warm-up runs)
//   BENCH_PAIRS=31 node bench/run.mjs     pairs per path for the JSON API target (default 15, after 2)
//   node bench/run.mjs --native FILE      also print the native figures that `cargo bench --bench native`
//                                         wrote to FILE (make bench does this) next to the wasm ones
//   BENCH_NO_BROWSER=1                    skip the Chromium cold start
//
// What is measured (everything in THIS process except the cold starts, which need fresh processes):
//  1. Conversion tables, for two inputs: all corpus tools, and a typical 200-tool set (the first 200
//     tools in file order, see lib.mjs firstTools). Each server's tools are converted in one call,
//     server by server (as an app with that many MCP servers does), for every provider path:
//       - toolwire JSON API: convertMcpToolsJson(bytes) -> bytes (a Uint8Array of the `tools/list`
//         array's UTF-8, as the issue defines the JSON API), and (text) -> text from a string;
//       - toolwire object API: convertMcpTools(objects) -> objects;
//       - the floor: JSON.parse + JSON.stringify of the same text (any JS converter pays at least this
//         to go from bytes to bytes);
//       - the hand-written JS map apps write (handwritten.mjs), on objects, and on text
//         (JSON.parse + map + JSON.stringify);
//       - JSON.stringify of the input tools alone: what the object API pays before converting, so
//         the bound under its ratio to the hand-written map.
//     All candidates of a table run round-robin (lib.mjs timeAll): warm-ups, then N rounds, GC before
//     every run, medians reported. The JSON API's target is then read from pairs: each path run back
//     to back with the floor, the median of the pairs' ratios (pairedWithFloor).
//  2. Peers (peers.mjs): other npm libraries converting the same tools, timed round-robin together with
//     toolwire's object API on the same path, and with toolwire's objects in, JSON text out for Gemini.
//  3. Tool results: toolResultMessage on a few result shapes, against JSON.parse(JSON.stringify(result))
//     and the app-style flattening (handwritten.mjs); no target.
//  4. Package size, cold start (Node child processes, headless Chromium), scaling (1x, 4x, 16x the
//     corpus in one call, and one wide schema of 1x, 4x, 16x properties), and the native Rust figures
//     when given.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { brotliCompressSync, gzipSync, constants as zlib } from "node:zlib";
import * as hw from "./handwritten.mjs";
import { PEERS, versions } from "./peers.mjs";
import { browserColdStart, CHROMIUM } from "./coldstart-browser.mjs";
import {
  firstTools,
  gc,
  heading,
  installedVersion,
  kb,
  loadCorpus,
  makeSet,
  mb,
  median,
  ms,
  printTable,
  ratio,
  replicate,
  repo,
  corpusDir,
  consume,
  timeAll,
  verdict,
} from "./lib.mjs";

// ---------------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick") || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? "");
const nativeArg = argv.indexOf("--native");
const NATIVE_FILE = nativeArg >= 0 ? argv[nativeArg + 1] : process.env.BENCH_NATIVE_FILE;
const NO_BROWSER = QUICK || /^(1|true|yes)$/i.test(process.env.BENCH_NO_BROWSER ?? "");

const RUNS = QUICK ? 1 : Math.max(1, Number(process.env.BENCH_RUNS ?? 11));
const WARMUP = QUICK ? 0 : 2;
// Passes over the set per timed run of a conversion table: one over the corpus (tens of ms); several
// over the 200-tool set, whose single passes (about 5 ms, a GC before each) swung by a third from run
// to run and from row to row. Figures are per pass.
const SMALL_SET_PASSES = QUICK ? 1 : 6;
// The JSON API's target is read from pairs: each path run back to back with the floor, this many
// pairs after two warm-up pairs (see pairedWithFloor).
const PAIRS = QUICK ? 1 : Math.max(1, Number(process.env.BENCH_PAIRS ?? 15));
const TYPICAL = QUICK ? 10 : 200; // size of the "typical" set
const COLD_NODE_RUNS = QUICK ? 2 : 15;
const COLD_BROWSER_RUNS = 9;
// Scaling: 1x, 4x, 16x in one call each. The code is warm after 1x, and one run of 16x can take a
// minute, so the big inputs get no warm-up and stop after the first round past a time budget.
const SCALES = [
  { k: 1, warmup: WARMUP, runs: QUICK ? 1 : 5, budgetMs: 60_000 },
  { k: 4, warmup: 0, runs: QUICK ? 1 : 3, budgetMs: 60_000 },
  { k: 16, warmup: 0, runs: QUICK ? 1 : 3, budgetMs: 60_000 },
];

const pkgDir = join(repo, "pkg");
if (!existsSync(join(pkgDir, "index.cjs"))) {
  console.error(`bench: ${pkgDir} has no built package; run \`make pkg\` first`);
  process.exit(2);
}
const { createRequire } = await import("node:module");
const toolwire = createRequire(import.meta.url)(pkgDir); // the package's Node entry (index.cjs)

/**
 * The provider paths: toolwire provider + options, and the hand-written map that produces the same
 * provider shape. Labels match benches/native.rs, so its figures can be put next to these.
 */
const PATHS = [
  { id: "openai", label: "openai", provider: "openai", options: {}, hand: hw.openai },
  { id: "openai-strict", label: "openai strict", provider: "openai", options: { strict: true }, hand: hw.openai },
  { id: "openai-responses", label: "openai-responses", provider: "openai-responses", options: {}, hand: hw.openaiResponses },
  { id: "anthropic", label: "anthropic", provider: "anthropic", options: {}, hand: hw.anthropic },
  { id: "anthropic-strict", label: "anthropic strict", provider: "anthropic", options: { strict: true }, hand: hw.anthropic },
  { id: "gemini", label: "gemini parameters", provider: "gemini", options: { geminiMode: "parameters" }, hand: hw.gemini },
  {
    id: "gemini-json",
    label: "gemini parametersJsonSchema",
    provider: "gemini",
    options: { geminiMode: "parametersJsonSchema" },
    hand: hw.geminiJsonSchema,
  },
  { id: "vertex", label: "vertex", provider: "vertex", options: {}, hand: hw.gemini },
  { id: "bedrock", label: "bedrock", provider: "bedrock", options: {}, hand: hw.bedrock },
  { id: "bedrock-strict", label: "bedrock strict", provider: "bedrock", options: { strict: true }, hand: hw.bedrock },
];
const pathById = new Map(PATHS.map((p) => [p.id, p]));

// Targets (figures, not assertions).
const TARGET = {
  jsonVsFloor: 1.0, // every path's JSON API <= 1.0x JSON.parse + JSON.stringify
  geminiVsPeer: 2.0, // the Gemini path >= 2x faster than the fastest peer doing equivalent schema work
  objectsVsHand: 1.5, // object API within 1.5x of the hand-written map
  wasmGzipKB: 150, // gzip'd .wasm <= 150 KB
  coldNodeMs: 20, // require + first call in Node <= 20 ms
  linear: 1.25, // ms/MB at 16x <= 1.25x the ms/MB at 1x, times the floor's own growth when it grows
};
const summary = []; // [target, figure, verdict] for the closing table

// ---------------------------------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------------------------------

/** toolwire's JSON API over a set: each server's text -> text, in one call per server. */
function toolwireJson(set, path) {
  const opts = set.servers.map((s) => ({ ...path.options, server: s.server }));
  return () => set.servers.map((s, i) => toolwire.convertMcpToolsJson(s.text, path.provider, opts[i]));
}

/** The JSON API bytes in, bytes out: each server's UTF-8 (a Uint8Array) -> a Uint8Array. */
function toolwireBytes(set, path) {
  const opts = set.servers.map((s) => ({ ...path.options, server: s.server }));
  return () => set.servers.map((s, i) => toolwire.convertMcpToolsJson(s.buf, path.provider, opts[i]));
}

/** toolwire's object API over a set: each server's tool objects -> provider objects. */
function toolwireObjects(set, path) {
  const opts = set.servers.map((s) => ({ ...path.options, server: s.server }));
  return () => set.servers.map((s, i) => toolwire.convertMcpTools(s.tools, path.provider, opts[i]));
}

/** The floor: JSON.parse + JSON.stringify of each server's text. */
function floor(set) {
  return () => set.servers.map((s) => JSON.stringify(JSON.parse(s.text)));
}

/** The hand-written map on objects, and on text (parse + map + stringify). */
function handObjects(set, path) {
  return () => set.servers.map((s) => path.hand(s.tools, s.server));
}
function handJson(set, path) {
  return () => set.servers.map((s) => JSON.stringify(path.hand(JSON.parse(s.text), s.server)));
}

// ---------------------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------------------

/** Parses `cargo bench --bench native` output: Map label -> {ms, mbps}, plus its header line. */
function readNative(file) {
  if (!file) return null;
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { error: `cannot read ${file}: ${e.message}` };
  }
  const rows = new Map();
  for (const line of text.split("\n")) {
    const m = /^(\S.*?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s*$/.exec(line);
    // Provider paths by their labels, and the native floor row ("floor: serde_json parse+serialize").
    if (m && (pathByLabel(m[1]) || m[1].startsWith("floor"))) {
      rows.set(m[1].startsWith("floor") ? "floor" : m[1], { ms: Number(m[2]), mbps: Number(m[3]), label: m[1] });
    }
  }
  const header = text.split("\n").find((l) => l.startsWith("native core")) ?? "";
  return { rows, header };
}
const pathByLabel = (label) => PATHS.find((p) => p.label === label);

/** `run` done `passes` times in one timed run (its last output kept). */
function repeated(run, passes) {
  return passes === 1
    ? run
    : () => {
        let out;
        for (let i = 0; i < passes; i++) out = run();
        return out;
      };
}

/** timeAll's figures for runs of `passes` passes, per pass. */
function perPass(times, passes) {
  for (const r of times.values()) {
    if (r.median !== undefined) r.median /= passes;
    if (r.min !== undefined) r.min /= passes;
  }
  return times;
}

/** One conversion table over a set; returns the toolwire figures by path id for later sections. */
async function conversionTable(set, native) {
  heading(`Conversion: ${set.label}`);
  const passes = set.isCorpus ? 1 : SMALL_SET_PASSES;
  console.log(
    `${set.toolCount} tools from ${set.servers.length} servers, ${mb(set.bytes)} of tools JSON; one call per server; ` +
      `median of ${RUNS} runs after ${WARMUP} warm-up${WARMUP === 1 ? "" : "s"}, round-robin, GC between runs` +
      (passes > 1 ? `; each run ${passes} passes over the set, figures per pass.` : "."),
  );
  // What the object API pays before any conversion: its objects cross into the module as JSON text.
  const candidates = [{ id: "floor", run: floor(set) }, { id: "stringify-in", run: () => set.servers.map((s) => JSON.stringify(s.tools)) }];
  for (const p of PATHS) {
    candidates.push({ id: `tw-bytes:${p.id}`, run: toolwireBytes(set, p) });
    candidates.push({ id: `tw-json:${p.id}`, run: toolwireJson(set, p) });
    candidates.push({ id: `tw-obj:${p.id}`, run: toolwireObjects(set, p) });
  }
  // Hand-written maps are shared by several paths (e.g. openai and openai strict): time each once.
  const hands = [...new Set(PATHS.map((p) => p.hand))];
  for (const h of hands) {
    const p = PATHS.find((q) => q.hand === h);
    candidates.push({ id: `hand-obj:${h.name}`, run: handObjects(set, p) });
    candidates.push({ id: `hand-json:${h.name}`, run: handJson(set, p) });
  }
  const t = perPass(await timeAll(candidates.map((c) => ({ ...c, run: repeated(c.run, passes) })), { warmup: WARMUP, runs: RUNS }), passes);
  const fl = t.get("floor").median;

  const nativeOk = native?.rows && set.isCorpus;
  const header = [
    "path",
    "bytes ms",
    "bytes/floor",
    "text ms",
    "text/floor",
    "objects ms",
    "hand-written ms",
    "objects/hand",
    `<=${TARGET.objectsVsHand}x`,
    "hand json ms",
    ...(nativeOk ? ["native ms", "wasm/native"] : []),
  ];
  const rows = [
    [
      "floor (JSON.parse + JSON.stringify)",
      ms(fl),
      "1.00x",
      ms(fl),
      "1.00x",
      "",
      "",
      "",
      "",
      "",
      ...(nativeOk ? [native.rows.has("floor") ? ms(native.rows.get("floor").ms) : "", native.rows.has("floor") ? ratio(fl, native.rows.get("floor").ms) : ""] : []),
    ],
  ];
  const figures = new Map();
  let objPass = 0;
  let worstObj = 0;
  const handTimes = [];
  for (const p of PATHS) {
    const j = t.get(`tw-bytes:${p.id}`);
    const jt = t.get(`tw-json:${p.id}`);
    const o = t.get(`tw-obj:${p.id}`);
    const ho = t.get(`hand-obj:${p.hand.name}`);
    const hj = t.get(`hand-json:${p.hand.name}`);
    if (j.error || jt.error || o.error) {
      rows.push(`${p.label}: toolwire failed: ${j.error ?? jt.error ?? o.error}`);
      continue;
    }
    const or = o.median / ho.median;
    worstObj = Math.max(worstObj, or);
    handTimes.push(ho.median);
    if (or <= TARGET.objectsVsHand) objPass++;
    figures.set(p.id, { json: j.median, text: jt.median, objects: o.median });
    const nat = nativeOk ? native.rows.get(p.label) : null;
    rows.push([
      p.label,
      ms(j.median),
      ratio(j.median, fl),
      ms(jt.median),
      ratio(jt.median, fl),
      ms(o.median),
      ms(ho.median),
      ratio(o.median, ho.median),
      verdict(or <= TARGET.objectsVsHand),
      ms(hj.median),
      ...(nativeOk ? [nat ? ms(nat.ms) : "-", nat ? ratio(j.median, nat.ms) : "-"] : []),
    ]);
  }
  printTable(header, rows);
  console.log(
    "bytes = convertMcpToolsJson(Uint8Array of UTF-8) -> Uint8Array (the JSON API as the target reads it: bytes in, " +
      "bytes out); text = convertMcpToolsJson(string) -> string, which adds the UTF-16/UTF-8 transcoding at the " +
      "boundary; objects = convertMcpTools(objects) -> objects; hand-written = the " +
      "app-style tools.map() for that provider shape (handwritten.mjs) on objects; hand json = JSON.parse + " +
      "that map + JSON.stringify. 'openai strict'/'anthropic strict'/'bedrock strict' compare with the plain map (apps have no " +
      "strict rewrite); vertex uses the Gemini map.",
  );
  const si = t.get("stringify-in").median;
  if (handTimes.length > 0) {
    const [fast, slow] = [Math.min(...handTimes), Math.max(...handTimes)];
    console.log(
      `The object API's objects cross into the module as JSON text: JSON.stringify of the tools alone takes ${ms(si)} ms, ` +
        `${ratio(si, fast)} the fastest hand-written map (${ms(fast)} ms) and ${ratio(si, slow)} the slowest (${ms(slow)} ms). ` +
        "Whatever the conversion costs, a path's objects/hand cannot fall below JSON.stringify over that path's own map.",
    );
  }
  if (nativeOk) {
    const nf = native.rows.get("floor");
    console.log(
      `native = ${native.header.trim()} (same inputs, same per-server calls, text in and out)` +
        (nf ? `; on the floor row: ${nf.label}.` : "."),
    );
  }
  // Pairs on the 200-tool set run three times the table's passes: single pairs of 6 passes
  // (about 20 ms each) spread from 0.8x to 1.25x of the floor.
  const paired = await pairedWithFloor(set, passes === 1 ? 1 : passes * 3);
  summary.push([
    `JSON API <= ${TARGET.jsonVsFloor.toFixed(1)}x floor, every path, paired (${set.short})`,
    `${paired.pass}/${PATHS.length} paths pass; worst ${paired.worst}`,
    verdict(paired.pass === PATHS.length),
  ]);
  summary.push([
    `object API <= ${TARGET.objectsVsHand}x hand-written map (${set.short})`,
    `${objPass}/${figures.size} paths pass; worst ${worstObj.toFixed(2)}x (JSON.stringify of the input alone: ${ms(si)} ms)`,
    verdict(figures.size === PATHS.length && objPass === PATHS.length),
  ]);
  return { floor: fl, figures };
}

/**
 * The JSON API target, read from pairs. In the round-robin table above, a path's run and the floor's
 * run of the same round are many candidates apart, and on a shared machine single runs of either
 * move by a third, not together, so the ratio of their medians can land either side of 1.0 from one
 * `make bench` to the next. Here each path runs back to back with the floor (GC before each, the
 * order alternating from pair to pair), and the figure is the median of the pairs' ratios, printed
 * with their quartiles: what the target is read from.
 */
async function pairedWithFloor(set, passes) {
  const fl = repeated(floor(set), passes);
  const rows = [];
  let pass = 0;
  let worst = null;
  for (const p of PATHS) {
    const tw = repeated(toolwireBytes(set, p), passes);
    const ratios = [];
    let error = null;
    for (let i = 0; i < PAIRS + (QUICK ? 0 : 2) && !error; i++) {
      const pair = {};
      for (const [id, run] of i % 2 ? [["tw", tw], ["floor", fl]] : [["floor", fl], ["tw", tw]]) {
        gc?.();
        const t0 = performance.now();
        try {
          consume(run());
        } catch (e) {
          error = String(e?.message ?? e).split("\n")[0];
          break;
        }
        pair[id] = performance.now() - t0;
      }
      if (!error && (QUICK || i >= 2)) ratios.push(pair.tw / pair.floor);
    }
    if (error) {
      rows.push([p.label, "-", "-", "-", `failed: ${error}`]);
      continue;
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    const q = (f) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))];
    const m = median(ratios);
    const ok = m <= TARGET.jsonVsFloor;
    if (ok) pass++;
    if (worst == null || m > worst.m) worst = { m, label: p.label };
    rows.push([p.label, `${m.toFixed(2)}x`, `${q(0.25).toFixed(2)}x`, `${q(0.75).toFixed(2)}x`, verdict(ok)]);
  }
  console.log();
  console.log(
    `JSON API (bytes) against the floor, paired: each path back to back with the floor, ${PAIRS} pairs after ` +
      `${QUICK ? 0 : 2} warm-up pairs, GC before each run, order alternating` +
      (passes > 1 ? `, each run ${passes} passes over the set` : "") +
      `; the median of the pairs' ratios and their quartiles.`,
  );
  printTable(["path", "median bytes/floor", "q1", "q3", `<=${TARGET.jsonVsFloor.toFixed(1)}x`], rows);
  return { pass, worst: worst ? `${worst.m.toFixed(2)}x (${worst.label})` : "-" };
}

/**
 * The peers over a set, timed round-robin with toolwire's object API on the paths they compare with.
 * Returns notes (what each peer's figure covers) once per peer.
 */
async function peersTable(set, notes) {
  heading(`Peers: ${set.label}`);
  const ready = [];
  const failed = [];
  for (const peer of PEERS) {
    if (QUICK && peer.slow) {
      failed.push([peer, "skipped in quick mode"]);
      continue;
    }
    try {
      const r = await peer.setup(set);
      ready.push({ peer, ...r });
    } catch (e) {
      failed.push([peer, String(e?.message ?? e).split("\n")[0]]);
    }
  }
  const paths = [...new Set(PEERS.map((p) => p.path))];
  // Objects in, the request's JSON text out: where the peers that build a request body end.
  const gemini = pathById.get("gemini");
  const geminiOpts = set.servers.map((s) => ({ ...gemini.options, server: s.server }));
  const toText = () => set.servers.map((s, i) => toolwire.convertMcpToolsJson(JSON.stringify(s.tools), gemini.provider, geminiOpts[i]));
  const candidates = [
    ...paths.map((id) => ({ id: `tw:${id}`, run: toolwireObjects(set, pathById.get(id)) })),
    { id: "tw-text:gemini", run: toText },
    ...ready.map((r) => ({ id: r.peer.id, run: r.run, prepare: r.prepare })),
  ];
  const overheads = ready.filter((r) => r.overhead).map((r) => ({ id: `overhead:${r.peer.id}`, run: r.overhead }));
  const t = await timeAll([...candidates, ...overheads], { warmup: WARMUP, runs: RUNS });
  console.log(
    `Objects in (each server's tools/list result), the provider's tools out; median of ${RUNS} runs, round-robin ` +
      "with toolwire's object API on the same path (so the ratios are like for like).",
  );
  const rows = [];
  const footnotes = [];
  for (const id of paths) {
    const tw = t.get(`tw:${id}`);
    rows.push([`toolwire convertMcpTools (${pathById.get(id).label})`, pathById.get(id).label, ms(tw.median), "", "", ""]);
  }
  for (const peer of PEERS) {
    const r = ready.find((x) => x.peer.id === peer.id);
    const fail = failed.find(([p]) => p.id === peer.id);
    const tw = t.get(`tw:${peer.path}`);
    const pt = r ? t.get(peer.id) : null;
    const equivalent = peer.equivalent ? "yes" : "no (pass-through)";
    if (fail || pt?.error) {
      footnotes.push(`[${footnotes.length + 1}] ${peer.label}: ${fail ? fail[1] : pt.error}`);
      rows.push([peer.label, pathById.get(peer.path).label, "-", "", equivalent, `could not run [${footnotes.length}]`]);
      continue;
    }
    const speed = pt.median / tw.median; // > 1: toolwire faster
    const extra = [];
    if (r.note) extra.push(r.note);
    const oh = t.get(`overhead:${peer.id}`);
    if (oh && !oh.error) extra.push(`incl. ${ms(oh.median)} ms fixed per-request cost`);
    rows.push([
      peer.label,
      pathById.get(peer.path).label,
      ms(pt.median),
      speed >= 1 ? `toolwire ${speed.toFixed(2)}x faster` : `peer ${(1 / speed).toFixed(2)}x faster`,
      equivalent,
      extra.join("; "),
    ]);
  }
  printTable(["peer", "path", "ms", "vs toolwire objects", "equivalent work", "note"], rows, ["l", "l", "r", "r", "l", "l"]);
  for (const f of footnotes) console.log(f);

  // The Gemini target: toolwire's Gemini `parameters` path against the fastest peer that does
  // comparable schema work for Gemini (pass-through peers do not count).
  const twGemini = t.get("tw:gemini").median;
  const equivalentGemini = PEERS.filter((p) => p.path === "gemini" && p.equivalent)
    .map((p) => ({ p, r: t.get(p.id) }))
    .filter(({ r }) => r && !r.error);
  let line;
  if (equivalentGemini.length === 0) {
    line = [
      `Gemini parameters (objects) >= ${TARGET.geminiVsPeer}x faster than fastest equivalent peer (${set.short})`,
      "no peer doing equivalent schema work ran",
      "n/a",
    ];
  } else {
    const best = equivalentGemini.reduce((a, b) => (b.r.median < a.r.median ? b : a));
    const speed = best.r.median / twGemini;
    line = [
      `Gemini parameters (objects) >= ${TARGET.geminiVsPeer}x faster than fastest equivalent peer (${set.short})`,
      `${speed.toFixed(2)}x vs ${best.p.label} (${ms(best.r.median)} ms vs ${ms(twGemini)} ms)`,
      verdict(speed >= TARGET.geminiVsPeer),
    ];
  }
  const tt = t.get("tw-text:gemini");
  if (tt && !tt.error) {
    const vs = equivalentGemini.length === 0 ? "" : (() => {
      const best = equivalentGemini.reduce((a, b) => (b.r.median < a.r.median ? b : a));
      const ends = best.p.body ? "its figure ends at the request's text too" : "its figure ends at objects, before any text is written";
      return `; ${best.p.label} took ${(best.r.median / tt.median).toFixed(2)}x that (${ends})`;
    })();
    console.log(
      `toolwire objects in, JSON text out (convertMcpToolsJson(JSON.stringify(tools)), gemini parameters): ${ms(tt.median)} ms${vs}. ` +
        "The target reads toolwire's object API.",
    );
  }
  console.log(`target: ${line[0]}: ${line[1]}: ${line[2]}`);
  summary.push(line);
  for (const peer of PEERS) notes.set(peer.id, peer);
}

/**
 * Tool results back to the provider: toolResultMessage on results of a few shapes, against the floor
 * (JSON.stringify + JSON.parse of the result: the copy that crossing into wasm and back costs at least)
 * and the hand-written flattening apps ship (handwritten.mjs). No target: figures per call.
 */
async function resultsSection() {
  heading("Tool results: toolResultMessage");
  const k = QUICK ? 100 : 1; // quick mode: a hundredth of each size
  const text = "Lorem ipsum dolor sit amet, é ü 😀 ".repeat(30_000 / k);
  const png = "iVBORw0KGgo" + "AAAA".repeat(250_000 / k);
  const records = Array.from({ length: 5000 / k }, (_, i) => ({ id: i, name: `row ${i}`, tags: ["a", "b"], score: 1.5 }));
  const shapes = [
    { label: "small text", provider: "openai", hand: hw.openaiResult, result: { content: [{ type: "text", text: "42 files changed" }] }, calls: 200 },
    { label: "long text", provider: "openai", hand: hw.openaiResult, result: { content: [{ type: "text", text }] }, calls: 1 },
    { label: "text and a PNG", provider: "anthropic", hand: hw.anthropicResult, result: { content: [{ type: "text", text: "screenshot" }, { type: "image", data: png, mimeType: "image/png" }] }, calls: 1 },
    { label: `structuredContent, ${records.length} rows`, provider: "gemini", hand: hw.geminiResult, result: { content: [{ type: "text", text: "rows" }], structuredContent: { rows: records } }, calls: 1 },
  ];
  const call = { id: "call_1", name: "files__search" };
  const rows = [];
  for (const s of shapes) {
    const bytes = Buffer.byteLength(JSON.stringify(s.result));
    const repeat = (f) => () => {
      let out;
      for (let i = 0; i < s.calls; i++) out = f();
      return out;
    };
    const t = perPass(
      await timeAll(
        [
          { id: "toolwire", run: repeat(() => toolwire.toolResultMessage(call, s.result, s.provider)) },
          { id: "floor", run: repeat(() => JSON.parse(JSON.stringify(s.result))) },
          { id: "hand", run: repeat(() => s.hand(call, s.result)) },
        ],
        { warmup: WARMUP, runs: RUNS },
      ),
      s.calls,
    );
    const [tw, fl, hand] = ["toolwire", "floor", "hand"].map((id) => t.get(id));
    if (tw.error) {
      rows.push([s.label, s.provider, kb(bytes), `toolwire failed: ${tw.error}`, "", "", "", ""]);
      continue;
    }
    rows.push([s.label, s.provider, kb(bytes), ms(tw.median), ms(fl.median), ratio(tw.median, fl.median), ms(hand.median), ratio(tw.median, hand.median)]);
  }
  printTable(["result", "provider", "JSON", "toolwire ms", "floor ms", "toolwire/floor", "hand-written ms", "toolwire/hand"], rows, ["l", "l", "r", "r", "r", "r", "r", "r"]);
  console.log(
    "Per call, medians. floor = JSON.parse(JSON.stringify(result)); hand-written = the app-style flattening in " +
      "handwritten.mjs (no cap, no image check, no placeholders). toolwire checks and caps what it sends " +
      `(text at ${(100_000).toLocaleString("en-US")} UTF-16 units, images by their bytes).`,
  );
}

function sizesSection() {
  heading("Package size");
  const files = [
    "web/toolwire_bg.wasm",
    "web/toolwire_convert_bg.wasm",
    "node/toolwire.js",
    "node/toolwire_convert.js",
    "web/toolwire.js",
    "web/toolwire_convert.js",
    "index.cjs",
    "index.mjs",
    "web.mjs",
    "convert.mjs",
    "bin/toolwire.cjs",
    "index.d.ts",
  ];
  const rows = [];
  const compressed = new Map();
  let wasmGzip = null;
  for (const f of files) {
    const path = join(pkgDir, f);
    if (!existsSync(path)) {
      rows.push([f, "missing", "", ""]);
      continue;
    }
    const buf = readFileSync(path);
    // Compressed once per distinct content (brotli 11 is slow).
    const key = createHash("sha256").update(buf).digest("hex");
    if (!compressed.has(key)) {
      compressed.set(key, {
        gz: gzipSync(buf, { level: 9 }).length,
        br: brotliCompressSync(buf, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length,
      });
    }
    const { gz, br } = compressed.get(key);
    if (f.endsWith(".wasm")) wasmGzip = Math.max(wasmGzip ?? 0, gz);
    rows.push([f, kb(buf.length), kb(gz), kb(br)]);
  }
  // The whole published package, as npm would pack it.
  let packLine;
  try {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: pkgDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const [info] = JSON.parse(out);
    rows.push([`npm pack tarball (${info.entryCount} files)`, kb(info.unpackedSize), kb(info.size), ""]);
    packLine = `${info.filename}: ${kb(info.size)} packed (gzip'd tar), ${kb(info.unpackedSize)} unpacked`;
  } catch (e) {
    rows.push(["npm pack tarball", `npm pack failed: ${String(e.message).split("\n")[0]}`, "", ""]);
  }
  printTable(["file (pkg/)", "raw", "gzip -9", "brotli 11"], rows);
  if (packLine) console.log(packLine + "; npm pack's 'unpacked' is the raw column, its tarball size the gzip column.");
  const ok = wasmGzip != null && wasmGzip <= TARGET.wasmGzipKB * 1024;
  console.log(`target: gzip'd .wasm <= ${TARGET.wasmGzipKB} KB: ${wasmGzip == null ? "-" : kb(wasmGzip)}: ${verdict(wasmGzip == null ? null : ok)}`);
  summary.push([`gzip'd .wasm <= ${TARGET.wasmGzipKB} KB`, wasmGzip == null ? "missing" : kb(wasmGzip), verdict(wasmGzip == null ? null : ok)]);
}

async function coldStartSection(inputServer) {
  heading("Cold start");
  const dir = mkdtempSync(join(tmpdir(), "toolwire-bench-"));
  const input = join(dir, "tools.json");
  writeFileSync(input, inputServer.text);
  console.log(
    `First conversion: ${inputServer.server}'s ${inputServer.tools.length} tools (${kb(inputServer.buf.length)}) with ` +
      "convertMcpToolsJson(text, 'openai').",
  );
  try {
    // Node: a fresh process per run, timing inside the child (bench/coldstart-node.cjs).
    const child = join(repo, "bench", "coldstart-node.cjs");
    const runs = [];
    let failure = null;
    for (let i = 0; i < COLD_NODE_RUNS; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [child, pkgDir, input], { encoding: "utf8" });
      const wall = performance.now() - t0;
      if (r.status !== 0) {
        failure = (r.stderr || `exit ${r.status}`).trim().split("\n").pop();
        break;
      }
      runs.push({ ...JSON.parse(r.stdout), wall });
    }
    const rows = [];
    let nodeTotal = null;
    if (failure) {
      rows.push(["Node", "-", "-", "-", "-", `failed: ${failure}`]);
    } else {
      const m = (k) => median(runs.map((r) => r[k]));
      nodeTotal = m("total");
      rows.push([
        `Node ${process.version} (${runs.length} fresh processes)`,
        `require ${ms(m("require"))}`,
        "",
        ms(m("first")),
        ms(nodeTotal),
        `${verdict(nodeTotal <= TARGET.coldNodeMs)} (<= ${TARGET.coldNodeMs} ms); whole process wall ${ms(m("wall"))} ms`,
      ]);
      rows.push(["Node, then the first new McpClient(url)", "", "", ms(m("client")), "", "loads the module with the MCP client (no target)"]);
    }
    summary.push([`cold start in Node <= ${TARGET.coldNodeMs} ms`, nodeTotal == null ? "failed" : `${ms(nodeTotal)} ms`, verdict(nodeTotal == null ? null : nodeTotal <= TARGET.coldNodeMs)]);

    // Chromium.
    if (NO_BROWSER) {
      rows.push(["Chromium", "-", "-", "-", "-", QUICK ? "skipped (quick mode)" : "skipped (BENCH_NO_BROWSER)"]);
    } else {
      const b = await browserColdStart({ pkgDir, inputText: inputServer.text, runs: COLD_BROWSER_RUNS });
      if (b.unavailable) {
        rows.push(["Chromium", "-", "-", "-", "-", `unavailable: ${b.unavailable}`]);
      } else {
        const v = chromiumVersion();
        rows.push([
          `Chromium ${v ?? ""} cold (${b.runs} fresh profiles)`.replace("  ", " "),
          `import ${ms(b.cold.import)}`,
          ms(b.cold.init),
          ms(b.cold.first),
          ms(b.cold.total),
          "no target",
        ]);
        rows.push([`Chromium warm (same profile, reload)`, `import ${ms(b.warm.import)}`, ms(b.warm.init), ms(b.warm.first), ms(b.warm.total), ""]);
        summary.push([
          "cold start in Chromium (no target)",
          `await initAsync() ${ms(b.cold.init)} ms; import + init + first call ${ms(b.cold.total)} ms`,
          "-",
        ]);
      }
    }
    printTable(["runtime", "load JS ms", "initAsync ms", "first call ms", "total ms", "note"], rows, ["l", "r", "r", "r", "r", "l"]);
    console.log(
      "Medians. Node: require(pkg) compiles and instantiates the .wasm without the MCP client " +
        "(web/toolwire_convert_bg.wasm) synchronously (so 'load JS' there includes it and there is no initAsync); " +
        "total = require + first call, timed inside the child; the first McpClient or McpHub loads the whole " +
        "module (web/toolwire_bg.wasm, the browser's). " +
        "Chromium: the page times import('/web.mjs'), await initAsync() (fetch + compile + instantiate, " +
        "served from 127.0.0.1) and the first call; fresh --user-data-dir each run.",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function chromiumVersion() {
  try {
    const out = execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return /(\d+\.\d+\.\d+\.\d+)/.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

async function scalingSection(servers, perServer) {
  heading("Scaling: the corpus 1x, 4x, 16x in ONE call");
  const scalePaths = [pathById.get("openai"), pathById.get("gemini")];
  const opts = { limits: { maxTools: 1_000_000 } }; // 16x the corpus is past the default maxTools (10,000)
  const rows = [];
  const perMB = new Map(); // id -> [ms/MB at each scale]
  for (const sc of SCALES) {
    const input = replicate(servers, sc.k);
    const bytes = new TextEncoder().encode(input.text); // bytes in, bytes out, as the JSON target reads
    const candidates = [
      { id: "floor", run: () => JSON.stringify(JSON.parse(input.text)) },
      ...scalePaths.map((p) => ({
        id: p.id,
        run: () => toolwire.convertMcpToolsJson(bytes, p.provider, { ...p.options, ...opts }),
      })),
    ];
    const t = await timeAll(candidates, { warmup: sc.warmup, runs: sc.runs, budgetMs: sc.budgetMs });
    const mbs = input.bytes / 1e6;
    const done = Math.min(...[...t.values()].filter((r) => !r.error).map((r) => r.runs));
    const cells = [`${sc.k}x`, `${input.toolCount}`, mb(input.bytes), `${done}`];
    for (const c of candidates) {
      const r = t.get(c.id);
      if (r.error) {
        cells.push(`failed: ${r.error}`, "");
        continue;
      }
      cells.push(ms(r.median), (r.median / mbs).toFixed(2));
      if (!perMB.has(c.id)) perMB.set(c.id, []);
      perMB.get(c.id)[SCALES.indexOf(sc)] = r.median / mbs;
    }
    rows.push(cells);
  }
  const header = ["scale", "tools", "JSON", "runs"];
  for (const id of ["floor", ...scalePaths.map((p) => p.id)]) {
    const label = id === "floor" ? "floor" : pathById.get(id).label;
    header.push(`${label} ms`, `ms/MB`);
  }
  printTable(header, rows);
  if (perServer) {
    const f = (id) => ms(perServer.figures.get(id)?.json);
    console.log(
      `For comparison, 1x converted server by server (${servers.length} calls, the first conversion table): ` +
        `floor ${ms(perServer.floor)} ms, openai ${f("openai")} ms, gemini parameters ${f("gemini")} ms.`,
    );
  }
  console.log(
    "Each copy of the corpus renames its tools (<name>_<i>) and every tool carries serverName, so names stay " +
      "unique; toolwire runs convertMcpToolsJson on the whole input (UTF-8 bytes in, bytes out) with limits.maxTools raised.",
  );
  // Linear: each toolwire path's cost per MB grows from 1x to 16x by no more than 1.25x, on top of what the
  // machine itself adds at these sizes. JSON.parse + JSON.stringify is linear by construction, so the
  // floor's own growth in the same run is that machine share (caches, memory, GC): the allowance is
  // 1.25x the floor's growth when the floor grows, and plain 1.25x when it does not.
  let ok = true;
  const parts = [];
  const fv = perMB.get("floor");
  const floorGrowth = fv?.[0] && fv?.[2] ? fv[2] / fv[0] : null;
  const allowed = floorGrowth == null ? null : TARGET.linear * Math.max(1, floorGrowth);
  for (const p of scalePaths) {
    const v = perMB.get(p.id);
    if (!v || v[0] == null || v[2] == null || allowed == null) {
      ok = false;
      parts.push(`${p.label}: failed`);
      continue;
    }
    const growth = v[2] / v[0];
    ok &&= growth <= allowed;
    parts.push(`${p.label} ${growth.toFixed(2)}x`);
  }
  if (floorGrowth != null) parts.push(`floor ${floorGrowth.toFixed(2)}x, so at most ${allowed.toFixed(2)}x`);
  const rule = `ms/MB at 16x <= ${TARGET.linear}x of 1x, times the floor's growth if it grows`;
  console.log(`target: cost linear in input size (${rule}): ms/MB at 16x vs 1x: ${parts.join(", ")}: ${verdict(ok)}`);
  summary.push([`linear cost (${rule})`, parts.join(", "), verdict(ok)]);
}

/**
 * One tool whose schema is wide: `n` properties, every one required, each with an enum of two values
 * (numbers for every other property, which Gemini writes as strings and maps back). Cost that grows
 * with the square of one keyword's size (a `required` list checked name by name against the
 * properties) shows here, where the corpus's many small schemas hide it.
 */
function wideTool(n) {
  const properties = {};
  for (let i = 0; i < n; i++) properties[`p${i}`] = i % 2 ? { type: "string", enum: [`a${i}`, `b${i}`] } : { type: "integer", enum: [i, i + 1] };
  return [{ name: "wide", description: `One object of ${n} properties`, inputSchema: { type: "object", properties, required: Object.keys(properties) } }];
}

async function wideSection() {
  heading("Scaling: one wide schema, 1x, 4x, 16x its properties");
  const base = QUICK ? 100 : 1000;
  const widePaths = [pathById.get("openai"), pathById.get("openai-strict"), pathById.get("gemini")];
  const perMB = new Map();
  const rows = [];
  for (const [i, k] of [1, 4, 16].entries()) {
    const text = JSON.stringify(wideTool(base * k));
    const bytes = new TextEncoder().encode(text);
    const candidates = [
      { id: "floor", run: () => JSON.stringify(JSON.parse(text)) },
      ...widePaths.map((p) => ({ id: p.id, run: () => toolwire.convertMcpToolsJson(bytes, p.provider, p.options) })),
    ];
    const t = await timeAll(candidates, { warmup: WARMUP, runs: QUICK ? 1 : 5, budgetMs: 60_000 });
    const mbs = bytes.length / 1e6;
    const cells = [`${k}x`, `${base * k}`, mb(bytes.length)];
    for (const c of candidates) {
      const r = t.get(c.id);
      if (r.error) {
        cells.push(`failed: ${r.error}`, "");
        continue;
      }
      cells.push(ms(r.median), (r.median / mbs).toFixed(2));
      if (!perMB.has(c.id)) perMB.set(c.id, []);
      perMB.get(c.id)[i] = r.median / mbs;
    }
    rows.push(cells);
  }
  const header = ["scale", "properties", "JSON"];
  for (const id of ["floor", ...widePaths.map((p) => p.id)]) header.push(`${id === "floor" ? "floor" : pathById.get(id).label} ms`, "ms/MB");
  printTable(header, rows);
  // The same rule as the corpus's scaling, read as a figure here (not a target of its own).
  const fv = perMB.get("floor");
  const floorGrowth = fv?.[0] && fv?.[2] ? fv[2] / fv[0] : 1;
  const parts = widePaths.map((p) => {
    const v = perMB.get(p.id);
    return v?.[0] && v?.[2] ? `${p.label} ${(v[2] / v[0]).toFixed(2)}x` : `${p.label}: failed`;
  });
  console.log(`ms/MB at 16x vs 1x: ${parts.join(", ")} (floor ${floorGrowth.toFixed(2)}x; quadratic cost would be about 16x)`);
}

function nativeSection(native) {
  heading("Native Rust core (cargo bench --bench native)");
  if (!native) {
    console.log("not given: `make bench` runs `cargo bench --bench native` and passes its output with --native FILE.");
    return;
  }
  if (native.error) {
    console.log(native.error);
    return;
  }
  console.log(native.header.trim());
  const rows = PATHS.map((p) => {
    const n = native.rows.get(p.label);
    return [p.label, n ? ms(n.ms) : "-", n ? n.mbps.toFixed(1) : "-"];
  });
  const nf = native.rows.get("floor");
  if (nf) rows.unshift([nf.label, ms(nf.ms), nf.mbps.toFixed(1)]);
  printTable(["path", "native ms", "MB/s"], rows);
  console.log("The wasm figures for the same work are the 'bytes ms' column of the all-tools table (wasm/native there).");
}

// ---------------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------------

const started = performance.now();
const corpus = loadCorpus();
const base = QUICK ? corpus.slice(0, 2) : corpus;
const all = makeSet(QUICK ? `quick: the first ${base.length} corpus servers` : "all corpus tools", base);
all.short = QUICK ? "quick set" : "all tools";
all.isCorpus = !QUICK;
const typical = makeSet(
  `typical ${TYPICAL}-tool set (the first ${TYPICAL} tools in file order)`,
  firstTools(base, TYPICAL),
);
typical.short = `${TYPICAL} tools`;
const native = QUICK ? null : readNative(NATIVE_FILE);

console.log(`toolwire benchmark${QUICK ? " (QUICK mode: tiny input, 1 run, no Chromium, no slow peers; figures are not meaningful)" : ""}`);
console.log(
  `toolwire ${toolwire.version()} (pkg/), node ${process.version}, V8 ${process.versions.v8}, ${process.platform}/${process.arch}, ` +
    `${cpus().length} CPUs (${cpus()[0]?.model?.trim() ?? "?"}), load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`,
);
console.log(`GC between runs: ${gc ? "yes" : "no (gc unavailable)"}; corpus: ${corpusDir} (${corpus.length} servers)`);
console.log(`peers: ${versions("@google/genai", "ai", "@ai-sdk/google", "@ai-sdk/mcp", "@langchain/mcp-adapters", "@langchain/core", "@langchain/google-genai", "@langchain/langgraph", "@openai/agents-core", "zod")}`);
console.log(`browser driver: playwright-core ${installedVersion("playwright-core") ?? "(not installed)"}`);

const notes = new Map();
const tables = new Map();
for (const set of [all, typical]) {
  tables.set(set, await conversionTable(set, native));
  await peersTable(set, notes);
}

heading("Peers: what each figure covers");
for (const peer of notes.values()) {
  console.log(`- ${peer.label} [${versions(...peer.packages)}]: ${peer.timed}`);
}

await resultsSection();
sizesSection();
// Cold start input: a mid-sized real server (server-github), or the first server in quick mode.
await coldStartSection(all.servers.find((s) => s.server === "server-github") ?? all.servers[0]);
await scalingSection(base, tables.get(all));
await wideSection();
if (!QUICK) nativeSection(native);

heading("Targets (figures, not assertions)");
printTable(["target", "figure", "verdict"], summary, ["l", "l", "l"]);
console.log(
  `\nbench finished in ${((performance.now() - started) / 1000).toFixed(1)} s; load average now ` +
    `${loadavg().map((l) => l.toFixed(2)).join(" ")} on ${cpus().length} CPUs (other work on the machine makes every figure noisier).`,
);
