// What the frameworks' integrations lean on (see pkg-template/README.md, "Using it with frameworks"): names a
// framework renamed are suggested (never resolved), unknown names suggest the closest, each provider's map is its own.
// Run: make pkg && node --test tests/js/frameworks.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { convertMcpTools, NameMap, parseToolCalls, toolResultMessage } from "../../pkg/index.mjs";

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

test("ollama: tools converted as OpenAI Chat's, names by its rule, and its calls read through that map", () => {
  const tools = [...everything, { name: "pick", inputSchema: { type: "object", properties: { n: { enum: [1, 2] } } } }];
  assert.deepEqual(convertMcpTools(tools, "ollama", { server: "everything" }), convertMcpTools(tools, "openai", { server: "everything" }));
  const map = NameMap.fromTools(tools, "ollama", { server: "everything" });
  assert.deepEqual(map.names(), NameMap.fromTools(tools, "openai", { server: "everything" }).names());
  const response = { message: { role: "assistant", tool_calls: [{ function: { name: "mcp__everything__get-sum", arguments: { a: 1, b: 2 } } }] } };
  const [call] = parseToolCalls(response, "ollama", map);
  assert.deepEqual([call.id, call.tool, call.arguments], ["call_0", "get-sum", { a: 1, b: 2 }]);
  assert.equal(toolResultMessage(call, { content: [{ type: "text", text: "3" }] }, "ollama").tool_name, "mcp__everything__get-sum");
});
