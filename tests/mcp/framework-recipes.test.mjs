// The framework recipes of the package's README ("Using it with frameworks": the Vercel AI SDK, @ai-sdk/google,
// OpenAI Agents JS, LangChain) run as written against server-everything on 127.0.0.1, with the frameworks' real
// packages: each block is taken from pkg-template/README.md, its TypeScript stripped (typescript's transpileModule),
// `url` bound to the server and LangChain's `chatModel` to a stub that calls one tool; then the tools it built are
// called as the framework would call them. tests/js/readme-types.test.mjs checks their types; this, that they run
// (a block that lists tools before `connect()` type-checks, and fails here with NOT_CONNECTED).
// Run: make pkg && node --test tests/mcp/framework-recipes.test.mjs
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { startEverything, repo } from "../servers/everything.mjs";

/** The README's recipe blocks, by the bold heading of the paragraph before each. */
function recipes() {
  const text = readFileSync(join(repo, "pkg-template", "README.md"), "utf8");
  const section = text.slice(text.indexOf("## Using it with frameworks"), text.indexOf("## Browsers and bundlers"));
  const out = {};
  for (const m of section.matchAll(/\*\*([^*]+)\*\*[^]*?```ts\n([^]*?)\n```/g)) out[m[1]] = m[2];
  return out;
}

const dir = join(repo, "target", "framework-recipes");
let ev;
before(async () => {
  ev = await startEverything();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(join(repo, "pkg"), join(dir, "node_modules", "toolwire"), "dir");
});
after(async () => {
  await ev?.stop();
});

/** Runs a recipe as a module of its own, `url` (and `chatModel`) given, exporting `names`. */
async function run(code, names, prelude = "") {
  const js = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  // `@openai/agents` is `@openai/agents-core` and the OpenAI model's package: its `tool()` is the core's.
  const resolved = js.replaceAll('from "@openai/agents"', 'from "@openai/agents-core"');
  const file = join(dir, `recipe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, `const url = ${JSON.stringify(ev.url)};\n${prelude}\n${resolved}\nexport { ${names.join(", ")} };\n`);
  return import(pathToFileURL(file).href);
}

const sum = { a: 2, b: 5 };
const SUM_TEXT = "The sum of 2 and 5 is 7.";

test("the README has the four recipes", () => {
  assert.deepEqual(Object.keys(recipes()), ["Vercel AI SDK", "`@ai-sdk/google`", "OpenAI Agents JS", "LangChain"]);
});

test("Vercel AI SDK: the tools call the server through the name map, their output flattened for the model", async () => {
  const { aiTools, client } = await run(recipes()["Vercel AI SDK"], ["aiTools", "client"]);
  try {
    const t = aiTools["mcp__docs__get-sum"];
    assert.ok(t, Object.keys(aiTools).join());
    assert.equal(t.strict, true);
    const output = await t.execute(sum, { toolCallId: "c1", messages: [] });
    assert.deepEqual(output.content, [{ type: "text", text: SUM_TEXT }]);
    assert.deepEqual(await t.toModelOutput({ output, toolCallId: "c1", input: sum }), { type: "text", value: SUM_TEXT });
  } finally {
    await client.close();
  }
});

test("@ai-sdk/google: Gemini's parameters as JSON Schema, the calls mapped back with the Gemini map", async () => {
  const { geminiTools, client } = await run(recipes()["`@ai-sdk/google`"], ["geminiTools", "client"]);
  try {
    const t = geminiTools["mcp__docs__get-sum"];
    assert.ok(t, Object.keys(geminiTools).join());
    assert.deepEqual((await t.inputSchema.jsonSchema).properties.a.type, "number");
    const output = await t.execute(sum, { toolCallId: "c1", messages: [] });
    assert.deepEqual(output.content, [{ type: "text", text: SUM_TEXT }]);
  } finally {
    await client.close();
  }
});

test("OpenAI Agents JS: portable names pass its tool() unchanged, and its invoke calls the server", async () => {
  const { agentTools, client } = await run(recipes()["OpenAI Agents JS"], ["agentTools", "client"]);
  try {
    // get-sum is not portable as it is: its name carries a hash of the original, which the map resolves.
    const t = agentTools.find((x) => x.name.startsWith("mcp__docs__get_sum_"));
    assert.ok(t, agentTools.map((x) => x.name).join());
    assert.equal(await t.invoke({}, JSON.stringify(sum)), SUM_TEXT);
  } finally {
    await client.close();
  }
});

test("LangChain: bindTools gets the OpenAI tools, and the model's call is answered with a ToolMessage", async () => {
  const prelude = `
import { AIMessage as __AIMessage } from "@langchain/core/messages";
const chatModel = {
  bound: undefined,
  bindTools(tools) {
    chatModel.bound = tools;
    return { invoke: async () => new __AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "mcp__docs__get-sum", args: ${JSON.stringify(sum)} }] }) };
  },
};`;
  const { history, chatModel, client } = await run(recipes().LangChain, ["history", "chatModel", "client"], prelude);
  try {
    assert.ok(chatModel.bound.some((t) => t.function.name === "mcp__docs__get-sum"));
    assert.equal(history.length, 3);
    assert.equal(history[2].tool_call_id, "call_1");
    assert.equal(history[2].content, SUM_TEXT);
  } finally {
    await client.close();
  }
});
