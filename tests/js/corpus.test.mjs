// Every real tools/list in the shared corpus converts for every provider without throwing, through both
// entry points, and every resulting name is unique and resolvable.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as toolwire from "../../pkg/index.mjs";
import contract from "./contract.cjs";
import { corpus, corpusDir } from "./shared.mjs";

const { PROVIDERS, definitions } = contract;
const servers = corpus();

test("the corpus is there", () => {
  assert.ok(servers.length >= 30, `expected the shared corpus in ${corpusDir}, found ${servers.length} files`);
});

// Ollama decodes `parameters` into fixed structs (its api/types.go) and drops every other keyword; a boolean
// property schema fails the request. Its conversion keeps only what those structs read, the same through every
// entry point, and reports what it removed.
const OLLAMA_ROOT = new Set(["type", "properties", "required", "items", "$defs"]);
const OLLAMA_PROPERTY = new Set(["anyOf", "type", "items", "description", "enum", "properties"]);
function notReadByOllama(property, at, out) {
  if (property === null || typeof property !== "object" || Array.isArray(property)) return out.push(`${at}: ${JSON.stringify(property)}`);
  for (const [k, v] of Object.entries(property)) {
    if (!OLLAMA_PROPERTY.has(k)) out.push(`${at}/${k}`);
    else if (k === "properties") for (const [n, s] of Object.entries(v)) notReadByOllama(s, `${at}/properties/${n}`, out);
    else if (k === "anyOf") v.forEach((s, i) => notReadByOllama(s, `${at}/anyOf/${i}`, out));
    else if (k === "description" && typeof v !== "string") out.push(`${at}/description`);
  }
}

test("corpus: ollama's schemas hold only what Ollama reads, through every entry point", () => {
  let tools = 0;
  let reported = 0;
  for (const { file, doc } of servers) {
    const options = { server: doc.server };
    const out = toolwire.convertMcpTools(doc.tools, "ollama", options);
    assert.deepStrictEqual(JSON.parse(toolwire.convertMcpToolsJson(JSON.stringify(doc.tools), "ollama", options)), out, file);
    const detailed = toolwire.convertMcpToolsDetailed(doc.tools, "ollama", options);
    assert.deepStrictEqual(detailed.tools, out, file);
    assert.equal(detailed.report.provider, "ollama");
    const bad = [];
    for (const t of out) {
      tools++;
      assert.equal(t.type, "function");
      assert.equal("strict" in t.function, false);
      for (const [k, v] of Object.entries(t.function.parameters)) {
        if (!OLLAMA_ROOT.has(k)) bad.push(`${t.function.name}: /${k}`);
        else if (k === "properties") for (const [n, s] of Object.entries(v)) notReadByOllama(s, `${t.function.name}: /properties/${n}`, bad);
      }
      assert.ok(!JSON.stringify(t.function.parameters).includes('"$ref"'), `${file} / ${t.function.name}: no $ref`);
    }
    assert.deepEqual(bad, [], file);
    reported += detailed.report.tools.filter((r) => r.changes.some((c) => c.rule.startsWith("ollama/"))).length;
  }
  assert.equal(tools, 1265);
  assert.ok(reported > 1000, `only ${reported} tools report what Ollama does not read`);
});

for (const { file, doc } of servers) {
  test(`corpus: ${file} (${doc.tools.length} tools)`, () => {
    for (const provider of PROVIDERS) {
      const options = { server: doc.server };
      const out = toolwire.convertMcpTools(doc.tools, provider, options);
      const defs = definitions(provider, out);
      assert.equal(defs.length, doc.tools.length, `${provider}: one definition per tool`);
      assert.equal(new Set(defs.map((d) => d.name)).size, defs.length, `${provider}: names are unique`);

      const text = toolwire.convertMcpToolsJson(JSON.stringify(doc.tools), provider, options);
      assert.deepStrictEqual(JSON.parse(text), out, `${provider}: JSON and object entry points agree`);
      // The same tools from every entry point, from text or from UTF-8 bytes. (That the
      // pass-through path gives the general path's output is checked natively, byte for byte.)
      const general = toolwire.convertMcpToolsDetailed(doc.tools, provider, options).tools;
      assert.deepStrictEqual(out, general, `${provider}: convertMcpTools and convertMcpToolsDetailed agree`);
      const bytes = toolwire.convertMcpToolsJson(new TextEncoder().encode(JSON.stringify(doc.tools, null, 2)), provider, options);
      assert.ok(bytes instanceof Uint8Array, "bytes in, bytes out");
      assert.deepStrictEqual(JSON.parse(new TextDecoder().decode(bytes)), general, `${provider}: from pretty-printed bytes`);

      const report = toolwire.checkTools(doc.tools, provider, options);
      assert.equal(report.tools.length, doc.tools.length, `${provider}: one report per tool`);

      const map = toolwire.NameMap.fromTools(doc.tools, provider, options);
      for (const [i, d] of defs.entries()) {
        const r = map.resolve(d.name);
        assert.equal(r.tool, doc.tools[i].name, `${provider}: ${d.name} resolves to its tool`);
        assert.equal(r.server, doc.server);
        // As a model may call it: inside OpenAI's or Gemini's namespace.
        const ns = `${provider.startsWith("gemini") || provider === "vertex" ? "default_api." : "functions."}${d.name}`;
        assert.deepStrictEqual(map.resolve(ns), r, `${provider}: ${ns} resolves as ${d.name}`);
      }
      map.free();
    }
  });
}
