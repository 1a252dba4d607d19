// What the frameworks' integrations lean on (see pkg-template/README.md, "Using it with frameworks"): names a
// framework renamed are suggested (never resolved), unknown names suggest the closest, each provider's map is its own.
// Run: make pkg && node --test tests/js/frameworks.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { convertMcpTools, McpClient, NameMap, parseToolCalls, toolResultMessage } from "../../pkg/index.mjs";

const everything = [
  { name: "get-sum", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
  { name: "echo", inputSchema: { type: "object", properties: { message: { type: "string" } } } },
];

/** OpenAI Agents JS's `tool()` name rule: every character but letters and digits becomes `_`. */
const agentsName = (name) => name.replace(/[^a-zA-Z0-9]/g, "_");

test("a name OpenAI Agents JS rewrote is not resolved: its error suggests the tool and portableNames", () => {
  const map = NameMap.fromTools(everything, "openai", { server: "everything" });
  assert.deepEqual(map.names(), ["mcp__everything__get-sum", "mcp__everything__echo"]);
  const called = agentsName("mcp__everything__get-sum");
  assert.equal(called, "mcp__everything__get_sum");
  assert.throws(
    () => map.resolve(called),
    (err) => err.code === "UNKNOWN_TOOL_NAME" && err.suggestions[0] === "mcp__everything__get-sum" && /portableNames: true/.test(err.message),
  );
  assert.equal(map.has(called), false);
  // With portableNames the names are Agents-proof from the start, and resolve as called.
  const portable = NameMap.fromTools(everything, "openai", { server: "everything", portableNames: true });
  for (const n of portable.names()) {
    assert.equal(agentsName(n), n);
    assert.equal(portable.resolve(agentsName(n)).name, n);
  }
  const name = portable.names()[0];
  const response = { choices: [{ message: { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name, arguments: '{"a":1,"b":2}' } }] } }] };
  const [call] = parseToolCalls(response, "openai", portable);
  assert.deepEqual([call.server, call.tool, call.arguments], ["everything", "get-sum", { a: 1, b: 2 }]);
});

test("a name two tools fold to is never guessed: both suggested; an unknown name suggests the closest", () => {
  const map = NameMap.fromTools([{ name: "a.b" }, { name: "a-b" }, { name: "execute_sql" }], "gemini", { server: "s" });
  assert.throws(
    () => map.resolve("mcp__s__a_b"),
    (err) => err.code === "UNKNOWN_TOOL_NAME" && err.suggestions.join() === "mcp__s__a.b,mcp__s__a-b",
  );
  assert.equal(map.has("mcp__s__a_b"), false);
  try {
    map.resolve("execute_sql");
    assert.fail("resolved");
  } catch (err) {
    assert.equal(err.code, "UNKNOWN_TOOL_NAME");
    assert.match(err.message, /did you mean "mcp__s__execute_sql"\?$/);
    assert.deepEqual(err.suggestions, ["mcp__s__execute_sql"]);
  }
});

test("ollama: tools in OpenAI Chat's wrapper, names by its rule, and its calls read through that map", () => {
  const tools = [...everything, { name: "pick", inputSchema: { type: "object", properties: { n: { enum: [1, 2] } } } }];
  const ollama = convertMcpTools(tools, "ollama", { server: "everything" });
  const openai = convertMcpTools(tools, "openai", { server: "everything" });
  assert.deepEqual(ollama.map((t) => [t.type, t.function.name, Object.keys(t.function.parameters.properties)]), openai.map((t) => [t.type, t.function.name, Object.keys(t.function.parameters.properties)]));
  const map = NameMap.fromTools(tools, "ollama", { server: "everything" });
  assert.deepEqual(map.names(), NameMap.fromTools(tools, "openai", { server: "everything" }).names());
  const response = { message: { role: "assistant", tool_calls: [{ function: { name: "mcp__everything__get-sum", arguments: { a: 1, b: 2 } } }] } };
  const [call] = parseToolCalls(response, "ollama", map);
  assert.deepEqual([call.id, call.tool, call.arguments], ["call_0", "get-sum", { a: 1, b: 2 }]);
  assert.equal(toolResultMessage(call, { content: [{ type: "text", text: "3" }] }, "ollama").tool_name, "mcp__everything__get-sum");
});

// The README's recipes for Gemini through a framework, with the framework's real code and a fetch that keeps what
// it would send: the declarations reach Gemini as toolwire wrote them, and a call maps back through the same map.
const geminiTools = [
  { name: "list", inputSchema: { type: "object", properties: { limit: { type: "integer", enum: [10, 50] }, q: { type: ["string", "null"] }, sort: { $ref: "#/$defs/Sort" } }, $defs: { Sort: { type: "string", enum: ["asc", "desc"] } } } },
];
const geminiReply = (parts) => new Response(JSON.stringify({ candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }] }), { headers: { "content-type": "application/json" } });

test("@ai-sdk/google, as the README gives it: parametersJsonSchema declarations are sent unchanged, and calls map back", async () => {
  const { tool, jsonSchema, generateText, stepCountIs } = await import("ai");
  const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
  const options = { server: "docs", geminiMode: "parametersJsonSchema" };
  const nameMap = NameMap.fromTools(geminiTools, "gemini", options);
  const declarations = convertMcpTools(geminiTools, "gemini", options)[0].functionDeclarations;
  const executed = [];
  const tools = {};
  for (const d of declarations) {
    tools[d.name] = tool({
      description: d.description,
      inputSchema: jsonSchema(d.parametersJsonSchema ?? { type: "object", properties: {} }),
      execute: async (input) => (executed.push([nameMap.resolve(d.name).tool, nameMap.prepareArguments(d.name, input)]), "ok"),
    });
  }
  const sent = [];
  const google = createGoogleGenerativeAI({
    apiKey: "x",
    baseURL: "http://127.0.0.1:1/v1beta",
    fetch: async (_url, init) => {
      sent.push(JSON.parse(init.body));
      return sent.length === 1 ? geminiReply([{ functionCall: { name: "mcp__docs__list", args: { limit: 50, q: null, sort: "asc" } } }]) : geminiReply([{ text: "done" }]);
    },
  });
  await generateText({ model: google("gemini-2.5-flash"), prompt: "list", tools, stopWhen: stepCountIs(2) });
  assert.deepEqual(sent[0].tools[0].functionDeclarations.map((d) => d.parametersJsonSchema), declarations.map((d) => d.parametersJsonSchema));
  assert.ok(!JSON.stringify(sent[0].tools).includes("$ref"), "references are inlined for Gemini");
  assert.deepEqual(executed, [["list", { limit: 50, q: null, sort: "asc" }]]);
});

test("LangChain with a Gemini chat model, as the README gives it: Gemini declarations are bound and sent unchanged, and calls map back", async () => {
  const { ChatGoogleGenerativeAI } = await import("@langchain/google-genai");
  const real = globalThis.fetch;
  let sent;
  globalThis.fetch = async (_url, init) => ((sent = JSON.parse(init.body)), geminiReply([{ functionCall: { name: "mcp__docs__list", args: { limit: "50", sort: "asc" } } }]));
  try {
    const chatModel = new ChatGoogleGenerativeAI({ model: "gemini-2.5-flash", apiKey: "x", baseUrl: "http://127.0.0.1:1", maxRetries: 0 });
    const options = { server: "docs" };
    const converted = convertMcpTools(geminiTools, "gemini", options);
    const nameMap = NameMap.fromTools(geminiTools, "gemini", options);
    const reply = await chatModel.bindTools(converted).invoke("list");
    assert.deepEqual(sent.tools, JSON.parse(JSON.stringify(converted)));
    assert.ok(!JSON.stringify(sent.tools).includes("$ref") && !JSON.stringify(sent.tools).includes('"type":["'), "within Gemini's parameters rules");
    const [call] = reply.tool_calls;
    assert.deepEqual([nameMap.resolve(call.name).tool, nameMap.prepareArguments(call.name, call.args)], ["list", { limit: 50, sort: "asc" }], "the stringified enum is a number again");
  } finally {
    globalThis.fetch = real;
  }
});

test("a Node test setup with a `window` global (jsdom-global) still gets globalThis.fetch, the default the docs give (s22d F1)", async () => {
  const real = globalThis.fetch;
  const sent = [];
  // jsdom's window has no fetch; Node's stays on globalThis.
  globalThis.window = { document: {} };
  globalThis.fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    sent.push(body.method);
    if (body.id === undefined) return new Response(null, { status: 202 });
    const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: body.id, result }), { headers: { "content-type": "application/json" } });
  };
  try {
    const client = new McpClient("http://127.0.0.1:1/mcp");
    await client.connect();
    assert.equal(client.serverInfo.name, "stub");
    assert.deepEqual(sent, ["initialize", "notifications/initialized"]);
    await client.close();
  } finally {
    delete globalThis.window;
    globalThis.fetch = real;
  }
});

test("openai-node, as the README says: a tool that fell back to strict: false is sent by create() and responses.parse(), refused by chat.completions.parse()", async () => {
  const { default: OpenAI } = await import("openai");
  const tools = [
    { name: "search", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
    { name: "tag", inputSchema: { type: "object", properties: { labels: { type: "object", additionalProperties: { type: "string" } } } } },
  ];
  const options = { server: "docs", strict: true };
  const chatTools = convertMcpTools(tools, "openai", options);
  assert.deepEqual(chatTools.map((t) => t.function.strict), [true, false], "the open map falls back");
  const sent = [];
  const reply = (body) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  const client = new OpenAI({
    apiKey: "sk-test",
    baseURL: "http://127.0.0.1:9/v1",
    maxRetries: 0,
    fetch: async (url, init) => {
      sent.push(String(url));
      if (String(url).endsWith("/responses")) return reply({ id: "resp_1", object: "response", created_at: 0, status: "completed", model: "m", output: [], tools: JSON.parse(init.body).tools });
      return reply({ id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "ok", refusal: null } }] });
    },
  });
  const messages = [{ role: "user", content: "x" }];
  await assert.rejects(async () => client.chat.completions.parse({ model: "m", messages, tools: chatTools }), /Only strict function tools can be auto-parsed/);
  assert.deepEqual(sent, [], "refused before anything is sent");
  await client.chat.completions.create({ model: "m", messages, tools: chatTools });
  await client.chat.completions.parse({ model: "m", messages, tools: chatTools.filter((t) => t.function.strict === true) });
  const responsesTools = convertMcpTools(tools, "openai-responses", options);
  await client.responses.create({ model: "m", input: "x", tools: responsesTools });
  await client.responses.parse({ model: "m", input: "x", tools: responsesTools });
  assert.deepEqual(sent.map((u) => u.replace(/.*\/v1/, "")), ["/chat/completions", "/chat/completions", "/responses", "/responses"]);
});
