// Option keys, everywhere an options object is read: a misspelt key (one within did-you-mean distance of a
// known key) is INVALID_OPTIONS naming the key meant, never silently ignored. The conversion, content and prompt
// options ignore any other unknown key (so that code written for a newer version runs on this one); the MCP
// client's and hub's options refuse every key they do not know.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";
import { refusedBy } from "./shared.mjs";

const tools = [{ name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
const result = { content: [{ type: "text", text: "sunny and warm" }] };
const call = { id: "c1", name: "get_weather" };
const url = "http://127.0.0.1:1/mcp";

/** `fn` (sync or async) throws a ToolwireError with `code` whose message matches `re`; the module works on. */
const refused = (fn, code, re) => refusedBy(tw, fn, code, re);

/** The did-you-mean of a misspelt key: `options has no key "stict": did you mean strict?`. */
const meant = (given, key, what = "options") => new RegExp(`^${what.replace(".", "\\.")} has no key "${given}": did you mean ${key}\\?$`);

test("conversion options: a misspelt key is refused naming the key meant, in every entry point", async () => {
  const json = JSON.stringify(tools);
  const misspelt = [
    [{ stict: true }, "stict", "strict"],
    [{ namin: "bare" }, "namin", "naming"],
    [{ sever: "w" }, "sever", "server"],
    [{ portable_names: true }, "portable_names", "portableNames"],
    [{ geminimode: "jsonSchema" }, "geminimode", "geminiMode"],
    // A key with a word around it, as other libraries name a switch: ignored, strict mode would be off.
    [{ strictMode: true }, "strictMode", "strict"],
    [{ use_strict: true }, "use_strict", "strict"],
    [{ portableNamesEnabled: true }, "portableNamesEnabled", "portableNames"],
  ];
  for (const [options, given, key] of misspelt) {
    for (const [name, fn] of [
      ["convertMcpTools", () => tw.convertMcpTools(tools, "openai", options)],
      ["convertMcpToolsJson", () => tw.convertMcpToolsJson(json, "openai", options)],
      ["convertMcpToolsJson (options as JSON text)", () => tw.convertMcpToolsJson(json, "openai", JSON.stringify(options))],
      ["convertMcpToolsJson (bytes)", () => tw.convertMcpToolsJson(new TextEncoder().encode(json), "anthropic", options)],
      ["convertMcpToolsDetailed", () => tw.convertMcpToolsDetailed(tools, "gemini", options)],
      ["checkTools", () => tw.checkTools(tools, "openai", options)],
      ["NameMap.fromTools", () => tw.NameMap.fromTools(tools, "openai", options)],
      ["prefixToolName", () => tw.prefixToolName("s", "t", options)],
      ["parseToolName", () => tw.parseToolName("mcp__s__t", options)],
      ["toolsSystemPrompt", () => tw.toolsSystemPrompt(tools, options)],
    ]) {
      const e = await refused(fn, "INVALID_OPTIONS", meant(given, key));
      assert.ok(e.message.includes(key), `${name}: ${e.message}`);
    }
  }
  // limits, as given and as JSON text.
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: { maxDeph: 3 } }), "INVALID_OPTIONS", meant("maxDeph", "maxDepth", "options.limits"));
  await refused(() => tw.convertMcpToolsJson(json, "openai", '{"limits":{"max_nodes":9}}'), "INVALID_OPTIONS", meant("max_nodes", "maxNodes", "options.limits"));
  await refused(() => tw.checkTools(tools, "openai", { limits: { maxtools: 1 } }), "INVALID_OPTIONS", /did you mean maxTools\?/);
});

test("conversion options: a key near no option is ignored (forward compatibility), and the options it comes with apply", () => {
  const strict = tw.convertMcpTools(tools, "openai", { strict: true, futureOption: { a: 1 }, limits: { maxDepth: 8, futureLimit: 2 } });
  assert.equal(strict[0].function.strict, true);
  const text = tw.convertMcpToolsJson(JSON.stringify(tools), "openai", '{"strict":true,"futureOption":1}');
  assert.equal(JSON.parse(text)[0].function.strict, true);
  assert.equal(tw.convertMcpToolsDetailed(tools, "openai", { server: "w", x: 1 }).tools[0].function.name, "mcp__w__get_weather");
  assert.equal(tw.checkTools(tools, "openai", { someday: true }).tools.length, 1);
  assert.equal(tw.NameMap.fromTools(tools, "openai", { futureOption: 1 }).size, 1);
  assert.equal(tw.prefixToolName("s", "t", { naming: "bare", futureOption: 1 }), "t");
  assert.deepEqual(tw.parseToolName("mcp__s__t", { futureOption: 1 }), { server: "s", tool: "t" });
  // The keys toolsSystemPrompt reads itself are known, and are what a near miss is compared with.
  assert.match(tw.toolsSystemPrompt(tools, { template: "T:\n{{tools}}", provider: "openai", futureOption: 1 }), /^T:\n/);
  assert.match(tw.toolsSystemPrompt(tools, { locale: "zh-CN", instructions: "Be brief", naming: "bare" }), /Be brief/);
});

test("toolsSystemPrompt: a misspelt key of its own is refused naming it", async () => {
  await refused(() => tw.toolsSystemPrompt(tools, { temlate: "T: {{tools}}" }), "INVALID_OPTIONS", meant("temlate", "template"));
  await refused(() => tw.toolsSystemPrompt(tools, { instruction: "Be brief" }), "INVALID_OPTIONS", meant("instruction", "instructions"));
  await refused(() => tw.toolsSystemPrompt(tools, { local: "en" }), "INVALID_OPTIONS", meant("local", "locale"));
  await refused(() => tw.toolsSystemPrompt(tools, { provder: "openai" }), "INVALID_OPTIONS", meant("provder", "provider"));
  await refused(() => tw.prefixToolName("s", "t", { provder: "gemini" }), "INVALID_OPTIONS", meant("provder", "provider"));
});

test("flattenContent and toolResultMessage(s): a misspelt key is refused, another ignored", async () => {
  await refused(() => tw.flattenContent(result, { maxChar: 1 }), "INVALID_OPTIONS", meant("maxChar", "maxChars"));
  await refused(() => tw.toolResultMessage(call, result, "openai", { maxChar: 1 }), "INVALID_OPTIONS", meant("maxChar", "maxChars"));
  await refused(() => tw.toolResultMessage(call, result, "anthropic", { maxMediaByte: 10 }), "INVALID_OPTIONS", meant("maxMediaByte", "maxMediaBytes"));
  await refused(() => tw.toolResultMessage(call, result, "anthropic", { imagemessage: true }), "INVALID_OPTIONS", meant("imagemessage", "imageMessage"));
  await refused(() => tw.toolResultMessage(call, result, "bedrock", { bedrock_status: true }), "INVALID_OPTIONS", meant("bedrock_status", "bedrockStatus"));
  await refused(() => tw.toolResultMessages([call], [result], "openai", { multimodl: true }), "INVALID_OPTIONS", meant("multimodl", "multimodal"));
  // Unrelated keys are ignored; the known ones apply.
  assert.equal(tw.flattenContent(result, { maxChars: 5, futureOption: 1 }).startsWith("sunny"), true);
  assert.ok(tw.flattenContent(result, { maxChars: 5, futureOption: 1 }).length < "sunny and warm".length + 40);
  assert.equal(tw.toolResultMessage(call, result, "openai", { futureOption: 1 }).content, "sunny and warm");
  assert.equal(tw.toolResultMessages([call], [result], "openai", { futureOption: 1 }).length, 1);
});

test("flattenContent and toolResultMessage(s) refuse the options they make no use of (F7, s24e)", async () => {
  const resultKeys = "maxChars, maxMediaBytes, maxImageSide, imageMessage, multimodal, bedrockStatus";
  for (const [key, value] of [["provider", "gemini"], ["strict", true], ["limits", { maxDepth: 1 }], ["server", "gh"], ["naming", "bare"], ["geminiMode", "strict"]]) {
    await refused(() => tw.toolResultMessage(call, result, "anthropic", { [key]: value }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of toolResultMessage\\(\\) \\(its options are ${resultKeys}\\)$`));
    await refused(() => tw.toolResultMessages([call], [result], "anthropic", { [key]: value }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of toolResultMessages\\(\\)`));
    await refused(() => tw.flattenContent(result, { [key]: value }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of flattenContent\\(\\) \\(its options are maxChars\\)$`));
  }
  for (const [key, value] of [["multimodal", true], ["imageMessage", true], ["bedrockStatus", false], ["maxMediaBytes", 10], ["maxImageSide", 100]]) {
    await refused(() => tw.flattenContent(result, { maxChars: 50, [key]: value }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of flattenContent\\(\\)`));
  }
  // A key given as null or undefined is no key; maxChars is both functions'.
  assert.equal(tw.flattenContent(result, { maxChars: 50, multimodal: undefined, provider: null }), "sunny and warm");
  assert.equal(tw.toolResultMessage(call, result, "openai", { maxChars: 50, provider: undefined, strict: null }).content, "sunny and warm");
});

test("an ignored key is ignored whatever its value (Infinity, NaN, a Map), and a misspelt one is named whatever its value", async () => {
  for (const value of [Infinity, -Infinity, NaN, new Map([["a", 1]]), Promise.resolve(1)]) {
    assert.equal(tw.convertMcpTools(tools, "openai", { strict: true, futureOption: value })[0].function.strict, true);
    assert.equal(tw.convertMcpTools(tools, "gemini", { limits: { maxDepth: 8, futureLimit: value } }).length, 1);
    assert.equal(tw.convertMcpToolsJson(JSON.stringify(tools), "anthropic", { futureOption: value }).startsWith("["), true);
    assert.equal(tw.NameMap.fromTools(tools, "openai", { futureOption: value }).size, 1);
    assert.equal(tw.prefixToolName("s", "t", { naming: "bare", futureOption: value }), "t");
    assert.match(tw.toolsSystemPrompt(tools, { futureOption: value }), /get_weather/);
    assert.equal(tw.flattenContent(result, { futureOption: value }), "sunny and warm");
    assert.equal(tw.toolResultMessage(call, result, "openai", { futureOption: value }).content, "sunny and warm");
    assert.equal(tw.toolResultMessages([call], [result], "anthropic", { futureOption: value }).length, 1);
  }
  // A misspelt key is still the key meant, not its value's fault; a known key's value is still checked.
  await refused(() => tw.toolResultMessage(call, result, "openai", { maxChar: NaN }), "INVALID_OPTIONS", meant("maxChar", "maxChars"));
  await refused(() => tw.convertMcpTools(tools, "openai", { stict: Infinity }), "INVALID_OPTIONS", meant("stict", "strict"));
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: { maxDepht: Infinity } }), "INVALID_OPTIONS", /maxDepht.*maxDepth/);
  await refused(() => tw.convertMcpTools(tools, "openai", { limits: { maxDepth: NaN } }), "INVALID_OPTIONS", /options\.limits\.maxDepth must be/);
  await refused(() => tw.convertMcpTools(tools, "openai", { strict: new Map() }), "INVALID_OPTIONS", /options\.strict is a Map/);
  // The client's options know every key: an unknown one is refused whatever its value.
  await refused(() => new tw.McpClient(url, { futureOption: Infinity }), "INVALID_OPTIONS", /futureOption/);
});

test("McpClient: a misspelt or unknown key of any options object is refused, before anything is sent", async () => {
  let sent = 0;
  const fetch = async () => {
    sent++;
    throw new TypeError("nothing is sent");
  };
  await refused(() => new tw.McpClient(url, { timeotMs: 5 }), "INVALID_OPTIONS", meant("timeotMs", "timeoutMs"));
  // The URL is the first argument: a url option (a hub's server config written as a client's options)
  // would be ignored, and the client speak to the other URL.
  await refused(() => new tw.McpClient(url, { url: "http://127.0.0.1:2/other" }), "INVALID_OPTIONS", /^options has no key "url": the server's URL is McpClient's first argument \(new McpClient\(url, options\)\)$/);
  await refused(() => new tw.McpClient(url, { url }), "INVALID_OPTIONS", /first argument/);
  await refused(() => new tw.McpClient(url, { listen: { onend() {} } }), "INVALID_OPTIONS", meant("onend", "onEnd", "options.listen"));
  await refused(() => new tw.McpClient(url, { listen: { onEnd() {}, other: 1 } }), "INVALID_OPTIONS", /^options\.listen has no key "other" \(the keys are onEnd\)$/);
  await refused(() => new tw.McpClient(url, { oauth: { redirectURL: "http://localhost/cb", authorize() {} } }), "INVALID_OPTIONS", meant("redirectURL", "redirectUrl", "options.oauth"));
  await refused(() => new tw.McpClient(url, { oauth: { redirectUrl: "http://localhost/cb", authorize() {}, popup: true } }), "INVALID_OPTIONS", /options\.oauth has no key "popup" \(the keys are redirectUrl, /);
  const client = new tw.McpClient(url, { fetch });
  const calls = [
    ["connect", (o) => client.connect(o)],
    ["listTools", (o) => client.listTools(o)],
    ["callTool", (o) => client.callTool("echo", {}, o)],
    ["request", (o) => client.request("ping", null, o)],
    ["notify", (o) => client.notify("notifications/roots/list_changed", null, o)],
    ["listAll", (o) => client.listAll("resources/list", null, o)],
  ];
  // Each method names the keys it takes: connect() takes no progress nor `meta`, a notification no progress.
  const keys = { connect: "timeoutMs, signal", notify: "timeoutMs, signal, meta" };
  for (const [name, fn] of calls) {
    const e = await refused(() => fn({ timeotMs: 5 }), "INVALID_OPTIONS", meant("timeotMs", "timeoutMs"));
    assert.ok(e.message.includes("timeoutMs"), name);
    await refused(() => fn({ signl: new AbortController().signal }), "INVALID_OPTIONS", meant("signl", "signal"));
    const listed = keys[name] ?? "timeoutMs, maxTotalTimeoutMs, resetTimeoutOnProgress, meta, onProgress, signal";
    await refused(() => fn({ futureOption: 1 }), "INVALID_OPTIONS", new RegExp(`^options has no key "futureOption" \\(the keys are ${listed}\\)$`));
    // The SDK's names are still named as such.
    await refused(() => fn({ timeout: 5 }), "INVALID_OPTIONS", /options\.timeout is the MCP SDK's name: toolwire's is options\.timeoutMs/);
    // Infinity (no limit) under a wrong key: the key is named, not the number (JSON would make it null).
    await refused(() => fn({ timeotMs: Infinity }), "INVALID_OPTIONS", meant("timeotMs", "timeoutMs"));
    await refused(() => fn({ timeout: Infinity }), "INVALID_OPTIONS", /^options\.timeout is the MCP SDK's name: toolwire's is options\.timeoutMs$/);
    await refused(() => fn({ futureOption: NaN }), "INVALID_OPTIONS", /^options has no key "futureOption" \(the keys are /);
  }
  await refused(() => client.callTool("echo", {}, { maxTotalTimeout: Infinity }), "INVALID_OPTIONS", /^options\.maxTotalTimeout is the MCP SDK's name: toolwire's is options\.maxTotalTimeoutMs$/);
  await refused(() => new tw.McpClient(url, { timeotMs: Infinity }), "INVALID_OPTIONS", meant("timeotMs", "timeoutMs"));
  // A call's option given to the client: its key is refused (the client's keys listed).
  await refused(() => new tw.McpClient(url, { maxTotalTimeoutMs: Infinity }), "INVALID_OPTIONS", /^options has no key "maxTotalTimeoutMs" \(the keys are fetch, headers, timeoutMs, /);
  await refused(() => new tw.McpClient(url, { url: Infinity }), "INVALID_OPTIONS", /first argument/);
  // A known key's value is still checked: NaN is no timeout.
  await refused(() => client.callTool("echo", {}, { meta: { n: NaN } }), "INVALID_OPTIONS", /^options\.meta\.n must be a finite number/);
  assert.equal(sent, 0, "no options refused reached fetch");
  client.free();
});

/** A fetch that answers as a Streamable HTTP server of the 2025-06-18 revision with one tool; `tools/list` waits
 *  `listDelay` ms (aborted with the request). */
function fakeServer(listDelay = 0) {
  const seen = [];
  const fetch = async (_url, init) => {
    const msg = JSON.parse(init.body);
    seen.push(msg.method);
    const reply = (result) => new Response(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }), { status: 200, headers: { "content-type": "application/json" } });
    if (msg.method === "initialize") {
      return reply({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } });
    }
    if (msg.id === undefined) return new Response(null, { status: 202 });
    if (msg.method === "tools/list") {
      if (listDelay) {
        await new Promise((resolve, reject) => {
          const t = setTimeout(resolve, listDelay);
          init.signal?.addEventListener("abort", () => {
            clearTimeout(t);
            reject(init.signal.reason ?? new DOMException("aborted", "AbortError"));
          });
        });
      }
      return reply({ tools });
    }
    return reply({});
  };
  return { fetch, seen };
}

test("McpClient.listTools takes a call's options: timeoutMs and signal", async () => {
  const quick = fakeServer();
  const client = new tw.McpClient(url, { fetch: quick.fetch, era: "legacy", transport: "streamable-http" });
  await client.connect();
  assert.deepEqual((await client.listTools({ timeoutMs: 5_000 })).map((t) => t.name), ["get_weather"]);
  assert.deepEqual((await client.listTools()).map((t) => t.name), ["get_weather"]);
  await client.close();
  client.free();

  const slow = fakeServer(10_000);
  const c2 = new tw.McpClient(url, { fetch: slow.fetch, era: "legacy", transport: "streamable-http" });
  await c2.connect();
  const started = Date.now();
  await refused(() => c2.listTools({ timeoutMs: 50 }), "TIMEOUT");
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 50);
  await refused(() => c2.listTools({ signal: abort.signal }), "ABORTED");
  await refused(() => c2.listTools({ signal: AbortSignal.abort() }), "ABORTED");
  assert.ok(Date.now() - started < 5_000, "the listings ended at their timeout and abort");
  await c2.close();
  c2.free();
});

test("McpHub: every options object refuses a misspelt key naming it, and any key it does not know", async () => {
  const servers = { a: { url } };
  await refused(() => new tw.McpHub(servers, { polcy: {} }), "INVALID_OPTIONS", meant("polcy", "policy"));
  // A server config's key is named as the config: servers.<name>, the server in `server`.
  const e = await refused(() => new tw.McpHub({ a: { url }, github: { url, timeotMs: 5 } }), "INVALID_OPTIONS", meant("timeotMs", "timeoutMs", "servers.github"));
  assert.equal(e.server, "github");
  await refused(() => new tw.McpHub({ a: { url, futureOption: 1 } }), "INVALID_OPTIONS", /^servers\.a has no key "futureOption" \(the keys are url, fetch, /);
  // ... and so are its nested objects and its values.
  await refused(() => new tw.McpHub({ a: { url, listen: { onend() {} } } }), "INVALID_OPTIONS", meant("onend", "onEnd", "servers.a.listen"));
  await refused(() => new tw.McpHub({ a: { url, oauth: { redirectURL: "http://localhost/cb", authorize() {} } } }), "INVALID_OPTIONS", meant("redirectURL", "redirectUrl", "servers.a.oauth"));
  await refused(() => new tw.McpHub({ a: { url, timeoutMs: -1 } }), "INVALID_OPTIONS", /^servers\.a\.timeoutMs must be a positive integer \(milliseconds\) up to 2\^53 - 1, or Infinity for no limit, got the number -1$/);
  await refused(() => new tw.McpHub({ a: { url, era: "options.x" } }), "INVALID_OPTIONS", /^servers\.a\.era must be "auto", "legacy" or "modern", got the string "options\.x"$/);
  // A config's url is one of its options: misspelt, missing or not a URL, INVALID_OPTIONS.
  await refused(() => new tw.McpHub({ a: { uri: url } }), "INVALID_OPTIONS", meant("uri", "url", "servers.a"));
  await refused(() => new tw.McpHub({ a: { headers: {} } }), "INVALID_OPTIONS", /servers\.a\.url must be a string or a URL, got undefined/);
  await refused(() => new tw.McpHub({ a: { url: "ftp://x/mcp" } }), "INVALID_OPTIONS", /servers\.a\.url must be http\(s\)/);
  await refused(() => new tw.McpHub(servers, { policy: { alow: ["*"] } }), "INVALID_OPTIONS", meant("alow", "allow", "policy"));
  // A freed PermissionPolicy cannot be read: the option's error, saying why.
  const freed = new tw.PermissionPolicy({ deny: ["*"] });
  freed.free();
  await refused(() => new tw.McpHub(servers, { policy: freed }), "INVALID_OPTIONS", /this PermissionPolicy was freed \(free\(\) was called on it\): make a new one/);
  const hub = new tw.McpHub(servers);
  await refused(() => hub.listTools({ selectedServer: ["a"] }), "INVALID_OPTIONS", meant("selectedServer", "selectedServers"));
  await refused(() => hub.listTools({ timeotMs: Infinity }), "INVALID_OPTIONS", meant("timeotMs", "timeoutMs"));
  await refused(() => hub.tools("openai", { stict: true }), "INVALID_OPTIONS", meant("stict", "strict"));
  await refused(() => hub.tools("openai", { limits: { maxDeph: 3 } }), "INVALID_OPTIONS", meant("maxDeph", "maxDepth", "options.limits"));
  // A hub's tools() holds the conversion's options to the keys known, as its other options.
  await refused(() => hub.tools("openai", { futureOption: 1 }), "INVALID_OPTIONS", /^options has no key "futureOption" \(the keys are naming, separator, prefix, portableNames, strict, geminiMode, limits\)/);
  // Each tool has its server: one given to tools() would be read by nothing.
  for (const key of ["server", "serverName"]) {
    await refused(() => hub.tools("openai", { [key]: "x" }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} is no option of McpHub\\.tools\\(\\): each tool's server is the name the hub has for it`));
  }
  // callTool: `provder` would read the call with the last tools()'s name map, not the provider's.
  await refused(() => hub.callTool("mcp__a__echo", {}, { provder: "openai" }), "INVALID_OPTIONS", meant("provder", "provider"));
  await refused(() => hub.callTool("mcp__a__echo", {}, { timeotMs: 5 }), "INVALID_OPTIONS", meant("timeotMs", "timeoutMs"));
  await refused(() => hub.callTool("mcp__a__echo", {}, { futureOption: 1 }), "INVALID_OPTIONS", /the keys are timeoutMs, .*, provider\)$/);
  // A request to one server: its errors name it, after the message.
  for (const fn of [(o) => hub.request("a", "ping", null, o), (o) => hub.notify("a", "notifications/roots/list_changed", null, o), (o) => hub.listAll("a", "tools/list", null, o)]) {
    await refused(() => fn({ timeotMs: 5 }), "INVALID_OPTIONS", /^options has no key "timeotMs": did you mean timeoutMs\? \(server "a"\)$/);
    await refused(() => fn({ futureOption: 1 }), "INVALID_OPTIONS", /^options has no key "futureOption"/);
  }
  await refused(() => hub.listen({ onend() {} }), "INVALID_OPTIONS", meant("onend", "onEnd"));
  await refused(() => hub.listen({ futureOption: 1 }), "INVALID_OPTIONS", /^options has no key "futureOption" \(the keys are onEnd\)$/);
  // Known keys pass: listen connects the server (none is listed yet), which is not there: its error, naming it.
  const { servers: listened, errors } = await hub.listen({ onEnd() {} });
  assert.deepEqual([listened, errors.map((x) => [x.server, x.error.code])], [{}, [["a", "NETWORK"]]]);
  assert.match(errors[0].error.message, /\(server "a"\)$/);
  hub.free();
});

test("PermissionPolicy: a misspelt field is named with the one meant; another is refused listing the fields", async () => {
  await refused(() => new tw.PermissionPolicy({ alow: ["mcp__a__*"] }), "INVALID_OPTIONS", meant("alow", "allow", "policy"));
  await refused(() => new tw.PermissionPolicy({ deny: [], default_action: "deny" }), "INVALID_OPTIONS", meant("default_action", "defaultAction", "policy"));
  await refused(() => new tw.PermissionPolicy({ block: ["*"] }), "INVALID_OPTIONS", /^policy has no key "block" \(the keys are rules, allow, ask, deny, defaultAction, askDestructive\)$/);
  // Inside a rule too: toJSON() would keep a key that no rule reads.
  await refused(() => new tw.PermissionPolicy({ rules: [{ pattern: "a", action: "deny", foo: 1 }] }), "INVALID_OPTIONS", /^policy\.rules\[0\] has no key "foo" \(the keys are pattern, action\)$/);
  await refused(() => new tw.PermissionPolicy({ rules: [{ pattern: "a", action: "deny" }, { patern: "b", action: "ask" }] }), "INVALID_OPTIONS", /^policy\.rules\[1\] has no key "patern": did you mean pattern\?$/);
  assert.deepEqual(new tw.PermissionPolicy({ rules: [{ pattern: "a", action: "deny" }] }).toJSON(), { rules: [{ pattern: "a", action: "deny" }] });
  assert.equal(new tw.PermissionPolicy({ allow: ["mcp__a__*"] }).check("mcp__a__x", { readOnlyHint: true }), "allow");
});

// The numeric limits, each decided on its own: a timeout or a size of the MCP client takes Infinity for no limit
// (as maxChars and maxMediaBytes do); maxRetries and the conversion's limits, which guard against a server gone
// for good and against work past what the module can do, refuse it saying the largest value taken.
test("numeric limits: Infinity is no limit where one is meaningful, else INVALID_OPTIONS saying the largest value", async () => {
  const server = fakeServer();
  const client = new tw.McpClient(url, {
    fetch: server.fetch,
    era: "legacy",
    transport: "streamable-http",
    timeoutMs: Infinity,
    idleTimeoutMs: Infinity,
    maxPages: Infinity,
    maxTools: Infinity,
    maxEventBytes: Infinity,
    // Past what wasm32 memory holds: no limit either (not cut to its low 32 bits, 0).
    maxResponseBytes: 2 ** 32,
  });
  await client.connect({ timeoutMs: Infinity });
  assert.deepEqual((await client.listTools({ timeoutMs: Infinity, maxTotalTimeoutMs: Infinity })).map((t) => t.name), ["get_weather"]);
  await client.close();
  client.free();
  new tw.McpClient(url, { maxResponseBytes: Infinity }).free();

  for (const key of ["timeoutMs", "idleTimeoutMs"]) {
    const unit = " \\(milliseconds\\)";
    await refused(() => new tw.McpClient(url, { [key]: 2 ** 53 }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} must be a positive integer${unit} up to 2\\^53 - 1, or Infinity for no limit, got the number 9007199254740992$`));
    await refused(() => new tw.McpClient(url, { [key]: -Infinity }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} must be .*, got -Infinity$`));
  }
  for (const key of ["maxPages", "maxTools", "maxEventBytes", "maxResponseBytes"]) {
    await refused(() => new tw.McpClient(url, { [key]: 1.5 }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} must be a positive integer up to 2\\^53 - 1, or Infinity for no limit, got the number 1\\.5$`));
  }
  const plain = new tw.McpClient(url);
  for (const key of ["timeoutMs", "maxTotalTimeoutMs"]) {
    await refused(() => plain.callTool("echo", {}, { [key]: NaN }), "INVALID_OPTIONS", new RegExp(`^options\\.${key} must be a positive integer \\(milliseconds\\) up to 2\\^53 - 1, or Infinity for no limit, got NaN$`));
  }
  plain.free();
  await refused(() => new tw.McpClient(url, { maxRetries: Infinity }), "INVALID_OPTIONS", /^options\.maxRetries must be an integer from 0 to 100, got Infinity$/);
  await refused(() => new tw.McpHub({ a: { url, maxRetries: Infinity } }), "INVALID_OPTIONS", /^servers\.a\.maxRetries must be an integer from 0 to 100, got Infinity$/);
  await refused(() => new tw.McpHub({ a: { url, timeoutMs: 2 ** 60 } }), "INVALID_OPTIONS", /^servers\.a\.timeoutMs must be a positive integer \(milliseconds\) up to 2\^53 - 1, or Infinity for no limit, got /);
  const hub = new tw.McpHub({ a: { url, timeoutMs: Infinity, maxTools: Infinity } });
  await refused(() => hub.listTools({ timeoutMs: 0 }), "INVALID_OPTIONS", /^options\.timeoutMs must be a positive integer \(milliseconds\) up to 2\^53 - 1, or Infinity for no limit, got the number 0$/);
  hub.free();

  // The conversion's limits: each has its largest value, Infinity refused saying it.
  for (const [key, max] of [["maxDepth", "128"], ["maxNodes", "2\\^30"], ["maxRefUnroll", "2\\^30"], ["maxTools", "2\\^30"], ["maxStringBytes", "2\\^30"]]) {
    await refused(() => tw.convertMcpTools(tools, "openai", { limits: { [key]: Infinity } }), "INVALID_OPTIONS", new RegExp(`^options\\.limits\\.${key} must be an integer from 1 to ${max}, got Infinity$`));
  }
  // maxChars and maxMediaBytes: Infinity is no cap.
  assert.match(JSON.stringify(tw.toolResultMessage(call, result, "anthropic", { maxChars: Infinity, maxMediaBytes: Infinity })), /sunny and warm/);
});

test("a separator or prefix the provider's names cannot hold is INVALID_OPTIONS in every entry point that names tools", () => {
  const tools = [{ name: "read", serverName: "fs" }];
  for (const [options, key] of [[{ separator: "." }, "separator"], [{ separator: "/" }, "separator"], [{ prefix: "my tools" }, "prefix"]]) {
    for (const [what, fn] of [
      ["convertMcpTools", () => tw.convertMcpTools(tools, "openai", options)],
      ["NameMap.fromTools", () => tw.NameMap.fromTools(tools, "anthropic", options)],
      ["prefixToolName", () => tw.prefixToolName("fs", "read", options)],
      ["toolsSystemPrompt", () => tw.toolsSystemPrompt(tools, options)],
    ]) {
      assert.throws(fn, (e) => e.code === "INVALID_OPTIONS" && e.message.includes(key), `${what} ${JSON.stringify(options)}`);
    }
  }
  // What a provider's rule holds is taken: Gemini's names hold "." and ":".
  assert.equal(tw.prefixToolName("fs", "read", { separator: ".", provider: "gemini" }), "mcp.fs.read");
});
