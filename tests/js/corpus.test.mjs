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
