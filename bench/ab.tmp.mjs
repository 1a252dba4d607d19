// Paired A/B of two built packages (temporary tool, not committed).
import { createRequire } from "node:module";
import { loadCorpus, makeSet, firstTools, timeAll } from "./lib.mjs";
const require = createRequire(import.meta.url);
const [A, B] = [process.argv[2], process.argv[3]];
const providers = (process.argv[4] ?? "openai,gemini,openai-strict,anthropic-strict").split(",");
const api = process.argv[5] ?? "json";
const runs = +(process.argv[6] ?? 15);
const a = require(A), b = require(B);
const corpus = loadCorpus();
for (const set of [makeSet("all", corpus), makeSet("200", firstTools(corpus, 200))]) {
  for (const p of providers) {
    const [prov, strict] = p.endsWith("-strict") ? [p.slice(0, -7), true] : [p, false];
    const mk = (lib) => () => { let n = 0; for (const s of set.servers) { const o = api === "json" ? lib.convertMcpToolsJson(s.buf, prov, { server: s.server, strict }) : lib.convertMcpTools(s.tools, prov, { server: s.server, strict }); n += o.length; } return n; };
    const r = await timeAll([{ id: "A", run: mk(a) }, { id: "B", run: mk(b) }], { warmup: 3, runs });
    const ma = r.get("A").median, mb = r.get("B").median;
    console.log(set.label.padEnd(4), p.padEnd(17), api, "A", ma.toFixed(2), "B", mb.toFixed(2), "B/A", (mb / ma).toFixed(3));
  }
}
