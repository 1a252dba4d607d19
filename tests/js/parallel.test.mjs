// OpenAI's leaked parallel wrapper (`multi_tool_use.parallel` on Chat, `parallel` on Responses), through the built
// package: the natural loop (parse the calls, run each, toolResultMessages, and the accumulator's message() for the
// turn) must send back what the API takes: every call id of the assistant turn answered, once, and no dotted name
// in a Chat history. Shapes: https://community.openai.com/t/model-tries-to-call-unknown-function-multi-tool-use-parallel/490653,
// https://github.com/vercel/ai/issues/19067 (its Responses fixture).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";

const tools = [
  { serverName: "weather", name: "forecast", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { serverName: "travel", name: "attractions", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
];
const toolUses = {
  tool_uses: [
    { recipient_name: "functions.mcp__weather__forecast", parameters: { city: "Paris" } },
    { recipient_name: "functions.mcp__travel__attractions", parameters: { city: "Rome" } },
  ],
};
const resultOf = (call) => ({ content: [{ type: "text", text: `${call.tool} of ${call.arguments.city}` }] });

const completion = (name, args) => ({
  id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o",
  choices: [{ index: 0, finish_reason: "tool_calls", logprobs: null,
    message: { role: "assistant", content: null, refusal: null,
      tool_calls: [
        { id: "call_w", type: "function", function: { name, arguments: JSON.stringify(args) } },
        { id: "call_n", type: "function", function: { name: "mcp__weather__forecast", arguments: "{\"city\":\"Oslo\"}" } },
      ] } }],
});

test("Chat: the wrapper's tool uses are calls; the turn lists them and every id of it is answered", () => {
  const names = tw.NameMap.fromTools(tools, "openai");
  const response = completion("multi_tool_use.parallel", toolUses);
  const calls = tw.parseToolCalls(response, "openai", names);
  assert.deepEqual(calls.map((c) => [c.id, c.providerName, c.server, c.tool, c.arguments, c.error]), [
    ["call_w_0", "mcp__weather__forecast", "weather", "forecast", { city: "Paris" }, undefined],
    ["call_w_1", "mcp__travel__attractions", "travel", "attractions", { city: "Rome" }, undefined],
    ["call_n", "mcp__weather__forecast", "weather", "forecast", { city: "Oslo" }, undefined],
  ]);
  assert.deepEqual(calls[1].parallel, { id: "call_w", name: "multi_tool_use.parallel", index: 1, count: 2 });
  assert.equal("parallel" in calls[2], false);

  // The turn for the history: the response pushed whole into an accumulator.
  const acc = new tw.ToolCallAccumulator("openai", names);
  assert.equal(acc.push(response).length, 3);
  const turn = acc.message();
  const results = tw.toolResultMessages(calls, calls.map(resultOf), "openai");
  // What Chat Completions checks: no name outside ^[a-zA-Z0-9_-]+$, and each tool_call id answered by one tool message.
  for (const tc of turn.tool_calls) assert.match(tc.function.name, /^[a-zA-Z0-9_-]+$/);
  assert.deepEqual(turn.tool_calls.map((tc) => tc.id), results.map((m) => m.tool_call_id));
  assert.deepEqual(turn.tool_calls[0], { id: "call_w_0", type: "function", function: { name: "mcp__weather__forecast", arguments: "{\"city\":\"Paris\"}" } });
  assert.deepEqual(results[1], { role: "tool", tool_call_id: "call_w_1", content: "attractions of Rome" });
  acc.free();
  names.free();
});

test("Responses: one function_call_output answers the wrapper's call_id, for all its tool uses", () => {
  const names = tw.NameMap.fromTools(tools, "openai-responses");
  const response = {
    id: "resp_parallel", object: "response", status: "completed", model: "gpt-5.4",
    output: [
      { type: "function_call", id: "fc_parallel", call_id: "call_parallel", name: "parallel", arguments: JSON.stringify(toolUses), status: "completed" },
      { type: "function_call", id: "fc_n", call_id: "call_n", name: "mcp__weather__forecast", arguments: "{\"city\":\"Oslo\"}", status: "completed" },
    ],
  };
  const calls = tw.parseToolCalls(response, "openai-responses", names);
  assert.deepEqual(calls.map((c) => [c.id, c.tool, c.parallel?.id ?? null]), [
    ["call_parallel_0", "forecast", "call_parallel"],
    ["call_parallel_1", "attractions", "call_parallel"],
    ["call_n", "forecast", null],
  ]);
  const results = calls.map(resultOf);
  results[1] = { content: [{ type: "text", text: "closed" }], isError: true };
  const outputs = tw.toolResultMessages(calls, results, "openai-responses");
  // What the API checks: each function_call of the turn (the items as they came) answered once.
  assert.deepEqual(outputs.map((o) => o.call_id), response.output.map((item) => item.call_id));
  assert.deepEqual(outputs[0], {
    type: "function_call_output",
    call_id: "call_parallel",
    output: "tool_uses[0] (mcp__weather__forecast):\nforecast of Paris\n\ntool_uses[1] (mcp__travel__attractions):\nError: closed",
  });
  // One result cannot answer the wrapper: refused, as is a wrapper's call left out.
  assert.throws(() => tw.toolResultMessage(calls[0], results[0], "openai-responses"), (e) => e.code === "INVALID_INPUT" && /toolResultMessages/.test(e.message));
  assert.throws(() => tw.toolResultMessages([calls[0], calls[2]], [results[0], results[2]], "openai-responses"), (e) => e.code === "INVALID_INPUT" && /^calls\[0\]: /.test(e.message));
  names.free();
});

test("Responses stream: the wrapper's calls come from SSE text, and the turn keeps its item", () => {
  const args = JSON.stringify(toolUses);
  const item = { type: "function_call", id: "fc_parallel", call_id: "call_parallel", name: "parallel", arguments: args, status: "completed" };
  const events = [
    { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "", status: "in_progress" } },
    { type: "response.function_call_arguments.delta", item_id: "fc_parallel", output_index: 0, delta: args },
    { type: "response.function_call_arguments.done", item_id: "fc_parallel", output_index: 0, arguments: args },
    { type: "response.output_item.done", output_index: 0, item },
  ];
  const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  const acc = new tw.ToolCallAccumulator("openai-responses");
  const calls = [];
  for (let i = 0; i < body.length; i += 37) calls.push(...acc.push(body.slice(i, i + 37)));
  calls.push(...acc.finish());
  assert.deepEqual(calls.map((c) => [c.id, c.providerName, c.arguments]), [
    ["call_parallel_0", "mcp__weather__forecast", { city: "Paris" }],
    ["call_parallel_1", "mcp__travel__attractions", { city: "Rome" }],
  ]);
  assert.deepEqual(acc.message(), [item]);
  const [output] = tw.toolResultMessages(calls, calls.map(resultOf), "openai-responses");
  assert.equal(output.call_id, "call_parallel");
  acc.free();
});

test("bad tool uses are calls with typed errors, never a throw nor dropped", () => {
  const names = tw.NameMap.fromTools(tools, "openai");
  const uses = { tool_uses: [
    { recipient_name: "functions.mcp__weather__forecast", parameters: "{\"city\":\"Lyon\"}" }, // text: read as arguments text
    { recipient_name: "functions.mcp__nope__x", parameters: {} },
    { parameters: { city: "x" } },
    "functions.mcp__weather__forecast",
    { recipient_name: "functions.mcp__weather__forecast", parameters: [1] },
  ] };
  const calls = tw.parseToolCalls(completion("multi_tool_use.parallel", uses), "openai", names);
  assert.deepEqual(calls.map((c) => [c.id, c.error?.code]), [
    ["call_w_0", undefined], ["call_w_1", "UNKNOWN_TOOL_NAME"], ["call_w_2", "UNKNOWN_TOOL_NAME"],
    ["call_w_3", "INVALID_ARGUMENTS"], ["call_w_4", "INVALID_ARGUMENTS"], ["call_n", undefined],
  ]);
  assert.deepEqual(calls[0].arguments, { city: "Lyon" });
  for (const args of [{ tool_uses: {} }, { tool_uses: [] }, {}]) {
    const [wrapper] = tw.parseToolCalls(completion("multi_tool_use.parallel", args), "openai", names);
    assert.deepEqual([wrapper.id, wrapper.providerName, wrapper.error?.code, wrapper.arguments], ["call_w", "multi_tool_use.parallel", "INVALID_ARGUMENTS", null]);
  }
  // A tool use's marker that is not one is refused by the result writers, not guessed at.
  assert.throws(() => tw.toolResultMessages([{ ...calls[0], parallel: { id: "call_w", name: "p", index: 3, count: 2 } }], [resultOf(calls[0])], "openai-responses"), (e) => e.code === "INVALID_INPUT");
  names.free();
});
