// ToolCallAccumulator.message() against the providers' own SDKs: each SDK assembles the model's turn from the
// same SSE text (given it by a custom `fetch`, no network), and that turn, in the shape one sends back, is what
// message() must give, from the text pushed whole and in small random pieces, and from the SDK's own events.
//
// Equivalence: both sides go through JSON (what goes on the wire), then compare deeply (blocks, items and calls in
// order; text, arguments, signatures and ids exact). The SDK's fields that are not part of the message one sends
// back are dropped from its side by name (IGNORED below, each with its reason); anything else it adds shows up as a
// difference. The one deliberate difference in content is Anthropic's blank text blocks (see anthropicSendBack).
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import * as tw from "../../pkg/index.mjs";

/** SDK fields dropped before comparing, and why. */
const IGNORED = {
  "openai chat message.parsed": "the SDK's parse helper (structured outputs), not sent back",
  "openai chat message.annotations": "response-only (url citations); not a field of the assistant message param",
  "openai chat message.refusal: null": "an absent refusal is the same as null; message() gives refusal only when there is one",
  "openai chat tool_calls[].function.parsed_arguments": "the SDK's parse helper for strict tools, not sent back",
  "openai responses output[].content[].parsed": "the SDK's parse helper (text.format), not sent back",
  "openai responses output[].parsed_arguments": "the SDK's parse helper for strict tools, not sent back",
  "anthropic message fields but role and content": "id, model, stop_reason, usage... describe the response, not the turn",
};

// A seeded generator, so a failure can be reproduced.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `items` cut into pieces of 1 to `max` items each. */
function cut(items, seed, max = 12) {
  const next = rng(seed);
  const out = [];
  for (let i = 0; i < items.length; ) {
    const n = 1 + Math.floor(next() * max);
    out.push(items.slice(i, i + n));
    i += n;
  }
  return out;
}

const json = (v) => JSON.parse(JSON.stringify(v));

/** A fetch that answers with `text` as an event stream, its bytes in random pieces (UTF-8 sequences split too). */
function sseFetch(text, seed) {
  const bytes = new TextEncoder().encode(text);
  return async () => {
    const pieces = cut(bytes, seed, 40);
    const body = new ReadableStream({
      pull(c) {
        const p = pieces.shift();
        if (p) c.enqueue(p);
        else c.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "request-id": "req_1", "x-request-id": "req_1" } });
  };
}

/** The turn from message(), the SSE text pushed whole, in random pieces of code points, and as event objects. */
function turns(provider, text, events) {
  const run = (pieces) => {
    const acc = new tw.ToolCallAccumulator(provider);
    const calls = [];
    for (const p of pieces) calls.push(...acc.push(p));
    calls.push(...acc.finish());
    return { calls, message: json(acc.message()) };
  };
  const chars = Array.from(text);
  return {
    whole: run([text]),
    pieces: run(cut(chars, chars.length, 9).map((p) => p.join(""))),
    events: run(events),
  };
}

/** Checks message() against the SDK's turn, for every way of pushing the stream; returns the SDK's turn. */
function check(provider, text, events, sdkTurn, calls) {
  const t = turns(provider, text, events);
  for (const [how, { message, calls: got }] of Object.entries(t)) {
    assert.deepEqual(message, sdkTurn, `${provider}, pushed ${how}`);
    assert.deepEqual(got.map((c) => [c.id, c.providerName, c.arguments]), calls, `${provider} calls, pushed ${how}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI Chat Completions

const chatChunk = (delta, finish_reason = null, extra = {}) => ({
  id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", object: "chat.completion.chunk", created: 1741569952, model: "gpt-4.1-2025-04-14",
  service_tier: "default", system_fingerprint: "fp_b376dfbbd5",
  choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...extra,
});
const usageChunk = { ...chatChunk({}), choices: [], usage: { prompt_tokens: 80, completion_tokens: 40, total_tokens: 120 } };
const chatSse = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";

/** The SDK's assembled message as one sends it back (ChatCompletionAssistantMessageParam). */
function chatSendBack(m) {
  const { parsed, annotations, refusal, tool_calls, ...rest } = json(m);
  void parsed, void annotations;
  const out = { ...rest };
  if (refusal != null) out.refusal = refusal;
  // A call's arguments that are no JSON (none streamed: "") as "{}", which toolwire writes and every
  // OpenAI-compatible server takes in a history (vLLM and gateways refuse "").
  const sent = (f) => ({ ...f, arguments: f.arguments.trim() === "" ? "{}" : f.arguments });
  if (tool_calls) out.tool_calls = tool_calls.map(({ function: { parsed_arguments, ...f }, ...c }) => (void parsed_arguments, { ...c, function: sent(f) }));
  return out;
}

async function chatSdk(chunks, seed) {
  const text = chatSse(chunks);
  const client = new OpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1", fetch: sseFetch(text, seed), maxRetries: 0 });
  const stream = client.chat.completions.stream({ model: "gpt-4.1", messages: [{ role: "user", content: "Weather?" }], stream_options: { include_usage: true } });
  const completion = await stream.finalChatCompletion();
  return { text, raw: json(completion.choices[0].message), message: chatSendBack(completion.choices[0].message) };
}

/** A call's first chunk and its arguments in the given pieces. */
const chatCall = (index, id, name, args) => [
  chatChunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] }),
  ...args.map((a) => chatChunk({ tool_calls: [{ index, function: { arguments: a } }] })),
];

const chatCases = {
  "text then two parallel calls, arguments over many deltas": {
    chunks: [
      chatChunk({ role: "assistant", content: "", refusal: null }),
      ...["Let me check ", "Zürich and ", "São Paulo 🌦️", " for you."].map((content) => chatChunk({ content })),
      ...chatCall(0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", ["{\"", "city", "\":\"", "Zü", "rich", "\",\"unit", "s\":\"c", "\"}"]),
      ...chatCall(1, "call_ABCDEFGHIJKLMNOPQRSTUVWX", "mcp__github__search", ["{\"q\":", "\"é \\u00e9 \\\"x\\\"", "\\n\"", ",\"n\":[1,", "2.5e3]}"]),
      chatChunk({}, "tool_calls"),
      usageChunk,
    ],
    calls: [["call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", { city: "Zürich", units: "c" }], ["call_ABCDEFGHIJKLMNOPQRSTUVWX", "mcp__github__search", { q: "é é \"x\"\n", n: [1, 2500] }]],
  },
  "calls only: content null from the first chunk": {
    chunks: [
      chatChunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }], refusal: null }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: "{\"city\":\"Paris\"}" } }] }),
      chatChunk({}, "tool_calls"),
    ],
    calls: [["call_1", "get_weather", { city: "Paris" }]],
  },
  "a refusal": {
    chunks: [
      chatChunk({ role: "assistant", content: null, refusal: "" }),
      ...["I'm sorry, ", "I can't ", "help with that."].map((refusal) => chatChunk({ refusal })),
      chatChunk({}, "stop"),
    ],
    calls: [],
  },
  "empty text (cut by max_tokens)": {
    chunks: [chatChunk({ role: "assistant", content: "", refusal: null }), chatChunk({}, "length"), usageChunk],
    calls: [],
  },
  "a call with empty arguments, and one with {}": {
    chunks: [
      chatChunk({ role: "assistant", content: null }),
      chatChunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "list_files", arguments: "" } }] }),
      chatChunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "now", arguments: "" } }] }),
      chatChunk({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }),
      chatChunk({}, "tool_calls"),
    ],
    calls: [["call_a", "list_files", {}], ["call_b", "now", {}]],
  },
  "Gemini's OpenAI API: a call whole in one chunk, its thought signature in extra_content": {
    chunks: [
      chatChunk({ role: "assistant", tool_calls: [{ extra_content: { google: { thought_signature: "CiQBcsjafE=" } }, function: { arguments: "{\"city\":\"Oslo\"}", name: "get_weather" }, id: "function-call-1", type: "function", index: 0 }] }, "tool_calls"),
    ],
    calls: [["function-call-1", "get_weather", { city: "Oslo" }]],
  },
};

for (const [name, { chunks, calls }] of Object.entries(chatCases)) {
  test(`openai chat, ${name}: message() is the SDK's finalChatCompletion() message`, async () => {
    const { text, message } = await chatSdk(chunks, name.length);
    check("openai", text, chunks, message, calls);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI Responses

const RESP = { id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b", object: "response", created_at: 1741476542, model: "gpt-5-2025-08-07", parallel_tool_calls: true, tools: [], tool_choice: "auto", text: { format: { type: "text" } }, reasoning: { effort: "medium", summary: "auto" }, error: null, incomplete_details: null, instructions: null, metadata: {}, previous_response_id: null, store: false, temperature: 1, top_p: 1, truncation: "disabled", usage: null, user: null };

/** A Responses stream: lifecycle events around the output items' events, numbered; `response.completed` has the
 * whole output, as the API sends it. */
function responsesEvents(items) {
  const events = [
    { type: "response.created", response: { ...RESP, status: "in_progress", output: [] } },
    { type: "response.in_progress", response: { ...RESP, status: "in_progress", output: [] } },
  ];
  const output = [];
  items.forEach(([item, evs], output_index) => {
    for (const e of evs) events.push({ ...e, ...(e.item_id === null ? { item_id: item.id } : {}), output_index });
    output.push(item);
  });
  events.push({ type: "response.completed", response: { ...RESP, status: "completed", output, usage: { input_tokens: 40, input_tokens_details: { cached_tokens: 0 }, output_tokens: 90, output_tokens_details: { reasoning_tokens: 64 }, total_tokens: 130 } } });
  return events.map((e, sequence_number) => ({ ...e, sequence_number }));
}

const added = (item) => ({ type: "response.output_item.added", item });
const done = (item) => ({ type: "response.output_item.done", item });

function messageItem(id, part, key, pieces) {
  const whole = pieces.join("");
  const start = { ...part, [key]: "" };
  const end = { ...part, [key]: whole };
  const kind = key === "text" ? "output_text" : "refusal";
  const item = { id, type: "message", status: "completed", content: [end], role: "assistant" };
  return [item, [
    added({ id, type: "message", status: "in_progress", content: [], role: "assistant" }),
    { type: "response.content_part.added", item_id: null, content_index: 0, part: start },
    ...pieces.map((delta) => ({ type: `response.${kind}.delta`, item_id: null, content_index: 0, delta, ...(key === "text" ? { logprobs: [] } : {}) })),
    { type: `response.${kind}.done`, item_id: null, content_index: 0, [key]: whole, ...(key === "text" ? { logprobs: [] } : {}) },
    { type: "response.content_part.done", item_id: null, content_index: 0, part: end },
    done(item),
  ]];
}
const textItem = (id, pieces) => messageItem(id, { type: "output_text", annotations: [], logprobs: [] }, "text", pieces);
const refusalItem = (id, pieces) => messageItem(id, { type: "refusal" }, "refusal", pieces);

function callItem(id, call_id, name, pieces) {
  const args = pieces.join("");
  const item = { id, type: "function_call", status: "completed", arguments: args, call_id, name };
  return [item, [
    added({ id, type: "function_call", status: "in_progress", arguments: "", call_id, name }),
    ...pieces.map((delta) => ({ type: "response.function_call_arguments.delta", item_id: null, delta })),
    { type: "response.function_call_arguments.done", item_id: null, arguments: args },
    done(item),
  ]];
}

function reasoningItem(id, summaries, encrypted_content) {
  const item = { id, type: "reasoning", summary: summaries.map((s) => ({ type: "summary_text", text: s.join("") })), encrypted_content };
  const evs = [added({ id, type: "reasoning", summary: [], encrypted_content: null })];
  summaries.forEach((pieces, summary_index) => {
    const text = pieces.join("");
    evs.push({ type: "response.reasoning_summary_part.added", item_id: null, summary_index, part: { type: "summary_text", text: "" } });
    for (const delta of pieces) evs.push({ type: "response.reasoning_summary_text.delta", item_id: null, summary_index, delta });
    evs.push({ type: "response.reasoning_summary_text.done", item_id: null, summary_index, text });
    evs.push({ type: "response.reasoning_summary_part.done", item_id: null, summary_index, part: { type: "summary_text", text } });
  });
  evs.push(done(item));
  return [item, evs];
}

const responsesSse = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

/** The SDK's output items as one sends them back (ResponseInputItem). */
function responsesSendBack(output) {
  return json(output).map(({ parsed_arguments, ...item }) => {
    void parsed_arguments;
    if (Array.isArray(item.content)) item.content = item.content.map(({ parsed, ...c }) => (void parsed, c));
    return item;
  });
}

async function responsesSdk(events, seed) {
  const text = responsesSse(events);
  const client = new OpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1", fetch: sseFetch(text, seed), maxRetries: 0 });
  const stream = client.responses.stream({ model: "gpt-5", input: "Weather?", include: ["reasoning.encrypted_content"], store: false });
  const response = await stream.finalResponse();
  return { text, output: responsesSendBack(response.output) };
}

const responsesCases = {
  "text then two parallel calls, arguments over many deltas": {
    items: [
      textItem("msg_1", ["Checking ", "Zürich ", "and São Paulo 🌦️."]),
      callItem("fc_1", "call_Pw3mG7pTxl8Z6rXU", "get_weather", ["{\"", "city\":", "\"Zür", "ich\"}"]),
      callItem("fc_2", "call_Qx4nH8qUym9A7sYV", "mcp__github__search", ["{\"q\":\"é \\\"x\\\"", "\\n\",\"n\"", ":[1,2.5e3]}"]),
    ],
    calls: [["call_Pw3mG7pTxl8Z6rXU", "get_weather", { city: "Zürich" }], ["call_Qx4nH8qUym9A7sYV", "mcp__github__search", { q: "é \"x\"\n", n: [1, 2500] }]],
  },
  "reasoning items with encrypted content, text and a call": {
    items: [
      reasoningItem("rs_1", [["**Weighing ", "the cities**\n\n", "Two calls."], ["**Units**\n\nCelsius."]], "gAAAAABoISQ7Rm5ZYlZ0dGhvVHc5X0J3c19f"),
      textItem("msg_1", ["One moment."]),
      reasoningItem("rs_2", [], "gAAAAABoISQ8S2tLc2VjcmV0"),
      callItem("fc_1", "call_1", "get_weather", ["{\"city\":", "\"Paris\"}"]),
    ],
    calls: [["call_1", "get_weather", { city: "Paris" }]],
  },
  "a refusal": {
    items: [refusalItem("msg_1", ["I'm sorry, ", "I can't help ", "with that."])],
    calls: [],
  },
  "empty text": {
    items: [reasoningItem("rs_1", [], "gAAAAABoISQ9"), textItem("msg_1", [])],
    calls: [],
  },
  "a call with empty arguments, and one with {}": {
    items: [callItem("fc_1", "call_a", "list_files", []), callItem("fc_2", "call_b", "now", ["{}"])],
    calls: [["call_a", "list_files", {}], ["call_b", "now", {}]],
  },
};

for (const [name, { items, calls }] of Object.entries(responsesCases)) {
  test(`openai-responses, ${name}: message() is the SDK's finalResponse() output`, async () => {
    const events = responsesEvents(items);
    const { text, output } = await responsesSdk(events, name.length);
    // The SDK read the stream the test wrote: its output is the items, in order.
    assert.deepEqual(output.map((i) => i.id), items.map(([i]) => i.id));
    check("openai-responses", text, events, output, calls);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Anthropic Messages

const MSG = { id: "msg_01XFDUDYJgAACzvnptvVoYEL", type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 472, output_tokens: 2 } };

/** Blocks as `[start block, deltas]`, framed by message_start/message_delta/message_stop, with a ping. */
function anthropicEvents(blocks, stop_reason = "tool_use") {
  const events = [{ type: "message_start", message: MSG }];
  blocks.forEach(([content_block, deltas], index) => {
    events.push({ type: "content_block_start", index, content_block });
    if (index === 0) events.push({ type: "ping" });
    for (const delta of deltas) events.push({ type: "content_block_delta", index, delta });
    events.push({ type: "content_block_stop", index });
  });
  events.push({ type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 89 } });
  events.push({ type: "message_stop" });
  return events;
}
const anthropicSse = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

const textBlock = (pieces) => [{ type: "text", text: "" }, pieces.map((text) => ({ type: "text_delta", text }))];
const toolBlock = (type, id, name, pieces) => [{ type, id, name, input: {} }, pieces.map((partial_json) => ({ type: "input_json_delta", partial_json }))];
const thinkingBlock = (pieces, signature) => [{ type: "thinking", thinking: "", signature: "" }, [...pieces.map((thinking) => ({ type: "thinking_delta", thinking })), { type: "signature_delta", signature }]];

/** Blank text blocks: message() leaves them out, as the API refuses them sent back ("text content blocks must
 * contain non-whitespace text"); the SDK keeps them as streamed. A block with citations stays. */
const blank = (b) => b.type === "text" && !b.text.trim() && !b.citations?.length;

/** The SDK's final message as one sends it back (MessageParam): role and content. */
function anthropicSendBack(m) {
  const { role, content } = json(m);
  return { role, content: content.filter((b) => !blank(b)) };
}

async function anthropicSdk(events, seed) {
  const text = anthropicSse(events);
  const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: "http://127.0.0.1:9", fetch: sseFetch(text, seed), maxRetries: 0 });
  const stream = client.messages.stream({ model: "claude-opus-4-7", max_tokens: 1024, messages: [{ role: "user", content: "Weather?" }] });
  const message = await stream.finalMessage();
  return { text, sdk: json(message), message: anthropicSendBack(message) };
}

const citation = { type: "web_search_result_location", cited_text: "Sunny, 21 °C", url: "https://weather.example/zurich", title: "Zürich weather", encrypted_index: "EpMBCioIAhgBIiQ0" };
const anthropicCases = {
  "text then two parallel calls, arguments over many deltas": {
    blocks: [
      textBlock(["Let me check ", "Zürich and ", "São Paulo 🌦️."]),
      toolBlock("tool_use", "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", ["", "{\"city", "\": \"Zür", "ich\", \"units\"", ": \"c\"}"]),
      toolBlock("tool_use", "toolu_01VmbT7h7Dh6tVbGLwJGPcqm", "mcp__github__search", ["{\"q\": \"é \\\"x\\\"", "\\n\", \"n\": [1, ", "2.5e3]}"]),
    ],
    calls: [["toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", { city: "Zürich", units: "c" }], ["toolu_01VmbT7h7Dh6tVbGLwJGPcqm", "mcp__github__search", { q: "é \"x\"\n", n: [1, 2500] }]],
  },
  "thinking with its signature, redacted thinking, text and a call": {
    blocks: [
      thinkingBlock(["The user wants ", "the weather in Paris.\n", "One call."], "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"),
      [{ type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" }, []],
      textBlock(["Checking Paris."]),
      toolBlock("tool_use", "toolu_01A", "get_weather", ["{\"city\": ", "\"Paris\"}"]),
    ],
    calls: [["toolu_01A", "get_weather", { city: "Paris" }]],
  },
  "server tool use, its result, and text with citations": {
    blocks: [
      textBlock(["I'll search."]),
      toolBlock("server_tool_use", "srvtoolu_014hJH82Qum7Td6UV8gDXThB", "web_search", ["", "{\"query", "\": \"weather Zürich\"}"]),
      [{ type: "web_search_tool_result", tool_use_id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB", content: [{ type: "web_search_result", title: "Zürich weather", url: "https://weather.example/zurich", encrypted_content: "EqgfCioIARgBIiQ3", page_age: null }] }, []],
      [{ type: "text", text: "", citations: [] }, [{ type: "citations_delta", citation }, { type: "text_delta", text: "It is sunny" }, { type: "text_delta", text: " in Zürich." }]],
      toolBlock("tool_use", "toolu_01B", "get_weather", ["{\"city\": \"Zürich\"}"]),
    ],
    calls: [["toolu_01B", "get_weather", { city: "Zürich" }]],
  },
  "web fetch, code execution and a file it was given, beside a call": {
    blocks: [
      toolBlock("server_tool_use", "srvtoolu_01WF", "web_fetch", ["{\"url\": ", "\"https://weather.example/zurich\"}"]),
      [{ type: "web_fetch_tool_result", tool_use_id: "srvtoolu_01WF", content: { type: "web_fetch_result", url: "https://weather.example/zurich", retrieved_at: "2026-08-01T10:00:00Z", content: { type: "document", source: { type: "text", media_type: "text/plain", data: "Sunny, 21 °C" }, title: "Zürich weather", citations: null } } }, []],
      [{ type: "container_upload", file_id: "file_011CNha8iCJcU1wXNR6q4V8w" }, []],
      toolBlock("server_tool_use", "srvtoolu_01CE", "code_execution", ["{\"code\": \"print(21 * 9 / 5 + 32)\"}"]),
      [{ type: "code_execution_tool_result", tool_use_id: "srvtoolu_01CE", content: { type: "code_execution_result", stdout: "69.8\n", stderr: "", return_code: 0, content: [] } }, []],
      textBlock(["69.8 °F."]),
      toolBlock("tool_use", "toolu_01G", "get_weather", ["{\"city\": \"Bern\"}"]),
    ],
    calls: [["toolu_01G", "get_weather", { city: "Bern" }]],
  },
  "a refusal: the text so far, stop_reason refusal": {
    blocks: [textBlock(["I can't ", "help with that."])],
    stop: "refusal",
    calls: [],
  },
  "blank text blocks before a call": {
    blocks: [
      textBlock([]),
      textBlock(["\n\n"]),
      toolBlock("tool_use", "toolu_01C", "get_weather", ["{\"city\": \"Oslo\"}"]),
    ],
    blankBlocks: 2,
    calls: [["toolu_01C", "get_weather", { city: "Oslo" }]],
  },
  "a call with empty arguments, and one with none streamed": {
    blocks: [
      toolBlock("tool_use", "toolu_01D", "list_files", [""]),
      toolBlock("tool_use", "toolu_01E", "now", []),
      toolBlock("tool_use", "toolu_01F", "ping", ["{}"]),
    ],
    calls: [["toolu_01D", "list_files", {}], ["toolu_01E", "now", {}], ["toolu_01F", "ping", {}]],
  },
};

for (const [name, { blocks, stop, calls, blankBlocks = 0 }] of Object.entries(anthropicCases)) {
  test(`anthropic, ${name}: message() is the SDK's finalMessage()`, async () => {
    const events = anthropicEvents(blocks, stop);
    const { text, sdk, message } = await anthropicSdk(events, name.length);
    // The SDK read every block; only the blank ones are not sent back.
    assert.equal(sdk.content.length, blocks.length);
    assert.equal(sdk.content.length - message.content.length, blankBlocks);
    check("anthropic", text, events, message, calls);
  });
}

test("anthropic, a stream cut inside a thinking block: message() is the SDK's finalMessage() without that block", async () => {
  // Interleaved thinking: a signed thinking block, a call, then a thinking block the stream was cut inside, before
  // its signature_delta. The SDK gives no final message for a stream without message_stop; its snapshot keeps the
  // block with the start's `signature: ""`, which Anthropic refuses sent back in every later request. message()
  // gives the turn without it (it gave it as the snapshot has it).
  const signed = thinkingBlock(["Paris first."], "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds");
  const call = toolBlock("tool_use", "toolu_01H", "get_weather", ["{\"city\": \"Paris\"}"]);
  const full = anthropicEvents([signed, call, thinkingBlock(["Now Lon", "don."], "c2ln")]);
  // Up to the last block's second thinking_delta: no signature_delta, content_block_stop, message_delta or message_stop.
  const events = full.slice(0, full.findIndex((e) => e.delta?.type === "signature_delta" && e.index === 2));
  const text = anthropicSse(events);
  const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: "http://127.0.0.1:9", fetch: sseFetch(text, 7), maxRetries: 0 });
  const stream = client.messages.stream({ model: "claude-opus-4-7", max_tokens: 1024, messages: [{ role: "user", content: "Weather?" }] });
  let snapshot;
  stream.on("streamEvent", (_, s) => { snapshot = json(s); });
  await assert.rejects(stream.finalMessage(), /stream ended without producing a Message/);
  assert.deepEqual(snapshot.content.at(-1), { type: "thinking", thinking: "Now London.", signature: "" });
  const sent = { role: "assistant", content: snapshot.content.slice(0, -1) };
  assert.deepEqual(sent.content.map((b) => b.type), ["thinking", "tool_use"]);
  check("anthropic", text, events, sent, [["toolu_01H", "get_weather", { city: "Paris" }]]);
});

test("the comparison can fail: a turn changed in any way that matters is told apart", async () => {
  const { chunks } = chatCases["text then two parallel calls, arguments over many deltas"];
  const { message } = await chatSdk(chunks, 1);
  const acc = new tw.ToolCallAccumulator("openai");
  for (const c of chunks) acc.push(c);
  const ours = json(acc.message());
  assert.deepEqual(ours, message);
  const changes = [
    (m) => { m.content += " "; },
    (m) => { m.tool_calls.reverse(); },
    (m) => { m.tool_calls[1].function.arguments = JSON.stringify(JSON.parse(m.tool_calls[1].function.arguments)); },
    (m) => { delete m.tool_calls[0].id; },
    (m) => { m.refusal = ""; },
  ];
  for (const change of changes) {
    const m = json(ours);
    change(m);
    assert.throws(() => assert.deepEqual(m, message), assert.AssertionError, String(change));
  }
  // What chatSendBack drops is there to drop: the SDK's message has refusal: null, which message() leaves out.
  const { raw } = await chatSdk(chunks, 1);
  assert.equal(raw.refusal, null);
  assert.ok(!("refusal" in ours) && Object.keys(raw).length > Object.keys(message).length, Object.keys(raw).join());
});
