// What the package's surface promises (index.d.ts, README) against what it does, case by case: each test is one
// of the pQ probe's findings, and fails on the build before its fix.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";
import { refusedBy } from "./shared.mjs";

const refused = (fn, code, re) => refusedBy(tw, fn, code, re);

/** `depth` levels of `{type: "array", items: ...}`. */
function nested(depth) {
  let s = {};
  for (let i = 0; i < depth; i++) s = { type: "array", items: s };
  return s;
}

test("checkTools: a tool JSON.stringify cannot write is a tool/invalid problem at its index; the others keep their report (pQ 1)", async () => {
  const good = { name: "good", inputSchema: { type: "object", properties: { q: { type: "string" } } } };
  const deep = { name: "deep", inputSchema: { type: "object", properties: { a: nested(20_000) } } };
  const cyclic = { name: "cyclic", inputSchema: { type: "object", properties: {} } };
  cyclic.inputSchema.properties.self = cyclic.inputSchema;
  const big = { name: "big", inputSchema: { type: "object", default: 10n } };
  const throwing = { name: "throwing", toJSON() { throw new Error("no JSON here"); } };
  const tools = [good, deep, cyclic, big, throwing, { name: "last" }];
  const report = tw.checkTools(tools, "openai");
  assert.deepEqual(report.tools.map((t) => t.tool), ["good", "last"]);
  assert.deepEqual(report.problems.map((p) => [p.path, p.rule]), [["/1", "tool/invalid"], ["/2", "tool/invalid"], ["/3", "tool/invalid"], ["/4", "tool/invalid"]]);
  const said = report.problems.map((p) => p.message);
  assert.match(said[0], /^tool at index 1 cannot be represented as JSON: .*it nests too deep \(tool "deep", at \/1\)$/s);
  assert.match(said[1], /^tool at index 2 cannot be represented as JSON: .*circular.*\(tool "cyclic", at \/2\)$/is);
  assert.match(said[2], /^tool at index 3 cannot be represented as JSON: .*BigInt.*\(tool "big", at \/3\)$/s);
  assert.match(said[3], /^tool at index 4 cannot be represented as JSON: no JSON here \(tool "throwing", at \/4\)$/);
  // The report of the tools that could be written is theirs alone.
  assert.deepEqual(report.tools, tw.checkTools([good, { name: "last" }], "openai").tools);
  // Wrapped as a tools/list result, the same.
  assert.deepEqual(tw.checkTools({ result: { tools } }, "openai").problems, report.problems);
  // The conversions throw the tool's own error at its index, with its name, as for a tool past a limit; a tool
  // before it that cannot be read is the error, as ever.
  for (const convert of [(t) => tw.convertMcpTools(t, "openai"), (t) => tw.convertMcpToolsDetailed(t, "openai"), (t) => tw.NameMap.fromTools(t, "openai")]) {
    const e = await refused(() => convert(tools), "LIMIT_EXCEEDED", /nests too deep/);
    assert.deepEqual([e.path, e.tool], ["/1", "deep"]);
    const c = await refused(() => convert([good, cyclic]), "INVALID_JSON", /circular/i);
    assert.deepEqual([c.path, c.tool], ["/1", "cyclic"]);
    const first = await refused(() => convert([{ description: "no name" }, cyclic]), "INVALID_TOOL");
    assert.equal(first.path, "/0");
  }
  // A list whose own toJSON throws fails as a whole, as before.
  const list = [good];
  list.toJSON = () => { throw new Error("list"); };
  await refused(() => tw.checkTools(list, "openai"), "INVALID_JSON", /^tools cannot be represented as JSON: list/);
});

test("Gemini/Vertex: keyword values of the wrong kind are removed as schema/bad-keyword-value, not described (pQ 2)", () => {
  const tools = [{ name: "a", inputSchema: { type: "object", properties: {
    x: { type: "integer", minimum: 0, maximum: null },
    i: { type: "integer", maximum: Infinity },
    s: { type: "string", maxLength: -1, minLength: "3", pattern: 5 },
    n: { type: "number", multipleOf: 0 },
    ok: { type: "string", maxLength: 5 },
  } } }];
  for (const provider of ["gemini", "vertex"]) {
    const d = tw.convertMcpToolsDetailed(tools, provider);
    const p = d.tools[0].functionDeclarations[0].parameters.properties;
    assert.deepEqual(p.x, { type: "INTEGER", minimum: 0 });
    assert.deepEqual(p.i, { type: "INTEGER" });
    assert.deepEqual(p.s, { type: "STRING" });
    assert.deepEqual(p.n, { type: "NUMBER" });
    assert.deepEqual(p.ok, { type: "STRING", maxLength: "5" });
    const changes = d.report.tools[0].changes;
    assert.deepEqual(changes.filter((c) => c.rule === "schema/bad-keyword-value").map((c) => c.path), [
      "/properties/x/maximum", "/properties/i/maximum", "/properties/s/maxLength", "/properties/s/minLength", "/properties/s/pattern", "/properties/n/multipleOf",
    ]);
    assert.ok(!changes.some((c) => /not supported by Gemini/.test(c.message) && /maximum|maxLength|minLength|pattern|multipleOf/.test(c.message)), JSON.stringify(changes));
    // The JSON API gives the same tools.
    assert.equal(tw.convertMcpToolsJson(JSON.stringify(tools), provider), JSON.stringify(d.tools));
  }
});

test("convertMcpToolsJson and convertMcpTools give the model the same words whatever the numbers' spelling (pQ 3)", () => {
  const text = '[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"number","minimum":-0,"maximum":1.0,"multipleOf":0.50,"default":1e2},"e":{"type":"integer","enum":[1.0,2]}}}}]';
  const words = (tools) => JSON.stringify(tools, (k, v) => (typeof v === "number" ? undefined : v));
  for (const [provider, options] of [["gemini", {}], ["vertex", {}], ["anthropic", { strict: true }], ["bedrock", { strict: true }], ["openai", { strict: true }]]) {
    const fromText = JSON.parse(tw.convertMcpToolsJson(text, provider, options));
    const fromObjects = tw.convertMcpTools(JSON.parse(text), provider, options);
    // The same JSON values (-0.0 read back is -0, which JSON writes 0), and the same text (descriptions, Gemini's
    // enum strings).
    assert.equal(JSON.stringify(fromText), JSON.stringify(fromObjects), provider);
    assert.equal(words(fromText), words(fromObjects), provider);
    assert.doesNotMatch(words(fromText), /\d\.0\b|-0\b/, provider);
  }
  // A number past a double: the object path has JS's Infinity, which JSON makes null (removed, reported); the JSON
  // path refuses the text, naming where (as index.d.ts says).
  const huge = '[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"integer","maximum":1e400}}}}]';
  const d = tw.convertMcpToolsDetailed(JSON.parse(huge), "openai");
  assert.deepEqual(d.tools[0].function.parameters.properties.x, { type: "integer" });
  assert.ok(d.report.tools[0].changes.some((c) => c.rule === "schema/bad-keyword-value" && c.path === "/properties/x/maximum"));
  assert.throws(() => tw.convertMcpToolsJson(huge, "openai"), (e) => e.code === "INVALID_JSON" && /out of range/.test(e.message));
});

test("options: serverName and nameFormat are refused naming the option; naming functions refuse what they do not use (pQ 4)", async () => {
  const tools = [{ name: "search" }, { name: "fetch" }];
  await refused(() => tw.convertMcpTools(tools, "openai", { serverName: "gh" }), "INVALID_OPTIONS", /^options\.serverName is no option: the option is options\.server$/);
  await refused(() => tw.convertMcpToolsJson(JSON.stringify(tools), "openai", '{"nameFormat":"server"}'), "INVALID_OPTIONS", /^options\.nameFormat is no option: the option is options\.naming$/);
  assert.deepEqual(tw.convertMcpTools(tools, "openai", { server: "gh" }).map((t) => t.function.name), ["mcp__gh__search", "mcp__gh__fetch"]);
  const prefixKeys = "naming, separator, prefix, portableNames, provider";
  for (const key of ["server", "strict", "geminiMode", "limits"]) {
    const value = key === "limits" ? { maxTools: 1 } : key === "strict" ? true : key === "geminiMode" ? "parameters" : "gh";
    await refused(() => tw.prefixToolName(null, "t", { [key]: value }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of prefixToolName\\(\\) \\(its options are ${prefixKeys}\\)$`));
    await refused(() => tw.parseToolName("mcp__s__t", { [key]: value }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of parseToolName\\(\\)`));
  }
  await refused(() => tw.parseToolName("mcp__s__t", { provider: "gemini" }), "INVALID_OPTIONS", /^options\.provider is no option of parseToolName\(\) \(its options are naming, separator, prefix, portableNames\)$/);
  assert.equal(tw.prefixToolName("s", "t", { provider: "gemini", prefix: "x" }), "x__s__t");
  assert.deepEqual(tw.parseToolName("mcp__s__t", { someday: 1 }), { server: "s", tool: "t" });
  for (const [key, value] of [["limits", { maxTools: 1 }], ["strict", true], ["geminiMode", "parameters"]]) {
    await refused(() => tw.toolsSystemPrompt(tools, { [key]: value }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of toolsSystemPrompt\\(\\) \\(its options are naming, separator, prefix, portableNames, server, locale, template, instructions, provider, maxSchemaChars\\)$`));
  }
  assert.match(tw.toolsSystemPrompt(tools, { server: "gh", provider: "gemini" }), /## mcp__gh__fetch/);
});

test("McpClient reads a number past a double's range in a server message as the largest double, not as invalid JSON (s23g 4)", async () => {
  const json = (body) => new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  const fetch = async (url, init) => {
    const msg = JSON.parse(init.body ?? "null");
    if (msg?.method === "initialize") {
      return json(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } }));
    }
    if (msg?.method === "tools/list") {
      const huge = '{"name":"sci","inputSchema":{"type":"object","properties":{"x":{"type":"number","maximum":1e400,"minimum":-1e400}}}}';
      return json(`{"jsonrpc":"2.0","id":${msg.id},"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}},${huge}]}}`);
    }
    if (msg?.method === "tools/call") {
      const event = `{"jsonrpc":"2.0","id":${msg.id},"result":{"content":[{"type":"text","text":"1e400"}],"_meta":{"big":1e400}}}`;
      return new Response(`event: message\ndata: ${event}\n\n`, { status: 200, headers: { "content-type": "text/event-stream" } });
    }
    return new Response(null, { status: 202 });
  };
  const c = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch });
  await c.connect();
  const tools = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["ok", "sci"]);
  assert.deepEqual(tools[1].inputSchema.properties.x, { type: "number", maximum: Number.MAX_VALUE, minimum: -Number.MAX_VALUE });
  const r = await c.callTool("ok", {});
  assert.equal(r._meta.big, Number.MAX_VALUE);
  assert.equal(r.content[0].text, "1e400", "a string is not a number");
  await c.close();
});

/** A fetch answering `initialize` and taking notifications; `seen` gets every message sent. */
function server(seen = []) {
  return async (url, init) => {
    const msg = JSON.parse(init.body ?? "null");
    if (msg) seen.push(msg);
    if (msg && msg.method === "initialize") {
      const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } };
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }), { status: 200, headers: { "content-type": "application/json" } });
    }
    return new Response(null, { status: 202 });
  };
}

test("McpClient.connect() and notify() (the hub's too) refuse the options their types do not declare (pQ 5)", async () => {
  const seen = [];
  const c = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch: server(seen), capabilities: { roots: { listChanged: true } } });
  for (const key of ["onProgress", "resetTimeoutOnProgress", "maxTotalTimeoutMs", "meta", "bogus"]) {
    const value = key === "onProgress" ? () => {} : key === "meta" ? { traceId: "t1" } : key === "resetTimeoutOnProgress" ? true : 5;
    await refused(() => c.connect({ [key]: value }), "INVALID_OPTIONS", new RegExp(`^options has no key "${key}" \\(the keys are timeoutMs, signal\\)`));
  }
  // The SDK's name of an option connect() does not take either: the keys it takes, not onProgress.
  await refused(() => c.connect({ onprogress: () => {} }), "INVALID_OPTIONS", /^options has no key "onprogress" \(the keys are timeoutMs, signal\)/);
  assert.equal(seen.length, 0, "nothing sent");
  await c.connect({ timeoutMs: 5000 });
  for (const key of ["onProgress", "resetTimeoutOnProgress", "maxTotalTimeoutMs", "bogus"]) {
    const value = key === "onProgress" ? () => {} : key === "resetTimeoutOnProgress" ? true : 5;
    await refused(() => c.notify("notifications/roots/list_changed", null, { [key]: value }), "INVALID_OPTIONS", new RegExp(`^options has no key "${key}" \\(the keys are timeoutMs, signal, meta\\)`));
  }
  await c.notify("notifications/roots/list_changed", null, { meta: { traceId: "t2" } });
  assert.deepEqual(seen.at(-1).params?._meta, { traceId: "t2" });
  await c.close();
  const hub = new tw.McpHub({ a: { url: "http://127.0.0.1:9/mcp", fetch: server() } });
  const e = await refused(() => hub.notify("a", "notifications/roots/list_changed", null, { onProgress: () => {} }), "INVALID_OPTIONS", /^options has no key "onProgress" \(the keys are timeoutMs, signal, meta\)/);
  assert.equal(e.server, "a");
  await hub.closeAll();
});

test("McpHub.tools(): an unknown key inside limits is refused as its options' keys are; convertMcpTools' limits ignores it as its options do (pQ 6)", async () => {
  const hub = new tw.McpHub({ a: { url: "http://127.0.0.1:1/mcp", timeoutMs: 500 } });
  for (const limits of [{ maxToolCount: 5 }, { depth: 8 }]) {
    const key = Object.keys(limits)[0];
    await refused(() => hub.tools("openai", { limits }), "INVALID_OPTIONS", new RegExp(`^options\\.limits has no key "${key}" \\(the keys are maxDepth, maxNodes, maxRefUnroll, maxTools, maxStringBytes\\)`));
  }
  await refused(() => hub.tools("openai", { limits: { maxTool: 5 } }), "INVALID_OPTIONS", /did you mean maxTools\?/);
  await hub.closeAll();
  // One rule: `limits` follows the options it is in. The conversion's ignore a key near no option, in limits too.
  assert.equal(tw.convertMcpTools([{ name: "t" }], "openai", { limits: { maxToolCount: 5 }, someday: 1 }).length, 1);
  await refused(() => tw.convertMcpTools([{ name: "t" }], "openai", { limits: { maxTool: 5 } }), "INVALID_OPTIONS", /did you mean maxTools\?/);
});

test("NameMap.prepareArguments: errors name the tool (pQ 7)", async () => {
  const map = tw.NameMap.fromTools([{ name: "create_issue", serverName: "github" }], "openai");
  for (const args of ['{"title":', [1, 2], NaN, '"text"']) {
    const e = await refused(() => map.prepareArguments("mcp__github__create_issue", args), "INVALID_ARGUMENTS", /\(tool "create_issue"\)$/);
    assert.equal(e.tool, "create_issue");
  }
  // A name the map does not know has no tool to name.
  const e = await refused(() => map.prepareArguments("mcp__github__nope", {}), "UNKNOWN_TOOL_NAME");
  assert.equal(e.tool, undefined);
});

test("a prefix refused for its first character says how names start (pQ 8)", async () => {
  await refused(() => tw.convertMcpTools([{ name: "x" }], "gemini", { server: "s", prefix: "1abc" }), "INVALID_OPTIONS", /^options\.prefix "1abc" starts with '1', and Gemini's tool names start with a letter or `_`/);
  await refused(() => tw.prefixToolName("s", "t", { prefix: "_x", portableNames: true }), "INVALID_OPTIONS", /^options\.prefix "_x" starts with '_', and names every provider takes \(portableNames\) start with a letter/);
  assert.equal(tw.prefixToolName("s", "t", { prefix: "_x", provider: "gemini" }), "_x__s__t");
});

test("an empty prefix is refused where the separator, which then starts every name, cannot start one (rv2 F3)", async () => {
  await refused(() => tw.prefixToolName("s", "t", { prefix: "", portableNames: true }), "INVALID_OPTIONS", /^options\.prefix is empty, so the separator "__" starts every name with '_'/);
  for (const separator of ["-", "."]) {
    await refused(() => tw.convertMcpTools([{ name: "t" }], "gemini", { server: "s", prefix: "", separator }), "INVALID_OPTIONS", /Gemini's tool names start with a letter or `_`/);
  }
  // Where names may start with the separator: taken, and the name is not hashed.
  assert.equal(tw.prefixToolName("s", "t", { prefix: "" }), "__s__t");
  assert.equal(tw.prefixToolName("s", "t", { prefix: "", provider: "gemini" }), "__s__t");
});
