// What the provider SDKs yield around the events themselves: Bedrock's `{chunk: {bytes}}`, the results that
// hold a stream, thrown errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";

const utf8 = (v) => new TextEncoder().encode(JSON.stringify(v));

test("Bedrock InvokeModelWithResponseStream's {chunk: {bytes}} events are read as the event their bytes carry", () => {
  // Claude's Messages events, as the AWS SDK yields them (ResponseStream.ChunkMember).
  const claude = [
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude", content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city":"Pa' } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: 'ris é"}' } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: "message_stop" },
  ];
  const acc = new tw.ToolCallAccumulator("anthropic");
  const calls = [];
  for (const ev of claude) calls.push(...acc.push({ chunk: { bytes: utf8(ev) } }));
  calls.push(...acc.finish());
  assert.deepEqual(calls.map((c) => [c.id, c.tool, c.arguments]), [["toolu_1", "get_weather", { city: "Paris é" }]]);
  assert.deepEqual(acc.message().content, [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris é" } }]);
  // Nova's native events are Converse's; a Buffer is bytes too.
  const nova = [
    { messageStart: { role: "assistant" } },
    { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: "tooluse_1", name: "get_weather" } } } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":"Paris"}' } } } },
    { contentBlockStop: { contentBlockIndex: 0 } },
    { messageStop: { stopReason: "tool_use" } },
  ];
  const bedrock = new tw.ToolCallAccumulator("bedrock");
  const novaCalls = [];
  for (const ev of nova) novaCalls.push(...bedrock.push({ chunk: { bytes: Buffer.from(JSON.stringify(ev)) } }));
  novaCalls.push(...bedrock.finish());
  assert.deepEqual(novaCalls.map((c) => c.id), ["tooluse_1"]);
  assert.deepEqual(bedrock.message().content, [{ toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Paris" } } }]);
  // The bytes carry one event: an error event in them is the provider's error, bytes that are no JSON say so.
  assert.throws(() => new tw.ToolCallAccumulator("anthropic").push({ chunk: { bytes: utf8({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) } }), { code: "PROVIDER_ERROR" });
  assert.throws(() => new tw.ToolCallAccumulator("anthropic").push({ chunk: { bytes: new TextEncoder().encode("{not json") } }), { code: "INVALID_JSON", message: /chunk\.bytes/ });
  assert.throws(() => new tw.ToolCallAccumulator("anthropic").push({ chunk: { bytes: new Uint8Array([0xff, 0x7b]) } }), { code: "INVALID_INPUT", message: /chunk\.bytes are not UTF-8/ });
});

test("an SDK's result that holds the stream or the response, pushed, is INVALID_INPUT naming what to push", () => {
  async function* events() {}
  const stream = events();
  const cases = [
    ["bedrock", { $metadata: { httpStatusCode: 200 }, stream }, /push each event of its stream/], // ConverseStreamCommand
    ["anthropic", { $metadata: {}, contentType: "application/json", body: stream }, /push each event of its body/], // InvokeModelWithResponseStream
    ["gemini", { stream, response: Promise.resolve({}) }, /push each event of its stream/], // @google/generative-ai generateContentStream()
    ["openai", { data: stream, response: new Response(""), request_id: "req_1" }, /push each event of its data/], // .withResponse()
    ["anthropic", { data: new ReadableStream(), response: new Response(""), request_id: null }, /push each event of its data/],
    ["gemini", { response: { candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] } }], text() {} } }, /push result\.response/],
  ];
  for (const [provider, result, message] of cases) {
    const acc = new tw.ToolCallAccumulator(provider);
    assert.throws(() => acc.push(result), { code: "INVALID_INPUT", message }, provider);
    assert.deepEqual(acc.finish(), []);
  }
  // Events with such keys holding JSON are events: Responses' {type, response}, a Gemini response.
  const responses = new tw.ToolCallAccumulator("openai-responses");
  responses.push({ type: "response.created", sequence_number: 0, response: { id: "resp_1", object: "response", status: "in_progress", output: [] } });
  assert.deepEqual(responses.finish(), []);
  const gemini = new tw.ToolCallAccumulator("gemini");
  assert.equal(gemini.push({ candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] }, finishReason: "STOP" }] }).length, 1);
});

test("a Bedrock ConverseStream image block is in message(), its bytes a Uint8Array", () => {
  const acc = new tw.ToolCallAccumulator("bedrock");
  const calls = [];
  for (const ev of [
    { messageStart: { role: "assistant" } },
    { contentBlockStart: { contentBlockIndex: 0, start: { image: { format: "png" } } } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { image: { source: { bytes: new Uint8Array([137, 80]) } } } } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { image: { source: { bytes: new Uint8Array([78, 71]) } } } } },
    { contentBlockStop: { contentBlockIndex: 0 } },
    { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: "tu_1", name: "save_chart" } } } },
    { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: "{}" } } } },
    { contentBlockStop: { contentBlockIndex: 1 } },
    { messageStop: { stopReason: "tool_use" } },
  ]) calls.push(...acc.push(ev));
  calls.push(...acc.finish());
  assert.deepEqual(calls.map((c) => c.id), ["tu_1"]);
  const [image, toolUse] = acc.message().content;
  assert.equal(image.image.format, "png");
  assert.ok(image.image.source.bytes instanceof Uint8Array);
  assert.deepEqual([...image.image.source.bytes], [137, 80, 78, 71]);
  assert.deepEqual(toolUse, { toolUse: { toolUseId: "tu_1", name: "save_chart", input: {} } });
});

test("a Responses call in a tool namespace carries its namespace, and a map of the MCP servers' tools resolves it", () => {
  const item = (id, ns) => ({ type: "function_call", id: `fc_${id}`, call_id: id, namespace: ns, name: "search", arguments: '{"q":"bug"}', status: "completed" });
  const response = { object: "response", status: "completed", output: [item("call_1", "github"), item("call_2", "jira")] };
  assert.deepEqual(tw.parseToolCalls(response, "openai-responses").map((c) => [c.id, c.namespace, c.tool]), [["call_1", "github", "search"], ["call_2", "jira", "search"]]);
  const nameMap = tw.NameMap.fromTools([{ name: "search", inputSchema: { type: "object" } }], "openai-responses", { server: "github" });
  const calls = tw.parseToolCalls(response, "openai-responses", nameMap);
  assert.deepEqual([calls[0].server, calls[0].tool, calls[0].providerName, calls[0].error], ["github", "search", "search", undefined]);
  assert.equal(calls[1].error.code, "UNKNOWN_TOOL_NAME");
  assert.equal(calls[1].namespace, "jira");
});

test("an Error pushed (what the SDK threw mid-stream) is INVALID_INPUT saying to call finish(), not passed over", () => {
  class APIError extends Error {}
  const acc = new tw.ToolCallAccumulator("anthropic");
  acc.push({ type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [] } });
  acc.push({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "t", input: {} } });
  acc.push({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } });
  for (const err of [new APIError("overloaded"), new TypeError("terminated"), Object.assign(new Error("x"), { error: { type: "overloaded_error" } })]) {
    assert.throws(() => acc.push(err), { code: "INVALID_INPUT", message: /is an Error \(\w+\), thrown by the SDK.*call finish\(\)/ });
  }
  const [cut] = acc.finish();
  assert.equal(cut.error.code, "INVALID_ARGUMENTS");
  // An error event's body is still the provider's error.
  assert.throws(() => new tw.ToolCallAccumulator("anthropic").push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }), { code: "PROVIDER_ERROR" });
});
