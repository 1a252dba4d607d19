// The full round trip per provider, through the built package: MCP tools -> convertMcpTools -> a model
// response in the provider's documented shape -> parseToolCalls -> an MCP result -> toolResultMessage.
// Each step is checked against the provider's message shape (see tests/ts/ for the SDK type checks).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

// Two servers, one tool name each that collides across them, one enum that Gemini stringifies.
const tools = [
  { serverName: "github", name: "search", description: "Search issues", inputSchema: { type: "object", properties: { q: { type: "string" }, state: { type: "integer", enum: [0, 1] } }, required: ["q"] } },
  { serverName: "gitlab", name: "search", description: "Search merge requests", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
];
const mcpResult = {
  content: [
    { type: "text", text: "3 issues" },
    { type: "image", data: `data:image/png;base64,${PNG}`, mimeType: "image/jpeg" },
  ],
  structuredContent: { count: 3 },
};

const cases = {
  openai: {
    response: (name, args) => ({
      id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o",
      choices: [{ index: 0, finish_reason: "tool_calls", logprobs: null,
        message: { role: "assistant", content: null, refusal: null,
          tool_calls: [{ id: "call_abc", type: "function", function: { name, arguments: JSON.stringify(args) } }] } }],
    }),
    name: (out, i) => out[i].function.name,
    check(msg) {
      assert.deepEqual(Object.keys(msg).sort(), ["content", "role", "tool_call_id"]);
      assert.equal(msg.role, "tool");
      assert.equal(msg.tool_call_id, "call_abc");
      // The structure is not in the text, so its JSON follows it.
      assert.equal(msg.content, "3 issues\n[Image: image/png (not sent: text only)]\n{\"count\":3}");
    },
  },
  "openai-responses": {
    response: (name, args) => ({ id: "resp_1", object: "response", output: [
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", id: "fc_1", call_id: "call_xyz", name, arguments: JSON.stringify(args), status: "completed" }] }),
    name: (out, i) => out[i].name,
    check(msg) {
      assert.equal(msg.type, "function_call_output");
      assert.equal(msg.call_id, "call_xyz");
      assert.equal(typeof msg.output, "string");
    },
  },
  anthropic: {
    response: (name, args) => ({ id: "msg_1", type: "message", role: "assistant", model: "claude", stop_reason: "tool_use",
      content: [{ type: "text", text: "Searching." }, { type: "tool_use", id: "toolu_01", name, input: args }] }),
    name: (out, i) => out[i].name,
    check(msg) {
      assert.equal(msg.type, "tool_result");
      assert.equal(msg.tool_use_id, "toolu_01");
      assert.equal(msg.is_error, false);
      assert.deepEqual(msg.content[0], { type: "text", text: "3 issues" });
      // data: prefix stripped, media type from the bytes (the server said jpeg).
      assert.deepEqual(msg.content[1], { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } });
    },
  },
  gemini: {
    response: (name, args) => ({ candidates: [{ content: { role: "model", parts: [{ functionCall: { name, args } }] }, finishReason: "STOP" }] }),
    name: (out, i) => out[0].functionDeclarations[i].name,
    check(msg, call) {
      // The structure is the output; the rest of the content (text, the image's placeholder) beside it.
      assert.deepEqual(msg, { functionResponse: { name: call.providerName, response: { output: { count: 3 }, content: "3 issues\n[Image: image/png (not sent: text only)]" } } });
    },
  },
  bedrock: {
    response: (name, args) => ({ output: { message: { role: "assistant", content: [{ text: "ok" }, { toolUse: { toolUseId: "tooluse_1", name, input: args } }] } }, stopReason: "tool_use" }),
    name: (out, i) => out[i].toolSpec.name,
    check(msg) {
      assert.equal(msg.toolResult.toolUseId, "tooluse_1");
      assert.equal(msg.toolResult.status, "success");
      assert.deepEqual(msg.toolResult.content[0], { text: "3 issues" });
      const bytes = msg.toolResult.content[1].image.source.bytes;
      assert.equal(msg.toolResult.content[1].image.format, "png");
      assert.ok(bytes instanceof Uint8Array, "bytes as the AWS SDK takes them");
      assert.deepEqual(Buffer.from(bytes).toString("base64"), PNG);
      assert.deepEqual(msg.toolResult.content[2], { json: { count: 3 } });
    },
  },
};

for (const [provider, c] of Object.entries(cases)) {
  test(`round trip: ${provider}`, () => {
    const out = tw.convertMcpTools(tools, provider);
    const map = tw.NameMap.fromTools(tools, provider);
    const first = c.name(out, 0);
    const second = c.name(out, 1);
    assert.notEqual(first, second, "same tool name on two servers, two provider names");
    // The model calls the GitHub tool; Gemini saw the enum as strings.
    const modelArgs = provider === "gemini" ? { q: "bug", state: "1" } : { q: "bug", state: 1 };
    const calls = tw.parseToolCalls(c.response(first, modelArgs), provider, map);
    assert.equal(calls.length, 1);
    const [call] = calls;
    assert.equal(call.server, "github");
    assert.equal(call.tool, "search");
    assert.deepEqual(call.arguments, { q: "bug", state: 1 }, "arguments as the MCP server expects them");
    assert.equal(call.error, undefined);
    c.check(tw.toolResultMessage(call, mcpResult, provider), call);
    // An error result uses the provider's error form.
    const err = tw.toolResultMessage(call, { content: [{ type: "text", text: "rate limited" }], isError: true }, provider);
    const text = JSON.stringify(err);
    assert.match(text, /rate limited/);
    if (provider === "anthropic") assert.equal(err.is_error, true);
    if (provider === "bedrock") assert.equal(err.toolResult.status, "error");
    if (provider === "gemini") assert.deepEqual(err.functionResponse.response, { error: "rate limited" });
    if (provider === "openai") assert.equal(err.content, "Error: rate limited");
  });
}

test("OpenAI strict: a recursive schema keeps its $defs, and nulls come out at every depth, through a saved name map", () => {
  const tree = { serverName: "fs", name: "filter", inputSchema: { type: "object", required: ["where"],
    properties: { where: { $ref: "#/$defs/Cond" } },
    $defs: { Cond: { type: "object", required: ["field"], properties: { field: { type: "string" }, and: { type: "array", items: { $ref: "#/$defs/Cond" } } } } } } };
  const out = tw.convertMcpToolsDetailed([tree], "openai", { strict: true });
  const fn = out.tools[0].function;
  assert.equal(fn.strict, true);
  assert.deepEqual(fn.parameters.$defs.Cond.properties.and, { type: ["array", "null"], items: { $ref: "#/$defs/Cond" } });
  assert.ok(out.report.tools[0].changes.some((c) => c.rule === "openai/strict-defs"));
  const map = tw.NameMap.fromJSON(JSON.parse(JSON.stringify(out.nameMap)));
  const args = { where: { field: "a", and: [{ field: "b", and: null }, { field: "c", and: [{ field: "d", and: null }] }] } };
  assert.deepEqual(map.prepareArguments(fn.name, JSON.stringify(args)),
    { where: { field: "a", and: [{ field: "b" }, { field: "c", and: [{ field: "d" }] }] } });
});

test("OpenAI strict: nulls the model sends for optional fields of a union's branch are removed where that branch declares them", () => {
  const branch = (op, params) => ({ type: "object", properties: { op: { const: op }, params, m: { type: "string" } }, required: ["op"] });
  const tools = [{ name: "t", inputSchema: { type: "object", required: ["sel"], properties: { sel: { anyOf: [
    branch("a", { type: "object", properties: { id: { type: "string" } }, required: ["id"] }),
    branch("b", { type: "object", properties: { team: { type: "string" } } }),
  ] } } } }];
  const map = tw.NameMap.fromTools(tools, "openai", { strict: true });
  assert.deepEqual(map.prepareArguments("t", { sel: { op: "b", params: { team: null }, m: null } }), { sel: { op: "b", params: {} } });
  assert.deepEqual(map.prepareArguments("t", { sel: { op: "a", params: { id: "x" }, m: null } }), { sel: { op: "a", params: { id: "x" } } });
});

test("a union's branch maps back only values of that branch: a discriminator tells them apart, through every path", () => {
  // OpenAI strict: `x` required and nullable in variant a, optional (made nullable) in variant b.
  const strictTools = [{ name: "t", inputSchema: { type: "object", additionalProperties: false, required: ["u"], properties: { u: { anyOf: [
    { type: "object", properties: { kind: { const: "a" }, x: { type: ["string", "null"] } }, required: ["kind", "x"], additionalProperties: false },
    { type: "object", properties: { kind: { const: "b" }, x: { type: "string" } }, required: ["kind"], additionalProperties: false },
  ] } } } }];
  const detailed = tw.convertMcpToolsDetailed(strictTools, "openai", { strict: true });
  assert.equal(detailed.tools[0].function.strict, true);
  assert.deepEqual(detailed.report.tools[0].problems, []);
  const completion = (args) => ({ choices: [{ message: { role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "t", arguments: JSON.stringify(args) } }] } }] });
  for (const map of [tw.NameMap.fromJSON(JSON.parse(JSON.stringify(detailed.nameMap))), tw.NameMap.fromTools(strictTools, "openai", { strict: true })]) {
    assert.deepEqual(map.prepareArguments("t", { u: { kind: "a", x: null } }), { u: { kind: "a", x: null } });
    assert.deepEqual(map.prepareArguments("t", { u: { kind: "b", x: null } }), { u: { kind: "b" } });
    assert.deepEqual(tw.parseToolCalls(completion({ u: { kind: "a", x: null } }), "openai", map)[0].arguments, { u: { kind: "a", x: null } });
  }
  // Gemini: variant "text" keeps its string "1"; variant "num" gets its number back.
  const variant = (kind, level) => ({ type: "object", properties: { kind: { const: kind }, level }, required: ["kind", "level"] });
  const geminiTools = [{ name: "g", inputSchema: { type: "object", required: ["u"], properties: { u: { anyOf: [
    variant("text", { type: "string", enum: ["1", "2", "high"] }), variant("num", { type: "integer", enum: [1, 2, 3] }),
  ] } } } }];
  const g = tw.convertMcpToolsDetailed(geminiTools, "gemini");
  assert.deepEqual(g.report.tools[0].problems, []);
  const gmap = tw.NameMap.fromJSON(g.nameMap);
  assert.deepEqual(gmap.prepareArguments("g", { u: { kind: "text", level: "1" } }), { u: { kind: "text", level: "1" } });
  assert.deepEqual(gmap.prepareArguments("g", { u: { kind: "num", level: "1" } }), { u: { kind: "num", level: 1 } });
  // Nothing tells the branches apart: reported, where it happens.
  const plain = [{ name: "p", inputSchema: { type: "object", properties: { u: { anyOf: [
    { type: "object", properties: { level: { type: "string" } } }, { type: "object", properties: { level: { type: "integer", enum: [1] } } },
  ] } } } }];
  const collision = tw.convertMcpToolsDetailed(plain, "gemini").report.tools[0].problems;
  assert.deepEqual(collision.map((p) => [p.rule, p.path]), [["gemini/enum-collision", "/properties/u"]]);
  assert.match(collision[0].message, /at `level`/);
});

test("strict mode and a required property that `properties` does not declare: declared as any value, so the tool stays callable", () => {
  const tools = [{ name: "t", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q", "token"] } }];
  const openai = tw.convertMcpToolsDetailed(tools, "openai", { strict: true });
  // OpenAI strict has no untyped property: sent without strict, and said why.
  assert.equal(openai.tools[0].function.strict, false);
  assert.deepEqual(openai.tools[0].function.parameters.required, ["q", "token"]);
  assert.deepEqual(openai.report.tools[0].problems.map((p) => p.rule), ["openai/strict-fallback"]);
  for (const provider of ["anthropic", "bedrock"]) {
    const out = tw.convertMcpToolsDetailed(tools, provider, { strict: true });
    const schema = out.tools[0].input_schema ?? out.tools[0].toolSpec.inputSchema.json;
    assert.deepEqual(schema.properties.token, {}, provider);
    assert.deepEqual(schema.required, ["q", "token"], provider);
    assert.ok(out.report.tools[0].changes.some((c) => c.rule === "schema/required-undeclared"), provider);
  }
});

test("prepareArguments reads a model's arguments as parseToolCalls does: an object, or INVALID_ARGUMENTS", () => {
  const tools = [{ name: "t", inputSchema: { type: "object", properties: { n: { enum: [1, 2] } } } }, { name: "s", inputSchema: { type: "string" } }];
  const map = tw.NameMap.fromTools(tools, "gemini");
  for (const none of [null, undefined, "", "  ", "null", " null "]) assert.deepEqual(map.prepareArguments("t", none), {});
  // A model's "null" arguments text is no arguments, as its null is, in parseToolCalls too.
  const nulls = tw.parseToolCalls({ choices: [{ message: { tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: "null" } }] } }] }, "openai", map);
  assert.deepEqual([nulls[0].arguments, nulls[0].error], [{}, undefined]);
  assert.deepEqual(map.prepareArguments("t", '{"n":"2"}'), { n: 2 });
  for (const bad of [[1, 2], "[1]", 42, "42", true, '"x"']) {
    const call = tw.parseToolCalls({ candidates: [{ content: { parts: [{ functionCall: { name: "t", args: typeof bad === "string" ? JSON.parse(bad) : bad } }] } }] }, "gemini", map)[0];
    assert.equal(call.error?.code, "INVALID_ARGUMENTS", JSON.stringify(bad));
    assert.throws(() => map.prepareArguments("t", bad), (e) => e.code === "INVALID_ARGUMENTS" && /must be a JSON object, got/.test(e.message), JSON.stringify(bad));
  }
  // A wrapped root (not an object schema) unwraps to what its schema describes.
  assert.equal(map.prepareArguments("s", { input: "abc" }), "abc");
});

test("a tool whose root schema is not an object schema: its calls' arguments are any JSON value, which McpClient refuses", async () => {
  // What ToolCall<JsonValue> in the declarations stands for: the root is wrapped as `input` for the model, and the
  // calls read through the map unwrap it, to a string, an array, null (`input` left out), or an object.
  const tools = [
    { name: "s", inputSchema: { type: "string" } },
    { name: "a", inputSchema: { type: "array", items: { type: "number" } } },
    { name: "o", inputSchema: { anyOf: [{ type: "object", properties: { q: { type: "string" } } }, { type: "null" }] } },
    { name: "e", inputSchema: {} },
  ];
  const map = tw.NameMap.fromTools(tools, "anthropic");
  assert.deepEqual(tw.checkTools(tools, "anthropic").tools.map((t) => t.changes.some((c) => c.rule === "schema/wrap-root")), [true, true, true, false]);
  const block = (id, name, input) => ({ type: "tool_use", id, name, input });
  const content = [block("1", "s", { input: "abc" }), block("2", "a", { input: [1, 2] }), block("3", "o", {}), block("4", "o", { input: { q: "x" } }), block("5", "e", {})];
  const expected = ["abc", [1, 2], null, { q: "x" }, {}];
  assert.deepEqual(tw.parseToolCalls({ role: "assistant", content }, "anthropic", map).map((c) => c.arguments), expected);
  assert.deepEqual(content.map((b) => map.prepareArguments(b.name, b.input)), expected);
  const acc = new tw.ToolCallAccumulator("anthropic", map);
  const streamed = content.flatMap((b, index) => [
    ...acc.push({ type: "content_block_start", index, content_block: { ...b, input: {} } }),
    ...acc.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } }),
    ...acc.push({ type: "content_block_stop", index }),
  ]);
  // The last call comes with the event after its block's end (here `finish()`).
  streamed.push(...acc.finish());
  assert.deepEqual(streamed.map((c) => c.arguments), expected);
  // Without a name map nothing is unwrapped: arguments are the model's own object.
  assert.deepEqual(tw.parseToolCalls({ content }, "anthropic").map((c) => c.arguments), content.map((b) => b.input));

  // McpClient.callTool takes any call's arguments, and refuses all but an object (or none) before sending anything.
  let fetched = 0;
  const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch: async () => { fetched++; throw new Error("no network here"); } });
  for (const args of ["abc", [1, 2], 42, true]) {
    await assert.rejects(client.callTool("s", args), (e) => e.code === "INVALID_ARGUMENTS" && e.message.startsWith("arguments must be an object, got ") && e.tool === "s", JSON.stringify(args));
  }
  assert.equal(fetched, 0);
  for (const none of [null, undefined, { q: "x" }]) await assert.rejects(client.callTool("o", none), (e) => e.code !== "INVALID_ARGUMENTS");
  client.free();
});

test("a tool of root type \"object\" whose $ref is to another type is not wrapped: its arguments are objects, as McpObjectTool says", () => {
  // Draft 7 reads the reference alone, 2020-12 both (which nothing meets): either way the root stays an object, the
  // reference dropped and reported, for every provider and mode.
  const tools = [
    { name: "lookup", inputSchema: { type: "object", $ref: "#/$defs/Q", $defs: { Q: { type: "string" } } } },
    { name: "legacy", inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", $ref: "#/definitions/Q", definitions: { Q: { type: "string" } } } },
  ];
  for (const provider of ["gemini", "openai", "anthropic", "bedrock"]) {
    for (const strict of [false, true]) {
      const map = tw.NameMap.fromTools(tools, provider, { strict });
      const report = tw.checkTools(tools, provider, { strict });
      for (const [i, name] of map.names().entries()) {
        const what = `${provider} strict=${strict} ${name}`;
        assert.deepEqual(map.prepareArguments(name, { input: "abc" }), { input: "abc" }, what);
        assert.ok(!report.tools[i].changes.some((c) => c.rule === "schema/wrap-root"), what);
        // Said for every provider, as no conversion sends the reference as it was.
        assert.deepEqual(report.tools[i].problems.map((p) => p.rule), ["schema/root-ref-type"], what);
        assert.ok(!JSON.stringify(tw.convertMcpTools([tools[i]], provider, { strict })).includes("$ref"), what);
        const call = tw.parseToolCalls({ choices: [{ message: { tool_calls: [{ id: "c", type: "function", function: { name, arguments: "{}" } }] } }] }, "openai", map)[0];
        if (provider === "openai") assert.deepEqual(call.arguments, {}, what);
      }
    }
  }
});

test("parts and blocks of other kinds beside the calls: the calls are read, and the turn keeps them as sent", () => {
  const map = tw.NameMap.fromTools([{ serverName: "weather", name: "get", inputSchema: { type: "object", properties: { city: { type: "string" } } } }], "gemini");
  const [name] = map.names();
  // Gemini 3 with Google Search and a function (includeServerSideToolInvocations): the built-in tool's toolCall and
  // toolResponse parts come first; an image the model made, code it ran, a thought.
  const parts = [
    { text: "Looking it up.", thought: true },
    { toolCall: { id: "tc1", toolType: "GOOGLE_SEARCH_WEB", args: { queries: ["northernmost US city"] } }, thoughtSignature: "c2lnLTA=" },
    { toolResponse: { id: "tc1", toolType: "GOOGLE_SEARCH_WEB", response: { search_suggestions: "<div/>" } } },
    { executableCode: { language: "PYTHON", code: "print(71.29)" } },
    { codeExecutionResult: { outcome: "OUTCOME_OK", output: "71.29\n" } },
    { inlineData: { mimeType: "image/png", data: PNG } },
    { fileData: { mimeType: "application/pdf", fileUri: "https://example.com/a.pdf" } },
    { functionCall: { id: "fc1", name, args: { city: "Utqiagvik" } }, thoughtSignature: "c2lnLTE=" },
  ];
  const response = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }] };
  const expected = [["fc1", "weather", "get", { city: "Utqiagvik" }, "c2lnLTE="]];
  const read = (calls) => calls.map((c) => [c.id, c.server, c.tool, c.arguments, c.thoughtSignature]);
  // The response, its candidate's content, and `content.parts` as the SDK hands them out.
  for (const input of [response, response.candidates[0], response.candidates[0].content, parts]) {
    assert.deepEqual(read(tw.parseToolCalls(input, "gemini", map)), expected);
  }
  for (const part of parts.slice(0, -1)) assert.deepEqual(tw.parseToolCalls(part, "gemini", map), [], JSON.stringify(part));
  // Streamed one part per chunk: the same call, and the model's turn holds every part as it came.
  const acc = new tw.ToolCallAccumulator("gemini", map);
  const calls = parts.flatMap((part) => acc.push({ candidates: [{ content: { role: "model", parts: [part] }, index: 0 }] }));
  calls.push(...acc.push({ candidates: [{ content: { role: "model", parts: [] }, finishReason: "STOP", index: 0 }] }), ...acc.finish());
  assert.deepEqual(read(calls), expected);
  assert.deepEqual(acc.message(), { role: "model", parts });

  // Anthropic: server tools' blocks (web search, web fetch, code execution), a text block with citations, the MCP
  // connector's (beta) blocks; only tool_use is a call for the client.
  const amap = tw.NameMap.fromTools([{ serverName: "weather", name: "get", inputSchema: { type: "object" } }], "anthropic");
  const content = [
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "weather" } },
    { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "https://w.example", title: "W", encrypted_content: "x", page_age: null }] },
    { type: "text", text: "Sunny.", citations: [{ type: "web_search_result_location", url: "https://w.example", title: "W", encrypted_index: "y", cited_text: "Sunny" }] },
    { type: "server_tool_use", id: "srvtoolu_2", name: "web_fetch", input: { url: "https://w.example" } },
    { type: "web_fetch_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_fetch_tool_result_error", error_code: "url_not_accessible" } },
    { type: "server_tool_use", id: "srvtoolu_3", name: "code_execution", input: { code: "print(1)" } },
    { type: "code_execution_tool_result", tool_use_id: "srvtoolu_3", content: { type: "code_execution_result", stdout: "1\n", stderr: "", return_code: 0, content: [] } },
    { type: "mcp_tool_use", id: "mcptoolu_1", name: "echo", server_name: "docs", input: { text: "hi" } },
    { type: "mcp_tool_result", tool_use_id: "mcptoolu_1", is_error: false, content: [{ type: "text", text: "hi" }] },
    { type: "tool_use", id: "toolu_1", name: amap.names()[0], input: { city: "Oslo" } },
  ];
  for (const input of [{ role: "assistant", content }, content]) {
    assert.deepEqual(tw.parseToolCalls(input, "anthropic", amap).map((c) => [c.id, c.tool, c.arguments]), [["toolu_1", "get", { city: "Oslo" }]]);
  }
  const aacc = new tw.ToolCallAccumulator("anthropic", amap);
  const streamed = content.flatMap((b, index) => {
    const input = "input" in b ? { input: {} } : {};
    const text = b.type === "text" ? { text: "", citations: [] } : {};
    const deltas = [
      ...("input" in b ? [{ type: "input_json_delta", partial_json: JSON.stringify(b.input) }] : []),
      ...(b.type === "text" ? [{ type: "citations_delta", citation: b.citations[0] }, { type: "text_delta", text: b.text }] : []),
    ];
    return [
      ...aacc.push({ type: "content_block_start", index, content_block: { ...b, ...input, ...text } }),
      ...deltas.flatMap((delta) => aacc.push({ type: "content_block_delta", index, delta })),
      ...aacc.push({ type: "content_block_stop", index }),
    ];
  });
  streamed.push(...aacc.push({ type: "message_delta", delta: { stop_reason: "tool_use" } }));
  assert.deepEqual(streamed.map((c) => [c.id, c.tool, c.arguments]), [["toolu_1", "get", { city: "Oslo" }]]);
  assert.deepEqual(aacc.message(), { role: "assistant", content });
});

test("portableNames: one set of names for every provider; a Gemini call resolves through an OpenAI name map", () => {
  const tools = [{ serverName: "docs-v2", name: "search.pages", inputSchema: { type: "object" } }, { serverName: "docs-v2", name: "search_pages", inputSchema: { type: "object" } }];
  const names = (provider) => tw.NameMap.fromTools(tools, provider, { portableNames: true }).toJSON().entries.map((e) => e.name);
  const openai = names("openai");
  for (const provider of ["openai-responses", "anthropic", "gemini", "vertex", "bedrock"]) assert.deepEqual(names(provider), openai, provider);
  for (const n of openai) assert.match(n, /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/);
  assert.notEqual(openai[0], openai[1]);
  assert.equal(tw.prefixToolName("docs-v2", "search.pages", { provider: "gemini", portableNames: true }), openai[0]);
  const map = tw.NameMap.fromTools(tools, "openai", { portableNames: true });
  const calls = tw.parseToolCalls({ candidates: [{ content: { parts: [{ functionCall: { name: openai[0], args: {} } }] } }] }, "gemini", map);
  assert.deepEqual([calls[0].server, calls[0].tool], ["docs-v2", "search.pages"]);
});

test("prefixToolName: an empty server is no server, as a conversion reads serverName \"\" (F2 s24c)", () => {
  for (const naming of [undefined, "mcp", "server", "bare"]) {
    for (const name of ["search_docs", "search.docs", "t".repeat(80)]) {
      const tool = { name, serverName: "", inputSchema: { type: "object" } };
      const map = tw.NameMap.fromTools([tool], "openai", { naming });
      const given = tw.prefixToolName("", name, { naming });
      assert.equal(given, tw.prefixToolName(null, name, { naming }), `${naming} ${name}`);
      assert.equal(given, map.names()[0], `${naming} ${name}`);
      assert.ok(map.has(given));
    }
  }
});

test("parseToolCalls: malformed arguments and unknown names are per-call errors", () => {
  const map = tw.NameMap.fromTools(tools, "openai");
  const calls = tw.parseToolCalls({ choices: [{ message: { tool_calls: [
    { id: "1", type: "function", function: { name: map.names()[0], arguments: "{\"q\": " } },
    { id: "2", type: "function", function: { name: "search", arguments: "{}" } },
    { id: "3", type: "function", function: { name: map.names()[1], arguments: "{\"q\":\"x\"}" } },
  ] } }] }, "openai", map);
  assert.equal(calls[0].error.code, "INVALID_ARGUMENTS");
  assert.equal(calls[1].error.code, "UNKNOWN_TOOL_NAME", "a bare name is never guessed");
  assert.deepEqual([calls[2].server, calls[2].arguments], ["gitlab", { q: "x" }]);
  // Ollama sends arguments as objects.
  const o = tw.parseToolCalls({ message: { role: "assistant", tool_calls: [{ function: { name: "f", arguments: { a: 1 } } }] } }, "ollama");
  assert.deepEqual(o[0].arguments, { a: 1 });
  // Its result goes back as /api/chat takes it: the tool's name; images (with multimodal) in `images`.
  assert.deepEqual(tw.toolResultMessage(o[0], { content: [{ type: "text", text: "22°C" }] }, "ollama"),
    { role: "tool", tool_name: "f", content: "22°C", tool_call_id: "call_0" });
  assert.deepEqual(tw.toolResultMessage({ function: { name: "f", arguments: {} } }, [{ type: "image", data: PNG, mimeType: "image/png" }], "ollama", { multimodal: true }),
    { role: "tool", tool_name: "f", content: "", images: [PNG] });
});

// Ollama's /api/chat decodes `parameters` into fixed structs (api/types.go: ToolFunctionParameters, ToolProperty)
// and drops every keyword they have no field for; a boolean property schema cannot be decoded (400).
test("ollama: the tools hold only what /api/chat reads, the rest rewritten, described and reported", () => {
  const input = [
    { name: "set_flag", inputSchema: { type: "object", properties: { name: { type: "string" }, value: true }, required: ["name", "value"] } },
    { name: "book", description: "Books a trip.", inputSchema: { type: "object", description: "Trip.", $defs: { Addr: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      properties: { to: { $ref: "#/$defs/Addr" }, kind: { const: "flight" }, when: { type: "string", format: "date-time" },
        seats: { type: "integer", minimum: 1, maximum: 9 }, tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" } } },
      required: ["to", "kind"], additionalProperties: false } },
  ];
  const { tools: out, report } = tw.convertMcpToolsDetailed(input, "ollama");
  assert.deepEqual(out[0], { type: "function", function: { name: "set_flag", parameters: { type: "object", properties: { name: { type: "string" }, value: {} }, required: ["name", "value"] } } });
  assert.deepEqual(out[1].function, {
    name: "book",
    description: "Books a trip.\n\nTrip.",
    parameters: { type: "object", properties: {
      to: { type: "object", properties: { city: { type: "string" } }, description: "(required: [\"city\"])" },
      kind: { enum: ["flight"] },
      when: { type: "string", description: "(format: date-time)" },
      seats: { type: "integer", description: "(minimum: 1; maximum: 9)" },
      tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" } },
    }, required: ["to", "kind"] },
  });
  assert.equal(report.provider, "ollama");
  assert.deepEqual(report.tools[0].changes.map((c) => [c.path, c.rule]), [["/properties/value", "ollama/boolean-schema"]]);
  assert.deepEqual(report.tools[1].changes.map((c) => c.rule).sort(), [
    "ollama/const", "ollama/root-description", "ollama/strip-keyword", "ollama/strip-keyword", "ollama/strip-keyword", "ollama/strip-keyword", "ollama/strip-keyword",
  ]);
  assert.deepEqual(tw.checkTools(input, "ollama"), report);
  assert.equal(tw.convertMcpToolsJson(JSON.stringify(input), "ollama"), JSON.stringify(out));
  // No strict mode: not asked of Ollama.
  assert.deepEqual(tw.convertMcpTools(input, "ollama", { strict: true }), out);
});

test("streaming: OpenAI deltas split at awkward places", () => {
  const map = tw.NameMap.fromTools(tools, "openai");
  const name = map.names()[0];
  const args = JSON.stringify({ q: "naïve \"bug\" 😀", state: 0 });
  const acc = new tw.ToolCallAccumulator("openai", map);
  const got = [];
  got.push(...acc.push({ choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: name.slice(0, 5), arguments: "" } }] } }] }));
  got.push(...acc.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: name.slice(5) } }] } }] })}`));
  for (const ch of [...args]) got.push(...acc.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ch } }] } }] }));
  assert.equal(got.length, 0);
  got.push(...acc.push({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }));
  got.push(...acc.push("data: [DONE]"));
  assert.equal(got.length, 1);
  assert.deepEqual([got[0].server, got[0].arguments], ["github", { q: "naïve \"bug\" 😀", state: 0 }]);
  assert.deepEqual(acc.finish(), []);
});

test("streaming: Anthropic, Responses and Gemini events", () => {
  const a = new tw.ToolCallAccumulator("anthropic");
  a.push({ type: "message_start", message: { id: "m" } });
  a.push({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "t", input: {} } });
  for (const part of ["{\"a\"", ": [1,", "2]}"]) a.push({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: part } });
  // Given with the event after its block's end, which says whether the output limit (max_tokens) cut it.
  assert.deepEqual(a.push({ type: "content_block_stop", index: 1 }), []);
  const done = a.push({ type: "message_delta", delta: { stop_reason: "tool_use" } });
  assert.deepEqual(done[0].arguments, { a: [1, 2] });

  const r = new tw.ToolCallAccumulator("openai-responses");
  r.push({ type: "response.output_item.added", output_index: 0, item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "t", arguments: "" } });
  r.push({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: "{\"x\":" });
  r.push({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: "true}" });
  const rd = r.push({ type: "response.function_call_arguments.done", item_id: "fc_1", output_index: 0, arguments: "{\"x\":true}" });
  assert.deepEqual([rd[0].id, rd[0].arguments], ["call_1", { x: true }]);

  const g = new tw.ToolCallAccumulator("gemini");
  // The turn's first call, without a signature, is given with the part after it (which may hold its signature
  // alone), or at the candidate's end.
  assert.deepEqual(g.push({ candidates: [{ content: { parts: [{ text: "hi" }, { functionCall: { name: "t", args: { k: "v" }, id: "g1" } }] } }] }), []);
  const gd = g.push({ candidates: [{ content: { parts: [{ text: "" }] }, finishReason: "STOP" }] });
  assert.deepEqual([gd[0].id, gd[0].arguments], ["g1", { k: "v" }]);
  assert.equal("thoughtSignature" in gd[0], false, "no signature, no key");
});

test("Gemini calls carry their part's thoughtSignature (parseToolCalls, events, SSE text)", () => {
  const parts = [
    { functionCall: { name: "a", args: { n: 1 } }, thoughtSignature: "c2lnLTE=" },
    { functionCall: { name: "b", args: {} } },
  ];
  const chunk = (part) => ({ candidates: [{ content: { role: "model", parts: [part] }, index: 0 }] });
  const sigs = (calls) => calls.map((c) => c.thoughtSignature);
  assert.deepEqual(sigs(tw.parseToolCalls({ candidates: [{ content: { role: "model", parts } }] }, "gemini")), ["c2lnLTE=", undefined]);
  assert.deepEqual(sigs(tw.parseToolCalls(parts, "vertex")), ["c2lnLTE=", undefined]);
  const events = new tw.ToolCallAccumulator("gemini");
  assert.deepEqual(sigs([...parts.flatMap((p) => events.push(chunk(p))), ...events.finish()]), ["c2lnLTE=", undefined]);
  const text = new tw.ToolCallAccumulator("vertex");
  const body = parts.map((p) => `data: ${JSON.stringify(chunk(p))}\r\n\r\n`).join("");
  assert.deepEqual(sigs([...text.push(body.slice(0, 33)), ...text.push(body.slice(33)), ...text.finish()]), ["c2lnLTE=", undefined]);
  // A signature alone in an empty text part right after the turn's first call, which had none, is that call's, in
  // message() on the call's part too (where Gemini 3 wants it back).
  const late = new tw.ToolCallAccumulator("gemini");
  const call = { functionCall: { id: "c1", name: "exec", args: { cmd: "ls" } } };
  assert.deepEqual(late.push(chunk(call)), []);
  const given = late.push({ candidates: [{ content: { role: "model", parts: [{ text: "", thoughtSignature: "SIG" }] }, finishReason: "STOP", index: 0 }] });
  assert.deepEqual(given.map((c) => [c.id, c.thoughtSignature]), [["c1", "SIG"]]);
  assert.deepEqual(late.finish(), []);
  assert.deepEqual(late.message(), { role: "model", parts: [{ ...call, thoughtSignature: "SIG" }] });
  // Other providers' calls are unchanged: no key.
  const [anthropic] = tw.parseToolCalls({ content: [{ type: "tool_use", id: "t1", name: "a", input: {} }] }, "anthropic");
  assert.deepEqual(Object.keys(anthropic), ["id", "providerName", "server", "tool", "arguments"]);
});

test("toolResultMessage: structuredContent kept and capped, one marker, big images described, empty ids refused", () => {
  const call = { id: "c1", name: "t" };
  // Over maxChars, the structure goes as cut JSON text, Gemini's output and Bedrock's text alike.
  const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}` }));
  const big = { content: [{ type: "text", text: "20000 rows" }], structuredContent: { rows } };
  const gemini = tw.toolResultMessage(call, big, "gemini", { maxChars: 100 });
  const output = gemini.functionResponse.response.output;
  assert.equal(typeof output, "string");
  assert.ok(output.startsWith('20000 rows\n{"rows":[{"id":0,'), output);
  assert.equal(output.length, 100, "the marker within the cap");
  assert.match(output, /\n\[Truncated: 57 of 617801 characters shown\]$/);
  assert.deepEqual(tw.toolResultMessage(call, big, "bedrock", { maxChars: 100 }).toolResult.content, [{ text: output }]);
  assert.equal(tw.toolResultMessage(call, big, "vertex").functionResponse.response.output.length, 100_000, "the default cap too");
  // Never dropped, errors included; a text that already is the JSON stands for it.
  const err = { isError: true, content: [{ type: "text", text: "bad" }], structuredContent: { code: 42 } };
  for (const provider of ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock"]) {
    assert.match(JSON.stringify(tw.toolResultMessage(call, err, provider)), /42/, provider);
  }
  const same = { content: [{ type: "text", text: '{ "code": 42 }' }], structuredContent: { code: 42 } };
  assert.equal(tw.toolResultMessage(call, same, "openai").content, '{ "code": 42 }');
  assert.deepEqual(tw.toolResultMessage(call, same, "anthropic").content, [{ type: "text", text: '{ "code": 42 }' }]);
  // One marker where the cap falls.
  const blocks = [{ type: "text", text: "abcdefgh" }, { type: "image", data: PNG, mimeType: "image/png" }, { type: "text", text: "more" }];
  assert.equal(tw.toolResultMessage(call, blocks, "openai", { maxChars: 15 }).content, "abc\n[Truncated]");
  const long = [{ type: "text", text: "abcdefgh".repeat(10) }, { type: "image", data: PNG, mimeType: "image/png" }, { type: "text", text: "more" }];
  assert.deepEqual(tw.toolResultMessage(call, long, "anthropic", { maxChars: 50 }).content.map((b) => b.type), ["text", "image"]);
  // structuredContent nested deeper than the reader takes: sent as its JSON text, said so.
  let deep = {};
  for (let i = 0, cur = deep; i < 2000; i++) cur = cur.a = {};
  const flat = tw.flattenContent({ content: [{ type: "text", text: "deep" }], structuredContent: deep });
  assert.ok(flat.startsWith('deep\n[structuredContent nests deeper than 399 levels: sent as its JSON text]\n{"a":{"a":'), flat.slice(0, 120));
  // The note says the depth it names: 399 levels are sent as data, 400 (the result around them 401) as text (s24e).
  const nested = (n) => { const v = {}; for (let i = 1, cur = v; i < n; i++) cur = cur.a = {}; return v; };
  assert.equal(typeof tw.toolResultMessage(call, { content: [], structuredContent: nested(399) }, "gemini").functionResponse.response.output, "object");
  assert.match(tw.toolResultMessage(call, { content: [], structuredContent: nested(400) }, "gemini").functionResponse.response.output, /^\[structuredContent nests deeper than 399 levels/);
  assert.match(tw.toolResultMessage(call, { content: [], structuredContent: deep }, "gemini").functionResponse.response.output, /^\[structuredContent nests deeper/);
  // A result of that structuredContent alone is a result too (not refused as empty).
  assert.match(tw.toolResultMessage(call, { structuredContent: deep }, "openai").content, /^\[structuredContent nests deeper/);
  // A text block that is the deep structure (compact or pretty-printed) says it: not repeated, and
  // the pretty one sent compact (its indent would take the cap); text of another structure is kept.
  const deepList = { x: JSON.parse("[".repeat(400) + "1" + "]".repeat(400)) };
  const compactDeep = JSON.stringify(deepList);
  for (const text of [compactDeep, JSON.stringify(deepList, null, 1)]) {
    assert.equal(tw.flattenContent({ content: [{ type: "text", text }], structuredContent: deepList }), compactDeep);
  }
  const other = tw.flattenContent({ content: [{ type: "text", text: compactDeep.replace("1", "2") }], structuredContent: deepList });
  assert.ok(other.includes("[structuredContent nests deeper") && other.endsWith(compactDeep), other.slice(0, 80));
  // Too many values is no deep structure: LIMIT_EXCEEDED, not its JSON text said to be too deep.
  assert.throws(() => tw.flattenContent({ content: [], structuredContent: { a: new Array(8_400_000).fill(0) } }), { code: "LIMIT_EXCEEDED", message: /more than 8388608 JSON values/ });
  // A 4 MB PNG: over Anthropic's and Bedrock's limits, described instead.
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" + "A".repeat((Math.floor(4_000_000 / 3) - 5) * 4); // 1x1 px by its header
  const shot = [{ type: "image", data: png, mimeType: "image/png" }];
  assert.deepEqual(tw.toolResultMessage(call, shot, "bedrock").toolResult.content,
    [{ text: "[Image: image/png, 4 MB (not sent: larger than the 3.75 MB Bedrock takes inline)]" }]);
  assert.equal(tw.toolResultMessage(call, shot, "anthropic").content[0].type, "text");
  assert.equal(tw.toolResultMessage(call, shot, "openai-responses", { multimodal: true }).output[0].type, "input_image");
  // Resources keep their uri, MIME type and description.
  const res = [{ type: "resource", resource: { uri: "file:///a.md", mimeType: "text/markdown", text: "# A" } },
    { type: "resource_link", uri: "file:///b.csv", name: "b.csv", description: "Q3 revenue", mimeType: "text/csv" }];
  assert.equal(tw.flattenContent(res), "[Resource: file:///a.md (text/markdown)]\n# A\n[Resource link: b.csv (file:///b.csv, text/csv): Q3 revenue]");
  // An empty id is no id.
  assert.throws(() => tw.toolResultMessage({ id: "", name: "t" }, blocks, "bedrock"), { code: "INVALID_INPUT" });
  assert.equal(tw.toolResultMessage({ id: "", name: "t" }, blocks, "gemini").functionResponse.id, undefined);
});

test("toolResultMessage: embedded blobs are sent as documents, images or text, or described", () => {
  const call = { id: "c1", name: "t" };
  const pdf = Buffer.from("%PDF-1.4\n%%EOF").toString("base64");
  const r = { content: [{ type: "resource", resource: { uri: "file:///inv.pdf", mimeType: "application/pdf", blob: pdf } }] };
  // Bedrock's document bytes are a Uint8Array, as the AWS SDK takes them.
  const [header, doc] = tw.toolResultMessage(call, r, "bedrock").toolResult.content;
  assert.deepEqual(header, { text: "[Resource: file:///inv.pdf (application/pdf)]" });
  assert.deepEqual([doc.document.format, doc.document.name], ["pdf", "inv (8829dfd9)"]);
  // Named by the call: the same file answering calls of two turns is two names, as Bedrock refuses a request (the
  // whole conversation) that repeats one ("Messages can't contain duplicate document names").
  const names = ["tooluse_turn1", "tooluse_turn2"].flatMap((id) =>
    tw.toolResultMessages([{ id, name: "t" }], [r], "bedrock").map((m) => m.toolResult.content[1].document.name));
  assert.equal(new Set(names.map((n) => n.toLowerCase())).size, 2, names.join());
  assert.ok(names.every((n) => /^inv \([0-9a-f]{8}\)$/.test(n)), names.join());
  assert.ok(doc.document.source.bytes instanceof Uint8Array);
  assert.equal(Buffer.from(doc.document.source.bytes).toString(), "%PDF-1.4\n%%EOF");
  assert.equal(tw.toolResultMessage(call, r, "anthropic").content[1].type, "document");
  assert.equal(tw.toolResultMessage(call, r, "openai-responses", { multimodal: true }).output[1].file_data, `data:application/pdf;base64,${pdf}`);
  assert.equal(tw.toolResultMessage(call, r, "openai").content, "[Resource: file:///inv.pdf (application/pdf), 14 bytes, not sent: text only]");
  const csv = [{ type: "resource", resource: { uri: "file:///d.csv", mimeType: "text/csv", blob: Buffer.from("a,b\n1,2").toString("base64") } }];
  assert.equal(tw.flattenContent(csv), "[Resource: file:///d.csv (text/csv)]\na,b\n1,2");
});

test("toolResultMessage: bedrockStatus: false leaves Bedrock's status out and says the error in the text", () => {
  const call = { id: "c1", name: "t" };
  const err = { isError: true, content: [{ type: "text", text: "boom" }] };
  assert.deepEqual(tw.toolResultMessage(call, err, "bedrock", { bedrockStatus: false }), { toolResult: { toolUseId: "c1", content: [{ text: "Error: boom" }] } });
  assert.equal(tw.toolResultMessage(call, err, "bedrock").toolResult.status, "error");
  assert.throws(() => tw.toolResultMessage(call, err, "bedrock", { bedrockStatus: "no" }), { code: "INVALID_OPTIONS" });
});

test("toolResultMessages: the tool messages of parallel calls together, then one user message with the images", () => {
  const calls = [{ id: "call_A", name: "shot" }, { id: "call_B", name: "shot" }];
  const results = [{ content: [{ type: "image", data: PNG, mimeType: "image/png" }] }, { content: [{ type: "text", text: "done" }] }];
  const msgs = tw.toolResultMessages(calls, results, "openai", { imageMessage: true });
  assert.deepEqual(msgs.map((m) => m.role + (m.tool_call_id ? `:${m.tool_call_id}` : "")), ["tool:call_A", "tool:call_B", "user"]);
  assert.equal(msgs[2].content[1].type, "image_url");
  const bedrock = tw.toolResultMessages(calls, results, "bedrock");
  assert.ok(bedrock[0].toolResult.content[0].image.source.bytes instanceof Uint8Array);
  assert.throws(() => tw.toolResultMessages(calls, results.slice(1), "openai"), { code: "INVALID_INPUT" });
  assert.throws(() => tw.toolResultMessages([calls[0], { name: "t" }], results, "anthropic"), { code: "INVALID_INPUT", message: /^calls\[1\]: / });
  assert.throws(() => tw.toolResultMessages(calls[0], results, "anthropic"), { code: "INVALID_INPUT" });
});

test("toolResultMessage: the images of a result are held to what one request takes (maxMediaBytes)", () => {
  const call = { id: "c1", name: "t" };
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" + "A".repeat((Math.floor(3_800_000 / 3) - 5) * 4); // 1x1 px by its header
  const nine = { content: Array.from({ length: 9 }, () => ({ type: "image", data: png, mimeType: "image/png" })) };
  const m = tw.toolResultMessage(call, nine, "anthropic");
  assert.equal(m.content.filter((b) => b.type === "image").length, 4);
  assert.match(m.content[4].text, /^\[Image: image\/png, 3\.8 MB \(not sent: over the 18 MB of images and documents Anthropic takes a request\)\]/);
  assert.equal(tw.toolResultMessage(call, nine, "anthropic", { maxMediaBytes: Infinity }).content.length, 9);
  assert.equal(tw.toolResultMessage(call, nine, "anthropic", { maxMediaBytes: 0 }).content[0].type, "text");
  assert.throws(() => tw.toolResultMessage(call, nine, "anthropic", { maxMediaBytes: -1 }), { code: "INVALID_OPTIONS", message: /options\.maxMediaBytes/ });
});

test("toolResultMessage: maxImageSide replaces the provider's side limit (Anthropic's 2000 px past 20 images)", () => {
  const call = { id: "c1", name: "t" };
  // A PNG's signature and IHDR: 2400x1600 px.
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).copy(header);
  header.writeUInt32BE(2400, 16);
  header.writeUInt32BE(1600, 20);
  const shot = { content: [{ type: "image", data: header.toString("base64"), mimeType: "image/png" }] };
  assert.equal(tw.toolResultMessage(call, shot, "anthropic").content[0].type, "image", "8000 px by default");
  const many = tw.toolResultMessages([call, { id: "c2", name: "t" }], [shot, shot], "anthropic", { maxImageSide: 2000 });
  for (const m of many) assert.deepEqual(m.content, [{ type: "text", text: "[Image: image/png, 2400x1600 px (not sent: over the 2000 px a side of maxImageSide)]" }]);
  assert.equal(tw.toolResultMessage(call, shot, "anthropic", { maxImageSide: 2400 }).content[0].type, "image");
  assert.equal(tw.toolResultMessage(call, shot, "openai-responses", { multimodal: true, maxImageSide: 1024 }).output, "[Image: image/png, 2400x1600 px (not sent: over the 1024 px a side of maxImageSide)]");
  assert.equal(tw.toolResultMessage(call, shot, "bedrock", { maxImageSide: Infinity }).toolResult.content[0].image.format, "png");
  // Infinity lifts Anthropic's 2000 px of over 20 images too.
  const shots = { content: Array(21).fill(shot.content[0]) };
  const all = tw.toolResultMessage(call, shots, "anthropic", { maxImageSide: Infinity }).content;
  assert.deepEqual(all.map((b) => b.type), Array(21).fill("image"));
  for (const bad of [-1, 1.5, NaN, "2000"]) {
    assert.throws(() => tw.toolResultMessage(call, shot, "anthropic", { maxImageSide: bad }), { code: "INVALID_OPTIONS", message: /options\.maxImageSide/ }, String(bad));
  }
  assert.throws(() => tw.toolResultMessage(call, shot, "anthropic", { maxImageSides: 2000 }), { code: "INVALID_OPTIONS", message: /maxImageSide/ });
});

test("streaming: SSE text as it comes over the wire (whole frames, several at once, split anywhere)", () => {
  const frame = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const frames = [
    frame("message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [] } }),
    frame("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "t", input: {} } }),
    frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{\"city\": \"Zürich\"" } }),
    frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "}" } }),
    frame("content_block_stop", { type: "content_block_stop", index: 0 }),
    "id: 5\nretry: 100\n: keep-alive\n\n",
    frame("message_stop", { type: "message_stop" }),
  ];
  const check = (calls, how) => {
    assert.equal(calls.length, 1, how);
    assert.deepEqual([calls[0].id, calls[0].tool, calls[0].arguments], ["toolu_1", "t", { city: "Zürich" }], how);
  };
  const run = (pieces) => {
    const acc = new tw.ToolCallAccumulator("anthropic");
    const calls = pieces.flatMap((p) => acc.push(p));
    return [...calls, ...acc.finish()];
  };
  check(run(frames), "frame by frame");
  check(run([frames.join("")]), "all at once");
  const text = frames.join("").replaceAll("\n", "\r\n");
  for (let i = 0; i <= text.length; i += 3) check(run([text.slice(0, i), text.slice(i)]), `split at ${i}`);
  for (const bare of ["id: 5", "retry: 100", ": ping", "event: ping", "data: [DONE]", ""]) assert.deepEqual(new tw.ToolCallAccumulator("openai").push(bare), [], bare);
  // Events that are not objects.
  const acc = new tw.ToolCallAccumulator("openai");
  for (const bad of [42, null, true, [], "data: [1]\n\n"]) assert.throws(() => acc.push(bad), { code: "INVALID_INPUT" }, JSON.stringify(bad));
  assert.throws(() => acc.push("data: {\"a\":\n\n"), { code: "INVALID_JSON" });
});

test("streaming: a Responses call seen only at output_item.done; Gemini arguments streamed in partialArgs", () => {
  const r = new tw.ToolCallAccumulator("openai-responses");
  const done = { type: "response.output_item.done", output_index: 0, item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "t", arguments: "{}" } };
  assert.deepEqual(r.push(done).map((c) => c.id), ["call_1"]);
  assert.deepEqual(r.push(done), []);
  assert.deepEqual(r.finish(), []);

  const g = new tw.ToolCallAccumulator("vertex");
  const part = (functionCall) => ({ candidates: [{ content: { role: "model", parts: [{ functionCall }] } }] });
  const got = [
    ...g.push(part({ name: "get_weather", willContinue: true })),
    ...g.push(part({ partialArgs: [{ jsonPath: "$.location", stringValue: "Bos", willContinue: true }], willContinue: true })),
    ...g.push(part({ partialArgs: [{ jsonPath: "$.location", stringValue: "ton" }, { jsonPath: "$.days", numberValue: 2 }], willContinue: true })),
  ];
  assert.deepEqual(got, []);
  const [call, ...rest] = [...g.push(part({})), ...g.finish()];
  assert.deepEqual(rest, []);
  assert.deepEqual([call.tool, call.arguments, call.error], ["get_weather", { location: "Boston", days: 2 }, undefined]);
});

test("parseToolCalls: the parts of a response that the SDKs hand out; a wrong shape is an error, not []", () => {
  const one = (calls) => calls.map((c) => [c.id, c.tool, c.arguments]);
  const expected = [["c1", "t", { a: 1 }]];
  assert.deepEqual(one(tw.parseToolCalls([{ type: "function_call", id: "fc_1", call_id: "c1", name: "t", arguments: "{\"a\":1}" }], "openai-responses")), expected);
  assert.deepEqual(one(tw.parseToolCalls({ type: "function_call", id: "fc_1", call_id: "c1", name: "t", arguments: "{\"a\":1}" }, "openai-responses")), expected);
  assert.deepEqual(one(tw.parseToolCalls([{ id: "c1", name: "t", args: { a: 1 } }], "gemini")), expected);
  assert.deepEqual(one(tw.parseToolCalls({ content: { parts: [{ functionCall: { id: "c1", name: "t", args: { a: 1 } } }] } }, "gemini")), expected);
  // `undefined` (message.tool_calls, response.functionCalls when the model called nothing) or null: [], for every provider.
  for (const provider of ["openai", "openai-chat", "ollama", "openai-responses", "anthropic", "gemini", "google", "vertex", "bedrock"]) {
    assert.deepEqual(tw.parseToolCalls(undefined, provider), [], `${provider}: undefined`);
    assert.deepEqual(tw.parseToolCalls(null, provider), [], `${provider}: null`);
  }
  assert.deepEqual(one(tw.parseToolCalls([{ type: "text", text: "" }, { type: "tool_use", id: "c1", name: "t", input: { a: 1 } }], "anthropic")), expected);
  assert.deepEqual(one(tw.parseToolCalls({ message: { role: "assistant", content: [{ toolUse: { toolUseId: "c1", name: "t", input: { a: 1 } } }] } }, "bedrock")), expected);
  // A Responses call without call_id has no id (its item id is no call id), and no result can answer it.
  const [noId] = tw.parseToolCalls({ output: [{ type: "function_call", id: "fc_1", name: "t", arguments: "{}" }] }, "openai-responses");
  assert.equal(noId.id, null);
  assert.throws(() => tw.toolResultMessage(noId, { content: [] }, "openai-responses"), { code: "INVALID_INPUT" });
  // Without a name: an error, with or without a name map.
  assert.equal(tw.parseToolCalls({ content: [{ type: "tool_use", id: "c", input: {} }] }, "anthropic")[0].error.code, "UNKNOWN_TOOL_NAME");
  for (const [wrong, provider] of [[{}, "openai"], [{ choices: [] }, "bedrock"], [[1], "gemini"]]) {
    assert.throws(() => tw.parseToolCalls(wrong, provider), { code: "INVALID_INPUT" }, JSON.stringify(wrong));
  }
  assert.deepEqual(tw.parseToolCalls({ promptFeedback: { blockReason: "SAFETY" } }, "gemini"), [], "a response without calls");
});

test("provider errors: an error body or a stream's error event throws PROVIDER_ERROR; the accumulator goes on", () => {
  const bodies = [
    [{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "anthropic", "Anthropic error overloaded_error: Overloaded"],
    [{ error: { message: "overloaded" } }, "anthropic", "Anthropic error: overloaded"],
    [{ error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" } }, "openai", "OpenAI error invalid_request_error (invalid_api_key): Incorrect API key provided"],
    [[{ error: { code: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE" } }], "gemini", "Gemini error UNAVAILABLE (503): The service is currently unavailable."],
    [JSON.stringify({ status: "failed", error: { code: "server_error", message: "boom" }, output: [] }), "openai-responses", "OpenAI Responses error server_error: boom"],
  ];
  for (const [body, provider, message] of bodies) {
    assert.throws(() => tw.parseToolCalls(body, provider), (e) => e instanceof tw.ToolwireError && e.code === "PROVIDER_ERROR" && e.message === message, message);
  }
  const frame = (data) => `data: ${JSON.stringify(data)}\n\n`;
  const acc = new tw.ToolCallAccumulator("openai-responses");
  const call = { type: "function_call", id: "fc_1", call_id: "call_1", name: "t", arguments: "{}" };
  const overloaded = { type: "error", error: { type: "service_unavailable_error", code: "server_is_overloaded", message: "Our servers are currently overloaded." }, sequence_number: 3 };
  let error;
  try {
    acc.push(frame({ type: "response.output_item.done", output_index: 0, item: call }) + "event: error\n" + frame(overloaded));
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof tw.ToolwireError);
  assert.equal(error.code, "PROVIDER_ERROR");
  assert.equal(error.message, "OpenAI Responses stream error service_unavailable_error (server_is_overloaded): Our servers are currently overloaded.");
  assert.deepEqual(error.providerError, overloaded.error);
  assert.deepEqual(acc.push("").map((c) => c.id), ["call_1"], "the call completed before the error comes next");
  assert.throws(() => acc.push({ type: "response.failed", response: { status: "failed", error: { code: "server_error", message: "x" } } }), { code: "PROVIDER_ERROR" });
  assert.deepEqual(acc.finish(), []);
  const bedrock = new tw.ToolCallAccumulator("bedrock");
  assert.throws(() => bedrock.push({ throttlingException: { message: "Too many requests" } }), { code: "PROVIDER_ERROR", message: "Bedrock stream error throttlingException: Too many requests" });
  assert.deepEqual(bedrock.push({ contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: "tu_1", name: "t" } } } }), []);
  assert.deepEqual(bedrock.push({ contentBlockStop: { contentBlockIndex: 0 } }), []);
  assert.deepEqual(bedrock.push({ messageStop: { stopReason: "tool_use" } }).map((c) => c.id), ["tu_1"]);
});

test("Gemini and Vertex: a candidate that ended at a malformed or unexpected tool call throws PROVIDER_ERROR, not []", () => {
  const finishMessage = "Malformed function call: print(default_api.search(query='weather'))";
  const ended = { finishReason: "MALFORMED_FUNCTION_CALL", finishMessage, index: 0 };
  const response = { candidates: [ended], usageMetadata: { promptTokenCount: 2595, totalTokenCount: 2595 }, modelVersion: "gemini-2.5-flash", responseId: "r1" };
  const message = `Gemini error MALFORMED_FUNCTION_CALL: the model's function call was malformed, and Gemini gave no call for it: retry the turn (finishMessage: ${finishMessage})`;
  for (const provider of ["gemini", "vertex"]) {
    for (const input of [response, ended, response.candidates, JSON.stringify(response)]) {
      assert.throws(() => tw.parseToolCalls(input, provider), (e) => e instanceof tw.ToolwireError && e.code === "PROVIDER_ERROR" && e.message === message
        && e.providerError.finishReason === "MALFORMED_FUNCTION_CALL" && e.providerError.finishMessage === finishMessage, provider);
    }
  }
  for (const reason of ["UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"]) {
    assert.throws(() => tw.parseToolCalls({ candidates: [{ finishReason: reason }] }, "gemini"), (e) => e.code === "PROVIDER_ERROR" && e.message.startsWith(`Gemini error ${reason}: `) && e.providerError.finishReason === reason);
  }
  assert.deepEqual(tw.parseToolCalls({ candidates: [{ finishReason: "SAFETY", index: 0 }] }, "gemini"), [], "another finish reason without calls");
  // Streamed: the chunk that ends it throws; the text before it stays in the turn, a call held is dropped with it.
  const acc = new tw.ToolCallAccumulator("vertex");
  const sse = (v) => `data: ${JSON.stringify(v)}\r\n\r\n`;
  assert.deepEqual(acc.push(sse({ candidates: [{ content: { role: "model", parts: [{ text: "Let me look." }, { functionCall: { name: "a", args: {} } }] }, index: 0 }], responseId: "r1" })), []);
  let error;
  try {
    acc.push(sse({ ...response, candidates: [{ ...ended, content: { role: "model", parts: [] } }] }));
  } catch (e) {
    error = e;
  }
  assert.equal(error?.code, "PROVIDER_ERROR");
  assert.equal(error.message, message.replace("Gemini error", "Gemini stream error").replace(" (finishMessage", "; the turn's 1 other call is left out too: a turn that failed is retried whole (finishMessage"));
  assert.deepEqual(error.providerError, { finishReason: "MALFORMED_FUNCTION_CALL", finishMessage });
  assert.deepEqual(acc.finish().map((c) => c.tool), [], "the turn's calls not given yet are dropped: it is retried whole");
  assert.deepEqual(acc.message(), { role: "model", parts: [{ text: "Let me look." }, { functionCall: { name: "a", args: {} } }] });
});

test("Gemini: a turn that failed at a tool call drops its calls not given yet, and the retry's failure is heard", () => {
  const ch = (parts, x = {}, rid = "r1") => ({ candidates: [{ content: { role: "model", parts }, index: 0, ...x }], responseId: rid });
  const malformed = "Gemini stream error MALFORMED_FUNCTION_CALL: the model's function call was malformed, and Gemini gave no call for it: retry the turn";
  const failure = (message) => (e) => e instanceof tw.ToolwireError && e.code === "PROVIDER_ERROR" && e.message === message;
  const acc = new tw.ToolCallAccumulator("gemini");
  assert.deepEqual(acc.push(ch([{ functionCall: { name: "a", args: {} } }])), []);
  assert.throws(() => acc.push(ch([], { finishReason: "MALFORMED_FUNCTION_CALL" })), failure(`${malformed}; the turn's 1 other call is left out too: a turn that failed is retried whole`));
  // The retry starts clean (no INVALID_INPUT for calls dropped), and its own failure is thrown.
  assert.throws(() => acc.push(ch([{ text: "Let me search." }], { finishReason: "MALFORMED_FUNCTION_CALL" }, "r2")), failure(malformed));
  assert.deepEqual(acc.finish(), []);
  // Without finish(): the retried turn is read afresh.
  const retry = new tw.ToolCallAccumulator("gemini");
  retry.push(ch([{ functionCall: { name: "a", args: {} } }]));
  assert.throws(() => retry.push(ch([], { finishReason: "MALFORMED_FUNCTION_CALL" })));
  assert.deepEqual(retry.push(ch([{ functionCall: { name: "b", args: {} }, thoughtSignature: "c2ln" }], { finishReason: "STOP" }, "r2")).map((c) => c.tool), ["b"]);
  // The failure of a response that began while calls of the last were not given yet wins, saying both.
  const both = new tw.ToolCallAccumulator("gemini");
  const stop = ch([{ functionCall: { name: "d", args: {} }, thoughtSignature: "c2ln" }], { finishReason: "STOP" });
  assert.throws(() => both.push(`data: ${JSON.stringify(stop)}\n\ndata: {broken\n\n`));
  assert.throws(() => both.push(ch([{ text: "Let me search." }], { finishReason: "MALFORMED_FUNCTION_CALL" }, "r2")),
    failure(`${malformed}; also, another response began before finish() ended the stream of the last: its 1 tool calls not given yet were dropped (call finish() when a stream ends)`));
  // Another candidate's failure is not the turn's, read whole or pushed.
  const c0 = { content: { role: "model", parts: [{ functionCall: { name: "a", args: {} } }] }, finishReason: "STOP", index: 0 };
  const c1 = { finishReason: "MALFORMED_FUNCTION_CALL", index: 1 };
  assert.deepEqual(tw.parseToolCalls([c0, c1], "gemini").map((c) => c.tool), ["a"]);
  assert.deepEqual(tw.parseToolCalls({ candidates: [c0, c1] }, "gemini").map((c) => c.tool), ["a"]);
  assert.deepEqual(new tw.ToolCallAccumulator("gemini").push(c1), []);
  // A Gemini response whose turn failed still looks like Gemini's, read as another provider's.
  const failed = { candidates: [{ ...c0, finishReason: "MALFORMED_FUNCTION_CALL" }] };
  assert.throws(() => tw.parseToolCalls(failed, "openai"), (e) => e.code === "INVALID_INPUT" && e.looksLike === "Gemini");
});

test("ToolCallAccumulator.message(): the model's turn, as each provider wants it back", () => {
  const sse = (events) => events.map((e) => `event: ${e.type ?? "message"}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  // Anthropic, from the HTTP body's text in small pieces: thinking with its signature, text, two calls.
  const anthropic = sse([
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [] } },
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Two cities." } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM" } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Checking Zürich " } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "and Paris." } },
    { type: "content_block_stop", index: 1 },
    ...[["toolu_1", "Zürich"], ["toolu_2", "Paris"]].flatMap(([id, city], i) => [
      { type: "content_block_start", index: 2 + i, content_block: { type: "tool_use", id, name: "mcp__github__search", input: {} } },
      { type: "content_block_delta", index: 2 + i, delta: { type: "input_json_delta", partial_json: `{"q": "${city}"` } },
      { type: "content_block_delta", index: 2 + i, delta: { type: "input_json_delta", partial_json: "}" } },
      { type: "content_block_stop", index: 2 + i },
    ]),
    { type: "message_delta", delta: { stop_reason: "tool_use" } },
    { type: "message_stop" },
  ]);
  const map = tw.NameMap.fromTools(tools, "anthropic");
  const a = new tw.ToolCallAccumulator("anthropic", map);
  const calls = [];
  for (let i = 0; i < anthropic.length; i += 13) calls.push(...a.push(anthropic.slice(i, i + 13)));
  calls.push(...a.finish());
  assert.deepEqual(calls.map((c) => [c.tool, c.arguments]), [["search", { q: "Zürich" }], ["search", { q: "Paris" }]]);
  assert.deepEqual(a.message(), { role: "assistant", content: [
    { type: "thinking", thinking: "Two cities.", signature: "EqQBCgIYAhIM" },
    { type: "text", text: "Checking Zürich and Paris." },
    { type: "tool_use", id: "toolu_1", name: "mcp__github__search", input: { q: "Zürich" } },
    { type: "tool_use", id: "toolu_2", name: "mcp__github__search", input: { q: "Paris" } },
  ] });

  // OpenAI Chat chunks as the SDK yields them.
  const o = new tw.ToolCallAccumulator("openai");
  for (const delta of [{ content: "On it." }, { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "t", arguments: "{\"a\":" } }] }, { tool_calls: [{ index: 0, function: { arguments: "1}" } }] }]) {
    o.push({ choices: [{ index: 0, delta }] });
  }
  assert.deepEqual(o.message(), { role: "assistant", content: "On it.", tool_calls: [{ id: "call_1", type: "function", function: { name: "t", arguments: "{\"a\":1}" } }] });

  // Responses: the output items as done.
  const r = new tw.ToolCallAccumulator("openai-responses");
  const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" };
  const fc = { type: "function_call", id: "fc_1", call_id: "call_1", name: "t", arguments: "{}", status: "completed" };
  r.push({ type: "response.output_item.done", output_index: 0, item: reasoning });
  r.push({ type: "response.output_item.done", output_index: 1, item: fc });
  assert.deepEqual(r.message(), [reasoning, fc]);

  // Gemini: streamed text put together, the signature on the first call's part.
  const g = new tw.ToolCallAccumulator("gemini");
  const chunk = (parts) => ({ candidates: [{ content: { role: "model", parts }, index: 0 }] });
  g.push(chunk([{ text: "Think", thought: true }]));
  g.push(chunk([{ text: "ing.", thought: true }]));
  g.push(chunk([{ functionCall: { name: "t", args: { a: 1 } }, thoughtSignature: "c2ln" }, { functionCall: { name: "t", args: { a: 2 } } }]));
  assert.deepEqual(g.message(), { role: "model", parts: [
    { text: "Thinking.", thought: true },
    { functionCall: { name: "t", args: { a: 1 } }, thoughtSignature: "c2ln" },
    { functionCall: { name: "t", args: { a: 2 } } },
  ] });

  // Bedrock: redacted reasoning as the bytes the AWS SDK takes (given as a Uint8Array, as its stream yields it).
  const b = new tw.ToolCallAccumulator("bedrock");
  b.push({ contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: new Uint8Array([1, 2, 250]) } } } });
  b.push({ contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Done." } } });
  b.push({ contentBlockStart: { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tu_1", name: "t" } } } });
  b.push({ contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: "{\"a\":1}" } } } });
  const turn = b.message();
  assert.ok(turn.content[0].reasoningContent.redactedContent instanceof Uint8Array);
  assert.deepEqual([...turn.content[0].reasoningContent.redactedContent], [1, 2, 250]);
  assert.deepEqual(turn.content.slice(1), [{ text: "Done." }, { toolUse: { toolUseId: "tu_1", name: "t", input: { a: 1 } } }]);
});

test("ToolCallAccumulator.message(): a stream cut short, blank text, what a call carries, calls past the bound", () => {
  // Responses: the stream ends inside a call's arguments; the call is in the turn, for its output to answer.
  const r = new tw.ToolCallAccumulator("openai-responses");
  const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" };
  const added = { type: "function_call", id: "fc_1", call_id: "call_1", name: "t", arguments: "", status: "in_progress" };
  r.push({ type: "response.output_item.done", output_index: 0, item: reasoning });
  r.push({ type: "response.output_item.added", output_index: 1, item: added });
  r.push({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: "{\"a\":" });
  assert.deepEqual(r.finish().map((c) => c.id), ["call_1"]);
  assert.deepEqual(r.message(), [reasoning, { ...added, arguments: "{\"a\":" }]);

  // Anthropic: a text block started and never written to is left out.
  const a = new tw.ToolCallAccumulator("anthropic");
  a.push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  a.push({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "t", input: {} } });
  a.push({ type: "content_block_stop", index: 1 });
  assert.deepEqual(a.message(), { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] });

  // Gemini through OpenAI's API: the call's thought signature in `extra_content` goes back with it.
  const o = new tw.ToolCallAccumulator("openai");
  const extra = { google: { thought_signature: "c2ln" } };
  o.push({ choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ extra_content: extra, function: { arguments: "{}", name: "t" }, id: "call_1", type: "function" }] }, finish_reason: "tool_calls" }] });
  assert.deepEqual(o.message().tool_calls, [{ id: "call_1", type: "function", function: { name: "t", arguments: "{}" }, extra_content: extra }]);

  // Past 1,024 calls at once, the calls being read are dropped, and the turn that listed them.
  const many = new tw.ToolCallAccumulator("openai");
  const errors = [];
  for (let i = 0; i <= 1024; i++) {
    try {
      many.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `c${i}`, function: { name: "t", arguments: "{}" } }] } }] });
    } catch (e) {
      errors.push(e);
    }
  }
  assert.deepEqual(errors.map((e) => e.code), ["LIMIT_EXCEEDED"]);
  assert.throws(() => many.message(), { code: "LIMIT_EXCEEDED" });
});

// Anthropic answers 400 "all content must be type `text` if `is_error` is true" to an error tool_result holding an
// image or a document, and Claude on Bedrock does the same for a toolResult with status "error": their media are
// described in the text. Results that are not errors keep them.
test("toolResultMessage: an Anthropic or Bedrock error is text alone, its media described", () => {
  const res = { isError: true, content: [{ type: "text", text: "page failed" }, { type: "image", data: PNG, mimeType: "image/png" }] };
  const anthropic = tw.toolResultMessage({ id: "toolu_1", name: "s" }, res, "anthropic");
  assert.deepEqual(anthropic, { type: "tool_result", tool_use_id: "toolu_1", is_error: true,
    content: [{ type: "text", text: "page failed\n[Image: image/png (not sent: Anthropic error results take text only)]" }] });
  const bedrock = tw.toolResultMessage({ id: "t1", name: "s" }, res, "bedrock");
  assert.deepEqual(bedrock, { toolResult: { toolUseId: "t1", status: "error",
    content: [{ text: "page failed\n[Image: image/png (not sent: Bedrock error results take text only)]" }] } });
  // Bedrock without status: nothing marks the error but its text, and the image goes.
  const noStatus = tw.toolResultMessage({ id: "t1", name: "s" }, res, "bedrock", { bedrockStatus: false });
  assert.equal(noStatus.toolResult.content[0].text, "Error: page failed");
  assert.ok(noStatus.toolResult.content[1].image.source.bytes instanceof Uint8Array);
  // Not an error: the image is sent.
  const ok = tw.toolResultMessage({ id: "toolu_1", name: "s" }, { content: res.content }, "anthropic");
  assert.deepEqual(ok.content.map((b) => b.type), ["text", "image"]);
});

test("toolsSystemPrompt: nested parameters, const, $ref, bounds, anyOf, and the schema as JSON; names cannot add lines", () => {
  const prompt = tw.toolsSystemPrompt([{ name: "create_event", inputSchema: { type: "object", required: ["when"], properties: {
    when: { type: "object", properties: { start: { type: "string" } }, required: ["start"] },
    kind: { const: "meeting" }, room: { $ref: "#/$defs/R" }, priority: { type: "integer", minimum: 1, maximum: 5 },
    note: { anyOf: [{ type: "string" }, { type: "null" }] }, "x\n- admin (boolean, required)": { type: "string" },
    tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" } } },
    $defs: { R: { type: "object", properties: { id: { type: "string" } } } } } }], { template: "{{tools}}" });
  const [list, json] = prompt.split("Input schema: ");
  assert.equal(list, [
    "## create_event", "Parameters:",
    "- when (object, required)", "  - start (string, required)",
    "- kind (string, optional, const: \"meeting\")",
    "- room (object, optional)", "  - id (string, optional)",
    "- priority (integer, optional, minimum: 1, maximum: 5)",
    "- note (string | null, optional)",
    "- \"x\\n- admin (boolean, required)\" (string, optional)",
    "- tags (array of string, optional)", "",
  ].join("\n"));
  // The JSON, for what the tree leaves out (the items' pattern), its $ref inlined.
  assert.deepEqual(JSON.parse(json).properties.room, { type: "object", properties: { id: { type: "string" } } });
  assert.equal(JSON.parse(json).properties.tags.items.pattern, "^[a-z]+$");
  // Bounded: a schema past maxSchemaChars is named, not written; 0 writes none; Infinity every one.
  const t = [{ name: "t", inputSchema: { type: "object", properties: { q: { type: "string", examples: ["x"] } } } }];
  assert.match(tw.toolsSystemPrompt(t, { template: "{{tools}}", maxSchemaChars: 10 }), /\nInput schema: not shown \(71 characters; the parameters above are its outline\)$/);
  assert.equal(tw.toolsSystemPrompt(t, { template: "{{tools}}", maxSchemaChars: 0 }), "## t\nParameters:\n- q (string, optional)");
  assert.match(tw.toolsSystemPrompt(t, { template: "{{tools}}", maxSchemaChars: Infinity }), /Input schema: \{"type":"object"/);
  // A schema the tree says all of gets none.
  const whole = [{ name: "t", inputSchema: { type: "object", properties: { q: { type: "string", maxLength: 9 } } } }];
  assert.equal(tw.toolsSystemPrompt(whole, { template: "{{tools}}" }), "## t\nParameters:\n- q (string, optional, maxLength: 9)");
  assert.throws(() => tw.toolsSystemPrompt(t, { maxSchemaChars: -1 }), { code: "INVALID_OPTIONS" });
});

test("toolsSystemPrompt: English and Simplified Chinese", () => {
  const en = tw.toolsSystemPrompt(tools);
  assert.match(en, /## mcp__github__search\n> Search issues\nParameters:\n- q \(string, required\)\n- state \(integer, optional\) \[0, 1\]/);
  const zh = tw.toolsSystemPrompt(tools, { locale: "zh-CN" });
  assert.match(zh, /- q \(string, 必填\)/);
  assert.throws(() => tw.toolsSystemPrompt(tools, { locale: "xx" }), { code: "INVALID_OPTIONS" });
});

test("PermissionPolicy: patterns, precedence, destructive hints", () => {
  const p = new tw.PermissionPolicy({ allow: ["mcp__github__*"], deny: ["mcp__github__delete_*"], askDestructive: true });
  assert.equal(p.check("mcp__github__search", { annotations: { readOnlyHint: true } }), "allow");
  assert.equal(p.check("mcp__github__label", { destructiveHint: false }), "allow");
  assert.equal(p.check("mcp__github__delete_repo", { readOnlyHint: true }), "deny");
  assert.equal(p.check("mcp__gitlab__search"), "ask");
  assert.equal(p.check("mcp__github__push", { annotations: { destructiveHint: true } }), "ask");
  // MCP's defaults: a tool is destructive unless it says otherwise, so one without hints asks.
  assert.equal(p.check("mcp__github__search"), "ask");
  assert.equal(p.check("mcp__github__search", { name: "search", inputSchema: { type: "object" } }), "ask");
  assert.equal(p.check("mcp__github__search", { readOnlyHint: false }), "ask");
  assert.equal(new tw.PermissionPolicy({ allow: ["mcp__github__*"] }).check("mcp__github__search"), "allow");
  assert.equal(p.check("mcp__gitlab__read", { readOnlyHint: true }), "ask", "hints never allow");
  assert.throws(() => new tw.PermissionPolicy({ rules: [{ pattern: "x", action: "perhaps" }] }), { code: "INVALID_OPTIONS" });
});

test("ToolCallAccumulator: parallel Chat calls that share index 0 (Ollama /v1) or have none (Gemini) are each a call", () => {
  const chunk = (tc) => ({ choices: [{ index: 0, delta: { tool_calls: [tc] } }] });
  for (const idx of [{ index: 0 }, {}]) {
    const acc = new tw.ToolCallAccumulator("openai");
    const calls = [
      ...acc.push(chunk({ ...idx, id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } })),
      ...acc.push(chunk({ ...idx, id: "call_b", type: "function", function: { name: "read_file", arguments: '{"path":"b"}' } })),
      ...acc.push({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
      ...acc.finish(),
    ];
    assert.deepEqual(calls.map((c) => [c.id, c.tool, c.arguments, c.error]), [["call_a", "read_file", { path: "a" }, undefined], ["call_b", "read_file", { path: "b" }, undefined]]);
    assert.deepEqual(acc.message().tool_calls.map((c) => [c.id, c.function.arguments]), [["call_a", '{"path":"a"}'], ["call_b", '{"path":"b"}']]);
  }
});

test("ToolCallAccumulator: Chat calls streamed without an id (StepFun, kimi on NVIDIA) get call_{n}, in message() too, and are answered", () => {
  const chunk = (delta, finish_reason = null) => ({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] });
  const acc = new tw.ToolCallAccumulator("openai");
  const calls = [
    ...acc.push(chunk({ role: "assistant", content: null })),
    ...acc.push(chunk({ tool_calls: [{ index: 0, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] })),
    ...acc.push(chunk({ tool_calls: [{ index: 1, type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] })),
    ...acc.push(chunk({}, "tool_calls")),
    ...acc.finish(),
  ];
  assert.deepEqual(calls.map((c) => c.id), ["call_0", "call_1"]);
  assert.deepEqual(acc.message().tool_calls.map((c) => c.id), ["call_0", "call_1"]);
  const result = tw.toolResultMessage(calls[1], { content: [{ type: "text", text: "18C" }] }, "openai");
  assert.equal(result.tool_call_id, "call_1");
  // Parsed whole, the same; an id the provider gave another call is not taken again.
  const message = { role: "assistant", content: null, tool_calls: [{ type: "function", function: { name: "t", arguments: "{}" } }, { id: "call_0", type: "function", function: { name: "t", arguments: "{}" } }] };
  assert.deepEqual(tw.parseToolCalls({ choices: [{ index: 0, message }] }, "openai").map((c) => c.id), ["call_0_1", "call_0"]);
});

test("ToolCallAccumulator.finish(): text the stream ended with that cannot be read throws INVALID_JSON; the next finish() gives the calls", () => {
  const code = (f) => { try { f(); return "no error"; } catch (e) { return e.code; } };
  // Ollama's JSON lines, the line of the call cut.
  let acc = new tw.ToolCallAccumulator("ollama");
  assert.deepEqual(acc.push('{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"rm","arguments":{"path":"/tmp/x"'), []);
  assert.equal(code(() => acc.finish()), "INVALID_JSON");
  assert.deepEqual(acc.finish(), []);
  // Two events on one line, after a call still open; as bytes, the last character cut.
  const open = JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c0", type: "function", function: { name: "a", arguments: "{}" } }] } }] });
  const ev = JSON.stringify({ choices: [{ index: 0, delta: { content: "é" } }] });
  acc = new tw.ToolCallAccumulator("openai");
  const bytes = new TextEncoder().encode(`data: ${open}\n\n${ev}${ev}`);
  assert.deepEqual(acc.push(bytes.subarray(0, bytes.length - 4)), []);
  assert.equal(code(() => acc.finish()), "INVALID_JSON");
  assert.deepEqual(acc.finish().map((c) => c.id), ["c0"]);
  // A stream that ends whole is no error.
  acc = new tw.ToolCallAccumulator("openai");
  assert.deepEqual(acc.push(`data: ${open}`), []);
  assert.deepEqual(acc.finish().map((c) => c.id), ["c0"]);
});

test("streaming: Gemini's streamGenerateContent without ?alt=sse, one JSON array, read element by element", () => {
  const chunks = [
    { candidates: [{ content: { role: "model", parts: [{ text: "Checking" }] }, index: 0 }] },
    { candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" }] }, index: 0 }] },
    { candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP", index: 0 }] },
  ];
  // As the REST API sends it.
  const body = "[" + chunks.map((c) => JSON.stringify(c, null, 2)).join("\n,\r\n") + "\n]";
  const want = { role: "model", parts: [{ text: "Checking" }, { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" }] };
  const secondEnd = body.indexOf(JSON.stringify(chunks[1], null, 2)) + JSON.stringify(chunks[1], null, 2).length;
  for (const pieces of [[body], body.match(/[\s\S]{1,40}/g), body.split(/(?<=\n)/), [new TextEncoder().encode(body)], [JSON.parse(body)]]) {
    const acc = new tw.ToolCallAccumulator("vertex");
    const calls = [];
    let at = 0;
    for (const p of pieces) {
      calls.push(...acc.push(p));
      at += typeof p === "string" ? p.length : 0;
      if (typeof p === "string" && at >= secondEnd && at < body.length - 1) assert.equal(calls.length, 1, "the call comes as its element closes");
    }
    calls.push(...acc.finish());
    assert.deepEqual(calls.map((c) => [c.tool, c.arguments, c.thoughtSignature]), [["get_weather", { city: "Paris" }, "c2ln"]]);
    assert.deepEqual(acc.message(), want);
  }
  // Parsed, an array that ends with the API's error, or holds an element that is no event: the elements before it
  // are read as its text's are, their calls coming with finish() (and in the turn), the error thrown.
  const error = { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } };
  for (const [last, code, message] of [
    [error, "PROVIDER_ERROR", /^Gemini stream error UNAVAILABLE \(503\)/],
    [5, "INVALID_INPUT", /^element 2 of the stream's array is not an event: .* got number$/],
  ]) {
    for (const input of [JSON.stringify([...chunks.slice(0, 2), last]), [...chunks.slice(0, 2), last]]) {
      const acc = new tw.ToolCallAccumulator("gemini");
      // (The text's error does not count the elements.)
      assert.throws(() => acc.push(input), (e) => e instanceof tw.ToolwireError && e.code === code && (typeof input === "string" || message.test(e.message)));
      assert.deepEqual(acc.finish().map((c) => c.tool), ["get_weather"]);
      assert.equal(acc.message().parts.length, 2);
    }
  }
});

test("streaming: a surrogate pair split between two pieces of arguments is joined, as the SDKs join it", () => {
  const events = [
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city":"\ud83d' } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '\ude00"}' } },
    { type: "content_block_stop", index: 0 },
  ];
  // The SDK's events (each half alone in a JS string), and the body's text (each half a JSON escape).
  const text = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  assert.ok(text.includes("\\ud83d"));
  // The text with each half as itself, not escaped (a string is UTF-8 in the module, which holds no half):
  // in one piece, and in pieces split between the halves of a pair.
  const raw = text.replace("\\ud83d", "\ud83d").replace("\\ude00", "\ude00");
  const whole = JSON.stringify({ ...events[1], delta: { type: "input_json_delta", partial_json: '{"city":"\ud83d\ude00"}' } });
  const pair = `data: ${whole}\n\n`;
  const at = pair.indexOf("\ude00");
  const joined = [events[0], pair.slice(0, at), pair.slice(at), events[3]].map((e) => (typeof e === "string" ? e : `data: ${JSON.stringify(e)}\n\n`));
  assert.ok(!raw.includes("\\ud83d") && raw.includes("\ud83d") && at > 0);
  for (const pieces of [events, [text], text.match(/[\s\S]{1,7}/g), [raw], raw.match(/[\s\S]{1,7}/g), joined]) {
    const acc = new tw.ToolCallAccumulator("anthropic");
    const calls = [...pieces.flatMap((p) => acc.push(p)), ...acc.finish()];
    assert.deepEqual(calls[0].arguments, { city: "😀" });
    assert.deepEqual(acc.message().content[0].input, { city: "😀" });
  }
});

test("a $ref alias chain converts at any length, and a tool whose strict form is past the limits falls back alone", () => {
  // a0 -> a1 -> ... -> a200, the last an object: 200 hops nest as one reference.
  const $defs = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`a${i}`, { $ref: `#/$defs/a${i + 1}` }]));
  $defs.a200 = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
  const chain = { name: "chain", inputSchema: { type: "object", $defs, properties: { x: { $ref: "#/$defs/a0", description: "what to find" } }, required: ["x"] } };
  // 40 definitions, each an object whose property refers to the next: inlined, 80 levels.
  const deepDefs = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`L${i}`, { type: "object", properties: { next: { $ref: `#/$defs/L${i + 1}` } }, required: ["next"] }]));
  deepDefs.L40 = { type: "string" };
  const deep = { name: "deep", inputSchema: { type: "object", $defs: deepDefs, properties: { root: { $ref: "#/$defs/L0" } }, required: ["root"] } };
  const plain = { name: "plain", inputSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } };
  const out = tw.convertMcpToolsDetailed([plain, deep, chain], "openai", { strict: true });
  assert.deepEqual(out.tools.map((t) => t.function.strict), [true, false, true]);
  assert.deepEqual(out.report.tools.map((t) => t.strict), [true, false, true]);
  const why = out.report.tools[1].problems.find((p) => p.rule === "openai/strict-fallback");
  assert.match(why.message, /^cannot be strict within the limits \(schema nesting exceeds the limit of 64 levels at \/properties\/root.*\); sent with strict: false$/);
  assert.deepEqual(out.tools[0], tw.convertMcpTools([plain], "openai", { strict: true })[0]);
  assert.equal(out.tools[2].function.parameters.properties.x.properties.q.type, "string");
  // The JSON API agrees; Gemini inlines the chain too.
  assert.deepEqual(JSON.parse(tw.convertMcpToolsJson(JSON.stringify([plain, deep, chain]), "openai", { strict: true })), out.tools);
  const gemini = tw.convertMcpTools([chain], "gemini");
  assert.equal(gemini[0].functionDeclarations[0].parameters.properties.x.properties.q.type, "STRING");
});
