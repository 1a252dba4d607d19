// Tool names whose letters no provider name can hold (検索, поиск): the name is said at the start of the
// description, where the model reads it, and the rename is a `names/sanitized` change an app can pick out.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";

const schema = { type: "object", properties: { q: { type: "string" } } };
const tools = [
  { name: "検索", inputSchema: schema },
  { name: "削除", title: "Delete a document", inputSchema: schema },
  { name: "get", description: "Gets.", inputSchema: schema },
];

/** The `[name, description]` of each converted tool, wherever its provider puts them. */
const described = (provider, converted) => {
  const list = provider === "gemini" || provider === "vertex" ? converted[0].functionDeclarations : converted;
  return list.map((t) => t.function ?? t.toolSpec ?? t).map((t) => [t.name, t.description]);
};

test("a name without its letters is said in the description, for every provider and entry point", () => {
  for (const provider of ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama"]) {
    const { tools: converted, nameMap, report } = tw.convertMcpToolsDetailed(tools, provider, { server: "docs" });
    const got = described(provider, converted);
    assert.deepEqual(got.map(([, d]) => d), ["Tool name: 検索", "Tool name: 削除\n\nDelete a document", "Gets."], provider);
    assert.equal(got[2][0], "mcp__docs__get", provider);
    assert.deepEqual(JSON.parse(tw.convertMcpToolsJson(JSON.stringify(tools), provider, { server: "docs" })), converted, provider);
    assert.deepEqual(tw.convertMcpTools(tools, provider, { server: "docs" }), converted, provider);
    // The map still resolves the hashed names back to the tools.
    const map = tw.NameMap.fromJSON(nameMap);
    assert.deepEqual(got.map(([name]) => map.resolve(name).tool), ["検索", "削除", "get"], provider);
    const rules = report.tools.map((t) => t.changes.map((c) => c.rule));
    assert.deepEqual(rules, [["names/sanitized"], ["names/sanitized"], ["names/rename"]], provider);
    assert.match(report.tools[0].changes[0].message, /"検索" has letters or digits no provider's names can hold \(検, 索\)/, provider);
    const checked = tw.checkTools(tools, provider, { server: "docs" });
    assert.deepEqual(checked.tools.map((t) => t.changes.map((c) => c.rule)), rules, provider);
  }
});

test("toolsSystemPrompt says a name without its letters under the listed name", () => {
  const prompt = tw.toolsSystemPrompt(tools, { server: "docs" });
  const name = tw.NameMap.fromTools(tools, "openai", { server: "docs" }).toJSON().entries[0].name;
  assert.ok(prompt.includes(`## ${name}\n> Tool name: 検索\n`), prompt);
  assert.ok(prompt.includes("## mcp__docs__get\n> Gets.\n"), prompt);
  assert.ok(tw.toolsSystemPrompt(tools, { server: "docs", locale: "zh-CN" }).includes(`## ${name}\n> 工具名称：検索\n`));
});
