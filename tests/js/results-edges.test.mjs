// Tool results and the calls they answer, at their edges, through the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const b64 = (bytes) => Buffer.from(bytes).toString("base64");

test("a text block that is structuredContent pretty-printed over maxChars gives way to the compact JSON", () => {
  const sc = { items: [{ id: 1, name: "alpha" }, { id: 2, name: "beta" }, { id: 3, name: "gamma" }] };
  const compact = JSON.stringify(sc);
  const result = { content: [{ type: "text", text: JSON.stringify(sc, null, 2) }], structuredContent: sc };
  const opts = { maxChars: 120 };
  assert.equal(tw.flattenContent(result, opts), compact);
  assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, result, "openai", opts).content, compact);
  assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, result, "openai-responses", opts).output, compact);
  assert.deepEqual(tw.toolResultMessage({ id: "c1", name: "t" }, result, "anthropic", opts).content, [{ type: "text", text: compact }]);
  assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, result, "ollama", opts).content, compact);
  assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, { ...result, isError: true }, "gemini", opts).functionResponse.response.error, compact);
  // At the default cap: a pretty text over 100,000 characters whose compact JSON is under it.
  const big = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: "row" + i, ok: true })) };
  const out = tw.toolResultMessage({ id: "c1", name: "t" }, { content: [{ type: "text", text: JSON.stringify(big, null, 2) }], structuredContent: big }, "openai").content;
  assert.deepEqual(JSON.parse(out), big);
});

test("a call without a name is answered under its id where the result carries the id alone", () => {
  const response = { choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [
    { id: "call_a", type: "function", function: { name: "u", arguments: "{}" } },
    { id: "call_b", type: "function", function: { name: "", arguments: "{}" } },
  ] } }] };
  const calls = tw.parseToolCalls(response, "openai");
  assert.equal(calls[1].providerName, "");
  assert.equal(calls[1].error.code, "UNKNOWN_TOOL_NAME");
  const results = [{ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: calls[1].error.message }], isError: true }];
  assert.deepEqual(tw.toolResultMessages(calls, results, "openai").map((m) => m.tool_call_id), ["call_a", "call_b"]);
  assert.deepEqual(tw.toolResultMessages(calls, results, "openai-responses").map((m) => m.call_id), ["call_a", "call_b"]);
  assert.equal(tw.toolResultMessage({ type: "tool_use", id: "toolu_1", name: "", input: {} }, results[1], "anthropic").tool_use_id, "toolu_1");
  assert.equal(tw.toolResultMessage({ toolUseId: "tu_1", name: "" }, results[1], "bedrock").toolResult.toolUseId, "tu_1");
  // Gemini and Ollama answer by the name: an empty one is refused, saying so.
  for (const provider of ["gemini", "ollama"]) {
    assert.throws(() => tw.toolResultMessages(calls, results, provider), (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && /^calls\[1\]: call has an empty name/.test(e.message));
  }
});

test("a Responses custom_tool_call is an error call, parsed and streamed, answered by a custom_tool_call_output", () => {
  const item = { type: "custom_tool_call", id: "ctc_1", call_id: "c1", name: "apply_patch", input: "*** patch", status: "completed" };
  const calls = tw.parseToolCalls({ output: [item] }, "openai-responses");
  assert.equal(calls.length, 1);
  assert.equal(calls[0].id, "c1");
  assert.equal(calls[0].custom, true);
  assert.equal(calls[0].error.code, "INVALID_ARGUMENTS");
  assert.match(calls[0].error.message, /custom tool call/);
  const failed = { content: [{ type: "text", text: calls[0].error.message }], isError: true };
  assert.deepEqual(tw.toolResultMessage(calls[0], failed, "openai-responses"), { type: "custom_tool_call_output", call_id: "c1", output: `Error: ${calls[0].error.message}` });
  assert.equal(tw.toolResultMessage(item, failed, "openai-responses").type, "custom_tool_call_output");
  assert.equal(tw.toolResultMessages(calls, [failed], "openai-responses")[0].type, "custom_tool_call_output");
  // Streamed: given once when its item is done; the turn holds the item.
  const acc = new tw.ToolCallAccumulator("openai-responses");
  const got = [
    ...acc.push({ type: "response.output_item.added", output_index: 0, item: { ...item, input: "", status: "in_progress" } }),
    ...acc.push({ type: "response.custom_tool_call_input.delta", output_index: 0, item_id: "ctc_1", delta: "*** patch" }),
    ...acc.push({ type: "response.output_item.done", output_index: 0, item }),
    ...acc.push({ type: "response.output_item.done", output_index: 0, item }),
    ...acc.finish(),
  ];
  assert.deepEqual(got.map((c) => [c.id, c.providerName, c.custom, c.error?.code]), [["c1", "apply_patch", true, "INVALID_ARGUMENTS"]]);
  assert.deepEqual(acc.message(), [item]);
});

test("a Chat custom tool_call as the openai SDK gives it is a ToolCallRef; streamed, the turn keeps its name and whole input", () => {
  const custom = { id: "call_1", type: "custom", custom: { name: "apply_patch", input: "*** Begin Patch" } };
  assert.deepEqual(tw.toolResultMessage(custom, { content: [{ type: "text", text: "done" }] }, "openai"), { role: "tool", tool_call_id: "call_1", content: "done" });
  const acc = new tw.ToolCallAccumulator("openai");
  const chunk = (tc) => ({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: [tc] } }] });
  acc.push(chunk({ index: 0, id: "call_1", type: "custom", custom: { name: "apply_patch", input: "" } }));
  acc.push(chunk({ index: 0, custom: { input: "*** Begin" } }));
  acc.push(chunk({ index: 0, custom: { input: " Patch" } }));
  const calls = acc.push({ object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
  assert.deepEqual(calls.map((c) => [c.id, c.providerName, c.custom, c.error?.code]), [["call_1", "apply_patch", true, "INVALID_ARGUMENTS"]]);
  assert.deepEqual(acc.message().tool_calls, [custom]);
});

test("an embedded text blob is read in its declared charset; another charset is described, never garbled", () => {
  const blob = (mimeType, bytes) => ({ content: [{ type: "resource", resource: { uri: "file:///notes.txt", mimeType, blob: b64(bytes) } }] });
  assert.equal(tw.flattenContent(blob("text/plain; charset=utf-16le", Buffer.from("hello world", "utf16le"))), "[Resource: file:///notes.txt (text/plain)]\nhello world");
  assert.equal(tw.flattenContent(blob("text/plain; charset=UTF-16BE", Buffer.from("hi", "utf16le").swap16())), "[Resource: file:///notes.txt (text/plain)]\nhi");
  assert.equal(tw.flattenContent(blob("text/plain; charset=iso-8859-1", Buffer.from("café", "latin1"))), "[Resource: file:///notes.txt (text/plain)]\ncafé");
  assert.equal(tw.flattenContent(blob("text/plain; charset=us-ascii", Buffer.from("plain"))), "[Resource: file:///notes.txt (text/plain)]\nplain");
  assert.equal(tw.flattenContent(blob("text/plain; charset=windows-1251", Buffer.from([0xcf, 0xf0, 0xe8]))), "[Resource: file:///notes.txt (text/plain), 3 bytes, not sent: charset windows-1251 not supported]");
  // Without a charset, UTF-8 as before; Latin-1 bytes undeclared are still not UTF-8 text.
  assert.equal(tw.flattenContent(blob("text/plain", Buffer.from("caf\xe9", "latin1"))), "[Resource: file:///notes.txt (text/plain), 4 bytes, not sent: not UTF-8 text]");
});

test("an SVG blob is decoded as the XML text it is, for every provider", () => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>Q3 revenue: 42</text></svg>';
  const result = { content: [{ type: "resource", resource: { uri: "file:///chart.svg", mimeType: "image/svg+xml", blob: b64(Buffer.from(svg)) } }] };
  const want = `[Resource: file:///chart.svg (image/svg+xml)]\n${svg}`;
  assert.equal(tw.flattenContent(result), want);
  for (const provider of ["openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"]) {
    assert.ok(JSON.stringify(tw.toolResultMessage({ id: "c1", name: "t" }, result, provider, { multimodal: true })).includes(JSON.stringify(want).slice(1, -1)), provider);
  }
  // The bytes of a PNG under that type go as the image.
  const png = { content: [{ type: "resource", resource: { uri: "file:///x.svg", mimeType: "image/svg+xml", blob: PNG } }] };
  assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, png, "anthropic").content[1].type, "image");
});

test("isError that is not a boolean: an error unless it plainly says no, the same for every reader", () => {
  for (const isError of [true, "true", "TRUE", "True", 1, "yes"]) {
    const r = { content: [{ type: "text", text: "disk full" }], isError };
    assert.equal(tw.flattenContent(r), "Error: disk full", String(isError));
    assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, r, "anthropic").is_error, true, String(isError));
    assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, r, "bedrock").toolResult.status, "error", String(isError));
  }
  for (const isError of [false, null, 0, "", "false", "False"]) {
    const r = { content: [{ type: "text", text: "fine" }], isError };
    assert.equal(tw.flattenContent(r), "fine", String(isError));
    assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, r, "anthropic").is_error, false, String(isError));
  }
});

test("a malformed resource or resource link is shown as its JSON, no field left out", () => {
  for (const block of [
    { type: "resource", resource: { uri: "file:///r", text: { rows: 2, secret: "data" } } },
    { type: "resource", resource: { uri: "file:///r", blob: 12345 } },
    { type: "resource", resource: { uri: 42, text: "hello" } },
    { type: "resource_link", uri: "file:///x", name: 5, description: { a: 1 } },
  ]) {
    const expected = `[Unsupported content: ${block.type}]\n${JSON.stringify(block)}`;
    assert.equal(tw.flattenContent([block]), expected);
    assert.deepEqual(tw.toolResultMessage({ id: "c1", name: "t" }, [block], "anthropic").content, [{ type: "text", text: expected }]);
  }
});

test("a wrapper's isError holds; a JSON-RPC response with result and error is INVALID_INPUT", () => {
  const inner = { content: [{ type: "text", text: "permission denied" }] };
  for (const r of [{ isError: true, result: inner }, { result: inner, text: "permission denied", isError: true, server: "s", tool: "t" }]) {
    assert.equal(tw.flattenContent(r), "Error: permission denied");
    assert.equal(tw.toolResultMessage({ id: "toolu_1", name: "t" }, r, "anthropic").is_error, true);
    assert.deepEqual(tw.toolResultMessage({ id: "g1", name: "t" }, r, "gemini").functionResponse.response, { error: "permission denied" });
  }
  assert.throws(() => tw.flattenContent({ jsonrpc: "2.0", id: 1, result: inner, error: { code: -32603, message: "x" } }), { code: "INVALID_INPUT" });
});

test("a resource with text and blob keeps its blob; an error's own sentence is never cut", () => {
  const pdf = b64("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
  const r = { content: [{ type: "resource", resource: { uri: "file:///report.pdf", mimeType: "application/pdf", text: "Summary: see attached", blob: pdf } }] };
  const a = tw.toolResultMessage({ id: "toolu_1", name: "t" }, r, "anthropic");
  assert.deepEqual(a.content.map((b) => b.type), ["text", "document"]);
  assert.match(tw.flattenContent(r), /Summary: see attached\n\[Resource: file:\/\/\/report\.pdf \(application\/pdf\), 45 bytes, not sent: text only\]$/);
  const media = { content: [{ type: "image", data: PNG, mimeType: "image/png" }], isError: true };
  const g = tw.toolResultMessage({ id: "g1", name: "t" }, media, "gemini", { multimodal: true, maxChars: 40 });
  assert.equal(g.functionResponse.response.error, "Error; see the attached media.");
});

test("a Responses parallel wrapper marks an error's cut; cuts keep grapheme clusters; no text past the cap but one placeholder", () => {
  const response = { output: [{ type: "function_call", id: "fc_1", call_id: "call_W", name: "multi_tool_use.parallel",
    arguments: JSON.stringify({ tool_uses: [{ recipient_name: "functions.tool0", parameters: {} }, { recipient_name: "functions.tool1", parameters: {} }] }) }] };
  const calls = tw.parseToolCalls(response, "openai-responses");
  const results = [{ content: [{ type: "text", text: "The database refused the connection: " + "details ".repeat(20) }], isError: true }, { content: [{ type: "text", text: "ok" }] }];
  const [out] = tw.toolResultMessages(calls, results, "openai-responses", { maxChars: 60 });
  assert.ok(out.output.length <= 60 && out.output.includes("[Truncated"), out.output);
  const seg = new Intl.Segmenter();
  for (const [text, maxChars] of [["👨‍👩‍👧".repeat(30), 50], ["🇫🇷".repeat(60), 45], ["x".repeat(6) + "e\u0301".repeat(100), 46], ["👍🏽".repeat(40), 47]]) {
    const whole = new Set([...seg.segment(text)].map((s) => s.segment));
    const kept = tw.flattenContent([{ type: "text", text }], { maxChars }).split("\n[Truncated")[0];
    for (const { segment } of seg.segment(kept)) assert.ok(whole.has(segment), `${JSON.stringify(kept)}`);
  }
  const said = { content: [{ type: "text", text: "hello" }] };
  assert.deepEqual(tw.toolResultMessage({ id: "toolu_1", name: "t" }, said, "anthropic", { maxChars: 0 }).content, [{ type: "text", text: "[Truncated]" }]);
  assert.deepEqual(tw.toolResultMessage({ id: "b1", name: "t" }, { content: [] }, "bedrock", { maxChars: 0 }).toolResult.content, [{ text: "(no output)" }]);
});

test("a ToolwireError passed as a result is named as an error, with the result to give instead", () => {
  const err = new tw.ToolwireError("TIMEOUT", "tools/call timed out after 30000 ms");
  for (const provider of ["openai", "anthropic", "gemini"]) {
    assert.throws(() => tw.toolResultMessage({ id: "c1", name: "t" }, err, provider), (e) => {
      assert.equal(e.code, "INVALID_INPUT");
      assert.match(e.message, /got an error, ToolwireError \(TIMEOUT\), not a result: the call failed/);
      assert.match(e.message, /\{isError: true, content: \[\{type: "text", text: error\.message\}\]\}$/);
      return true;
    });
  }
  // As the message says, so it goes.
  const m = tw.toolResultMessage({ id: "c1", name: "t" }, { isError: true, content: [{ type: "text", text: err.message }] }, "anthropic");
  assert.deepEqual(m.content, [{ type: "text", text: "tools/call timed out after 30000 ms" }]);
});

test("any Error passed as a result is named as an error, though its JSON has no name", () => {
  // As the MCP SDK declares it: a class that sets no `name`, whose JSON is {code}.
  class StreamableHTTPError extends Error {
    constructor(code, message) {
      super(`Streamable HTTP error: ${message}`);
      this.code = code;
    }
  }
  const fetchFailed = new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") });
  for (const [err, named] of [[new StreamableHTTPError(500, "oops"), "StreamableHTTPError (500)"], [fetchFailed, "TypeError"], [new Error("Not connected"), "Error"]]) {
    const calls = [
      () => tw.toolResultMessage({ id: "c1", name: "t" }, err, "anthropic"),
      () => tw.toolResultMessages([{ id: "c1", name: "t" }], [err], "openai"),
      () => tw.flattenContent(err),
    ];
    for (const call of calls) {
      assert.throws(call, (e) => {
        assert.equal(e.code, "INVALID_INPUT");
        assert.ok(e.message.includes(`got an error, ${named}, not a result: the call failed`), e.message);
        assert.match(e.message, /\{isError: true, content: \[\{type: "text", text: error\.message\}\]\}$/);
        return true;
      });
    }
  }
  // An Error that carries a result is still read as one.
  const carrying = Object.assign(new Error("x"), { content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(tw.toolResultMessage({ id: "c1", name: "t" }, carrying, "anthropic").content, [{ type: "text", text: "hi" }]);
});

test("a URL in place of an image's base64 data is kept in the text the model sees", () => {
  const url = "https://charts.example.com/render/q3.png?sig=abc";
  const result = { content: [{ type: "text", text: "Chart rendered." }, { type: "image", data: url, mimeType: "image/png" }] };
  const placeholder = `[Image: image/png, ${url} (not sent: a URL, not base64 data)]`;
  assert.equal(tw.flattenContent(result), `Chart rendered.\n${placeholder}`);
  assert.equal(tw.toolResultMessage({ id: "c1", name: "t" }, result, "openai").content, `Chart rendered.\n${placeholder}`);
  assert.deepEqual(tw.toolResultMessage({ id: "c1", name: "t" }, result, "anthropic").content, [{ type: "text", text: `Chart rendered.\n${placeholder}` }]);
});

test("a cap given as -Infinity is refused in JS's words, and a result's JSON text is told to be parsed", () => {
  for (const key of ["maxChars", "maxImageSide"]) {
    assert.throws(() => tw.toolResultMessage({ id: "c1", name: "t" }, { content: [] }, "openai", { [key]: -Infinity }),
      { code: "INVALID_OPTIONS", message: new RegExp(`options\\.${key} must be a non-negative integer, or Infinity for no cap; got -Infinity$`) });
  }
  for (const f of [() => tw.flattenContent('{"content":[]}'), () => tw.toolResultMessage({ id: "c1", name: "t" }, '{"content":[]}', "openai")]) {
    assert.throws(f, { code: "INVALID_INPUT", message: /got a string of JSON text: pass JSON\.parse\(text\)/ });
  }
});

test("null for a boolean result option is its default, as it is for a cap", () => {
  const shot = { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
  for (const key of ["imageMessage", "multimodal", "bedrockStatus", "maxChars"]) {
    for (const provider of ["openai", "openai-responses", "bedrock"]) {
      assert.deepEqual(tw.toolResultMessage({ id: "c1", name: "t" }, shot, provider, { [key]: null }), tw.toolResultMessage({ id: "c1", name: "t" }, shot, provider), `${key} ${provider}`);
    }
  }
  assert.throws(() => tw.toolResultMessage({ id: "c1", name: "t" }, shot, "openai", { multimodal: "yes" }), { code: "INVALID_OPTIONS", message: /options\.multimodal has the wrong type/ });
});

test("ToolCallAccumulator: another provider's tool call is refused naming it; an event's class getters are not read", () => {
  const acc = new tw.ToolCallAccumulator("bedrock");
  const claude = { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "ping", input: {} } };
  const enc = (o) => ({ chunk: { bytes: new TextEncoder().encode(JSON.stringify(o)) } });
  for (const event of [claude, enc(claude)]) {
    assert.throws(() => acc.push(event), (e) => e.code === "INVALID_INPUT" && e.looksLike === "Anthropic" && /InvokeModelWithResponseStream/.test(e.message));
  }
  assert.throws(() => acc.push(undefined), { code: "INVALID_INPUT", message: /got undefined$/ });
  // A Gemini SDK's chunk, a class whose `data` getter warns on the console each time it is read.
  let reads = 0;
  class Chunk {
    constructor(o) { Object.assign(this, o); }
    get data() { reads++; return undefined; }
  }
  const gemini = new tw.ToolCallAccumulator("gemini");
  const calls = gemini.push(new Chunk({ candidates: [{ index: 0, content: { role: "model", parts: [{ functionCall: { name: "ping", args: {} } }] }, finishReason: "STOP" }] }));
  assert.deepEqual([...calls, ...gemini.finish()].map((c) => c.providerName), ["ping"]);
  assert.equal(reads, 0);
});
