// A developer's usual mistakes through the built package: each is a ToolwireError with a stable code and a
// message that says what was wrong and how to fix it (never a silently empty result), or, where the intent is
// unambiguous, it works.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";
import vm from "node:vm";
import { spawnSync } from "node:child_process";
import { refusedBy } from "./shared.mjs";

const tools = [{ name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string", description: "Ville é" } }, required: ["city"] } }];

/** `fn` (sync or async) throws a ToolwireError with `code` whose message matches `re`; the module works on. */
const refused = (fn, code, re) => refusedBy(tw, fn, code, re);

/** An Anthropic stream calling get_weather with a city of non-ASCII characters, as SSE text. */
function anthropicStream() {
  const events = [
    { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], model: "c" } },
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city": "Zürich 東京 🌧"}' } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "tool_use" } },
    { type: "message_stop" },
  ];
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

test("ToolCallAccumulator.push takes UTF-8 bytes, a character split between chunks joined again", () => {
  const text = anthropicStream();
  const bytes = new TextEncoder().encode(text);
  const expected = (() => {
    const acc = new tw.ToolCallAccumulator("anthropic");
    const calls = [...acc.push(text), ...acc.finish()];
    return JSON.stringify(calls);
  })();
  assert.match(expected, /Zürich 東京 🌧/);
  // Every cut, inside the multi-byte characters too, as Uint8Array, Buffer and ArrayBuffer.
  const start = bytes.indexOf(0xc3); // the ü
  for (let cut = start - 1; cut < start + 14; cut++) {
    for (const wrap of [(b) => b, (b) => Buffer.from(b), (b) => b.slice().buffer]) {
      const acc = new tw.ToolCallAccumulator("anthropic");
      const calls = [...acc.push(wrap(bytes.slice(0, cut))), ...acc.push(wrap(bytes.slice(cut))), ...acc.finish()];
      assert.equal(JSON.stringify(calls), expected, `cut at ${cut}`);
      acc.free();
    }
  }
  // A DataView over part of a buffer reads that part only.
  const padded = new Uint8Array(bytes.length + 8);
  padded.set(bytes, 4);
  const acc = new tw.ToolCallAccumulator("anthropic");
  const calls = [...acc.push(new DataView(padded.buffer, 4, bytes.length)), ...acc.finish()];
  assert.equal(JSON.stringify(calls), expected);
  // Bytes that are not UTF-8 read as U+FFFD, not an error; a sequence the stream never finished too.
  const bad = new tw.ToolCallAccumulator("anthropic");
  assert.deepEqual(bad.push(new Uint8Array([0x3a, 0x20, 0xff, 0x0a, 0x0a, 0x3a, 0x20])), []);
  bad.push(new Uint8Array([0xe6]));
  assert.deepEqual(bad.finish(), []);
  // A stream cut inside a character after a call opened: finish() says the stream ended with text that is no
  // event (INVALID_JSON), and the next finish() gives the open call (not lost with the error).
  const cutText = anthropicStream();
  const open = cutText.slice(0, cutText.indexOf("content_block_stop"));
  const cut = new tw.ToolCallAccumulator("anthropic");
  cut.push(new TextEncoder().encode(open.slice(0, open.lastIndexOf("\n\n") + 2)));
  cut.push(new Uint8Array([0xe2, 0x82]));
  assert.throws(() => cut.finish(), { code: "INVALID_JSON" });
  const ended = cut.finish();
  assert.equal(ended.length, 1, JSON.stringify(ended));
});

test("bytes of another realm (node:vm, a Jest or vitest environment, an iframe) and a SharedArrayBuffer are bytes wherever bytes are taken, never the event {} (s26d F1)", async () => {
  const text = anthropicStream();
  const bytes = new TextEncoder().encode(text);
  const expected = (() => {
    const acc = new tw.ToolCallAccumulator("anthropic");
    return JSON.stringify([...acc.push(text), ...acc.finish()]);
  })();
  const inRealm = (ctor) => {
    const b = vm.runInNewContext(`new ${ctor}(n)`, { n: bytes.length });
    new Uint8Array(ctor === "Uint8Array" ? b.buffer : b).set(bytes);
    return b;
  };
  const shared = () => {
    const b = new SharedArrayBuffer(bytes.length);
    new Uint8Array(b).set(bytes);
    return b;
  };
  const chunks = { "other realm's ArrayBuffer": inRealm("ArrayBuffer"), "other realm's Uint8Array": inRealm("Uint8Array"), SharedArrayBuffer: shared() };
  for (const [label, chunk] of Object.entries(chunks)) {
    const acc = new tw.ToolCallAccumulator("anthropic");
    assert.equal(JSON.stringify([...acc.push(chunk), ...acc.finish()]), expected, label);
    acc.free();
  }
  // Where JSON text is taken as a Uint8Array, one of another realm is taken too.
  const json = new TextEncoder().encode(JSON.stringify(tools));
  const foreign = vm.runInNewContext("new Uint8Array(n)", { n: json.length });
  foreign.set(json);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(tw.convertMcpToolsJson(foreign, "openai"))), tw.convertMcpTools(tools, "openai"));
  // Where bytes are no value, they are refused as bytes.
  for (const b of [chunks["other realm's ArrayBuffer"], chunks.SharedArrayBuffer]) {
    await refused(() => tw.parseToolCalls(b, "openai"), "INVALID_INPUT", /is bytes \(an? (Shared)?ArrayBuffer\), not a JSON value/);
  }
  // A fetch body whose chunks are such bytes reads as bytes.
  const body = (id) => JSON.stringify({ jsonrpc: "2.0", id, result: id === 0 ? { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "f", version: "1" } } : { tools: [{ name: "echo", inputSchema: { type: "object" } }] } });
  for (const make of [(b) => vm.runInNewContext("new Uint8Array(b).buffer", { b: [...b] }), (b) => { const s = new SharedArrayBuffer(b.length); new Uint8Array(s).set(b); return s; }]) {
    const fetch = async (_url, init) => {
      const m = JSON.parse(init.body);
      if (m.id === undefined) return new Response(null, { status: 202 });
      let done = false;
      const chunk = make(new TextEncoder().encode(body(m.id)));
      const read = async () => (done ? { done: true } : ((done = true), { done: false, value: chunk }));
      return { status: 200, ok: true, headers: new Headers({ "content-type": "application/json" }), body: { getReader: () => ({ read, cancel: async () => {}, releaseLock() {} }) } };
    };
    const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
    await client.connect();
    assert.deepEqual((await client.listTools()).map((t) => t.name), ["echo"]);
    await client.close().catch(() => {});
  }
});

test("a shared memory's buffer is bytes where no SharedArrayBuffer global exists (a browser page without cross-origin isolation; s30c F3)", () => {
  // Chromium gives a page without COOP/COEP no SharedArrayBuffer global, yet a shared WebAssembly.Memory's buffer is
  // one: as in such a page, the global is deleted before the package loads.
  const script = `
    delete globalThis.SharedArrayBuffer;
    const tw = await import(process.env.PKG);
    const sharedOf = (bytes) => {
      const b = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer.slice(0, bytes.length);
      new Uint8Array(b).set(bytes);
      return b;
    };
    const out = { global: typeof SharedArrayBuffer };
    const acc = new tw.ToolCallAccumulator("anthropic");
    out.calls = [...acc.push(sharedOf(new TextEncoder().encode(process.env.STREAM))), ...acc.finish()].map((c) => c.tool);
    out.parse = await Promise.resolve().then(() => tw.parseToolCalls(sharedOf(new Uint8Array(2)), "openai")).then(() => "parsed", (e) => e.code + ": " + e.message);
    // A fetch body whose chunks are such bytes.
    const body = (id) => JSON.stringify({ jsonrpc: "2.0", id, result: id === 0 ? { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "f", version: "1" } } : { tools: [{ name: "echo", inputSchema: { type: "object" } }] } });
    const fetch = async (_url, init) => {
      const m = JSON.parse(init.body);
      if (m.id === undefined) return new Response(null, { status: 202 });
      let done = false;
      const chunk = sharedOf(new TextEncoder().encode(body(m.id)));
      const read = async () => (done ? { done: true } : ((done = true), { done: false, value: chunk }));
      return { status: 200, ok: true, headers: new Headers({ "content-type": "application/json" }), body: { getReader: () => ({ read, cancel: async () => {}, releaseLock() {} }) } };
    };
    const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
    out.tools = await client.connect().then(() => client.listTools()).then((t) => t.map((t) => t.name), (e) => e.code + ": " + e.message);
    await client.close().catch(() => {});
    console.log(JSON.stringify(out));`;
  const env = { ...process.env, PKG: new URL("../../pkg/index.mjs", import.meta.url).href, STREAM: anthropicStream() };
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.global, "undefined");
  assert.deepEqual(out.calls, ["get_weather"], "the stream's call, not [] from the buffer read as the event {}");
  assert.match(out.parse, /^INVALID_INPUT: .*is bytes \(a SharedArrayBuffer\), not a JSON value/);
  assert.deepEqual(out.tools, ["echo"]);
});

test("plain data is told from bytes without a thrown exception: push, parseToolCalls, flattenContent and convertMcpTools throw and catch nothing (s26r F1)", async () => {
  const { Session } = await import("node:inspector");
  const session = new Session();
  session.connect();
  let thrown = 0;
  session.on("Debugger.paused", () => {
    thrown++;
    session.post("Debugger.resume");
  });
  session.post("Debugger.enable");
  session.post("Debugger.setPauseOnExceptions", { state: "all" });
  const calls = [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }];
  const counted = (fn) => {
    thrown = 0;
    fn();
    return thrown;
  };
  try {
    const acc = new tw.ToolCallAccumulator("openai");
    assert.equal(counted(() => acc.push({ choices: [{ index: 0, delta: { content: "hi" } }] })), 0, "push");
    acc.free();
    assert.equal(counted(() => tw.parseToolCalls(calls, "openai")), 0, "parseToolCalls of an array");
    assert.equal(counted(() => tw.flattenContent([{ type: "text", text: "x" }])), 0, "flattenContent");
    assert.equal(counted(() => tw.convertMcpTools(tools, "openai")), 0, "convertMcpTools");
  } finally {
    session.post("Debugger.setPauseOnExceptions", { state: "none" });
    session.disconnect();
  }
  // The tag only picks the candidates: an object that says it is an ArrayBuffer is no bytes.
  const spoofed = { [Symbol.toStringTag]: "ArrayBuffer", choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: calls } }] };
  assert.deepEqual(tw.parseToolCalls(spoofed, "openai").map((c) => c.tool), ["get_weather"]);
});

test("text with an integer written as a double (an index 0.0, a name map's version 1.0) reads as the object JSON.parse makes of it (s26d F3)", () => {
  for (const idx of ["0.0", "-0", "1.0", "0e0", "1E0"]) {
    const chunk = `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0.0,"delta":{"tool_calls":[{"index":${idx},"id":"c1","type":"function","function":{"name":"ok","arguments":"{\\"n\\":2.0}"}}]},"finish_reason":"tool_calls"}]}`;
    const fromText = new tw.ToolCallAccumulator("openai");
    const fromObject = new tw.ToolCallAccumulator("openai");
    const calls = [...fromText.push(`data: ${chunk}\n\n`), ...fromText.finish()];
    assert.deepEqual(calls, [...fromObject.push(JSON.parse(chunk)), ...fromObject.finish()], idx);
    assert.equal(calls.length, 1, idx);
    assert.deepEqual(fromText.message(), fromObject.message(), idx);
    const completion = chunk.replace("chat.completion.chunk", "chat.completion").replace('"delta"', '"message"');
    assert.deepEqual(tw.parseToolCalls(completion, "openai"), tw.parseToolCalls(JSON.parse(completion), "openai"), idx);
  }
  const map = tw.NameMap.fromTools([{ name: "get" }], "openai");
  const text = JSON.stringify(map).replace(/"version":1/, '"version":1.0');
  assert.match(text, /"version":1\.0/);
  assert.equal(tw.NameMap.fromJSON(text).resolve("get").tool, "get");
});

test("ToolCallAccumulator.push refuses a Promise and a Map instead of reading {}", async () => {
  const acc = new tw.ToolCallAccumulator("anthropic");
  await refused(() => acc.push(Promise.resolve({ type: "ping" })), "INVALID_INPUT", /did you forget await\?/);
  await refused(() => acc.push(new Map([["type", "ping"]])), "INVALID_INPUT", /Object\.fromEntries/);
  assert.deepEqual(acc.push({ type: "ping" }), []);
});

test("a plain object (of Object.prototype, of none, of another realm) is refused as a thenable, a stream, bytes or an SDK's result as any other", () => {
  const call = { id: "c1", name: "get_weather" };
  const result = { content: [{ type: "text", text: "sunny" }] };
  const bare = (o) => Object.assign(Object.create(null), o);
  const other = (o) => vm.runInNewContext(`(${JSON.stringify(o)})`);
  for (const [label, make] of [["plain", (o) => ({ ...o })], ["null prototype", bare], ["another realm", other]]) {
    assert.equal(tw.toolResultMessage(make(call), make(result), "openai").content, "sunny", label);
    assert.deepEqual(new tw.ToolCallAccumulator("anthropic").push(make({ type: "ping" })), [], label);
    const then = Object.assign(make(result), { then() {} });
    assert.throws(() => tw.toolResultMessage(call, then, "openai"), { code: "INVALID_INPUT", message: /result is a Promise: did you forget await\?/ }, label);
    assert.throws(() => new tw.ToolCallAccumulator("anthropic").push(Object.assign(make({ type: "ping" }), { then() {} })), { code: "INVALID_INPUT", message: /stream event is a Promise/ }, label);
    for (const stream of [{ getReader() {} }, { [Symbol.asyncIterator]() {} }]) {
      assert.throws(() => tw.toolResultMessage(call, Object.assign(make(result), stream), "openai"), { code: "INVALID_INPUT", message: /result is a stream/ }, label);
      assert.throws(() => new tw.ToolCallAccumulator("anthropic").push(Object.assign(make({}), stream)), { code: "INVALID_INPUT", message: /stream event is a stream, not one of its events/ }, label);
    }
    const holder = Object.assign(make({ $metadata: {} }), { stream: (async function* () {})() });
    assert.throws(() => new tw.ToolCallAccumulator("bedrock").push(holder), { code: "INVALID_INPUT", message: /push each event of its stream/ }, label);
    const gemini = make({ response: { candidates: [] } });
    assert.throws(() => new tw.ToolCallAccumulator("gemini").push(gemini), { code: "INVALID_INPUT", message: /push result\.response/ }, label);
  }
  // Bytes given Object.prototype or no prototype are bytes still.
  for (const proto of [Object.prototype, null]) {
    const bytes = Object.setPrototypeOf(new TextEncoder().encode("{}"), proto);
    assert.throws(() => tw.toolResultMessage(call, bytes, "openai"), { code: "INVALID_INPUT", message: /result is bytes/ }, String(proto));
  }
});

test("results: a hub's callTool result and a JSON-RPC response are unwrapped; what is no result is refused", async () => {
  const call = { id: "c1", name: "get_weather" };
  const result = { content: [{ type: "text", text: "sunny" }] };
  const hubResult = { result, text: "sunny", isError: false, server: "w", tool: "get_weather" };
  assert.equal(tw.toolResultMessage(call, hubResult, "openai").content, "sunny");
  assert.equal(tw.flattenContent({ jsonrpc: "2.0", id: 1, result }), "sunny");
  assert.equal(tw.flattenContent(hubResult), "sunny");
  // Results without content that are results all the same.
  assert.equal(tw.flattenContent({ structuredContent: { t: 21 } }), '{"t":21}');
  assert.equal(tw.toolResultMessage(call, { isError: true }, "anthropic").is_error, true);
  assert.equal(tw.flattenContent({ toolResult: "old protocol" }), "old protocol");
  await refused(() => tw.toolResultMessage(call, Promise.resolve(result), "openai"), "INVALID_INPUT", /did you forget await\?/);
  await refused(() => tw.flattenContent(Promise.resolve(result)), "INVALID_INPUT", /await/);
  // A result without content and without anything else is a result without output, as the SDKs read it.
  assert.equal(tw.flattenContent({}), "");
  assert.equal(tw.toolResultMessage(call, { _meta: { k: 1 } }, "anthropic").content[0].text, "(no output)");
  await refused(() => tw.toolResultMessage(call, { output: "sunny" }, "openai"), "INVALID_INPUT", /without content \(its keys: output\)/);
  await refused(() => tw.flattenContent({ jsonrpc: "2.0", id: 1, error: { code: -1, message: "no" } }), "INVALID_INPUT", /JSON-RPC error response/);
  await refused(() => tw.flattenContent({ task: { taskId: "t" } }), "INVALID_INPUT", /task/);
});

test("values JSON would turn into {} are refused, saying what to pass", async () => {
  await refused(() => tw.convertMcpTools(tools, "openai", new Map([["server", "w"]])), "INVALID_OPTIONS", /options is a Map.*Object\.fromEntries/);
  await refused(() => tw.convertMcpTools(Promise.resolve(tools), "openai"), "INVALID_INPUT", /tools is a Promise: did you forget await\?/);
  await refused(() => tw.convertMcpTools(new Set(tools), "openai"), "INVALID_INPUT", /\[\.\.\.set\]/);
  await refused(() => tw.convertMcpTools(new Response("[]"), "openai"), "INVALID_INPUT", /await res\.json\(\)/);
  await refused(() => tw.convertMcpTools(new TextEncoder().encode("[]"), "openai"), "INVALID_INPUT", /bytes \(a Uint8Array\).*TextDecoder/);
  await refused(() => new tw.PermissionPolicy(new Map([["deny", ["*"]]])), "INVALID_OPTIONS", /policy is a Map/);
  await refused(() => new tw.McpHub(new Map([["a", { url: "http://127.0.0.1:1/mcp" }]])), "INVALID_INPUT", /servers is a Map/);
  await refused(() => tw.toolsSystemPrompt(tools, { template: new Map() }), "INVALID_OPTIONS", /options\.template is a Map/);
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: { maxDepth: NaN } }), "INVALID_OPTIONS", /options\.limits\.maxDepth .*got NaN/);
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: { maxStringBytes: Infinity } }), "INVALID_OPTIONS", /got Infinity/);
  class Options {
    get server() {
      return "w";
    }
  }
  await refused(() => tw.convertMcpTools(tools, "openai", new Options()), "INVALID_OPTIONS", /instance of Options whose server is a getter/);
  await refused(() => tw.convertMcpTools(tools, "openai", Object.create({ strict: true })), "INVALID_OPTIONS", /inherits strict from its prototype/);
  // A getter that throws is JSON.stringify's INVALID_JSON, as before.
  await refused(() => tw.convertMcpTools(tools, "openai", { get server() { throw new Error("boom"); } }), "INVALID_JSON", /boom/);
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: { get maxDepth() { throw new Error("boom"); } } }), "INVALID_JSON", /boom/);
  const names = tw.NameMap.fromTools(tools, "openai");
  await refused(() => names.prepareArguments("get_weather", Promise.resolve({ city: "x" })), "INVALID_INPUT", /await/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp").callTool("echo", new Map([["a", 1]])), "INVALID_INPUT", /arguments is a Map/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp").callTool("echo", Promise.resolve({})), "INVALID_INPUT", /await/);
});

test("an object in the options is read as the options are: its inherited values and getters refused (rv2 F4)", async () => {
  class Limits {
    get maxTools() {
      return 1;
    }
  }
  // A limit JSON does not see would be no limit at all.
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: Object.create({ maxTools: 1 }) }), "INVALID_OPTIONS", /^options\.limits inherits maxTools from its prototype, which JSON does not see/);
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: new Limits() }), "INVALID_OPTIONS", /^options\.limits is an instance of Limits whose maxTools is a getter/);
  const hub = new tw.McpHub({ a: { url: "http://127.0.0.1:1/mcp" } });
  await refused(() => hub.tools("openai", { limits: Object.create({ maxTools: 1 }) }), "INVALID_OPTIONS", /options\.limits inherits maxTools/);
  await refused(() => hub.tools("openai", { limits: new Limits() }), "INVALID_OPTIONS", /options\.limits is an instance of Limits/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { clientInfo: Object.create({ name: "x", version: "1" }) }), "INVALID_OPTIONS", /options\.clientInfo inherits name, version/);
  // At any depth of the prototype chain: two Object.create levels, a grandparent class's prototype.
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: Object.create(Object.create({ maxTools: 1 })) }), "INVALID_OPTIONS", /^options\.limits inherits maxTools from its prototype/);
  class Base {}
  Base.prototype.maxTools = 1;
  class Sub extends Base {}
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: new Sub() }), "INVALID_OPTIONS", /^options\.limits inherits maxTools from its prototype/);
  await refused(() => tw.convertMcpTools(tools, "openai", Object.create(Object.create({ limits: { maxTools: 1 } }))), "INVALID_OPTIONS", /^options inherits limits from its prototype/);
  // An ES5-style class's methods are enumerable on its prototype: no values, not refused (rG F6).
  function Es5() {
    this.maxTools = 5;
  }
  Es5.prototype.describe = function () {
    return "limits";
  };
  function Es5Sub() {
    Es5.call(this);
  }
  Es5Sub.prototype = Object.create(Es5.prototype);
  assert.equal(tw.convertMcpTools(tools, "openai", { limits: new Es5Sub() }).length, 1);
  // An own value that is not enumerable (Object.defineProperty's default) is no more seen by JSON.
  const hidden = Object.defineProperty({}, "strict", { value: true });
  await refused(() => tw.convertMcpTools(tools, "openai", hidden), "INVALID_OPTIONS", /^options\.strict is not enumerable, which JSON does not see/);
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: Object.defineProperties({}, { maxTools: { value: 1 }, maxDepth: { get: () => 2 } }) }), "INVALID_OPTIONS", /^options\.limits\.maxTools, options\.limits\.maxDepth are not enumerable/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", Object.defineProperty({}, "timeoutMs", { value: 5 })), "INVALID_OPTIONS", /timeoutMs is not enumerable/);
  // A framework's hidden marker (Vue's markRaw: `__v_skip`) is no option: taken (s22r F3).
  const raw = (o) => Object.defineProperty(o, "__v_skip", { value: true });
  assert.equal(tw.convertMcpTools(tools, "openai", raw({ strict: true, limits: raw({ maxTools: 5 }) }))[0].function.strict, true);
  new tw.McpClient("http://127.0.0.1:1/mcp", raw({ headers: raw({ a: "b" }) })).free();
  // A method that is not enumerable is no value: taken.
  assert.equal(tw.convertMcpTools(tools, "openai", Object.defineProperty({ strict: false }, "describe", { value() {} })).length, 1);
  // A Proxy that makes a new prototype each time it is asked ends (rG F5).
  const endless = () => new Proxy({}, { getPrototypeOf: () => endless() });
  tw.convertMcpTools(tools, "openai", { limits: endless() });
  // A class instance whose values are its own is read as a plain object is.
  class Own {
    constructor() {
      this.maxTools = 1;
    }
  }
  await refused(() => tw.convertMcpTools([...tools, { name: "other", inputSchema: { type: "object" } }], "openai", { limits: new Own() }), "LIMIT_EXCEEDED");
  assert.equal(tw.convertMcpTools(tools.slice(0, 1), "openai", { limits: new Own() }).length, 1);
});

test("options that are not an object are refused, not read as none", async () => {
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", "sse"), "INVALID_OPTIONS", /options must be an object, got the string "sse"/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp").connect("now"), "INVALID_OPTIONS", /options must be an object/);
  await refused(() => new tw.McpHub({ a: { url: "http://127.0.0.1:1/mcp" } }, "x"), "INVALID_OPTIONS", /options must be an object/);
  await refused(() => tw.toolResultMessage({ id: "c", name: "t" }, { content: [] }, "openai", 5), "INVALID_OPTIONS", /got the number 5/);
});

test("McpHub: an unknown option key is refused with the one meant; a PermissionPolicy is taken as its config", async () => {
  const servers = { a: { url: "http://127.0.0.1:1/mcp" } };
  await refused(() => new tw.McpHub(servers, { polcy: { deny: ["*"] } }), "INVALID_OPTIONS", /no key "polcy": did you mean policy\?/);
  await refused(() => new tw.McpHub({ a: { url: "http://127.0.0.1:1/mcp", timeout: 300 } }), "INVALID_OPTIONS", /^servers\.a\.timeout is the MCP SDK's name: toolwire's is servers\.a\.timeoutMs/);
  await refused(() => new tw.McpHub({ a: "http://127.0.0.1:1/mcp" }), "INVALID_INPUT", /servers\.a must be an object \{url, headers\?, \.\.\.\}, got the string/);
  const policy = new tw.PermissionPolicy({ deny: ["mcp__a__*"] });
  assert.deepEqual(JSON.parse(JSON.stringify(policy)), { deny: ["mcp__a__*"] });
  const hub = new tw.McpHub(servers, { policy });
  hub.free();
  await refused(() => new tw.McpHub(servers).listTools({ mode: "manual" }), "INVALID_OPTIONS", /selectedServers, which is not given/);
  await refused(() => new tw.McpHub(servers).listTools({ mode: "manual", selectedServer: ["a"] }), "INVALID_OPTIONS", /did you mean selectedServers\?/);
  await refused(() => new tw.McpHub(servers).listTools({ timeoutMs: NaN }), "INVALID_OPTIONS", /got NaN/);
});

test("McpClient options: headers as Headers, a Map or pairs are sent; the SDK's timeout and NaN are refused", async () => {
  for (const headers of [new Headers({ authorization: "Bearer t" }), new Map([["Authorization", "Bearer t"]]), [["authorization", "Bearer t"]], { Authorization: "Bearer t" }]) {
    let seen = null;
    const fetch = async (_url, init) => {
      seen = new Headers(init.headers).get("authorization");
      throw new TypeError("stop here");
    };
    const client = new tw.McpClient("http://127.0.0.1:1/mcp", { headers, fetch });
    await refused(() => client.connect(), "NETWORK");
    assert.equal(seen, "Bearer t", `headers given as ${headers.constructor.name}`);
    client.free();
  }
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { headers: [["a"]] }), "INVALID_OPTIONS", /\[name, value\] pair/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { headers: { "x-n": 5 } }), "INVALID_OPTIONS", /header "x-n" must be a string, got number$/);
  // The headers the client sets from the session, the version or the body are not the app's.
  for (const name of ["Mcp-Session-Id", "mcp-protocol-version", "Last-Event-ID", "Mcp-Method", "Mcp-Name", "Mcp-Param-Region"]) {
    await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { headers: new Map([[name, "x"]]) }), "INVALID_OPTIONS", new RegExp(`"${name.toLowerCase()}" is a header MCP's client sets itself`));
    await refused(() => new tw.McpHub({ a: { url: "http://127.0.0.1:1/mcp", headers: { [name]: "x" } } }), "INVALID_OPTIONS", /servers\.a\.headers: .* is a header MCP's client sets itself/);
  }
  new tw.McpClient("http://127.0.0.1:1/mcp", { headers: { "mcp-gateway": "x", "x-mcp-param": "y" } }).free();
  // Nor may onUnauthorized return them: the request is not sent again with them.
  let sent = 0;
  const unauthorized = async () => (sent++, new Response("", { status: 401 }));
  const locked = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch: unauthorized, onUnauthorized: () => ({ "MCP-Protocol-Version": "1999-01-01" }) });
  await refused(() => locked.connect(), "INVALID_OPTIONS", /the onUnauthorized result: "mcp-protocol-version" is a header MCP's client sets itself/);
  assert.equal(sent, 1, "not sent again");
  locked.free();
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { timeout: 300 }), "INVALID_OPTIONS", /toolwire's is options\.timeoutMs/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { timeoutMs: NaN }), "INVALID_OPTIONS", /timeoutMs must be a .*got NaN/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { header: {} }), "INVALID_OPTIONS", /did you mean headers\?/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp").callTool("echo", {}, { timeoutMs: NaN }), "INVALID_OPTIONS", /got NaN/);
});

test("a custom fetch that resolves to no Response is NETWORK naming what it gave, not a redirect", async () => {
  const cases = [
    [async () => undefined, /fetch function resolved to undefined, not a Response/],
    [async () => "oops", /fetch function resolved to the string "oops", not a Response/],
    [async () => Response.error(), /fetch function resolved to a network error \(a Response of type "error"/],
    [async () => ({ status: "200", headers: new Headers(), body: null, arrayBuffer: async () => new ArrayBuffer(0) }), /whose status is the string "200", not an HTTP status/],
    [async () => ({ status: 0, type: "opaque", headers: new Headers(), body: null }), /status 0 and type "opaque"/],
  ];
  for (const [fetch, re] of cases) {
    const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
    const e = await refused(() => client.connect(), "NETWORK", re);
    assert.doesNotMatch(e.message, /redirect/);
    client.free();
  }
  // A browser's redirect not followed (status 0, type opaqueredirect) is still reported as a redirect.
  const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch: async () => ({ status: 0, type: "opaqueredirect", headers: new Headers(), body: null }) });
  await refused(() => client.connect(), "HTTP_STATUS", /redirected/);
  client.free();
});

test("McpClient URLs are read as the runtime's URL parser reads them, at construction", async () => {
  await refused(() => new tw.McpClient("http://"), "INVALID_INPUT", /not a valid URL/);
  await refused(() => new tw.McpClient("http://exa mple.com/mcp"), "INVALID_INPUT", /not a valid URL/);
  await refused(() => new tw.McpClient("ftp://example.com/mcp"), "INVALID_INPUT", /must be http\(s\)/);
  // What fetch refuses is refused before any request, not a NETWORK error (pD 3): credentials in the URL (the
  // password not repeated), a header value past U+00FF, a header name that is no HTTP token.
  for (const url of ["http://user:s3cret@127.0.0.1:1/mcp", "http://user@127.0.0.1:1/mcp"]) {
    const e = await refused(() => new tw.McpClient(url), "INVALID_INPUT", /^url holds a user name or password/);
    assert.doesNotMatch(e?.message ?? "", /s3cret/);
  }
  await refused(() => new tw.McpHub({ a: { url: "http://u:p@127.0.0.1:1/mcp" } }), "INVALID_OPTIONS", /servers\.a\.url holds a user name or password.* in servers\.a\.headers \(Authorization\)$/);
  // Protocol-relative, and a URL that does not parse: the password is never shown (rG F4).
  await refused(() => new tw.McpClient("//u:s3cret@127.0.0.1:1/mcp"), "INVALID_INPUT", /^url holds a user name or password/);
  for (const url of ["http://u:s3cret@127.0.0.1:99999/mcp", "ftp://u:s3cret@127.0.0.1/mcp"]) {
    const e = await refused(() => new tw.McpClient(url), "INVALID_INPUT");
    assert.doesNotMatch(e.message, /s3cret/);
    assert.match(e.message, /…@127\.0\.0\.1/);
  }
  // A control character but tab in a header value, which fetch refuses (rG F3).
  for (const value of ["a\u0001b", "a\u007fb", "a\u001bb"]) {
    await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { headers: { "x-a": value } }), "INVALID_OPTIONS", /header "x-a" has characters a header cannot carry/);
  }
  new tw.McpClient("http://127.0.0.1:1/mcp", { headers: { "x-tab": "a\tb" } }).free();
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { headers: { authorization: "Bearer ключ" } }), "INVALID_OPTIONS", /^options\.headers: header "authorization" holds "к" \(U\+043A\), which fetch refuses/);
  await refused(() => new tw.McpClient("http://127.0.0.1:1/mcp", { headers: { "x(y)": "1" } }), "INVALID_OPTIONS", /header "x\(y\)" has characters a header cannot carry/);
  new tw.McpClient("http://127.0.0.1:1/mcp", { headers: { "x-latin": "café" } }).free();
  await refused(() => new tw.McpClient(42), "INVALID_INPUT", /must be a string or a URL, got the number 42/);
  let asked = null;
  const fetch = async (url) => {
    asked = String(url);
    throw new TypeError("fetch failed");
  };
  for (const url of ["HTTP://127.0.0.1:1/mcp", new URL("http://127.0.0.1:1/mcp")]) {
    const client = new tw.McpClient(url, { fetch });
    const e = await refused(() => client.connect(), "NETWORK");
    assert.equal(asked, "http://127.0.0.1:1/mcp");
    // Node has no CORS: the hint is for browsers only.
    assert.doesNotMatch(e.message, /CORS/);
    assert.match(e.message, /unreachable/);
    client.free();
  }
});

test("a tool's schema under another key, as text, or a converted tool fed back is INVALID_TOOL with the fix", async () => {
  const schema = { type: "object", properties: { q: { type: "string" } } };
  for (const provider of ["openai", "gemini", "anthropic"]) {
    await refused(() => tw.convertMcpTools([{ name: "s", input_schema: schema }], provider), "INVALID_TOOL", /found input_schema .*MCP names it inputSchema/);
    await refused(() => tw.convertMcpTools([{ name: "s", parameters: schema }], provider), "INVALID_TOOL", /found parameters/);
    await refused(() => tw.convertMcpTools([{ name: "s", inputschema: schema }], provider), "INVALID_TOOL", /found "inputschema": MCP names it inputSchema/);
    await refused(() => tw.convertMcpTools([{ name: "s", inputSchema: JSON.stringify(schema) }], provider), "INVALID_TOOL", /inputSchema is a string of JSON text: JSON\.parse it/);
    await refused(() => tw.convertMcpToolsJson(JSON.stringify([{ name: "s", input_schema: schema }]), provider), "INVALID_TOOL", /input_schema/);
  }
  const openai = tw.convertMcpTools(tools, "openai");
  await refused(() => tw.convertMcpTools(openai, "anthropic"), "INVALID_TOOL", /OpenAI's format/);
  await refused(() => tw.processJsonSchema(JSON.stringify(schema)), "INVALID_INPUT", /JSON\.parse/);
  // A tool without any schema still takes no parameters.
  assert.equal(tw.convertMcpTools([{ name: "bare" }], "openai").length, 1);
});

test("toolsSystemPrompt: a template without {{tools}}, or with instructions, is refused; {{ tools }} works", async () => {
  await refused(() => tw.toolsSystemPrompt(tools, { template: "You have tools." }), "INVALID_OPTIONS", /no \{\{tools\}\}/);
  await refused(() => tw.toolsSystemPrompt(tools, { template: "T: {{tools}}", instructions: "Be brief" }), "INVALID_OPTIONS", /instructions is not used with options\.template/);
  assert.match(tw.toolsSystemPrompt(tools, { template: "Tools:\n{{ tools }}" }), /get_weather/);
});

test("messages quote at most 100 characters of what was given", async () => {
  const huge = JSON.stringify(tools).repeat(20_000);
  const e = await refused(() => tw.convertMcpToolsJson("[]", huge), "UNKNOWN_PROVIDER");
  assert.ok(e.message.length < 400, `${e.message.length} characters`);
  const names = tw.NameMap.fromTools(tools, "openai");
  const u = await refused(() => names.resolve("x".repeat(5_000_000)), "UNKNOWN_TOOL_NAME", /5000000 characters in all/);
  assert.ok(u.message.length < 400);
});

test("UNKNOWN_PROVIDER names the provider meant and the accepted ones", async () => {
  for (const [given, meant] of [["claude", "anthropic"], ["Gemini", "gemini"], ["open-ai", "openai"], ["openai_responses", "openai-responses"], ["antropic", "anthropic"]]) {
    await refused(() => tw.convertMcpTools(tools, given), "UNKNOWN_PROVIDER", new RegExp(`did you mean "${meant}"\\?`));
    await refused(() => tw.parseToolCalls({}, given), "UNKNOWN_PROVIDER", new RegExp(`did you mean "${meant}"\\?`));
    await refused(() => tw.toolResultMessage({ id: "c", name: "t" }, { content: [] }, given), "UNKNOWN_PROVIDER", /the providers are openai, /);
  }
});

test("a ToolwireError's message survives JSON.stringify", async () => {
  const e = await refused(() => tw.convertMcpTools(tools, "nope"), "UNKNOWN_PROVIDER");
  const json = JSON.parse(JSON.stringify(e));
  assert.equal(json.message, e.message);
  assert.equal(json.code, "UNKNOWN_PROVIDER");
  assert.equal(json.name, "ToolwireError");
  assert.match(String(e), /^ToolwireError: unknown provider/);
});

test("PermissionPolicy: regular-expression patterns and a string for the tool are refused", async () => {
  await refused(() => new tw.PermissionPolicy({ deny: ["mcp__db__.*"] }), "INVALID_OPTIONS", /looks like a regular expression.*globs/);
  await refused(() => new tw.PermissionPolicy({ allow: ["^mcp__docs__"] }), "INVALID_OPTIONS", /globs/);
  const policy = new tw.PermissionPolicy({ allow: ["mcp__db__*"] });
  await refused(() => policy.check("mcp__db__q", "readOnly"), "INVALID_INPUT", /readOnlyHint/);
  assert.equal(policy.check("mcp__db__q", { readOnlyHint: true }), "allow");
});

test("wording: a call in the SDK's form, arguments as text, the argument order, a detailed result as a map", async () => {
  const client = new tw.McpClient("http://127.0.0.1:1/mcp");
  await refused(() => client.callTool({ name: "echo", arguments: {} }), "INVALID_INPUT", /callTool\(name, args\), here callTool\("echo", \.\.\.\)/);
  await refused(() => client.callTool("echo", '{"message":"hi"}'), "INVALID_ARGUMENTS", /got the string .*JSON\.parse it.*tool "echo"/);
  const hub = new tw.McpHub({ a: { url: "http://127.0.0.1:1/mcp" } });
  await refused(() => hub.callTool({ providerName: "mcp__a__echo", arguments: {} }), "INVALID_INPUT", /pass call\.providerName/);
  const detailed = tw.convertMcpToolsDetailed(tools, "openai");
  await refused(() => tw.parseToolCalls({ choices: [] }, detailed.nameMap, "openai"), "INVALID_INPUT", /provider must be a string, got an object: the arguments' order\?/);
  await refused(() => tw.convertMcpTools("openai", [{ name: "a" }]), "INVALID_INPUT", /provider must be a string, got an array: the arguments' order\? convertMcpTools\(tools, provider\)/);
  await refused(() => tw.NameMap.fromJSON(detailed), "INVALID_INPUT", /pass its \.nameMap/);
  await refused(() => tw.convertMcpTools(undefined, "openai"), "INVALID_INPUT", /got undefined/);
  // A byte order mark before JSON text is no part of it.
  assert.equal(JSON.parse(tw.convertMcpToolsJson("\ufeff" + JSON.stringify(tools), "openai")).length, 1);
  assert.equal(JSON.parse(new TextDecoder().decode(tw.convertMcpToolsJson(new TextEncoder().encode("\ufeff" + JSON.stringify(tools)), "openai"))).length, 1);
  // Too deep for the engine's JSON.stringify: LIMIT_EXCEEDED says it nests too deep.
  let deep = {};
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  await refused(() => tw.processJsonSchema(deep), "LIMIT_EXCEEDED", /nests too deep/);
});

test("McpClient's option errors say what the option must be and what it was", async () => {
  const url = "http://127.0.0.1:1/mcp";
  await refused(() => new tw.McpClient(url, { era: "2025" }), "INVALID_OPTIONS", /^options\.era must be "auto", "legacy" or "modern", got the string "2025"$/);
  await refused(() => new tw.McpClient(url, { maxRetries: -1 }), "INVALID_OPTIONS", /^options\.maxRetries must be an integer from 0 to 100, got the number -1$/);
  await refused(() => new tw.McpClient(url, { maxPages: "5" }), "INVALID_OPTIONS", /^options\.maxPages must be a positive integer up to 2\^53 - 1, or Infinity for no limit, got the string "5"$/);
  await refused(() => new tw.McpClient(url, { listen: 1 }), "INVALID_OPTIONS", /^options\.listen must be a boolean or \{onEnd\?\}, got the number 1$/);
  await refused(() => new tw.McpClient(url).callTool("echo", {}, { signal: {} }), "INVALID_OPTIONS", /^options\.signal must be an AbortSignal, got an object$/);
  await refused(() => new tw.McpHub({}).listTools({ enabled: "no" }), "INVALID_OPTIONS", /^options\.enabled must be a boolean, got the string "no"$/);
});

test("a stream cut right after a call started gives the call INVALID_ARGUMENTS, not {} (every provider, as Gemini)", () => {
  const cut = {
    openai: [{ object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "delete_files", arguments: "" } }] }, finish_reason: null }] }],
    "openai-responses": [
      { type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } },
      { type: "response.output_item.added", output_index: 0, item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "delete_files", arguments: "", status: "in_progress" } },
    ],
    anthropic: [
      { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [] } },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "call_1", name: "delete_files", input: {} } },
    ],
    bedrock: [{ messageStart: { role: "assistant" } }, { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: "call_1", name: "delete_files" } } } }],
  };
  for (const [provider, events] of Object.entries(cut)) {
    for (const asText of [false, true]) {
      const acc = new tw.ToolCallAccumulator(provider);
      for (const e of events) acc.push(asText ? `data: ${JSON.stringify(e)}\n\n` : e);
      const [call, ...rest] = acc.finish();
      assert.equal(rest.length, 0);
      assert.equal(call.id, "call_1");
      assert.equal(call.arguments, null, provider);
      assert.equal(call.error?.code, "INVALID_ARGUMENTS", provider);
      assert.match(call.error.message, /incomplete: the stream ended before any of them came/);
    }
  }
});

test("a call the output limit cut (max_tokens, length) is INVALID_ARGUMENTS, in a response and in a stream, not a good call", () => {
  const cut = (c) => c.error?.code === "INVALID_ARGUMENTS" && c.arguments === null && /output reached its limit/.test(c.error.message);
  const anthropic = { id: "msg_1", type: "message", role: "assistant", stop_reason: "max_tokens",
    content: [{ type: "tool_use", id: "toolu_0", name: "read_file", input: { file_path: "/a" } }, { type: "tool_use", id: "toolu_1", name: "write_file", input: { file_path: "/etc/app.conf" } }] };
  const [first, last] = tw.parseToolCalls(anthropic, "anthropic");
  assert.ok(!first.error && cut(last));
  assert.ok(!tw.parseToolCalls({ ...anthropic, stop_reason: "tool_use" }, "anthropic")[1].error);
  const bedrock = { stopReason: "max_tokens", output: { message: { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_1", name: "write_file", input: { file_path: "/etc/app.conf" } } }] } } };
  assert.ok(cut(tw.parseToolCalls(bedrock, "bedrock")[0]));
  const chat = { choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "write_file", arguments: "" } }] } }] };
  assert.ok(cut(tw.parseToolCalls(chat, "openai")[0]));
  // Streamed: the block closed with what it had, then message_delta says max_tokens.
  const acc = new tw.ToolCallAccumulator("anthropic");
  const calls = [];
  for (const e of [
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [] } },
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "write_file", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"file_path":"/etc/app.conf"}' } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 4096 } },
    { type: "message_stop" },
  ]) calls.push(...acc.push(e));
  calls.push(...acc.finish());
  assert.equal(calls.length, 1);
  assert.ok(cut(calls[0]));
  const chatStream = new tw.ToolCallAccumulator("openai");
  chatStream.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write_file", arguments: '{"file_path":"/x"}' } }] } }] });
  const [streamed] = chatStream.push({ choices: [{ index: 0, delta: {}, finish_reason: "length" }] });
  assert.ok(cut(streamed));
});

test("Chat's legacy function_call is INVALID_INPUT naming it, not [] (parseToolCalls and the accumulator)", () => {
  const completion = { object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: null, function_call: { name: "get_weather", arguments: '{"city":"Paris"}' } }, finish_reason: "function_call" }] };
  assert.throws(() => tw.parseToolCalls(completion, "openai"), { code: "INVALID_INPUT", path: "/choices/0/message/function_call" });
  const acc = new tw.ToolCallAccumulator("openai");
  assert.throws(() => acc.push({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", function_call: { name: "get_weather", arguments: "" } } }] }), { code: "INVALID_INPUT", path: "/choices/0/delta/function_call" });
  assert.deepEqual(acc.finish(), []);
});

test("a number JSON cannot hold (NaN, Infinity) in a response or event object is INVALID_INPUT, as its text is refused, not null", () => {
  const gemini = { candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "t", args: { a: Infinity, b: NaN, c: 1 } } }] }, finishReason: "STOP", index: 0 }] };
  assert.throws(() => tw.parseToolCalls(gemini, "gemini"), { code: "INVALID_INPUT", message: /response\.candidates\[0\]\.content\.parts\[0\]\.functionCall\.args\.a is Infinity/ });
  const acc = new tw.ToolCallAccumulator("gemini");
  assert.throws(() => acc.push(gemini), { code: "INVALID_INPUT", message: /stream event\.candidates.*args\.a is Infinity/ });
  assert.deepEqual([...acc.push({ ...gemini, candidates: [{ ...gemini.candidates[0], content: { role: "model", parts: [{ functionCall: { name: "t", args: { c: 1, d: null } } }] } }] }), ...acc.finish()].map((c) => c.arguments), [{ c: 1, d: null }]);
  const chunk = { object: "chat.completion.chunk", choices: [{ index: 0, finish_reason: "tool_calls", delta: { tool_calls: [{ index: NaN, id: "c1", type: "function", function: { name: "t", arguments: "{}" } }] } }] };
  assert.throws(() => new tw.ToolCallAccumulator("openai").push(chunk), { code: "INVALID_INPUT", message: /index is NaN/ });
  assert.deepEqual(tw.parseToolCalls(undefined, "openai"), []);
});

test("flat options are read at once as their JSON, and options only like them are still checked", async () => {
  const text = JSON.stringify(tools);
  for (const [provider, options] of [["openai", { server: "s", strict: true }], ["gemini", { server: "s", geminiMode: "parametersJsonSchema", portableNames: true }], ["anthropic", {}]]) {
    assert.equal(tw.convertMcpToolsJson(text, provider, options), tw.convertMcpToolsJson(text, provider, JSON.stringify(options)));
  }
  // A toJSON that writes other keys than the object's (here hiding a function).
  await refused(() => tw.convertMcpToolsJson(text, "openai", { server: "s", strict: () => true, toJSON: () => ({ server: "s", strict: true, prefix: true }) }), "INVALID_OPTIONS", /options\.strict must be a JSON value/);
  await refused(() => tw.convertMcpToolsJson(text, "openai", { server: "s", strict: NaN }), "INVALID_OPTIONS", /options\.strict must be a finite number, got NaN/);
  await refused(() => tw.convertMcpToolsJson(text, "openai", { server: "a\ud800" }), "INVALID_OPTIONS", /lone UTF-16 surrogate/);
  await refused(() => tw.convertMcpToolsJson(text, "openai", Object.defineProperty({}, "server", { value: "s" })), "INVALID_OPTIONS", /options\.server is not enumerable/);
  await refused(() => tw.convertMcpToolsJson(text, "openai", { server: "s", [Symbol.asyncIterator]() {} }), "INVALID_OPTIONS", /stream/);
  await refused(() => tw.convertMcpToolsJson(text, "openai", Object.setPrototypeOf(new Uint8Array([1]), Object.prototype)), "INVALID_OPTIONS", /bytes/);
  // What a plain object inherits from a polluted Object.prototype.
  Object.defineProperty(Object.prototype, "getReader", { value() {}, configurable: true });
  try {
    assert.throws(() => tw.convertMcpToolsJson(text, "openai", { server: "s" }), { code: "INVALID_OPTIONS", message: /options is a stream/ });
  } finally {
    delete Object.prototype.getReader;
  }
  assert.equal(tw.convertMcpToolsJson(text, "openai", { server: "s" }), tw.convertMcpToolsJson(text, "openai", '{"server":"s"}'));
  // A value JSON writes as a string or a number though it is an object: refused as the checks
  // refuse it, whatever keys sit beside it (`strict: undefined` is one the quick reading leaves).
  const toJSON = () => "s";
  const lookAlikes = [
    [Object.assign(Promise.resolve("s"), { toJSON }), /options\.server is a Promise/],
    [new URL("http://x"), /options\.server is an instance of URL/],
    [new String("s"), /options\.server\.length is not enumerable/],
    [Object.assign(() => {}, { toJSON }), /options\.server must be a JSON value/],
    [Object.assign(new Map(), { toJSON }), /options\.server is a Map/],
    [Object.assign(new Uint8Array([1]), { toJSON }), /options\.server is bytes/],
    [Object.assign(new Error("e"), { toJSON }), /options\.server/],
  ];
  for (const [server, message] of lookAlikes) {
    for (const options of [{ server }, { server, strict: undefined }]) {
      await refused(() => tw.convertMcpToolsJson(text, "openai", options), "INVALID_OPTIONS", message);
      await refused(() => tw.convertMcpTools(tools, "openai", options), "INVALID_OPTIONS", message);
      await refused(() => tw.checkTools(tools, "openai", options), "INVALID_OPTIONS", message);
    }
  }
});

test("a part of a response pushed (an SDK's contentBlock or message event, an output item, a Converse message) is INVALID_INPUT pointing at parseToolCalls, not [] and an empty turn (s31c F1)", async () => {
  const toolUse = { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } };
  const chatCall = { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
  const cases = [
    ["anthropic", toolUse, /Anthropic content block \(`type: "tool_use"`\)/],
    ["anthropic", { role: "assistant", content: [toolUse] }, /Anthropic message/],
    ["openai", { role: "assistant", content: null, refusal: null, tool_calls: [chatCall] }, /Chat message/],
    ["openai", chatCall, /one tool call of a message's `tool_calls`/],
    ["ollama", { role: "assistant", content: "", tool_calls: [{ function: { name: "get_weather", arguments: { city: "Paris" } } }] }, /Ollama chat message/],
    ["openai-responses", { type: "function_call", id: "fc_1", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" }, /Responses output item/],
    ["bedrock", { role: "assistant", content: [{ toolUse: { toolUseId: "tu_1", name: "get_weather", input: { city: "Paris" } } }] }, /Bedrock message/],
  ];
  for (const [provider, part, what] of cases) {
    assert.equal(tw.parseToolCalls(part, provider).length, 1, provider);
    const acc = new tw.ToolCallAccumulator(provider);
    const empty = acc.message();
    await refused(() => acc.push(part), "INVALID_INPUT", what);
    await refused(() => acc.push(part), "INVALID_INPUT", /a part of a response, not a stream event: push the stream's own events .*parseToolCalls/);
    await refused(() => acc.push(JSON.stringify(part)), "INVALID_INPUT", what);
    assert.deepEqual(acc.finish(), []);
    assert.deepEqual(acc.message(), empty);
  }
  // The stream's own events are read as before; and an accumulator's message() is no event either.
  const acc = new tw.ToolCallAccumulator("anthropic");
  const calls = [
    { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], model: "c" } },
    { type: "content_block_start", index: 0, content_block: toolUse },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "tool_use" } },
    { type: "message_stop" },
  ].flatMap((e) => acc.push(e));
  assert.deepEqual(calls.map((c) => c.arguments), [{ city: "Paris" }]);
  await refused(() => new tw.ToolCallAccumulator("anthropic").push(acc.message()), "INVALID_INPUT", /Anthropic message/);
});

test("a number JSON cannot hold (Infinity, NaN) in a tool is INVALID_JSON at its place, never sent as the null JSON.stringify writes", async () => {
  const tool = (extra) => ({ name: "pick", inputSchema: { type: "object", properties: { n: { type: "number", ...extra } } } });
  const ok = { name: "ok", inputSchema: { type: "object", properties: { v: { type: ["string", "null"], default: null, enum: ["a", null] } } } };
  for (const [extra, at, got] of [
    [{ default: Infinity }, ".inputSchema.properties.n.default", "Infinity"],
    [{ enum: [1, NaN] }, ".inputSchema.properties.n.enum[1]", "NaN"],
    [{ const: -Infinity }, ".inputSchema.properties.n.const", "-Infinity"],
    [{ examples: [[1, Infinity]] }, ".inputSchema.properties.n.examples[0][1]", "Infinity"],
  ]) {
    const message = new RegExp(`^tool at index 1${at.replace(/[.[\]]/g, "\\$&")} is ${got}, a number JSON cannot hold \\(JSON\.stringify writes null\\)`);
    for (const provider of ["openai", "gemini", "anthropic"]) {
      await refused(() => tw.convertMcpTools([ok, tool(extra)], provider), "INVALID_JSON", message);
      await refused(() => tw.convertMcpToolsDetailed({ tools: [ok, tool(extra)] }, provider), "INVALID_JSON", message);
      await refused(() => tw.NameMap.fromTools([ok, tool(extra)], provider), "INVALID_JSON", message);
    }
    // checkTools reports that tool and checks the others.
    const report = tw.checkTools([ok, tool(extra)], "gemini");
    assert.deepEqual(report.tools.map((t) => t.tool), ["ok"]);
    assert.deepEqual(report.problems.map((p) => [p.path, p.rule]), [["/1", "tool/invalid"]]);
    assert.match(report.problems[0].message, message);
    await refused(() => tw.toolsSystemPrompt([ok, tool(extra)]), "INVALID_JSON", new RegExp(`^tools\\[1\\]${at.replace(/[.[\]]/g, "\\$&")} is ${got}`));
    await refused(() => tw.processJsonSchema(tool(extra).inputSchema), "INVALID_JSON", new RegExp(`^schema\\.properties\\.n\\.`));
  }
  // A null the tools hold as null is taken as ever, on every path (and Infinity outside the tools array is no tool's).
  const out = tw.convertMcpTools([ok], "openai");
  assert.deepEqual(out[0].function.parameters.properties.v.enum, ["a", null]);
  assert.deepEqual(tw.convertMcpTools({ tools: [ok], nextCursor: null, ttl: Infinity }, "openai"), out);
  assert.equal(tw.checkTools([ok], "openai").problems.length, 0);
  assert.ok(tw.toolsSystemPrompt([ok]).includes("## ok"));
  // A schema keyword's name in a value is a value's; a key JSON.stringify writes escaped, or beside a toJSON that is
  // no function, is read as it wrote it.
  for (const [extra, at] of [
    [{ default: { maximum: Infinity } }, ".default.maximum"],
    [{ enum: [{ minLength: NaN }] }, ".enum[0].minLength"],
    [{ default: { "\ud800": Infinity } }, ".default["],
    [{ default: { toJSON: 5, x: -Infinity } }, ".default.x"],
  ]) {
    const e = await refused(() => tw.convertMcpTools([tool(extra)], "openai"), "INVALID_JSON", /a number JSON cannot hold/);
    assert.ok(e.message.startsWith(`tool at index 0.inputSchema.properties.n${at}`) && /\b(-?Infinity|NaN), a number/.test(e.message), e.message);
  }
  // Strings are read as strings, however long and whatever they hold (quotes and backslashes escaped, a control
  // character, brackets, commas, the word null): the place found is the number's.
  const noisy = (n) => ({
    name: "noisy",
    description: `a "quoted" null, {[ ]} \\ \\" \u0001 null${" and more".repeat(9)}`,
    inputSchema: { type: "object", properties: { 'k"\\,[null]': { type: "string", description: "null]}, [null" }, n } },
  });
  await refused(() => tw.convertMcpTools([noisy({ type: "number", default: Infinity })], "openai"), "INVALID_JSON", /^tool at index 0\.inputSchema\.properties\.n\.default is Infinity, a number/);
  assert.equal(tw.convertMcpTools([noisy({ type: ["number", "null"], default: null })], "openai")[0].function.parameters.properties.n.default, null);
  // An invalid Date, which JSON.stringify writes as null too; a valid one is its string.
  await refused(() => tw.convertMcpTools([tool({ default: new Date(NaN) })], "openai"), "INVALID_JSON", /^tool at index 0\.inputSchema\.properties\.n\.default is an invalid Date, which JSON\.stringify writes as null/);
  assert.equal(JSON.stringify(tw.convertMcpTools([tool({ default: new Date(0) })], "openai")[0].function.parameters.properties.n.default), '"1970-01-01T00:00:00.000Z"');
  // Many nulls, deep: each is looked up from its container (a null a read, not a walk from the root).
  let deep = new Array(3000).fill(null);
  for (let i = 0; i < 300; i++) deep = [deep];
  assert.equal(tw.checkTools([tool({ default: deep })], "openai").tools.length, 0, "past maxDepth, reported");
  // A bound given as Infinity is no bound: left out and reported where the conversion reports a bound that is no number.
  const bound = tw.convertMcpToolsDetailed([tool({ maximum: Infinity, minimum: 0 })], "openai");
  assert.deepEqual(bound.tools[0].function.parameters.properties.n, { type: "number", minimum: 0 });
  assert.ok(bound.report.tools[0].changes.some((c) => c.rule === "schema/bad-keyword-value" && c.path === "/properties/n/maximum"));
  const contains = tw.convertMcpToolsDetailed([{ name: "c", inputSchema: { type: "object", properties: { a: { type: "array", contains: { type: "string" }, maxContains: Infinity } } } }], "openai");
  assert.ok(contains.report.tools[0].changes.some((c) => c.rule === "schema/bad-keyword-value" && c.path === "/properties/a/maxContains"), JSON.stringify(contains.report));
});

test("a boxed Number (new Number(Infinity)) is checked as the number it holds, a boxed String or Boolean written as its value", async () => {
  const tool = (extra) => ({ name: "pick", inputSchema: { type: "object", properties: { n: { type: "number", ...extra } } } });
  const place = (at) => at.replace(/[.[\]]/g, "\\$&");
  for (const [extra, at, got] of [
    [{ default: new Number(Infinity) }, ".default", "Infinity"],
    [{ enum: [1, Object(NaN)] }, ".enum[1]", "NaN"],
    [{ const: Object(-Infinity) }, ".const", "-Infinity"],
    [{ examples: [[1, new Number(NaN)]] }, ".examples[0][1]", "NaN"],
    [{ default: { maximum: new Number(Infinity) } }, ".default.maximum", "Infinity"],
    [{ default: vm.runInNewContext("new Number(NaN)") }, ".default", "NaN"],
  ]) {
    const message = new RegExp(`^tool at index 0\\.inputSchema\\.properties\\.n${place(at)} is ${got}, a number JSON cannot hold \\(JSON\\.stringify writes null\\)`);
    for (const provider of ["openai", "gemini", "anthropic"]) {
      await refused(() => tw.convertMcpTools([tool(extra)], provider), "INVALID_JSON", message);
      await refused(() => tw.NameMap.fromTools([tool(extra)], provider), "INVALID_JSON", message);
    }
    const report = tw.checkTools([tool(extra)], "gemini");
    assert.deepEqual(report.problems.map((p) => [p.path, p.rule]), [["/0", "tool/invalid"]]);
    assert.match(report.problems[0].message, message);
    await refused(() => tw.toolsSystemPrompt([tool(extra)]), "INVALID_JSON", new RegExp(`^tools\\[0\\]\\.inputSchema\\.properties\\.n${place(at)} is ${got}`));
    await refused(() => tw.processJsonSchema(tool(extra).inputSchema), "INVALID_JSON", new RegExp(`^schema\\.properties\\.n${place(at)} is ${got}`));
  }
  // A schema's bound given boxed is the bound it holds: Infinity no bound, left out and reported; a finite one kept.
  const bound = tw.convertMcpToolsDetailed([tool({ maximum: new Number(Infinity), minimum: new Number(0) })], "openai");
  assert.deepEqual(bound.tools[0].function.parameters.properties.n, { type: "number", minimum: 0 });
  assert.ok(bound.report.tools[0].changes.some((c) => c.rule === "schema/bad-keyword-value" && c.path === "/properties/n/maximum"));
  // What JSON writes of a finite boxed Number, a boxed String or Boolean is taken as ever.
  const kept = tw.convertMcpTools([tool({ default: new Number(5), examples: [new String(""), new Boolean(false), null] })], "openai");
  assert.equal(JSON.stringify(kept[0].function.parameters.properties.n), '{"type":"number","default":5,"examples":["",false,null]}');
  // A tool call's arguments and the options are held to the same: the number a box holds.
  const map = tw.NameMap.fromTools([{ name: "t", inputSchema: { type: "object", properties: { x: {}, y: {}, z: {}, w: {} } } }], "openai");
  await refused(() => map.prepareArguments("t", { x: new Number(NaN) }), "INVALID_ARGUMENTS", /^arguments\.x is NaN, which JSON makes null/);
  assert.deepEqual(map.prepareArguments("t", { x: new Number(5), y: null, z: new Boolean(false), w: new String("") }), { x: 5, y: null, z: false, w: "" });
  await refused(() => tw.convertMcpTools([tool({})], "openai", { limits: { maxDepth: new Number(Infinity) } }), "INVALID_OPTIONS", /^options\.limits\.maxDepth must be an integer from 1 to 128, got Infinity$/);
  assert.equal(tw.convertMcpTools([tool({})], "openai", { limits: { maxDepth: new Number(8) } }).length, 1);
  const gemini = { candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "t", args: { a: new Number(Infinity) } } }] }, finishReason: "STOP", index: 0 }] };
  assert.throws(() => tw.parseToolCalls(gemini, "gemini"), { code: "INVALID_INPUT", message: /^response\.candidates\[0\]\.content\.parts\[0\]\.functionCall\.args\.a is Infinity, a number JSON cannot hold/ });
  // A boxed BigInt, which JSON.stringify cannot write: INVALID_JSON, as a BigInt is.
  const big = tool({ default: Object(1n) });
  await refused(() => tw.convertMcpTools([big], "gemini"), "INVALID_JSON", /^tool at index 0 cannot be represented as JSON: .*BigInt/);
  assert.deepEqual(tw.checkTools([big], "gemini").problems.map((p) => [p.path, p.rule]), [["/0", "tool/invalid"]]);
  await refused(() => tw.toolsSystemPrompt([big]), "INVALID_JSON", /BigInt/);
  await refused(() => tw.processJsonSchema(big.inputSchema), "INVALID_JSON", /BigInt/);
  await refused(() => map.prepareArguments("t", { x: Object(1n) }), "INVALID_JSON", /BigInt/);
});

test("a boxed Number is told by its slot, not its tag or prototype, and options read from JS take it as the number it holds", async () => {
  const map = tw.NameMap.fromTools([{ name: "t", inputSchema: { type: "object", properties: { x: {} } } }], "openai");
  const tagged = (tag) => Object.defineProperty(new Number(Infinity), Symbol.toStringTag, { value: tag });
  const boxes = [
    Object.assign(new Number(Infinity), { a: 1 }),
    Object.setPrototypeOf(new Number(Infinity), Object.prototype),
    Object.assign(Object.setPrototypeOf(new Number(Infinity), Object.prototype), { a: 1 }),
    tagged("Object"),
    tagged("Map"),
  ];
  for (const [i, box] of boxes.entries()) {
    assert.equal(JSON.stringify({ x: box }), '{"x":null}', `case ${i}`);
    // Read through Object.prototype's valueOf, a box without Number.prototype is NaN to JSON.
    await refused(() => map.prepareArguments("t", { x: box }), "INVALID_ARGUMENTS", /^arguments\.x is (Infinity|NaN), which JSON makes null/);
    await refused(() => tw.convertMcpTools([{ name: "p", inputSchema: { type: "object", properties: { n: { default: box } } } }], "openai"), "INVALID_JSON", /^tool at index 0\.inputSchema\.properties\.n\.default is (Infinity|NaN)/);
  }
  // A plain object named as a Number by its tag is a plain object.
  assert.deepEqual(map.prepareArguments("t", { x: { [Symbol.toStringTag]: "Number", a: null } }), { x: { a: null } });
  // Options read from JS as it holds them take a boxed Number as JSON and `limits` do.
  for (const key of ["timeoutMs", "idleTimeoutMs", "maxPages", "maxTools", "maxEventBytes", "maxResponseBytes", "maxRetries"]) {
    assert.ok(new tw.McpClient("http://127.0.0.1:9/mcp", { [key]: new Number(5) }), key);
    await refused(() => new tw.McpClient("http://127.0.0.1:9/mcp", { [key]: new Number(0.5) }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} must be`));
  }
  assert.deepEqual(tw.flattenContent([{ type: "text", text: "hello world" }], { maxChars: new Number(5) }), tw.flattenContent([{ type: "text", text: "hello world" }], { maxChars: 5 }));
  await refused(() => tw.flattenContent([{ type: "text", text: "x" }], { maxChars: new Number(-1) }), "INVALID_OPTIONS", /^options\.maxChars must be a non-negative integer/);
});

test("a list of results where one result is taken is INVALID_INPUT, never unknown blocks sent as a success; a result or response in the call's place says what it is", async () => {
  const call = { id: "c1", providerName: "mcp__fs__read" };
  const failed = { isError: true, content: [{ type: "text", text: "failed" }] };
  const listed = /expected a CallToolResult or a content array, got an array of results \(its item 0 has `content` and no `type`\): pass one result/;
  for (const provider of ["openai", "anthropic", "gemini", "bedrock"]) {
    await refused(() => tw.toolResultMessage(call, [failed], provider), "INVALID_INPUT", listed);
    await refused(() => tw.toolResultMessages([call], [[failed]], provider), "INVALID_INPUT", /^results\[0\]: expected a CallToolResult or a content array, got an array of results/);
    // The module goes on: the same result, given alone, is the error it is.
    assert.match(JSON.stringify(tw.toolResultMessage(call, failed, provider)), /failed/);
  }
  await refused(() => tw.flattenContent([failed]), "INVALID_INPUT", listed);
  await refused(() => tw.flattenContent([{ type: "text", text: "a" }, { structuredContent: { n: 1 } }]), "INVALID_INPUT", /its item 1 has `structuredContent`/);
  assert.equal(tw.flattenContent([{ type: "text", text: "a" }]), "a");
  assert.equal(tw.toolResultMessage(call, failed, "anthropic").is_error, true);

  // The arguments' order mistaken, or a response given for a call.
  await refused(() => tw.toolResultMessage(failed, call, "openai"), "INVALID_INPUT", /looks like a tool's result \(it has `content`\): the arguments' order\? toolResultMessage\(call, result, provider\)/);
  await refused(() => tw.toolResultMessages([failed], [call], "openai"), "INVALID_INPUT", /the arguments' order\?/);
  const completion = { choices: [{ index: 0, message: { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }] } }] };
  await refused(() => tw.toolResultMessage(completion, failed, "openai"), "INVALID_INPUT", /a provider's response or message \(it has `choices`\), which holds calls: parseToolCalls\(response, provider, nameMap\)/);
  await refused(() => tw.toolResultMessage(completion.choices[0].message, failed, "openai"), "INVALID_INPUT", /\(it has `tool_calls`\)/);
});

test("tools of several servers: a nameless tool names its server; a refusal names what to change (duplicates, maxTools)", async () => {
  const merged = [
    ...tools.map((t) => ({ ...t, serverName: "weather" })),
    { name: "", description: "x", inputSchema: { type: "object" }, serverName: "rootly" },
    { name: "ok", inputSchema: { type: "object" }, serverName: "rootly" },
  ];
  for (const convert of [() => tw.convertMcpTools(merged, "openai"), () => tw.convertMcpToolsJson(JSON.stringify(merged), "openai")]) {
    const e = await refused(convert, "INVALID_TOOL", /^tool at index 1 \(server "rootly"\) has an empty name \(one tool of 3 fails the whole conversion: checkTools reports each/);
    assert.equal(e.server, "rootly");
  }
  assert.match(tw.checkTools(merged, "openai").problems.find((p) => p.rule === "tool/invalid").message, /tool at index 1 \(server "rootly"\) has an empty name/);
  const map = tw.NameMap.fromTools(tools, "openai").toJSON();
  await refused(() => tw.NameMap.fromJSON({ ...map, entries: [...map.entries, map.entries[0]] }), "INVALID_INPUT", /entries\[0\] and entries\[1\] are both named "get_weather"/);
  await refused(() => tw.convertMcpTools(merged, "openai", { limits: { maxTools: 2 } }), "LIMIT_EXCEEDED", /3 tools given, more than the limit of 2 \(limits\.maxTools: raise it/);
});

test("an https page's McpClient of an http URL that fetch refused: the NETWORK error says mixed content, not for loopback", async () => {
  const fetch = () => Promise.reject(new TypeError("Failed to fetch"));
  const had = Object.getOwnPropertyDescriptor(globalThis, "location");
  Object.defineProperty(globalThis, "location", { value: { protocol: "https:", href: "https://app.example/" }, configurable: true, writable: true });
  try {
    const e = await refused(() => new tw.McpClient("http://mcp.example.test/mcp", { fetch }).connect(), "NETWORK", /^initialize: no HTTP response \(TypeError: Failed to fetch; this page is served over https: and the URL is http:, which a browser blocks as mixed content/);
    assert.match(e.message, /serve the MCP server over https/);
    for (const url of ["http://127.0.0.1:9/mcp", "http://localhost:9/mcp", "https://mcp.example.test/mcp"]) {
      await refused(() => new tw.McpClient(url, { fetch }).connect(), "NETWORK", /^initialize: no HTTP response \(TypeError: Failed to fetch\)/);
    }
  } finally {
    if (had) Object.defineProperty(globalThis, "location", had);
    else delete globalThis.location;
  }
  // A page over http says nothing of it.
  await refused(() => new tw.McpClient("http://mcp.example.test/mcp", { fetch }).connect(), "NETWORK", /^initialize: no HTTP response \(TypeError: Failed to fetch\)/);
});

test("a freed McpClient or McpHub: its promise methods reject (a .catch() sees it), close() and closeAll() resolve, getters throw", async () => {
  const client = new tw.McpClient("http://127.0.0.1:9/mcp");
  const hub = new tw.McpHub({ a: { url: "http://127.0.0.1:9/mcp" } });
  client.free();
  hub.free();
  const freed = (name) => (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && e.message === `this ${name} was freed (free() was called on it): make a new one`;
  for (const call of [() => client.connect(), () => client.callTool("t", {}), () => client.listTools(), () => client.request("ping"), () => client.notify("notifications/roots/list_changed"), () => client.listAll("prompts/list"), () => client.listen()]) {
    let promise;
    assert.doesNotThrow(() => (promise = call()), String(call));
    await assert.rejects(promise, freed("McpClient"), String(call));
  }
  for (const call of [() => hub.tools("openai"), () => hub.callTool("t", {}), () => hub.listTools(), () => hub.request("a", "ping"), () => hub.listAll("a", "prompts/list"), () => hub.listen(), () => hub.notify("a", "notifications/roots/list_changed")]) {
    await assert.rejects(call(), freed("McpHub"), String(call));
  }
  assert.equal(await client.close(), undefined);
  assert.deepEqual(await hub.closeAll(), []);
  assert.throws(() => client.sessionId, freed("McpClient"));
  assert.throws(() => hub.nameMapFor("openai"), freed("McpHub"));
  client.free(); // a second free does nothing
  // The module works on.
  assert.equal(new tw.McpClient("http://127.0.0.1:9/mcp").sessionId, undefined);
});

test("a Promise, a Map or a Set inside a tool is refused naming its place, not converted as the {} JSON makes it", () => {
  const cases = [
    [{ name: "t", inputSchema: Promise.resolve({ type: "object" }) }, /tool at index \d\.inputSchema is a Promise, which JSON\.stringify writes as \{\}: await it first/],
    [{ name: "t", inputSchema: { type: "object", properties: new Map([["q", { type: "string" }]]) } }, /\.inputSchema\.properties is a Map, .*Object\.fromEntries/],
    [{ name: "t", inputSchema: { type: "object", properties: { a: { type: "string", enum: new Set(["x"]) } } } }, /\.inputSchema\.properties\.a\.enum is a Set, .*\[\.\.\.set\]/],
  ];
  for (const [tool, message] of cases) {
    assert.throws(() => tw.convertMcpTools([tool], "openai"), { code: "INVALID_JSON", message }, String(message));
    // Alone in a list of others, it is the one tool that fails: checkTools names it.
    const checked = tw.checkTools([{ name: "ok", inputSchema: { type: "object" } }, tool], "openai");
    assert.deepEqual(checked.tools.map((t) => t.tool), ["ok"]);
    assert.deepEqual(checked.problems.map((p) => [p.path, p.rule]), [["/1", "tool/invalid"]]);
    assert.match(checked.problems[0].message, message);
  }
  // Empty plain objects stay what they are: a schema that takes anything, an empty list of properties.
  const plain = tw.convertMcpTools([{ name: "t", inputSchema: { type: "object", properties: { a: {}, b: { type: "array", items: {} } } } }], "openai");
  assert.deepEqual(plain[0].function.parameters.properties.a, {});
});
