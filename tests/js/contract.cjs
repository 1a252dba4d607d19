"use strict";
// The public contract of the built package, as seen by a JS caller. Registered once per entry point
// (esm.test.mjs, cjs.test.cjs, web.test.mjs) with that entry point's module object, so every loader is
// held to the same behaviour.
const { test } = require("node:test");
const assert = require("node:assert/strict");

const PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock"];

const weather = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string", description: "City name" } },
    required: ["city"],
  },
};

/** The function definitions of a provider's tools array, as [{name, description, schema}]. */
function definitions(provider, tools) {
  switch (provider) {
    case "openai":
    case "ollama":
      return tools.map((t) => ({ name: t.function.name, description: t.function.description, schema: t.function.parameters }));
    case "openai-responses":
      return tools.map((t) => ({ name: t.name, description: t.description, schema: t.parameters }));
    case "anthropic":
      return tools.map((t) => ({ name: t.name, description: t.description, schema: t.input_schema }));
    case "gemini":
    case "vertex":
      return tools.flatMap((t) =>
        t.functionDeclarations.map((d) => ({ name: d.name, description: d.description, schema: d.parameters ?? d.parametersJsonSchema })),
      );
    case "bedrock":
      return tools.map((t) => ({ name: t.toolSpec.name, description: t.toolSpec.description, schema: t.toolSpec.inputSchema.json }));
    default:
      throw new Error(`no such provider ${provider}`);
  }
}

const keys = (o) => Object.keys(o).sort();

/** A schema's `type`, lower-cased (Gemini's OpenAPI subset also accepts upper-case type names). */
function typeOf(schema) {
  return String(schema.type).toLowerCase();
}

module.exports = function contract(tw, label) {
  // Read tw.ToolwireError inside the tests: in web.mjs it is a live binding assigned by initAsync().
  const name = (s) => `${label}: ${s}`;

  test(name("exports the whole API"), () => {
    for (const fn of [
      "convertMcpTools",
      "convertMcpToolsJson",
      "convertMcpToolsDetailed",
      "checkTools",
      "processJsonSchema",
      "prefixToolName",
      "parseToolName",
      "flattenContent",
      "parseToolCalls",
      "toolResultMessage",
      "toolResultMessages",
      "toolsSystemPrompt",
      "parseTextToolCalls",
      "textToolResults",
      "version",
      "initAsync",
    ]) {
      assert.equal(typeof tw[fn], "function", fn);
    }
    assert.equal(typeof tw.NameMap, "function");
    assert.equal(typeof tw.ToolCallAccumulator, "function");
    assert.equal(typeof tw.PermissionPolicy, "function");
    assert.equal(typeof tw.ToolwireError, "function");
    assert.ok(tw.ToolwireError.prototype instanceof Error, "ToolwireError extends Error");
    const made = new tw.ToolwireError("UNKNOWN_TOOL_NAME", "m", "t", "/p");
    assert.deepEqual([made.name, made.code, made.message, made.tool, made.path], ["ToolwireError", "UNKNOWN_TOOL_NAME", "m", "t", "/p"]);
    // One made by user code is written out whole by JSON.stringify, as the ones toolwire throws are.
    assert.deepEqual(JSON.parse(JSON.stringify(made)), { message: "m", name: "ToolwireError", code: "UNKNOWN_TOOL_NAME", tool: "t", path: "/p" });
    let thrown;
    try {
      tw.convertMcpTools([], "claude");
    } catch (e) {
      thrown = e;
    }
    assert.deepEqual(Object.keys(new tw.ToolwireError("UNKNOWN_PROVIDER", "x")), Object.keys(thrown));
    assert.equal(String(made), "ToolwireError: m");
    assert.match(tw.version(), /^\d+\.\d+\.\d+/);
  });

  test(name("openai: [{type:'function', function:{name, description, parameters}}]"), () => {
    const out = tw.convertMcpTools([weather], "openai");
    assert.equal(out.length, 1);
    assert.deepEqual(keys(out[0]), ["function", "type"]);
    assert.equal(out[0].type, "function");
    assert.deepEqual(keys(out[0].function), ["description", "name", "parameters"]);
    assert.equal(out[0].function.name, "get_weather");
    assert.equal(out[0].function.description, weather.description);
    assert.equal(out[0].function.parameters.type, "object");
    assert.deepEqual(out[0].function.parameters.properties, weather.inputSchema.properties);
    assert.deepEqual(out[0].function.parameters.required, ["city"]);
  });

  test(name("openai-responses: [{type:'function', name, description, parameters, strict}]"), () => {
    const out = tw.convertMcpTools([weather], "openai-responses");
    assert.equal(out.length, 1);
    assert.deepEqual(keys(out[0]), ["description", "name", "parameters", "strict", "type"]);
    assert.equal(out[0].type, "function");
    assert.equal(out[0].name, "get_weather");
    assert.equal(typeof out[0].strict, "boolean");
    assert.deepEqual(out[0].parameters.properties.city.type, "string");
  });

  test(name("anthropic: [{name, description, input_schema}]"), () => {
    const out = tw.convertMcpTools([weather], "anthropic");
    assert.equal(out.length, 1);
    assert.deepEqual(keys(out[0]), ["description", "input_schema", "name"]);
    assert.equal(out[0].name, "get_weather");
    assert.equal(out[0].input_schema.type, "object");
    assert.deepEqual(out[0].input_schema.properties, weather.inputSchema.properties);
    assert.deepEqual(out[0].input_schema.required, ["city"]);
  });

  for (const provider of ["gemini", "vertex"]) {
    test(name(`${provider}: [{functionDeclarations:[{name, description, parameters}]}]`), () => {
      const out = tw.convertMcpTools([weather], provider);
      assert.equal(out.length, 1);
      assert.deepEqual(keys(out[0]), ["functionDeclarations"]);
      const decls = out[0].functionDeclarations;
      assert.equal(decls.length, 1);
      assert.equal(decls[0].name, "get_weather");
      assert.equal(decls[0].description, weather.description);
      const params = "parameters" in decls[0] ? ["parameters"] : ["parametersJsonSchema"];
      assert.deepEqual(keys(decls[0]), ["description", "name", ...params]);
      const schema = decls[0][params[0]];
      assert.equal(typeOf(schema), "object");
      assert.equal(typeOf(schema.properties.city), "string");
      assert.deepEqual(schema.required, ["city"]);
    });
  }

  test(name("gemini: geminiMode picks parameters or parametersJsonSchema"), () => {
    const a = tw.convertMcpTools([weather], "gemini", { geminiMode: "parameters" })[0].functionDeclarations[0];
    assert.ok("parameters" in a && !("parametersJsonSchema" in a));
    const b = tw.convertMcpTools([weather], "gemini", { geminiMode: "parametersJsonSchema" })[0].functionDeclarations[0];
    assert.ok("parametersJsonSchema" in b && !("parameters" in b));
  });

  test(name("bedrock: [{toolSpec:{name, description, inputSchema:{json}}}]"), () => {
    const out = tw.convertMcpTools([weather], "bedrock");
    assert.equal(out.length, 1);
    assert.deepEqual(keys(out[0]), ["toolSpec"]);
    assert.deepEqual(keys(out[0].toolSpec), ["description", "inputSchema", "name"]);
    assert.deepEqual(keys(out[0].toolSpec.inputSchema), ["json"]);
    assert.equal(out[0].toolSpec.name, "get_weather");
    assert.equal(out[0].toolSpec.inputSchema.json.type, "object");
    assert.deepEqual(out[0].toolSpec.inputSchema.json.properties, weather.inputSchema.properties);
  });

  test(name("a tool without inputSchema converts for every provider"), () => {
    for (const provider of PROVIDERS) {
      const [def] = definitions(provider, tw.convertMcpTools([{ name: "ping" }], provider));
      assert.equal(def.name, "ping", provider);
      if (def.schema !== undefined) assert.equal(typeOf(def.schema), "object", provider);
    }
  });

  test(name("convertMcpToolsJson gives the same tools as convertMcpTools, as JSON text"), () => {
    const tools = [weather, { name: "ping", description: "Ping" }];
    for (const provider of PROVIDERS) {
      const text = tw.convertMcpToolsJson(JSON.stringify(tools), provider);
      assert.equal(typeof text, "string", provider);
      assert.deepStrictEqual(JSON.parse(text), tw.convertMcpTools(tools, provider), provider);
    }
  });

  test(name("convertMcpToolsJson takes UTF-8 bytes and returns bytes; bad bytes are INVALID_JSON"), () => {
    const tools = [weather, { name: "ping", description: "Ping \u00e9t\u00e9 \u{1F600}" }];
    for (const provider of PROVIDERS) {
      const bytes = tw.convertMcpToolsJson(new TextEncoder().encode(JSON.stringify(tools, null, 2)), provider);
      assert.ok(bytes instanceof Uint8Array, provider);
      assert.deepStrictEqual(JSON.parse(new TextDecoder().decode(bytes)), tw.convertMcpTools(tools, provider), provider);
    }
    assert.throws(() => tw.convertMcpToolsJson(new Uint8Array([0x5b, 0xff, 0x5d]), "openai"), { code: "INVALID_JSON" });
    assert.throws(() => tw.convertMcpToolsJson(42, "openai"), { code: "INVALID_INPUT", message: /string or a Uint8Array/ });
    assert.equal(tw.convertMcpToolsJson("[]", "openai"), "[]", "still works");
  });

  test(name("a schema that needs no change is the caller's own object; any other is new"), () => {
    const bare = { name: "bare", inputSchema: { type: "object", properties: { o: { type: "object" } } } };
    for (const provider of PROVIDERS) {
      for (const [geminiMode, keeps] of [["parameters", !["gemini", "vertex"].includes(provider)], ["jsonSchema", true]]) {
        const options = { geminiMode };
        for (const convert of [(t) => tw.convertMcpTools(t, provider, options), (t) => tw.convertMcpToolsDetailed(t, provider, options).tools]) {
          const [w, b] = definitions(provider, convert([weather, bare]));
          assert.equal(w.schema === weather.inputSchema, keeps, `${provider}/${geminiMode}: the unchanged schema is shared: ${keeps}`);
          // `properties: {}` is added to the nested object: a new object, the input untouched.
          assert.notEqual(b.schema, bare.inputSchema, provider);
          assert.equal(bare.inputSchema.properties.o.properties, undefined, `${provider}: the input is not written to`);
          // Shared or not, the tools are those of the JSON entry point.
          const text = tw.convertMcpToolsJson(JSON.stringify([weather, bare]), provider, options);
          assert.deepStrictEqual(convert([weather, bare]), JSON.parse(text), provider);
        }
      }
    }
    // The shapes {tools} and {result: {tools}} too.
    for (const input of [{ tools: [weather] }, { result: { tools: [weather] } }]) {
      assert.equal(tw.convertMcpTools(input, "openai")[0].function.parameters, weather.inputSchema);
    }
  });

  test(name("objects whose JSON is not what they hold (toJSON, lone surrogates) convert as their JSON"), () => {
    const said = { type: "object", properties: { said: { type: "string" } } };
    const tools = [
      { name: "a", inputSchema: { type: "object", properties: { held: { type: "string" } } }, toJSON: () => ({ name: "a", inputSchema: said }) },
      { name: "b", inputSchema: { type: "object", properties: {}, toJSON: () => said } },
    ];
    const lone = [{ name: "c", inputSchema: { type: "object", properties: { x: { type: "string", description: "half \ud800" } } } }];
    for (const provider of PROVIDERS) {
      for (const input of [tools, { tools }, lone]) {
        // (The JSON entry point takes no lone surrogates; the object one repairs them to U+FFFD.)
        const expected = JSON.parse(tw.convertMcpToolsJson(JSON.stringify(input).replace("\\ud800", "\\ufffd"), provider));
        assert.deepStrictEqual(JSON.parse(JSON.stringify(tw.convertMcpTools(input, provider))), expected, provider);
      }
      const [a, b] = definitions(provider, tw.convertMcpTools(tools, provider));
      assert.deepEqual(Object.keys(a.schema.properties), ["said"], provider);
      assert.deepEqual(Object.keys(b.schema.properties), ["said"], provider);
      const [c] = definitions(provider, tw.convertMcpTools(lone, provider));
      assert.notEqual(c.schema, lone[0].inputSchema, provider);
      if (c.schema.properties) assert.equal(c.schema.properties.x.description, "half \ufffd", provider);
    }
  });

  test(name("a shared schema holding what JSON does not is sent as its JSON"), () => {
    // Nested values JSON cannot hold stay in the caller's object; what a request sends, its JSON,
    // is what was converted.
    const schema = { type: "object", properties: { when: { type: "string", toJSON: () => ({ type: "string", format: "date-time" }) }, n: { type: "number", maximum: Infinity } } };
    for (const provider of PROVIDERS) {
      const out = tw.convertMcpTools([{ name: "t", inputSchema: schema }], provider, { geminiMode: "jsonSchema" });
      const text = tw.convertMcpToolsJson(JSON.stringify([{ name: "t", inputSchema: schema }]), provider, { geminiMode: "jsonSchema" });
      assert.equal(JSON.stringify(out), text, provider);
    }
  });

  test(name("output is plain JSON data (arrays and Object.prototype objects) for JSON data in"), () => {
    const isPlain = (v, path) => {
      if (v === null || typeof v !== "object") return;
      if (Array.isArray(v)) return v.forEach((x, i) => isPlain(x, `${path}/${i}`));
      assert.equal(Object.getPrototypeOf(v), Object.prototype, `${path} is a plain object`);
      for (const [k, x] of Object.entries(v)) isPlain(x, `${path}/${k}`);
    };
    for (const provider of PROVIDERS) isPlain(tw.convertMcpTools([weather], provider), provider);
  });

  test(name("a property named __proto__ stays an own property and pollutes nothing"), () => {
    const tool = JSON.parse('{"name":"x","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}');
    for (const provider of PROVIDERS) {
      for (const out of [tw.convertMcpTools([tool], provider), JSON.parse(tw.convertMcpToolsJson(JSON.stringify([tool]), provider))]) {
        const { schema } = definitions(provider, out)[0];
        assert.equal(Object.getPrototypeOf(schema), Object.prototype, provider);
        assert.equal(Object.getPrototypeOf(schema.properties), Object.prototype, provider);
        assert.ok(Object.hasOwn(schema.properties, "__proto__"), `${provider}: __proto__ is an own property`);
        const prop = Object.getOwnPropertyDescriptor(schema.properties, "__proto__").value;
        assert.equal(typeOf(prop), "string", provider);
      }
    }
    assert.equal({}.type, undefined, "Object.prototype untouched");
  });

  test(name("errors are ToolwireError instances with a stable code, and the module keeps working"), () => {
    const err = (fn) => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      assert.fail("expected a throw");
    };
    const e = err(() => tw.convertMcpTools([weather], "nope"));
    assert.ok(e instanceof tw.ToolwireError, "instanceof ToolwireError");
    assert.ok(e instanceof Error, "instanceof Error");
    assert.equal(e.code, "UNKNOWN_PROVIDER");
    assert.equal(e.name, "ToolwireError");
    assert.match(e.message, /nope/);

    assert.equal(err(() => tw.convertMcpToolsJson("{not json", "openai")).code, "INVALID_JSON");
    assert.equal(err(() => tw.convertMcpTools([{ description: "no name" }], "openai")).code, "INVALID_TOOL");
    assert.equal(err(() => tw.convertMcpTools([weather], "openai", { naming: "nope" })).code, "INVALID_OPTIONS");

    // Nothing is left broken behind a throw.
    assert.equal(tw.convertMcpTools([weather], "openai")[0].function.name, "get_weather");
  });

  test(name("options: as an object or as JSON text, read the same, errors included"), () => {
    const text = JSON.stringify([weather]);
    const name0 = (out) => JSON.parse(out)[0].function.name;
    assert.equal(name0(tw.convertMcpToolsJson(text, "openai", { server: "gh" })), "mcp__gh__get_weather");
    assert.equal(name0(tw.convertMcpToolsJson(text, "openai", '{"server":"gh"}')), "mcp__gh__get_weather");
    // A repeated key keeps its last value, as JSON.parse keeps it.
    assert.equal(name0(tw.convertMcpToolsJson(text, "openai", '{"server":1,"server":"gh"}')), "mcp__gh__get_weather");
    // A server's name with a lone surrogate (which UTF-8 cannot hold: U+FFFD would make two names one) is
    // refused, however the options come.
    for (const options of [{ server: "g\ud800h" }, '{"server":"g\\ud800h"}', '{"server":"g\ud800h"}']) {
      assert.throws(() => tw.convertMcpToolsJson(text, "openai", options), (e) => e.code === "INVALID_OPTIONS" && /lone UTF-16 surrogate/.test(e.message));
    }
    // Other escapes read as in the object.
    assert.equal(name0(tw.convertMcpToolsJson(text, "openai", '{"server":"g\\u00e9h"}')), name0(tw.convertMcpToolsJson(text, "openai", { server: "g\u00e9h" })));
    const code = (f) => {
      try {
        f();
      } catch (e) {
        return [e.code, e.message];
      }
      assert.fail("expected a throw");
    };
    assert.deepEqual(code(() => tw.convertMcpToolsJson(text, "openai", '{"server":')), code(() => tw.convertMcpToolsJson(text, "openai", "{\"server\":")));
    assert.equal(code(() => tw.convertMcpToolsJson(text, "openai", '{"server":')) [0], "INVALID_JSON");
    for (const [bad, message] of [
      [{ strict: "yes" }, "options.strict must be a boolean, got string"],
      [{ limits: { maxNodes: 0 } }, "options.limits.maxNodes must be an integer from 1 to 2^30, got 0"],
      [[1], "options must be an object, got array"],
    ]) {
      assert.deepEqual(code(() => tw.convertMcpTools([weather], "openai", bad)), ["INVALID_OPTIONS", message]);
      assert.deepEqual(code(() => tw.convertMcpToolsJson(text, "openai", JSON.stringify(bad))), ["INVALID_OPTIONS", message]);
    }
  });

  test(name("limits: too many tools is LIMIT_EXCEEDED"), () => {
    const tools = Array.from({ length: 3 }, (_, i) => ({ name: `t${i}` }));
    let e;
    try {
      tw.convertMcpTools(tools, "openai", { limits: { maxTools: 2 } });
    } catch (x) {
      e = x;
    }
    assert.ok(e instanceof tw.ToolwireError);
    assert.equal(e.code, "LIMIT_EXCEEDED");
  });

  test(name("NameMap: fromTools, resolve, has, names, size, toJSON/fromJSON"), () => {
    const tools = [weather, { name: "create_issue" }];
    const map = tw.NameMap.fromTools(tools, "openai", { server: "github" });
    assert.ok(map instanceof tw.NameMap);
    assert.equal(map.size, 2);
    const names = map.names();
    assert.equal(names.length, 2);
    for (const [i, n] of names.entries()) {
      assert.match(n, /^[a-zA-Z0-9_-]{1,64}$/);
      assert.ok(map.has(n));
      const r = map.resolve(n);
      assert.equal(r.name, n);
      assert.equal(r.server, "github");
      assert.equal(r.tool, tools[i].name);
    }
    const again = tw.NameMap.fromJSON(JSON.stringify(map));
    assert.deepEqual(again.names(), names);
    assert.deepEqual(again.resolve(names[1]), map.resolve(names[1]));

    assert.equal(map.has("nope"), false);
    let e;
    try {
      map.resolve("nope");
    } catch (x) {
      e = x;
    }
    assert.ok(e instanceof tw.ToolwireError);
    assert.equal(e.code, "UNKNOWN_TOOL_NAME");
    map.free();
    again.free();
    // A map comes from fromTools or fromJSON: `new` says so with a typed error.
    assert.throws(() => new tw.NameMap(), (x) => x instanceof tw.ToolwireError && x.code === "INVALID_INPUT" && /NameMap\.fromTools/.test(x.message));
  });

  test(name("a NameMap instance is read in place: the calls its JSON gives; an accumulator keeps it past free()"), () => {
    const tools = [weather, { name: "create_issue" }, { name: "close_issue" }];
    const map = tw.NameMap.fromTools(tools, "openai", { server: "github" });
    const json = map.toJSON();
    const calls = map.names().map((name, i) => ({ id: `c${i}`, type: "function", function: { name, arguments: '{"n":1}' } }));
    const response = { choices: [{ message: { tool_calls: calls } }] };
    const live = tw.parseToolCalls(response, "openai", map);
    assert.deepEqual(live.map((c) => c.tool), tools.map((t) => t.name));
    assert.deepEqual(live, tw.parseToolCalls(response, "openai", json));
    assert.deepEqual(live, tw.parseToolCalls(JSON.stringify(response), "openai", map));
    // Bad input on the in-place path is a ToolwireError as on the other, and the map still works after it.
    assert.throws(() => tw.parseToolCalls(response, "nope", map), (e) => e instanceof tw.ToolwireError && e.code === "UNKNOWN_PROVIDER");
    assert.throws(() => tw.parseToolCalls({}, "openai", map), (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT");
    assert.equal(tw.parseToolCalls(response, "openai", map).length, 3);
    const acc = new tw.ToolCallAccumulator("openai", map);
    assert.ok(acc instanceof tw.ToolCallAccumulator);
    map.free();
    // A freed map is INVALID_INPUT saying so, as is any use of it; a second free() does nothing.
    const freed = (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && /this NameMap was freed/.test(e.message);
    assert.throws(() => tw.parseToolCalls(response, "openai", map), freed);
    assert.throws(() => map.resolve("x"), freed);
    assert.throws(() => new tw.ToolCallAccumulator("openai", map), freed);
    map.free();
    // `using` ends with [Symbol.dispose](): after free() it does nothing too.
    map[Symbol.dispose]();
    // The accumulator shares the map: it still resolves names after the map's free().
    const got = acc.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...calls[2] }] }, finish_reason: "tool_calls" }] });
    assert.deepEqual([got[0].server, got[0].tool, got[0].arguments], ["github", "close_issue", { n: 1 }]);
    acc.free();
    acc[Symbol.dispose]();
  });

  test(name("a name map as data: its JSON text wherever its JSON goes; a structured clone is refused with what to send"), () => {
    const tools = [weather, { name: "create_issue" }];
    const map = tw.NameMap.fromTools(tools, "openai", { server: "github" });
    const text = JSON.stringify(map);
    const calls = map.names().map((name, i) => ({ id: `c${i}`, type: "function", function: { name, arguments: "{}" } }));
    const response = { choices: [{ message: { tool_calls: calls } }] };
    const live = tw.parseToolCalls(response, "openai", map);
    // The text, as NameMap.fromJSON takes it: parseToolCalls and the accumulator take it too.
    assert.deepEqual(tw.parseToolCalls(response, "openai", text), live);
    assert.deepEqual(tw.NameMap.fromJSON(text).names(), map.names());
    const acc = new tw.ToolCallAccumulator("openai", text);
    const got = acc.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...calls[1] }] }, finish_reason: "tool_calls" }] });
    assert.deepEqual([got[0].server, got[0].tool], ["github", "create_issue"]);
    acc.free();
    // Text that is no name map says which.
    assert.throws(() => tw.parseToolCalls(response, "openai", "{"), (e) => e instanceof tw.ToolwireError && e.code === "INVALID_JSON" && /nameMap/.test(e.message));
    assert.throws(() => tw.parseToolCalls(response, "openai", "[]"), (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && /not a serialised name map/.test(e.message));
    // postMessage and workerData copy an instance by structured cloning: nothing survives (the pointer is no
    // enumerable field, so no copy owns it).
    const clone = structuredClone(map);
    assert.deepEqual(Object.getOwnPropertyNames(clone), [], "what a structured clone of a NameMap holds");
    const saysSend = (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && /structured cloning/.test(e.message) && /nameMap\.toJSON\(\)/.test(e.message);
    assert.throws(() => tw.parseToolCalls(response, "openai", clone), saysSend);
    assert.throws(() => tw.NameMap.fromJSON(clone), saysSend);
    assert.throws(() => new tw.ToolCallAccumulator("openai", clone), saysSend);
    // The data form crosses: a clone of toJSON() is a working map.
    assert.deepEqual(tw.parseToolCalls(response, "openai", structuredClone(map.toJSON())), live);
    map.free();
  });

  test(name("McpClient: bad options are INVALID_OPTIONS, times in milliseconds, counts without a unit"), () => {
    const bad = (options) => {
      try {
        new tw.McpClient("http://127.0.0.1:9/mcp", options).free();
      } catch (e) {
        assert.ok(e instanceof tw.ToolwireError);
        assert.equal(e.code, "INVALID_OPTIONS");
        return e.message;
      }
      assert.fail(`accepted ${JSON.stringify(options)}`);
    };
    assert.equal(bad({ timeoutMs: -5 }), "options.timeoutMs must be a positive integer (milliseconds) up to 2^53 - 1, or Infinity for no limit, got the number -5");
    for (const key of ["maxTools", "maxPages", "maxEventBytes", "maxResponseBytes"]) {
      assert.equal(bad({ [key]: 0 }), `options.${key} must be a positive integer up to 2^53 - 1, or Infinity for no limit, got the number 0`);
    }
  });

  test(name("Bedrock strict: Claude's subset in toolSpec.strict; oneOf made anyOf; an open map sent plain"), () => {
    const tools = [
      { name: "pick", inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 1 }, v: { oneOf: [{ type: "string" }, { type: "number" }] } }, required: ["n"] } },
      { name: "map", inputSchema: { type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } } },
    ];
    const { tools: out, report } = tw.convertMcpToolsDetailed(tools, "bedrock", { strict: true });
    assert.equal(out[0].toolSpec.strict, true);
    assert.deepEqual(out[0].toolSpec.inputSchema.json, {
      type: "object",
      properties: { n: { type: "integer", description: "(minimum: 1)" }, v: { anyOf: [{ type: "string" }, { type: "number" }] } },
      required: ["n"],
      additionalProperties: false,
    });
    assert.deepEqual(report.tools[0].changes.map((c) => c.rule), ["bedrock/strict-close", "bedrock/strict-keyword", "bedrock/strict-oneof"]);
    assert.equal(out[1].toolSpec.strict, undefined);
    assert.deepEqual(out[1].toolSpec.inputSchema.json, tw.convertMcpTools([tools[1]], "bedrock")[0].toolSpec.inputSchema.json);
    assert.deepEqual(report.tools[1].problems.map((p) => p.rule), ["bedrock/strict-fallback"]);
    assert.deepEqual(report.problems, []);
    // The JSON API writes the same.
    assert.deepEqual(JSON.parse(tw.convertMcpToolsJson(JSON.stringify(tools), "bedrock", { strict: true })), out);
    // Without strict, nothing of it.
    assert.equal(tw.convertMcpTools(tools, "bedrock")[0].toolSpec.strict, undefined);
  });

  test(name("convertMcpToolsDetailed: tools, a nameMap that resolves them, a report"), () => {
    const { tools, nameMap, report } = tw.convertMcpToolsDetailed([weather], "anthropic", { server: "wx" });
    assert.deepEqual(tools, tw.convertMcpTools([weather], "anthropic", { server: "wx" }));
    const map = tw.NameMap.fromJSON(nameMap);
    assert.deepEqual(map.resolve(tools[0].name), { name: tools[0].name, server: "wx", tool: "get_weather" });
    assert.deepEqual(nameMap, tw.NameMap.fromTools([weather], "anthropic", { server: "wx" }).toJSON());
    assert.equal(report.provider, "anthropic");
    assert.equal(report.tools.length, 1);
    map.free();
  });

  test(name("checkTools: a report per tool, problems as data"), () => {
    const tools = [weather, { name: "has.dot", inputSchema: { type: "object", properties: { a: { type: "array" } } } }];
    for (const provider of PROVIDERS) {
      const report = tw.checkTools(tools, provider);
      assert.equal(report.provider, provider);
      assert.ok(Array.isArray(report.problems));
      assert.deepEqual(
        report.tools.map((t) => t.tool),
        ["get_weather", "has.dot"],
      );
      for (const t of report.tools) {
        assert.equal(typeof t.name, "string");
        for (const d of [...t.changes, ...t.problems]) {
          assert.deepEqual(keys(d), ["message", "path", "rule"]);
        }
      }
      // A dotted name cannot pass unchanged anywhere except Gemini, which allows dots.
      const dotted = report.tools[1];
      if (!["gemini", "vertex"].includes(provider)) assert.notEqual(dotted.name, "has.dot", provider);
    }
  });

  test(name("processJsonSchema: always an object schema with properties"), () => {
    for (const empty of [undefined, null, {}]) {
      const s = tw.processJsonSchema(empty);
      assert.equal(s.type, "object");
      assert.deepEqual(s.properties, {});
    }
    assert.equal(tw.processJsonSchema({ properties: { a: { type: "string" } } }).type, "object");
    const wrapped = tw.processJsonSchema({ type: "string" });
    assert.deepEqual(wrapped.properties, { input: { type: "string" } });
    assert.deepEqual(wrapped.required, ["input"]);
  });

  test(name("prefixToolName / parseToolName"), () => {
    const n = tw.prefixToolName("github", "create_issue");
    assert.equal(n, "mcp__github__create_issue");
    assert.deepEqual(tw.parseToolName(n), { server: "github", tool: "create_issue" });
    assert.equal(tw.prefixToolName("github", "create_issue", { naming: "server" }), "github__create_issue");
    assert.equal(tw.parseToolName("mcp__github__create_issue", { naming: "mcp" }).server, "github");
  });

  test(name("flattenContent: text verbatim, placeholders for the rest, joined by newlines"), () => {
    const content = [
      { type: "text", text: "hello" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
      { type: "resource", resource: { uri: "file:///b.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
      { type: "resource", resource: { uri: "file:///c.txt", text: "embedded text" } },
      { type: "video", url: "x" },
    ];
    const expected = [
      "hello",
      "[Image: image/png (not sent: text only)]",
      "[Audio: audio/wav (not sent: text only)]",
      "[Resource link: a.txt (file:///a.txt)]",
      "[Resource: file:///b.pdf (application/pdf), 5 bytes, not sent: text only]",
      "[Resource: file:///c.txt]",
      "embedded text",
      "[Unsupported content: video]",
      '{"type":"video","url":"x"}',
    ].join("\n");
    assert.equal(tw.flattenContent(content), expected);
    assert.equal(tw.flattenContent({ content }), expected, "a CallToolResult flattens its content");
    assert.equal(tw.flattenContent({ content, isError: true }), `Error: ${expected}`, "an error is marked");
    assert.equal(tw.flattenContent({ content: [], isError: true }), "Error: The tool reported an error with no content.");
    // structuredContent follows as JSON, unless a text block already is that JSON.
    assert.equal(tw.flattenContent({ content: [{ type: "text", text: "2 rows" }], structuredContent: { rows: 2 } }), '2 rows\n{"rows":2}');
    assert.equal(tw.flattenContent({ content: [{ type: "text", text: '{"rows": 2}' }], structuredContent: { rows: 2 } }), '{"rows": 2}');
    // The marker is within the cap and says how much was shown.
    assert.equal(tw.flattenContent([{ type: "text", text: "abcdef".repeat(20) }], { maxChars: 50 }),
      "abcdefabcd\n[Truncated: 10 of 120 characters shown]");
    // Cut counts UTF-16 code units, as JS does, and never splits a surrogate pair.
    const cut = tw.flattenContent([{ type: "text", text: "a" + "😀".repeat(100) }], { maxChars: 60 });
    assert.equal(cut, "a" + "😀".repeat(9) + "\n[Truncated: 19 of 201 characters shown]");
    assert.ok(cut.length <= 60);
    // maxChars: Infinity is no cap; NaN, negative, fractional or a string are refused alike.
    assert.equal(tw.flattenContent([{ type: "text", text: "x".repeat(200_000) }], { maxChars: Infinity }).length, 200_000);
    for (const maxChars of [NaN, -1, 1.5, "100"]) {
      assert.throws(() => tw.flattenContent([], { maxChars }), { code: "INVALID_OPTIONS", message: /options\.maxChars must be a non-negative integer/ }, String(maxChars));
      assert.throws(() => tw.toolResultMessage({ id: "c", name: "t" }, [], "openai", { maxChars }), { code: "INVALID_OPTIONS", message: /options\.maxChars must be a non-negative integer/ }, String(maxChars));
    }
  });

  test(name("await using: McpClient and McpHub end their sessions (DELETE), then free; using and free() only free"), async () => {
    await tw.initAsync();
    // A server of one tool whose session ids name the URL's last character.
    const seen = [];
    const fetch = async (url, init) => {
      const body = init.body ? JSON.parse(init.body) : null;
      seen.push([init.method, init.headers["mcp-session-id"]]);
      if (init.method === "DELETE") return new Response(null, { status: 200 });
      if (body.id === undefined) return new Response(null, { status: 202 });
      const result =
        body.method === "initialize"
          ? { protocolVersion: body.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } }
          : { tools: [{ name: "t", inputSchema: { type: "object" } }] };
      const headers = { "content-type": "application/json", "mcp-session-id": `s-${url.slice(-1)}` };
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: body.id, result }), { headers });
    };
    const deletes = () => seen.filter(([method]) => method === "DELETE").map(([, session]) => session);
    const freed = (what) => (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && e.message.includes(`this ${what} was freed`);
    for (const cls of [tw.NameMap, tw.ToolCallAccumulator, tw.PermissionPolicy, tw.McpClient, tw.McpHub]) {
      const proto = Object.getPrototypeOf(cls === tw.NameMap ? tw.NameMap.fromTools([], "openai") : cls === tw.ToolCallAccumulator ? new cls("openai") : cls === tw.PermissionPolicy ? new cls() : cls === tw.McpClient ? new cls("https://example.com/mcp") : new cls({}));
      assert.equal(typeof proto[Symbol.dispose], "function", cls.name);
      assert.equal(typeof proto[Symbol.asyncDispose], cls === tw.McpClient || cls === tw.McpHub ? "function" : "undefined", cls.name);
    }

    const client = new tw.McpClient("https://example.com/mcpa", { fetch });
    await client.connect();
    await client[Symbol.asyncDispose]();
    assert.deepEqual(deletes(), ["s-a"], "await using ends the session as close() does");
    assert.throws(() => client.sessionId, freed("McpClient"), "and frees the client");
    await client[Symbol.asyncDispose](); // a freed client: nothing
    assert.deepEqual(deletes(), ["s-a"]);

    const hub = new tw.McpHub({ b: { url: "https://example.com/mcpb" }, c: { url: "https://example.com/mcpc" } }, { fetch });
    await hub.listTools();
    await hub[Symbol.asyncDispose]();
    assert.deepEqual(deletes().sort(), ["s-a", "s-b", "s-c"], "closeAll(), then free()");
    assert.throws(() => hub.servers, freed("McpHub"));
    await hub[Symbol.asyncDispose]();

    // `using` (and free()) frees without ending the session.
    const kept = new tw.McpClient("https://example.com/mcpd", { fetch });
    await kept.connect();
    kept[Symbol.dispose]();
    assert.throws(() => kept.sessionId, freed("McpClient"));
    assert.deepEqual(deletes().sort(), ["s-a", "s-b", "s-c"]);
  });

  test(name("initAsync resolves (idempotent)"), async () => {
    await tw.initAsync();
    await tw.initAsync();
  });

  test(name("classes can be subclassed: the subclass's methods and the module's, instanceof both ways"), () => {
    class Logged extends tw.ToolCallAccumulator {
      pushLogged(event) {
        this.seen = (this.seen ?? 0) + 1;
        return this.push(event);
      }
    }
    const acc = new Logged("anthropic");
    const start = { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name: "x", input: {} } };
    assert.deepEqual(acc.pushLogged(start), []);
    assert.deepEqual([acc.seen, acc.finish().map((c) => c.id)], [1, ["t1"]]);
    assert.ok(acc instanceof Logged && acc instanceof tw.ToolCallAccumulator);
    assert.equal(new tw.ToolCallAccumulator("openai") instanceof Logged, false, "a plain one is no Logged");
    const map = tw.NameMap.fromTools([{ name: "x" }], "anthropic");
    const shared = new Logged("anthropic", map);
    assert.ok(shared instanceof Logged && typeof shared.pushLogged === "function", "with a NameMap too");
    for (const [Base, args, method] of [
      [tw.McpClient, ["http://127.0.0.1:9/mcp"], "connect"],
      [tw.McpHub, [{ s: { url: "http://127.0.0.1:9/mcp" } }], "listTools"],
      [tw.PermissionPolicy, [{ allow: ["*"] }], "check"],
    ]) {
      class Sub extends Base {
        own() {
          return Base.name;
        }
      }
      const sub = new Sub(...args);
      assert.equal(sub.own(), Base.name, Base.name);
      assert.equal(typeof sub[method], "function", `${Base.name}.${method}`);
      assert.ok(sub instanceof Sub && sub instanceof Base, Base.name);
      assert.equal(new Base(...args) instanceof Sub, false, Base.name);
      sub.free();
    }
  });
};

module.exports.PROVIDERS = PROVIDERS;
module.exports.definitions = definitions;
