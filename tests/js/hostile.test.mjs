// Hostile input through the built package: every case ends in a result or a ToolwireError with a stable
// code (never a RuntimeError from a trapped module, never a hang), and after each case the module still
// converts a normal tool correctly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import * as tw from "../../pkg/index.mjs";

const require = createRequire(import.meta.url);
// The module conversions run in (Node loads the MCP client's module apart: pkg-template/index.cjs).
const raw = require("../../pkg/node/toolwire_convert.js");

const normal = [{ name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
const expected = JSON.stringify(tw.convertMcpTools(normal, "gemini"));

function stillWorks() {
  assert.equal(JSON.stringify(tw.convertMcpTools(normal, "gemini")), expected, "module state is intact");
}

/** Runs `fn`: it may return, or throw a ToolwireError (with one of `codes` if given); anything else fails. */
function survives(fn, codes) {
  let threw = null;
  try {
    fn();
  } catch (e) {
    threw = e;
  }
  if (threw) {
    assert.ok(threw instanceof tw.ToolwireError, `expected a ToolwireError, got ${threw?.name}: ${threw?.message}`);
    assert.equal(typeof threw.code, "string");
    if (codes) assert.ok(codes.includes(threw.code), `code ${threw.code} not in ${codes}`);
  }
  stillWorks();
  return threw;
}

test("nesting 10,000 deep: objects, JSON text and arrays", () => {
  let deep = { type: "string" };
  for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { n: deep } };
  const e = survives(() => tw.convertMcpTools([{ name: "deep", inputSchema: deep }], "openai"), ["LIMIT_EXCEEDED"]);
  assert.ok(e, "a 10,000-deep schema is refused");
  const text = `[{"name":"d","inputSchema":${'{"type":"object","properties":{"n":'.repeat(10_000)}{}${"}}".repeat(10_000)}}]`;
  assert.ok(survives(() => tw.convertMcpToolsJson(text, "gemini"), ["LIMIT_EXCEEDED"]));
  const arrays = "[".repeat(10_000) + "]".repeat(10_000);
  survives(() => tw.processJsonSchema(JSON.parse(arrays)), ["LIMIT_EXCEEDED"]);
  survives(() => tw.flattenContent(JSON.parse(arrays)), ["LIMIT_EXCEEDED", "INVALID_INPUT"]);
});

// Recursive `$ref`s unroll as deep as the limits allow, and in wasm every level's frames sit on the JS
// engine's own stack: an overflow there is an engine exception, not a ToolwireError, and it leaves the
// module unusable. So maxDepth has a ceiling (128) that fits the stack with room to spare.
const RECURSIVE = {
  chain: {
    type: "object",
    properties: { node: { $ref: "#/$defs/N" } },
    $defs: {
      N: { type: "object", properties: { a: { $ref: "#/$defs/M" }, next: { $ref: "#/$defs/N" } } },
      M: { anyOf: [{ $ref: "#/$defs/N" }, { type: "array", items: { $ref: "#/$defs/M" } }] },
    },
  },
  list: {
    type: "object",
    properties: { head: { $ref: "#/definitions/L" } },
    definitions: { L: { type: ["object", "null"], properties: { v: { type: "string" }, rest: { $ref: "#/definitions/L" } }, required: ["v", "rest"] } },
  },
};
const PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock"];

/**
 * Runs `script` in a child process with V8's stack cut from 984 KB to 500 KB, once under each of V8's
 * WebAssembly tiers: Liftoff, which runs the module first, and TurboFan, to which the functions that run
 * hot move (when depends on timing and load), whose frames are larger. Run under the default flags, the
 * outcome would depend on which code the recursion happened to meet. Returns what each run printed last,
 * parsed.
 */
function onHalfStack(script) {
  return [["--liftoff", "--no-wasm-tier-up"], ["--no-liftoff"]].map((tier) => {
    const r = spawnSync(process.execPath, [...tier, "--stack-size=500", "-e", script], { encoding: "utf8" });
    assert.equal(r.status, 0, `${tier.join(" ")}: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout.trim().split("\n").pop());
  });
}

test("maxDepth above the ceiling is refused before any work", () => {
  for (const maxDepth of [129, 1000, 2 ** 30]) {
    const e = survives(() => tw.convertMcpTools([{ name: "t", inputSchema: RECURSIVE.chain }], "openai", { strict: true, limits: { maxDepth } }), ["INVALID_OPTIONS"]);
    assert.ok(e, `maxDepth ${maxDepth} is refused`);
    assert.match(e.message, /options\.limits\.maxDepth must be an integer from 1 to 128/);
  }
  assert.equal(tw.convertMcpTools(normal, "openai", { limits: { maxDepth: 128 } }).length, 1);
});

test("recursive $refs unrolled to the depth ceiling end in a result or a ToolwireError, on half the stack", () => {
  // A child process with V8's stack cut from 984 KB to 500 KB: the ceiling must leave room for callers
  // that have used much of theirs. Measured: this passes on 245 KB under either tier, so it fails if
  // that use grows by 2x.
  const script = `
    const tw = require(${JSON.stringify(require.resolve("../../pkg/index.cjs"))});
    const schemas = ${JSON.stringify(RECURSIVE)};
    const out = [];
    for (const [name, schema] of Object.entries(schemas))
      for (const p of ${JSON.stringify(PROVIDERS)})
        for (const strict of [false, true]) {
          const opts = { strict, limits: { maxDepth: 128, maxNodes: 2 ** 30, maxRefUnroll: 2 ** 20 } };
          const tools = [{ name: "t", inputSchema: schema }];
          for (const [api, f] of [["objects", () => tw.convertMcpTools(tools, p, opts)],
                                  ["json", () => tw.convertMcpToolsJson(JSON.stringify(tools), p, opts)],
                                  ["detailed", () => tw.convertMcpToolsDetailed(tools, p, opts)]]) {
            try { f(); out.push("ok"); }
            catch (e) {
              if (!(e instanceof tw.ToolwireError)) { console.log("NOT A ToolwireError: " + name + " " + p + " " + strict + " " + api + ": " + e); process.exit(1); }
              out.push(e.code);
            }
          }
        }
    const after = tw.convertMcpTools([{ name: "ok", inputSchema: { type: "object" } }], "openai");
    console.log(JSON.stringify({ out, after: after[0].function.name }));
  `;
  for (const { out, after } of onHalfStack(script)) {
    assert.equal(out.length, 2 * PROVIDERS.length * 2 * 3);
    assert.ok(out.every((x) => x === "ok" || x === "LIMIT_EXCEEDED"), out.join(","));
    assert.ok(out.includes("ok"), "some conversions finish with the cut reported");
    assert.equal(after, "ok");
  }
});

test("schemas nested as deep as maxDepth allows are read; deeper is LIMIT_EXCEEDED naming the tool, on half the stack", () => {
  // Each object level is two JSON levels (the schema, its properties): 127 of them are 257 JSON levels
  // with the tool around them, past the 128 serde_json reads by default. Measured: this passes on 220 KB
  // under either tier (Gemini's 127 levels take 210 KB as TurboFan's code, 1.5 KB a level; they took
  // 510 KB, 4 KB a level, when one frame of its lowering held all of it), so it fails if that use grows
  // by 2x.
  const script = `
    const tw = require(${JSON.stringify(require.resolve("../../pkg/index.cjs"))});
    const nest = (n, leaf) => { let s = leaf; for (let i = 0; i < n; i++) s = { type: "object", properties: { p: s } }; return s; };
    const arrays = (n) => { let s = { type: "string" }; for (let i = 0; i < n; i++) s = { type: "array", items: s }; return s; };
    const out = {};
    const run = (key, f) => { try { f(); out[key] = "ok"; } catch (e) {
      if (!(e instanceof tw.ToolwireError)) { console.log("NOT A ToolwireError: " + key + ": " + e); process.exit(1); }
      out[key] = e.code + (e.tool ? " " + e.tool : ""); } };
    for (const p of ${JSON.stringify(PROVIDERS)})
      for (const [label, schema, maxDepth] of [["objects127", nest(127, { type: "string" }), 128], ["arrays126", arrays(126), 128],
                                                ["objects63", nest(63, { type: "string" }), undefined], ["objects129", nest(129, { type: "string" }), 128]]) {
        const tools = [{ name: "ok", inputSchema: { type: "object" } }, { name: "deep", inputSchema: schema }];
        const opts = maxDepth ? { limits: { maxDepth } } : {};
        run(p + " " + label + " objects", () => tw.convertMcpTools(tools, p, opts));
        run(p + " " + label + " json", () => tw.convertMcpToolsJson(JSON.stringify(tools), p, opts));
        run(p + " " + label + " check", () => tw.checkTools(tools, p, opts));
      }
    const rows = nest(190, 1);
    run("result", () => tw.toolResultMessage({ id: "c", name: "f" }, { content: [], structuredContent: rows }, "gemini"));
    run("json400", () => tw.convertMcpToolsJson("[".repeat(400) + "]".repeat(400), "openai"));
    const after = tw.convertMcpTools([{ name: "ok", inputSchema: { type: "object" } }], "openai");
    console.log(JSON.stringify({ out, after: after[0].function.name }));
  `;
  for (const { out, after } of onHalfStack(script)) {
    for (const p of PROVIDERS) {
      for (const api of ["objects", "json", "check"]) {
        for (const label of ["objects127", "arrays126", "objects63"]) assert.equal(out[`${p} ${label} ${api}`], "ok", `${p} ${label} ${api}`);
        assert.equal(out[`${p} objects129 ${api}`], api === "check" ? "ok" : "LIMIT_EXCEEDED deep", `${p} objects129 ${api}`);
      }
    }
    assert.equal(out.result, "ok");
    // A list of 400 nested arrays is read (and refused for its depth as a tool, not as JSON).
    assert.match(out.json400, /^LIMIT_EXCEEDED/);
    assert.equal(after, "ok");
  }
  // Past the reader's bound: LIMIT_EXCEEDED, not "not valid JSON".
  const e = survives(() => tw.convertMcpToolsJson("[".repeat(401) + "]".repeat(401), "openai"), ["LIMIT_EXCEEDED"]);
  assert.match(e.message, /cannot be read: arrays and objects nesting deeper than 400 levels at line 1 column \d+$/);
});

test("the report at maxDepth and maxNodes: the tool is left out whole and said to be, never cut to fit", () => {
  // What Report.tools says in the declarations. A definition past a limit as given is not read (`tool/invalid` at
  // its index); one read but past a limit as converted, `$ref`s inlined, has its entry and a `tool/error` problem.
  let deep = { type: "string" };
  for (let i = 0; i < 10; i++) deep = { type: "object", properties: { a: deep } };
  const B = { type: "object", properties: { x: { type: "string" }, z: { type: "array", items: { type: "string" } } } };
  const shared = { type: "object", properties: Object.fromEntries(["p0", "p1", "p2", "p3", "p4", "p5"].map((p) => [p, { $ref: "#/$defs/B" }])), $defs: { B } };
  const tools = [{ name: "ok", inputSchema: { type: "object" } }, { name: "deep", inputSchema: deep }, { name: "shared", inputSchema: shared }];
  const report = (limits) => tw.checkTools(tools, "gemini", { limits });
  const entries = (r) => r.tools.map((t) => [t.tool, t.problems.map((p) => [p.path, p.rule, p.message])]);

  // As given: "deep" nests too deep for 4 schema levels; with maxNodes 20, "shared" (22 JSON values) is too large.
  let r = report({ maxDepth: 4 });
  assert.deepEqual(r.problems.map((p) => [p.path, p.rule]), [["/1", "tool/invalid"]]);
  assert.match(r.problems[0].message, /limits\.maxDepth/);
  r = report({ maxNodes: 20 });
  assert.deepEqual(r.problems.map((p) => [p.path, p.rule]), [["/1", "tool/invalid"], ["/2", "tool/invalid"]]);
  assert.match(r.problems[1].message, /more than limits\.maxNodes \(20\)/);
  assert.deepEqual(r.tools.map((t) => t.tool), ["ok"]);

  // As converted: "shared" inlines B six times, past 30 nodes; with maxDepth 2, the B inlined at p0 goes too deep.
  r = report({ maxNodes: 30 });
  const [[name, [[path, ...rest]]]] = entries(r).slice(1);
  assert.deepEqual([name, rest], ["shared", ["tool/error", "schema has more than 30 nodes (after $ref inlining)"]]);
  assert.match(path, /^\/properties\/p[1-5]\//, "where the budget ran out, past the first copy of B");
  assert.deepEqual(r.problems.map((p) => p.path), ["/1"]);
  r = tw.checkTools(tools.slice(2), "gemini", { limits: { maxDepth: 2 } });
  assert.deepEqual(entries(r), [["shared", [["/properties/p0", "tool/error", "schema nesting exceeds the limit of 2 levels"]]]]);
  // convertMcpTools and convertMcpToolsDetailed throw instead; nothing is converted cut short.
  for (const convert of [tw.convertMcpTools, tw.convertMcpToolsDetailed]) {
    const e = survives(() => convert(tools.slice(2), "gemini", { limits: { maxNodes: 30 } }), ["LIMIT_EXCEEDED"]);
    assert.ok(e && e.tool === "shared", convert.name);
  }
});

test("input too large for the module's memory is a LIMIT_EXCEEDED error, not a trap", () => {
  // 17.5 million items in 50 MB, past the 8,388,608 one read takes (22 million, read, ran wasm32 out
  // of memory: a trap).
  const text = "[" + "[],".repeat(17_500_000) + "[]]";
  let e = survives(() => tw.convertMcpToolsJson(text, "openai"), ["LIMIT_EXCEEDED"]);
  assert.ok(e, "text is refused");
  assert.match(e.message, /holds more than 8388608 JSON values/);
  assert.ok(survives(() => tw.convertMcpToolsJson(new TextEncoder().encode(text), "gemini"), ["LIMIT_EXCEEDED"]), "bytes are refused");
  // Arguments given as text inside a provider response.
  const response = { choices: [{ message: { tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: text } }] } }] };
  const calls = tw.parseToolCalls(response, "openai");
  assert.equal(calls[0].error?.code, "LIMIT_EXCEEDED", JSON.stringify(calls[0].error));
  stillWorks();
  // 3 GiB of bytes: more than the module's memory can take in, refused before copying.
  e = survives(() => tw.convertMcpToolsJson(new Uint8Array(3 * 2 ** 30), "openai"), ["LIMIT_EXCEEDED"]);
  assert.ok(e, "3 GiB are refused");
  assert.match(e.message, /needs 3221225472 bytes of memory/);
});

test("one node with 24,000 to 200,000 unknown keywords converts in strict mode (their notes cost linear memory, not a trap)", () => {
  // Strict mode folds each into the description as a note: the description copied for each note took the
  // 4 GiB of wasm32 at 24,000 (a 434 KB schema), a trap, after which every call of the module failed.
  const tool = (n) => {
    const x = { type: "string", description: "d" };
    for (let i = 0; i < n; i++) x["kw" + i] = "v" + i;
    return { name: "t", inputSchema: { type: "object", properties: { x } } };
  };
  const notes = (d) => d.match(/ \(kw\d+: "v\d+"\)/g).length;
  for (const n of [24_000, 64_000]) {
    const text = JSON.stringify([tool(n)]);
    for (const provider of ["openai", "openai-responses"]) {
      const out = JSON.parse(tw.convertMcpToolsJson(text, provider, { strict: true }));
      const params = provider === "openai" ? out[0].function.parameters : out[0].parameters;
      assert.equal(out[0].strict ?? out[0].function.strict, true, provider);
      assert.deepEqual(Object.keys(params.properties.x), ["type", "description"], provider);
      assert.equal(notes(params.properties.x.description), n, `${provider}, ${n}`);
      stillWorks();
    }
  }
  // The objects' API, through the general path.
  const out = tw.convertMcpTools([tool(24_000)], "openai", { strict: true });
  assert.equal(notes(out[0].function.parameters.properties.x.description), 24_000);
  stillWorks();
  // 200,000 are past maxNodes, and convert once it is raised.
  const text = JSON.stringify([tool(200_000)]);
  const e = survives(() => tw.convertMcpToolsJson(text, "openai", { strict: true }), ["LIMIT_EXCEEDED"]);
  assert.match(e.message, /more than limits.maxNodes/);
  const big = JSON.parse(tw.convertMcpToolsJson(text, "openai", { strict: true, limits: { maxNodes: 300_000 } }));
  assert.equal(notes(big[0].function.parameters.properties.x.description), 200_000);
  stillWorks();
});

test("descriptions of a megabyte joined along a $ref chain and an allOf cost memory in proportion to the text, not a trap", () => {
  // Whether the text joined so far holds a description was asked of an index of the text (some 100 bytes per
  // byte): a chain of 40 aliases with a megabyte of description each ran wasm32 out of memory (a trap, 15 s).
  let seed = 1;
  const letters = "abcdefghijklmnopqrstuvwxyz ";
  const text = () => {
    const chars = new Array(1_000_000);
    for (let i = 0; i < chars.length; i++) chars[i] = letters[(seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 27];
    return "x" + chars.join("") + "y";
  };
  const $defs = {};
  for (let i = 0; i < 40; i++) $defs["d" + i] = { $ref: "#/$defs/d" + (i + 1), description: text() };
  $defs.d40 = { type: "string", description: "END" };
  const chain = JSON.stringify([{ name: "t", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/d0" } }, $defs } }]);
  const out = JSON.parse(tw.convertMcpToolsJson(chain, "gemini"));
  const joined = out[0].functionDeclarations[0].parameters.properties.x.description;
  assert.equal(joined, [...Array(40).keys()].map((i) => $defs["d" + i].description).join("\n\n") + "\n\nEND");
  stillWorks();
  // One description of 20 MB and an allOf branch's joined to it, with the string limit raised.
  const big = text().repeat(20);
  const allOf = { type: "object", properties: { x: { type: "string", description: big, allOf: [{ minLength: 1, description: "ONE" }] } } };
  const merged = JSON.parse(tw.convertMcpToolsJson(JSON.stringify([{ name: "t", inputSchema: allOf }]), "gemini", { limits: { maxStringBytes: 64 * 1024 * 1024 } }));
  assert.equal(merged[0].functionDeclarations[0].parameters.properties.x.description, big + " ONE");
  stillWorks();
});

test("50 MB strings are refused by the string limit, and accepted when it is raised", () => {
  const big = "x".repeat(50 * 1024 * 1024);
  const e = survives(() => tw.convertMcpTools([{ name: "big", description: big }], "anthropic"), ["LIMIT_EXCEEDED"]);
  assert.equal(e.tool, "big");
  const out = tw.convertMcpTools([{ name: "big", description: big }], "anthropic", { limits: { maxStringBytes: 64 * 1024 * 1024 } });
  assert.equal(out[0].description.length, big.length);
  // flattenContent caps instead.
  const flat = tw.flattenContent([{ type: "text", text: big }]);
  assert.equal(flat.length, 100_000, "the marker within the cap");
  assert.ok(flat.endsWith(` of ${big.length} characters shown]`));
  stillWorks();
});

test("__proto__, constructor and prototype keys everywhere stay own data", () => {
  const schema = JSON.parse(`{"type":"object","properties":{"__proto__":{"type":"object","properties":{"constructor":{"type":"string"},"prototype":{"type":"string","enum":["__proto__"]}},"required":["constructor"]},"constructor":{"type":"string"}},"required":["__proto__"]}`);
  const tool = JSON.parse(`{"name":"__proto__","description":"p","inputSchema":${JSON.stringify(schema)},"__proto__":{"polluted":true}}`);
  for (const provider of ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock"]) {
    const out = tw.convertMcpTools([tool], provider);
    const text = JSON.stringify(out);
    assert.match(text, /"__proto__":\{"type":"(object|OBJECT)"/, provider);
    assert.equal({}.polluted, undefined, "no prototype pollution");
    assert.equal(Object.prototype.polluted, undefined);
  }
  const map = tw.NameMap.fromTools([tool], "openai");
  assert.equal(map.resolve("__proto__").tool, "__proto__");
  const args = map.prepareArguments("__proto__", '{"__proto__":{"constructor":"x"}}');
  assert.ok(Object.hasOwn(args, "__proto__"));
  assert.equal(Object.getPrototypeOf(args), Object.prototype);
  stillWorks();
});

test("lone surrogates in JS strings become U+FFFD, reported where they were", () => {
  const out = tw.convertMcpTools([{ name: "s", description: "bad \ud800 pair \udc00 ok 😀" }], "openai");
  assert.equal(out[0].function.description, "bad \ufffd pair \ufffd ok 😀");
  // In a property name and an enum value the replacement changes what the model is told: reported, with where.
  const tools = [
    { name: "ok", description: "😀", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
    { name: "cut", description: "cut \ud83d", inputSchema: { type: "object", properties: { ["x\udc00"]: { enum: ["a", "\ud83d"] } } } },
  ];
  for (const provider of ["openai", "anthropic", "gemini", "bedrock"]) {
    const { tools: converted, report } = tw.convertMcpToolsDetailed(tools, provider);
    assert.equal(converted.length, provider === "gemini" ? 1 : 2, provider);
    const lone = report.problems.filter((p) => p.rule === "input/lone-surrogate");
    assert.deepEqual(lone.map((p) => p.path), ["/1/description", "/1/inputSchema/properties/x\ufffd", "/1/inputSchema/properties/x\ufffd/enum/1"], provider);
    assert.match(lone[0].message, /lone UTF-16 surrogate.*U\+FFFD/);
    assert.deepEqual(tw.checkTools(tools, provider).problems.filter((p) => p.rule === "input/lone-surrogate"), lone, `${provider}: checkTools`);
    // The JSON API reads JSON.stringify's escapes the same way (it was INVALID_JSON).
    assert.deepEqual(JSON.parse(tw.convertMcpToolsJson(JSON.stringify(tools), provider)), converted, `${provider}: JSON API`);
  }
  const many = [{ name: "m", description: "\ud800".repeat(10) }];
  const lone = tw.convertMcpToolsDetailed(many, "openai").report.problems.filter((p) => p.rule === "input/lone-surrogate");
  assert.equal(lone.length, 9);
  assert.equal(lone[8].message, "2 more lone UTF-16 surrogates written as U+FFFD (10 in all)");
  assert.equal(tw.flattenContent([{ type: "text", text: "\udbff" }]), "\ufffd");
  stillWorks();
});

test("a raw lone surrogate right after a backslash that escapes it is invalid JSON, as JSON.parse says; after an escaped backslash it is text (s26d F5)", () => {
  const L = "\ud800";
  const tools = (bs) => `[{"name":"t","description":"C:${bs}${L}","inputSchema":{"type":"object","properties":{"p":{"type":"string","enum":["a${bs}${L}"]}}}}]`;
  const stream = (bs) => `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c${bs}${L}","type":"function","function":{"name":"t","arguments":"{}"}}]}}]}\n\n`;
  const map = (bs) => `{"version":1,"entries":[{"name":"mcp__s__get","server":"s","tool":"get${bs}${L}"}]}`;
  for (const bs of ["\\", "\\\\\\"]) {
    assert.throws(() => JSON.parse(tools(bs)), SyntaxError);
    survives(() => assert.fail(tw.convertMcpToolsJson(tools(bs), "openai")), ["INVALID_JSON"]);
    const acc = new tw.ToolCallAccumulator("openai");
    survives(() => assert.fail(JSON.stringify(acc.push(stream(bs)))), ["INVALID_JSON"]);
    acc.free();
    survives(() => assert.fail(tw.NameMap.fromJSON(map(bs))), ["INVALID_JSON"]);
    // A name map given as text where one is taken.
    survives(() => assert.fail(tw.parseToolCalls({ type: "tool_use", id: "x", name: "mcp__s__get", input: {} }, "anthropic", map(bs))), ["INVALID_JSON"]);
  }
  // An escaped backslash, then the half: JSON.parse reads a backslash and U+D800, toolwire a backslash and U+FFFD.
  for (const bs of ["", "\\\\"]) {
    JSON.parse(tools(bs));
    const out = tw.convertMcpToolsJson(tools(bs), "openai");
    assert.equal(JSON.parse(out)[0].function.description, `C:${bs ? "\\" : ""}\ufffd`);
    const acc = new tw.ToolCallAccumulator("openai");
    acc.push(stream(bs));
    assert.equal(acc.finish()[0].id, `c${bs ? "\\" : ""}\ufffd`);
  }
  stillWorks();
});

test("a lone surrogate in a name is refused: as U+FFFD two names would be one", () => {
  const code = (fn) => {
    try {
      fn();
    } catch (e) {
      return [e.code, e.message];
    }
    return ["no error"];
  };
  // Two tools whose names differ in their lone surrogate alone once both resolved to tool "a\ufffd".
  const tools = [{ name: "a\ud800", serverName: "s" }, { name: "a\ud801", serverName: "s" }];
  // In each shape the tools come in: an array, {tools}, a tools/list result.
  const shapes = [tools, { tools }, { result: { tools } }];
  for (const fn of [
    ...shapes.flatMap((t) => [() => tw.NameMap.fromTools(t, "openai"), () => tw.convertMcpTools(t, "openai"), () => tw.convertMcpToolsJson(JSON.stringify(t), "anthropic"), () => tw.toolsSystemPrompt(t)]),
  ]) {
    const [c, m] = code(fn);
    assert.equal(c, "INVALID_TOOL");
    assert.match(m, /^tool at index 0: its name holds a lone UTF-16 surrogate/);
  }
  assert.equal(code(() => tw.convertMcpTools([{ name: "a", serverName: "s\udc00" }], "openai"))[0], "INVALID_TOOL");
  assert.ok(tw.checkTools(tools, "openai").problems.some((p) => p.rule === "tool/invalid" && p.path === "/1"));
  // checkTools says the tool is left out, not that its name was written as U+FFFD.
  for (const t of shapes) {
    const lone = tw.checkTools(t, "openai").problems.filter((p) => p.rule === "input/lone-surrogate");
    assert.equal(lone.length, 2);
    assert.match(lone[0].message, /in a name, which no name can hold: tool 0 is left out$/);
    assert.doesNotMatch(lone[0].message, /U\+FFFD/);
  }
  for (const fn of [() => tw.prefixToolName("s", "a\ud800"), () => tw.prefixToolName("s\udfff", "a"), () => tw.parseToolName("mcp__s__a\ud800")]) {
    assert.equal(code(fn)[0], "INVALID_INPUT");
  }
  assert.deepEqual(code(() => new tw.PermissionPolicy({ deny: ["mcp__s__a\ud800"] })).slice(0, 1), ["INVALID_OPTIONS"]);
  assert.equal(code(() => new tw.PermissionPolicy({}).check("mcp__s__a\ud800"))[0], "INVALID_INPUT");
  // A server's name: the options' server (every tool's) and a hub's server keys (two would be one server, and
  // a tool of one called on the other).
  // (`serverName` is no option, and prefixToolName takes no `server` option: refused as such.)
  for (const options of [{ server: "s\ud800" }, { serverName: "s\udbff" }]) {
    for (const fn of [() => tw.convertMcpTools([{ name: "a" }], "openai", options), () => tw.NameMap.fromTools([{ name: "a" }], "gemini", options), () => tw.toolsSystemPrompt([{ name: "a" }], options), () => tw.prefixToolName("s", "a", options)]) {
      const [c, m] = code(fn);
      assert.equal(c, "INVALID_OPTIONS", m);
      assert.match(m, options.server ? /^options\.server (holds a lone UTF-16 surrogate|is no option of prefixToolName)/ : /^options\.serverName is no option/);
    }
  }
  const [c, m] = code(() => new tw.McpHub({ "x\ud800": { url: "http://127.0.0.1:1/mcp" }, "x\ud801": { url: "http://127.0.0.1:1/mcp" } }));
  assert.equal(c, "INVALID_INPUT", m);
  assert.match(m, /a server's name \(a key of servers\) holds a lone UTF-16 surrogate/);
  // JSON text given as a string, a half in it as itself (not escaped): the module's UTF-8 cannot hold it, and
  // it is read as its escape, not as U+FFFD put in silently.
  const raw = '[{"name":"a\ud800","inputSchema":{"type":"object"}},{"name":"b","description":"x\udc00' + "y".repeat(300) + '"}]';
  for (const provider of ["openai", "gemini", "bedrock"]) {
    const [c, m] = code(() => tw.convertMcpToolsJson(raw, provider));
    assert.equal(c, "INVALID_TOOL", m);
    assert.match(m, /^tool at index 0: its name holds a lone UTF-16 surrogate/);
  }
  const described = JSON.parse(tw.convertMcpToolsJson(raw.replace("a\ud800", "a"), "openai"));
  assert.equal(described[1].function.description, "x\ufffd" + "y".repeat(300), "elsewhere a half is U+FFFD");
  assert.equal(JSON.parse(tw.convertMcpToolsJson(raw.replace("a\ud800", "a\ud83d\ude00"), "anthropic"))[0].name.length > 0, true);
  // A name with U+FFFD itself is a name like any other.
  assert.equal(tw.NameMap.fromTools([{ name: "a\ufffd", serverName: "s" }], "openai").resolve("mcp__s__a__i7x8s673").tool, "a\ufffd");
  // F3 (s24c): a name map's readers refuse the half too, as prefixToolName does, instead of taking the U+FFFD name.
  const map = tw.NameMap.fromJSON({ version: 1, entries: [{ name: "lookup_\ufffd", server: "s", tool: "lookup_\ufffd" }] });
  for (const fn of [() => map.resolve("lookup_\ud83d"), () => map.has("lookup_\ud83d"), () => map.prepareArguments("lookup_\ud83d", {})]) {
    const [c, m] = code(fn);
    assert.equal(c, "INVALID_INPUT", m);
    assert.match(m, /^name holds a lone UTF-16 surrogate/);
  }
  assert.equal(map.has("lookup_\ufffd"), true);
  assert.equal(map.has(7), false);
  for (const [entry, key] of [[{ name: "a", server: "s", tool: "x\udc00" }, "entries[0].tool"], [{ name: "a\ud800", tool: "t" }, "entries[0].name"], [{ name: "a", server: "s\udbff", tool: "t" }, "entries[0].server"]]) {
    const json = { version: 1, entries: [entry] };
    // The map as data, as JSON text (halves escaped), and as text holding the halves themselves.
    const raw = `{"version":1,"entries":[{"name":"${entry.name}","tool":"${entry.tool}"${entry.server ? `,"server":"${entry.server}"` : ""}}]}`;
    for (const given of [json, JSON.stringify(json), raw]) {
      const [c, m] = code(() => tw.NameMap.fromJSON(given));
      assert.equal(c, "INVALID_INPUT", m);
      assert.match(m, new RegExp(`^not a serialised name map: ${key.replace(/[[\]]/g, "\\$&")} holds a lone UTF-16 surrogate`));
    }
  }
  assert.equal(tw.NameMap.fromJSON(JSON.stringify({ version: 1, entries: [{ name: "a", tool: "t\ud83d\ude00" }] })).resolve("a").tool, "t\ud83d\ude00");
  stillWorks();
});

test("McpClient and McpHub refuse a name with a lone surrogate before calling (F3 s24c)", async () => {
  const client = new tw.McpClient("http://127.0.0.1:1/mcp");
  const hub = new tw.McpHub({ s: { url: "http://127.0.0.1:1/mcp" } });
  for (const [call, what] of [[() => client.callTool("a\ud800", {}), "name"], [() => client.request("tools/\udc00"), "method"], [() => hub.callTool("a\ud800", {}), "name"], [() => hub.request("s\ud800", "ping"), "server"]]) {
    await assert.rejects(call, (e) => e.code === "INVALID_INPUT" && e.message.startsWith(`${what} holds a lone UTF-16 surrogate`));
  }
  await assert.rejects(() => client.callTool("a", {}), { code: "NOT_CONNECTED" });
});

test("non-ASCII text comes back exactly from every entry point that returns objects", () => {
  // Objects leave the module as ASCII-only JSON (non-ASCII characters escaped) for a faster JSON.parse;
  // the values must be the characters given, in keys, descriptions and enums, at the edges of UTF-16.
  const words = ["café", "中文", "😀", "\u0080", "\u07ff", "\u0800", "\uffff", "\u{10000}", "\u{10ffff}", "a\u00e9b\u{1F600}c"];
  const props = Object.fromEntries(words.map((w, i) => [`${w}_${i}`, { type: "string", description: w, enum: [w, `x${w}`] }]));
  const tool = { name: "unicode", description: words.join(" "), inputSchema: { type: "object", properties: props } };
  const out = tw.convertMcpTools([tool], "openai");
  assert.equal(out[0].function.description, words.join(" "));
  assert.deepEqual(out[0].function.parameters.properties, props);
  assert.deepEqual(tw.convertMcpToolsDetailed([tool], "openai").tools, out);
  const json = tw.convertMcpToolsJson(JSON.stringify([tool]), "openai");
  assert.ok(json.includes("中文"), "text with many non-ASCII characters is returned as written");
  assert.deepEqual(JSON.parse(json), out);
  const g = tw.convertMcpTools([tool], "gemini", { geminiMode: "parameters" })[0].functionDeclarations[0];
  assert.deepEqual(Object.keys(g.parameters.properties), Object.keys(props));
  assert.deepEqual(tw.processJsonSchema(tool.inputSchema).properties, props);
  stillWorks();
});

/** What `convertMcpToolsJson` returns as a string for JSON text it returns as these UTF-8 bytes' text. */
function escapedWhenSparse(text) {
  const outside = new TextEncoder().encode(text).filter((b) => b >= 0x80).length;
  if (outside * 32 > new TextEncoder().encode(text).length) return text;
  return text.replace(/[^\x00-\x7f]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

test("JSON text out as a string escapes a few non-ASCII characters and keeps many as they are", () => {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const ascii = /^[\x00-\x7f]*$/;
  const tool = (description) => [{ name: "t", description, inputSchema: { type: "object", properties: { q: { type: "string", description } } } }];
  for (const provider of ["openai", "gemini"]) {
    const sparse = JSON.stringify(tool("Finds caf\u00e9s near a place \u{1F600}, " + "ranked by distance. ".repeat(10)));
    const out = tw.convertMcpToolsJson(sparse, provider);
    assert.match(out, ascii, `${provider}: escaped`);
    assert.ok(out.includes("caf\\u00e9s") && out.includes("\\ud83d\\ude00"), out);
    assert.deepEqual(JSON.parse(out), JSON.parse(dec.decode(tw.convertMcpToolsJson(enc.encode(sparse), provider))));
    assert.ok(dec.decode(tw.convertMcpToolsJson(enc.encode(sparse), provider)).includes("caf\u00e9s"), "bytes out stay UTF-8");

    const dense = JSON.stringify(tool("\u8fd4\u56de\u6587\u4ef6\u5217\u8868\u548c\u5927\u5c0f"));
    const kept = tw.convertMcpToolsJson(dense, provider);
    assert.ok(kept.includes("\u8fd4\u56de\u6587\u4ef6"), `${provider}: left as it is: ${kept}`);
    assert.equal(kept, dec.decode(tw.convertMcpToolsJson(enc.encode(dense), provider)));
  }
});

test("strings cross whole wherever their first non-ASCII character is", () => {
  // A string crosses by TextEncoder#encodeInto into room for all-ASCII text first, then the rest
  // into more room (interop::string_text): every split point gives the bytes TextEncoder gives.
  const enc = new TextEncoder();
  const tails = ["", "é", "中", "😀", "\ud800", "\udc00x", "é".repeat(3) + "plain"];
  for (const lead of [0, 1, 7, 8, 9, 300]) {
    for (const tail of tails) {
      const description = "a".repeat(lead) + tail + "z";
      // Written by hand: JSON.stringify would escape a lone surrogate (see the test above).
      const text = `[{"name":"t","description":"${description}","inputSchema":{"type":"object"}}]`;
      const fromBytes = new TextDecoder().decode(tw.convertMcpToolsJson(enc.encode(text), "openai"));
      // The same text, its non-ASCII characters escaped when they are at most one byte in 32.
      const fromText = tw.convertMcpToolsJson(text, "openai");
      assert.equal(fromText, escapedWhenSparse(fromBytes), `${lead} + ${JSON.stringify(tail)}`);
      assert.deepEqual(JSON.parse(fromText), JSON.parse(fromBytes), `${lead} + ${JSON.stringify(tail)}`);
      const expected = description.toWellFormed();
      assert.equal(tw.convertMcpTools([{ name: "t", description, inputSchema: { type: "object" } }], "openai")[0].function.description, expected);
    }
  }
  stillWorks();
});

test("numbers beyond 2^53, NaN, Infinity and BigInt", () => {
  const out = tw.convertMcpTools([{ name: "n", inputSchema: { type: "object", properties: { a: { type: "integer", enum: [2 ** 60, -0], default: 2 ** 53 + 2 } } } }], "gemini");
  assert.ok(Array.isArray(out));
  // NaN and Infinity, which JSON.stringify writes as null, are refused where they are, not sent as null.
  survives(() => tw.convertMcpTools([{ name: "n", inputSchema: { type: "object", properties: { a: { type: "integer", enum: [2 ** 60, NaN, Infinity, -0] } } } }], "gemini"), ["INVALID_JSON"]);
  const exact = tw.convertMcpToolsJson('[{"name":"n","inputSchema":{"type":"object","properties":{"a":{"type":"integer","enum":[123456789012345678901234567890]}}}}]', "openai");
  assert.match(exact, /"enum":\[1\.2345678901234568e29\]|"enum":\[123456789012345680000000000000\]|enum/);
  survives(() => tw.convertMcpTools([{ name: "b", inputSchema: { type: "object", default: 10n } }], "openai"), ["INVALID_JSON"]);
  survives(() => tw.flattenContent([{ type: "text", text: 1n }]), ["INVALID_JSON"]);
});

test("a toJSON that throws what is no Error (a string, a number, an object) is INVALID_JSON", () => {
  for (const thrown of ["x", 42, {}, { message: "m" }, null]) {
    const tool = { name: "a", inputSchema: { type: "object" }, toJSON() { throw thrown; } };
    const e = survives(() => tw.convertMcpTools([tool], "openai"), ["INVALID_JSON"]);
    assert.doesNotMatch(e.message, /: $/, "the message says what was thrown");
    survives(() => tw.processJsonSchema({ type: "object", properties: { p: { toJSON() { throw thrown; } } } }), ["INVALID_JSON"]);
    survives(() => tw.NameMap.fromTools([{ name: "a" }], "openai").prepareArguments("a", { toJSON() { throw thrown; } }), ["INVALID_JSON"]);
  }
});

test("getters and proxies are read as JSON once: one that throws on a second read changes nothing", () => {
  const schema = { type: "object", properties: { a: { type: "string" } } };
  const expected = tw.convertMcpToolsJson(JSON.stringify([{ name: "t", inputSchema: schema }]), "openai");
  let reads = 0;
  const tool = { name: "t" };
  Object.defineProperty(tool, "inputSchema", {
    enumerable: true,
    get() {
      if (++reads > 1) throw new Error("read twice");
      return schema;
    },
  });
  assert.equal(JSON.stringify(tw.convertMcpTools([tool], "openai")), expected);
  // A proxy whose trap throws once the tools have been stringified (JSON.stringify reads
  // `toJSON` first; a second read comes after).
  let toJsonReads = 0;
  const list = new Proxy([{ name: "t", inputSchema: schema }], {
    get(target, key, receiver) {
      if (key === "toJSON") toJsonReads++;
      if (toJsonReads > 1 && key === "0") throw new Error("trap");
      return Reflect.get(target, key, receiver);
    },
  });
  assert.equal(JSON.stringify(tw.convertMcpTools(list, "openai")), expected);
  stillWorks();
});

test("a stream event pushed is read once a key: the checks before JSON read no key twice", () => {
  // Each read is a guarded crossing into JS: `Symbol.toStringTag` was read by the bytes test and again
  // by the lossy-value check, `response` twice by the SDK-result check.
  const reads = [];
  const event = new Proxy({ id: "c1", object: "chat.completion.chunk", choices: [] }, {
    get(target, key, receiver) {
      reads.push(String(key));
      return Reflect.get(target, key, receiver);
    },
  });
  assert.deepEqual(new tw.ToolCallAccumulator("openai").push(event), []);
  const twice = reads.filter((k, i) => reads.indexOf(k) !== i);
  assert.deepEqual(twice, [], `keys read: ${reads.join(", ")}`);
  for (const k of ["Symbol(Symbol.toStringTag)", "then", "toJSON", "choices"]) assert.ok(reads.includes(k), `${k} read: ${reads.join(", ")}`);
  // An SDK result's fields are looked for among the event's own keys: no getter of its class is read
  // (@google/genai's chunk warns on the console for each read of its `data`).
  for (const k of ["stream", "body", "data", "response"]) assert.ok(!reads.includes(k), `${k} read: ${reads.join(", ")}`);
});

test("cyclic objects", () => {
  const a = { name: "c", inputSchema: { type: "object", properties: {} } };
  a.inputSchema.properties.self = a.inputSchema;
  const e = survives(() => tw.convertMcpTools([a], "openai"), ["INVALID_JSON"]);
  assert.ok(e);
  const content = [{ type: "text", text: "x" }];
  content.push(content);
  assert.ok(survives(() => tw.flattenContent(content), ["INVALID_JSON"]));
});

const WRONG = [undefined, null, 0, -1, 1.5, NaN, "", "x", true, [], [1], {}, { a: 1 }, () => 1, Symbol("s"), 10n, new Uint8Array(2), new Map(), new Date(0)];

test("provider responses and stream events with fields of the wrong type: INVALID_INPUT naming the path", () => {
  const cases = [
    ["openai", { choices: {} }, "/choices"],
    ["openai", { choices: [{ message: { tool_calls: { 0: {} } } }] }, "/choices/0/message/tool_calls"],
    ["ollama", { message: "hi" }, "/message"],
    ["openai-responses", { object: "response", output: 3 }, "/output"],
    ["anthropic", { type: "message", role: "assistant", content: "hi" }, "/content"],
    ["gemini", { candidates: [{ content: { parts: {} } }] }, "/candidates/0/content/parts"],
    ["bedrock", { output: { message: { content: {} } } }, "/output/message/content"],
  ];
  for (const [provider, response, path] of cases) {
    assert.throws(() => tw.parseToolCalls(response, provider), (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && e.path === path, `${provider} ${JSON.stringify(response)}`);
    stillWorks();
  }
  // Absent and null are no error.
  assert.deepEqual(tw.parseToolCalls({ choices: [{ message: { role: "assistant", content: "hi", tool_calls: null } }] }, "openai"), []);
  // Calls in another provider's shape are not read as none: the error names the provider.
  const anthropic = { id: "m", type: "message", role: "assistant", content: [{ type: "tool_use", id: "tu1", name: "t", input: {} }] };
  for (const provider of ["openai", "ollama", "openai-responses", "gemini", "bedrock"]) {
    assert.throws(() => tw.parseToolCalls(anthropic, provider), (e) => e.code === "INVALID_INPUT" && e.looksLike === "Anthropic", provider);
  }
  assert.equal(tw.parseToolCalls(anthropic, "anthropic")[0].id, "tu1");
  const acc = new tw.ToolCallAccumulator("anthropic");
  assert.throws(() => acc.push({ type: "content_block_start", index: 0, content_block: [] }), (e) => e.code === "INVALID_INPUT" && e.path === "/content_block");
  acc.push({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "t", input: {} } });
  // A call comes with the event after its block's end, which says whether the output limit cut it.
  assert.deepEqual(acc.push({ type: "content_block_stop", index: 0 }), []);
  assert.equal(acc.push({ type: "message_delta", delta: { stop_reason: "tool_use" } })[0].id, "toolu_1", "the accumulator goes on");
  acc.free();
  stillWorks();
});

test("the wrong type for every parameter of every export", () => {
  const good = {
    convertMcpTools: [normal, "openai", {}],
    convertMcpToolsJson: [JSON.stringify(normal), "openai", {}],
    convertMcpToolsDetailed: [normal, "openai", {}],
    checkTools: [normal, "openai", {}],
    processJsonSchema: [{}],
    prefixToolName: ["s", "t", {}],
    parseToolName: ["mcp__s__t", {}],
    flattenContent: [[], {}],
    parseToolCalls: [{ choices: [] }, "openai", null],
    toolResultMessage: [{ id: "c", name: "t" }, { content: [] }, "openai", {}],
    toolResultMessages: [[{ id: "c", name: "t" }], [{ content: [] }], "openai", {}],
    toolsSystemPrompt: [normal, {}],
  };
  let cases = 0;
  for (const [fn, args] of Object.entries(good)) {
    for (let i = 0; i < args.length; i++) {
      for (const bad of WRONG) {
        const call = [...args];
        call[i] = bad;
        survives(() => tw[fn](...call));
        cases++;
      }
    }
  }
  const ctorGood = {
    NameMap: (x, i) => (i === 0 ? tw.NameMap.fromTools(x, "openai") : tw.NameMap.fromTools(normal, x)),
    ToolCallAccumulator: (x, i) => (i === 0 ? new tw.ToolCallAccumulator(x) : new tw.ToolCallAccumulator("openai", x)),
    PermissionPolicy: (x) => new tw.PermissionPolicy(x),
    McpClient: (x, i) => (i === 0 ? new tw.McpClient(x) : new tw.McpClient("http://127.0.0.1:9/mcp", x)),
    McpHub: (x, i) => (i === 0 ? new tw.McpHub(x) : new tw.McpHub({}, x)),
  };
  for (const make of Object.values(ctorGood)) {
    for (const i of [0, 1]) {
      for (const bad of WRONG) {
        survives(() => make(bad, i));
        cases++;
      }
    }
  }
  const map = tw.NameMap.fromTools(normal, "openai");
  const acc = new tw.ToolCallAccumulator("anthropic");
  const policy = new tw.PermissionPolicy({});
  for (const bad of WRONG) {
    survives(() => map.resolve(bad));
    survives(() => map.prepareArguments("get_weather", bad));
    survives(() => map.prepareArguments(bad, {}));
    survives(() => acc.push(bad));
    survives(() => policy.check(bad));
    survives(() => policy.check("x", bad));
    survives(() => tw.NameMap.fromJSON(bad));
    cases += 7;
  }
  assert.ok(cases > 400, `${cases} cases`);
});

test("the wrong type for every parameter of the MCP client's and hub's methods: a rejection with a ToolwireError", async () => {
  // A fetch that fails at once: nothing leaves the process, and a connect fails fast.
  const fetch = () => Promise.reject(new TypeError("Failed to fetch"));
  const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch, onUnauthorized: () => null });
  const hub = new tw.McpHub({ a: { url: "http://127.0.0.1:9/mcp" } }, { fetch });
  // Good arguments of each method; each in turn is replaced by every wrong value.
  const calls = {
    connect: [(...a) => client.connect(...a), [{}]],
    callTool: [(...a) => client.callTool(...a), ["t", {}, {}]],
    request: [(...a) => client.request(...a), ["ping", {}, {}]],
    listAll: [(...a) => client.listAll(...a), ["tools/list", {}, {}]],
    hubRequest: [(...a) => hub.request(...a), ["a", "ping", {}, {}]],
    hubListAll: [(...a) => hub.listAll(...a), ["a", "tools/list", {}, {}]],
  };
  let cases = 0;
  for (const [name, [call, good]] of Object.entries(calls)) {
    for (let i = 0; i < good.length; i++) {
      for (const bad of WRONG) {
        const args = [...good];
        args[i] = bad;
        let outcome;
        try {
          outcome = await call(...args).then(() => null, (e) => e);
        } catch (e) {
          outcome = e; // thrown before a promise was made
        }
        if (outcome !== null) assert.ok(outcome instanceof tw.ToolwireError, `${name}[${i}] ${typeof bad}: ${outcome?.name}: ${outcome?.message}`);
        cases++;
      }
    }
  }
  assert.equal(await client.close(), undefined, "never connected: nothing to end");
  stillWorks();
  client.free();
  hub.free();
  assert.ok(cases > 300, `${cases} cases`);
});

test("memory does not grow over repeated conversions", () => {
  const tools = [];
  for (let i = 0; i < 40; i++) tools.push({ ...normal[0], name: `t${i}`, inputSchema: { type: "object", properties: { a: { type: ["string", "null"] }, b: { $ref: "#/$defs/B" } }, $defs: { B: { type: "integer", enum: [1, 2] } } } });
  const text = JSON.stringify(tools);
  for (let i = 0; i < 50; i++) tw.convertMcpToolsJson(text, "gemini");
  const before = raw.__wasmMemoryBytes();
  for (let i = 0; i < 500; i++) {
    tw.convertMcpToolsJson(text, "gemini");
    tw.convertMcpTools(tools, "openai", { strict: true });
    try { tw.convertMcpTools([{ name: "" }], "openai"); } catch {}
  }
  const after = raw.__wasmMemoryBytes();
  assert.equal(after, before, `wasm memory grew from ${before} to ${after} bytes`);
});

test("McpHub server names that a name or a permission rule could split elsewhere are refused", () => {
  for (const name of ["a__b", "files_", "__x"]) {
    assert.throws(() => new tw.McpHub({ [name]: { url: "http://127.0.0.1:9/mcp" } }), (e) =>
      e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && e.message.includes(`server name "${name}" must not hold "__"`));
  }
  for (const name of ["a_b", "_x", "my-server", "github.com"]) new tw.McpHub({ [name]: { url: "http://127.0.0.1:9/mcp" } }).free();
  stillWorks();
});

test("McpHub takes the server names it took before, and a deny names one spelt with joiners exactly", () => {
  const persian = "\u0641\u0627\u06cc\u0644\u200c\u0647\u0627", emoji = "\u{1f468}\u200d\u{1f4bb} dev";
  for (const name of [persian, emoji, "Notion (Official)", "price $", "github (work)", "\ufefffs"]) {
    new tw.McpHub({ [name]: { url: "http://127.0.0.1:9/mcp" } }).free();
  }
  for (const name of [persian, emoji]) {
    const policy = new tw.PermissionPolicy({ deny: [`mcp__${name}`], defaultAction: "allow" });
    new tw.McpHub({ [name]: { url: "http://127.0.0.1:9/mcp" } }, { policy }).free();
    assert.equal(policy.check(`mcp__${name}__read`), "deny", name);
    assert.equal(policy.check(`mcp__${name}x__read`), "allow", name);
    assert.equal(policy.check("mcp__other__read"), "allow", name);
    policy.free();
  }
  // A byte order mark or a zero-width space is no name's own: such a pattern is refused.
  for (const pattern of ["\ufeffmcp__fs", "mcp__f\u200bs"]) {
    assert.throws(() => new tw.PermissionPolicy({ deny: [pattern] }), (e) => e instanceof tw.ToolwireError && e.code === "INVALID_OPTIONS" && e.message.includes("holds the invisible character"));
  }
  stillWorks();
});

test("Vertex partialArgs: a jsonPath 5,000 levels deep, and paths that pad arrays, end in LIMIT_EXCEEDED", () => {
  const chunk = (fc, fin) => ({ candidates: [{ index: 0, content: { role: "model", parts: [{ functionCall: fc }] }, ...(fin && { finishReason: fin }) }] });
  const deep = [
    chunk({ name: "get_weather", willContinue: true }),
    chunk({ partialArgs: [{ jsonPath: "$" + ".a".repeat(5000), stringValue: "x" }], willContinue: true }),
    chunk({}, "STOP"),
  ];
  const result = (fn) => {
    let out;
    assert.equal(survives(() => (out = fn())), null, "no error");
    return out;
  };
  // Once overflowed the stack (a RangeError), and the second time left the module corrupt.
  for (let round = 0; round < 3; round++) {
    const [call] = result(() => tw.parseToolCalls(deep, "vertex"));
    assert.equal(call.error?.code, "LIMIT_EXCEEDED");
    assert.equal(call.arguments, null);
    const acc = new tw.ToolCallAccumulator("vertex");
    const calls = deep.flatMap((e) => result(() => acc.push(e)));
    assert.equal(calls.length, 1);
    assert.equal(calls[0].error?.code, "LIMIT_EXCEEDED");
    assert.deepEqual(acc.message().parts[0].functionCall.args, {});
    acc.free();
  }
  // 4 bytes of `[16]` made 17 values: a few MB of stream took gigabytes of wasm memory, then trapped.
  const acc = new tw.ToolCallAccumulator("vertex");
  acc.push(chunk({ name: "get_weather", willContinue: true }));
  const codes = [];
  let sent = 0;
  for (let e = 0; e < 400 && codes.length < 2; e++) {
    const partialArgs = Array.from({ length: 20 }, (_, i) => ({ jsonPath: `$.k${e}_${i}` + "[16]".repeat(300), nullValue: "NULL_VALUE" }));
    const text = `data: ${JSON.stringify(chunk({ partialArgs, willContinue: true }))}\n\n`;
    sent += text.length;
    const threw = survives(() => acc.push(text), ["LIMIT_EXCEEDED"]);
    if (threw) codes.push(threw.code);
  }
  assert.deepEqual(codes, ["LIMIT_EXCEEDED", "LIMIT_EXCEEDED"], "the turn, then the call being read");
  assert.ok(sent < 4e6, `${sent} bytes`);
  acc.free();
});

// Values the engine throws on when they are looked at: a revoked Proxy, a getter or iterator that throws, a
// detached buffer, a Proxy of a Uint8Array (which has none of a view's internals), a DataView whose byteLength
// lies. Each was once thrown straight through the WebAssembly frames, which skips their epilogues: the shadow
// stack leaked with each, and after a few hundred to a few thousand every call of the module trapped ("memory
// access out of bounds"), version() included.
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const detachedU8 = () => {
  const u = new Uint8Array(8);
  structuredClone(u.buffer, { transfer: [u.buffer] });
  return u;
};
const detachedAB = () => {
  const b = new ArrayBuffer(8);
  structuredClone(b, { transfer: [b] });
  return b;
};
const throwingIterator = () => new Proxy([{}], { get(t, k) { if (k === Symbol.iterator) throw new Error("iterator trap"); return Reflect.get(t, k); } });
const throwingElement = () => {
  const a = [{ id: "c", name: "t" }];
  Object.defineProperty(a, 0, { get() { throw new Error("element getter"); } });
  return a;
};
class LyingView extends DataView {
  get byteLength() { return 1e9; }
}
const THROWN_ON = [
  ["convertMcpTools options", () => tw.convertMcpTools(normal, "openai", revoked()), "INVALID_OPTIONS"],
  ["convertMcpTools options.limits", () => tw.convertMcpTools(normal, "openai", { limits: revoked() }), "INVALID_JSON"],
  ["convertMcpTools provider", () => tw.convertMcpTools(normal, revoked()), "INVALID_INPUT"],
  ["prefixToolName server", () => tw.prefixToolName(revoked(), "t"), "INVALID_INPUT"],
  ["parseToolName name", () => tw.parseToolName(revoked()), "INVALID_INPUT"],
  ["flattenContent options", () => tw.flattenContent({ content: [] }, revoked()), "INVALID_OPTIONS"],
  ["toolResultMessage options", () => tw.toolResultMessage({ id: "c", name: "t" }, { content: [] }, "openai", revoked()), "INVALID_OPTIONS"],
  ["toolResultMessages calls", () => tw.toolResultMessages(revoked(), [], "openai"), "INVALID_INPUT"],
  ["toolResultMessages throwing iterator", () => tw.toolResultMessages(throwingIterator(), [{}], "openai"), "INVALID_INPUT"],
  ["toolResultMessages throwing element", () => tw.toolResultMessages(throwingElement(), [{ content: [] }], "openai"), "INVALID_INPUT"],
  ["toolsSystemPrompt options", () => tw.toolsSystemPrompt(normal, revoked()), "INVALID_OPTIONS"],
  ["new PermissionPolicy", () => new tw.PermissionPolicy(revoked()), "INVALID_OPTIONS"],
  ["PermissionPolicy check's tool", () => new tw.PermissionPolicy({}).check("x", revoked()), "INVALID_JSON"],
  ["new ToolCallAccumulator provider", () => new tw.ToolCallAccumulator(revoked()), "INVALID_INPUT"],
  ["parseToolCalls nameMap", () => tw.parseToolCalls({ choices: [] }, "openai", revoked()), "INVALID_JSON"],
  ["push(detached Uint8Array)", () => new tw.ToolCallAccumulator("openai").push(detachedU8()), "INVALID_INPUT"],
  ["push(detached ArrayBuffer)", () => new tw.ToolCallAccumulator("openai").push(detachedAB()), "INVALID_INPUT"],
  ["push(Proxy of a Uint8Array)", () => new tw.ToolCallAccumulator("openai").push(new Proxy(new Uint8Array(2), {})), "INVALID_INPUT"],
  ["push(Proxy of an ArrayBuffer)", () => new tw.ToolCallAccumulator("openai").push(new Proxy(new ArrayBuffer(2), {})), "INVALID_INPUT"],
  ["push(DataView whose byteLength lies)", () => new tw.ToolCallAccumulator("openai").push(new LyingView(new ArrayBuffer(4))), "INVALID_INPUT"],
  ["convertMcpToolsJson(detached Uint8Array)", () => tw.convertMcpToolsJson(detachedU8(), "openai"), "INVALID_INPUT"],
  ["new McpClient url", () => new tw.McpClient(revoked()), "INVALID_INPUT"],
  ["new McpClient headers", () => new tw.McpClient("http://127.0.0.1:9/mcp", { headers: [throwingIterator()] }), "INVALID_OPTIONS"],
  ["new McpHub servers getter", () => new tw.McpHub({ get a() { throw new Error("getter in servers"); } }), "INVALID_INPUT"],
  ["new McpHub options", () => new tw.McpHub({ a: { url: "http://127.0.0.1:9/mcp" } }, revoked()), "INVALID_OPTIONS"],
  ["flattenContent deep structuredContent with a throwing getter", () => {
    let deep = {};
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    return tw.flattenContent({ content: [], structuredContent: deep, get x() { throw new Error("getter"); } });
  }, "LIMIT_EXCEEDED"],
];

test("values the engine throws on are a ToolwireError at every entry point, thousands of times, and the module keeps working", () => {
  for (const [label, fn, code] of THROWN_ON) {
    const e = survives(fn);
    assert.ok(e, `${label}: refused`);
    assert.equal(e.code, code, `${label}: ${e.message}`);
  }
  // The one the probe found poisoned the module after about 1,500 throws, and those that leaked the most after 136.
  const repeated = THROWN_ON.filter(([label]) => !label.startsWith("flattenContent deep"));
  for (let i = 0; i < 3000; i++) {
    for (const [label, fn] of repeated) {
      try {
        fn();
        assert.fail(`${label}: returned`);
      } catch (e) {
        if (!(e instanceof tw.ToolwireError)) assert.fail(`${label}, call ${i}: ${e?.name}: ${e?.message}`);
      }
    }
  }
  stillWorks();
  assert.equal(typeof tw.version(), "string");
});

test("a chunk of bytes that cannot be read leaves the accumulator as it was", () => {
  const acc = new tw.ToolCallAccumulator("anthropic");
  const e = survives(() => acc.push(detachedU8()), ["INVALID_INPUT"]);
  assert.match(e.message, /^the event is bytes that cannot be read: .*detached/);
  acc.push(new TextEncoder().encode('event: message_start\ndata: {"type":"message_start","message":{"role":"assistant","content":[]}}\n\n'));
  acc.push({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "tu", name: "get_weather", input: {} } });
  acc.push({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city":"Paris"}' } });
  assert.deepEqual(acc.push({ type: "content_block_stop", index: 0 }), []);
  assert.deepEqual(acc.finish().map((c) => c.arguments), [{ city: "Paris" }]);
  acc.free();
  // A chunk split inside a character, with a detached one between: the carried bytes are kept.
  const split = new tw.ToolCallAccumulator("openai");
  const bytes = new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"é"}}]}\n\n');
  const cut = bytes.indexOf(0xc3) + 1;
  split.push(bytes.subarray(0, cut));
  survives(() => split.push(detachedAB()), ["INVALID_INPUT"]);
  split.push(bytes.subarray(cut));
  assert.equal(split.message().content, "é");
  split.free();
});

/** A fetch answering initialize, tools/list and tools/call, each body given by `body(text)`. */
function mockFetch(body = (text) => text, seen = []) {
  return async (url, init) => {
    const msg = init.body ? JSON.parse(init.body) : null;
    if (!msg || msg.id === undefined) return new Response(null, { status: 202 });
    if (msg.method === "tools/call") seen.push(msg.params.arguments);
    const result = msg.method === "initialize" ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "m", version: "1" } }
      : msg.method === "tools/list" ? { tools: [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }] }
      : { content: [{ type: "text", text: "ok" }] };
    return new Response(body(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result })), { headers: { "content-type": "application/json" } });
  };
}

test("in an MCP call, a body chunk that cannot be read, a fetch promise whose own then throws and a confirm that rejects with a revoked Proxy reject with a ToolwireError", async () => {
  // These were thrown inside a future that a promise job polls: uncaught, they ended the process.
  const chunked = (chunk) => mockFetch((text) => new ReadableStream({
    start(controller) {
      controller.enqueue(chunk(new TextEncoder().encode(text)));
      controller.close();
    },
  }));
  const chunks = {
    detached: (u) => {
      structuredClone(u.buffer, { transfer: [u.buffer] });
      return u;
    },
    "a Proxy of a Uint8Array": (u) => new Proxy(u, {}),
    "a revoked Proxy": () => revoked(),
  };
  for (const [label, chunk] of Object.entries(chunks)) {
    const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch: chunked(chunk) });
    await assert.rejects(client.connect(), (e) => e instanceof tw.ToolwireError && e.code === "PROTOCOL" && /chunk/.test(e.message), label);
    client.free();
  }
  // A promise of the engine's with a `then` of its own that throws (which Promise.resolve passes on as it is).
  const ownThen = () => {
    const p = Promise.resolve(new Response("{}"));
    Object.defineProperty(p, "then", { value() { throw new Error("then trap"); } });
    return p;
  };
  // ... or inherited from a prototype of its own, or a getter that throws.
  const inheritedThen = () => {
    const p = Promise.resolve(new Response("{}"));
    const proto = Object.create(Promise.prototype);
    proto.then = () => {
      throw new Error("then trap");
    };
    return Object.setPrototypeOf(p, proto);
  };
  const thenGetter = () => Object.defineProperty(Promise.resolve(new Response("{}")), "then", { get() { throw new Error("then trap"); } });
  for (const fetch of [ownThen, inheritedThen, thenGetter]) {
    const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch, timeoutMs: 5_000 });
    await assert.rejects(client.connect(), (e) => e instanceof tw.ToolwireError && e.code === "NETWORK" && /then trap/.test(e.message), fetch.name);
    client.free();
  }
  const hub = new tw.McpHub({ fs: { url: "http://127.0.0.1:9/mcp", fetch: mockFetch() } }, { policy: { defaultAction: "ask" }, confirm: async () => { throw revoked(); } });
  await hub.tools("openai");
  await assert.rejects(hub.callTool("mcp__fs__get_weather", {}), (e) => e instanceof tw.ToolwireError && e.code === "PERMISSION_DENIED" && /revoked Proxy/.test(e.message));
  await hub.closeAll();
  hub.free();
  stillWorks();
});

test("a function or symbol for a known option is INVALID_OPTIONS naming the key; for an unknown key it is ignored", () => {
  const fn = () => true;
  const cases = [
    [() => tw.convertMcpTools(normal, "openai", { strict: fn }), "options.strict"],
    [() => tw.convertMcpTools(normal, "anthropic", { server: fn }), "options.server"],
    [() => tw.convertMcpTools(normal, "anthropic", { server: Symbol("s") }), "options.server"],
    [() => tw.convertMcpTools(normal, "openai", { limits: { maxDepth: fn } }), "options.limits.maxDepth"],
    [() => tw.NameMap.fromTools(normal, "openai", { prefix: fn }), "options.prefix"],
    [() => tw.prefixToolName("s", "t", { separator: fn }), "options.separator"],
    [() => tw.toolsSystemPrompt(normal, { template: () => "X {{tools}}" }), "options.template"],
    [() => tw.toolResultMessage({ id: "c", name: "t" }, { content: [] }, "openai", { multimodal: fn }), "options.multimodal"],
    [() => new tw.PermissionPolicy({ defaultAction: "allow", deny: () => ["*delete*"] }), "policy.deny"],
    [() => new tw.PermissionPolicy({ askDestructive: Symbol("x") }), "policy.askDestructive"],
    [() => new tw.McpHub({ a: { url: "http://127.0.0.1:9/mcp" } }, { policy: { defaultAction: "allow", deny: () => ["*"] } }), "options.policy.deny"],
  ];
  for (const [call, key] of cases) {
    const e = survives(call, ["INVALID_OPTIONS"]);
    assert.ok(e, `${key} is refused`);
    assert.ok(e.message.startsWith(`${key} must be a JSON value, got a `), e.message);
  }
  // A key toolwire does not know is ignored, whatever its value (code written for a newer version).
  assert.deepEqual(tw.convertMcpTools(normal, "openai", { someNewOption: fn }), tw.convertMcpTools(normal, "openai"));
  assert.equal(tw.toolsSystemPrompt(normal, { someNewOption: Symbol("x") }), tw.toolsSystemPrompt(normal));
});

test("arguments JSON would make {} or null are INVALID_ARGUMENTS, not sent as {}", async () => {
  class Query {
    #city;
    constructor(c) { this.#city = c; }
    get city() { return this.#city; }
  }
  const lossy = [new Query("Paris"), NaN, Infinity, new Date(NaN), /re/, new Error("x"), { toJSON: () => null }];
  const map = tw.NameMap.fromTools([{ name: "get_weather" }], "openai");
  const seen = [];
  const hub = new tw.McpHub({ w: { url: "http://127.0.0.1:9/mcp", fetch: mockFetch(undefined, seen) } });
  await hub.tools("openai");
  const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch: mockFetch(undefined, seen) });
  await client.connect();
  for (const args of lossy) {
    const what = Object.prototype.toString.call(args);
    const e = survives(() => map.prepareArguments("get_weather", args), ["INVALID_ARGUMENTS"]);
    assert.ok(e, `prepareArguments(${what})`);
    assert.match(e.message, /^arguments must be a plain object, got .*, which JSON makes (\{\}|null)/);
    await assert.rejects(hub.callTool("mcp__w__get_weather", args), (e) => e.code === "INVALID_ARGUMENTS", `hub ${what}`);
    await assert.rejects(client.callTool("get_weather", args), (e) => e.code === "INVALID_ARGUMENTS", `client ${what}`);
  }
  // Bytes (a SharedArrayBuffer as an ArrayBuffer) are refused as bytes, which are no arguments.
  for (const args of [new ArrayBuffer(4), new SharedArrayBuffer(4)]) {
    const e = survives(() => map.prepareArguments("get_weather", args), ["INVALID_INPUT"]);
    assert.match(e.message, /^arguments is bytes \(an? (Shared)?ArrayBuffer\), not a JSON value/);
    await assert.rejects(hub.callTool("mcp__w__get_weather", args), (e) => e.code === "INVALID_INPUT", "hub");
    await assert.rejects(client.callTool("get_weather", args), (e) => e.code === "INVALID_INPUT", "client");
  }
  assert.deepEqual(seen, [], "nothing was sent");
  // No arguments, an empty object and an object whose toJSON gives the arguments are taken as before.
  for (const args of [undefined, null, {}, Object.create(null), { toJSON: () => ({}) }, { toJSON: () => ({ city: "Paris" }) }]) {
    map.prepareArguments("get_weather", args);
    await hub.callTool("mcp__w__get_weather", args);
    await client.callTool("get_weather", args);
  }
  assert.equal(seen.length, 12);
  // Inside the arguments too: a value JSON makes null, or a string JSON text cannot carry (pD 2).
  for (const [args, said] of [
    [{ n: Infinity }, /^arguments\.n is Infinity, which JSON makes null/],
    [{ list: [1, -Infinity] }, /^arguments\.list\[1\] is -Infinity/],
    [{ a: { "b c": NaN } }, /^arguments\.a\["b c"\] is NaN/],
    [{ d: new Date("x") }, /^arguments\.d is an invalid Date/],
    [{ s: "a\ud800b" }, /lone UTF-16 surrogate/],
    // ... or {} (rG F1).
    [{ r: /x/ }, /^arguments\.r is a RegExp, which JSON makes \{\}/],
    [{ list: [new Map([["a", 1]])] }, /^arguments\.list\[0\] is a Map/],
    [{ q: new Query("Paris") }, /^arguments\.q is a Query, which JSON makes \{\}/],
  ]) {
    const e = survives(() => map.prepareArguments("get_weather", args), ["INVALID_ARGUMENTS"]);
    assert.match(e.message, said);
    assert.equal(e.tool, "get_weather");
    // The client's and the hub's errors name the tool too (rG F7).
    await assert.rejects(hub.callTool("mcp__w__get_weather", args), (e) => e.code === "INVALID_ARGUMENTS" && e.tool === "mcp__w__get_weather");
    await assert.rejects(client.callTool("get_weather", args), (e) => e.code === "INVALID_ARGUMENTS" && e.tool === "get_weather");
  }
  // null given as null, a valid Date and an object with its own toJSON are JSON values.
  for (const args of [{ n: null }, { d: new Date(0) }, { v: { toJSON: () => null } }, { s: "\ud83d\ude00 \\ud800" }, { e: {}, o: Object.create(null) }]) {
    map.prepareArguments("get_weather", args);
    await client.callTool("get_weather", args);
  }
  assert.equal(seen.length, 17);
  await hub.closeAll();
  await client.close();
  hub.free();
  client.free();
  map.free();
  stillWorks();
});

test("a method called on anything but its object (a detached method, another class's object) is INVALID_INPUT", () => {
  const acc = new tw.ToolCallAccumulator("openai");
  const map = tw.NameMap.fromTools(normal, "openai");
  const policy = new tw.PermissionPolicy({ defaultAction: "deny" });
  const wrong = (fn, re) => {
    const e = survives(fn, ["INVALID_INPUT"]);
    assert.ok(e, "refused");
    assert.match(e.message, re);
  };
  const { push } = acc;
  wrong(() => push({ choices: [] }), /^ToolCallAccumulator\.push\(\) was called on undefined, not on a ToolCallAccumulator/);
  wrong(() => [{ choices: [] }].forEach(acc.push), /called on undefined/);
  wrong(() => tw.PermissionPolicy.prototype.check.call(map, "x"), /^PermissionPolicy\.check\(\) was called on a NameMap/);
  wrong(() => tw.ToolCallAccumulator.prototype.push.call(policy, { choices: [] }), /called on a PermissionPolicy/);
  wrong(() => tw.NameMap.prototype.resolve.call(Object.create(tw.NameMap.prototype), "x"), /called on a copy of a NameMap/);
  wrong(() => Object.getOwnPropertyDescriptor(tw.NameMap.prototype, "size").get.call({}), /^NameMap\.size was read on an Object, not on a NameMap: read it on the NameMap \(obj\.size\)$/);
  wrong(() => tw.PermissionPolicy.prototype.free.call(map), /^PermissionPolicy\.free\(\) was called on a NameMap/);
  wrong(() => tw.McpClient.prototype.callTool.call(acc, "t", {}), /^McpClient\.callTool\(\) was called on a ToolCallAccumulator/);
  // Each object is as it was: the policy still denies, the map still resolves.
  assert.equal(policy.check("x"), "deny");
  assert.equal(map.resolve("get_weather").tool, "get_weather");
  assert.deepEqual(acc.push({ choices: [] }), []);
  for (const o of [acc, map, policy]) o.free();
});

test("[Symbol.asyncDispose] on anything but its object is INVALID_INPUT, as every method is (s25d F3)", async () => {
  const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch: async () => { throw new Error("no network here"); } });
  const hub = new tw.McpHub({ s: { url: "http://127.0.0.1:9/mcp" } });
  const map = tw.NameMap.fromTools(normal, "openai");
  for (const [obj, name, close] of [[client, "McpClient", "close"], [hub, "McpHub", "closeAll"]]) {
    const dispose = obj[Symbol.asyncDispose];
    for (const that of [undefined, map, {}]) {
      await assert.rejects(dispose.call(that), (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && e.message.startsWith(`${name}.${close}() was called on `), `${name} on ${that}`);
    }
    await obj[Symbol.asyncDispose]().catch(() => {});
    await assert.doesNotReject(obj[Symbol.asyncDispose](), `${name}: a second dispose does nothing`);
  }
  assert.equal(map.resolve("get_weather").tool, "get_weather");
  map.free();
  stillWorks();
});

test("the internal __abandon, which free() calls, is not on the prototypes: no call on another object reaches the module (s25d F4)", () => {
  const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch: async () => { throw new Error("no network here"); } });
  const hub = new tw.McpHub({ s: { url: "http://127.0.0.1:9/mcp" } });
  for (const [obj, cls] of [[client, tw.McpClient], [hub, tw.McpHub]]) {
    assert.ok(!Object.getOwnPropertyNames(cls.prototype).includes("__abandon"), cls.name);
    assert.equal(obj.__abandon, undefined, cls.name);
    obj.free();
  }
  stillWorks();
});

test("a call into an object from inside a call that changes it, and free() from inside a method, are INVALID_INPUT: the object is usable and freeable after", () => {
  const acc = new tw.ToolCallAccumulator("anthropic");
  let inner;
  acc.push({ type: "ping", get x() { try { acc.push({ type: "ping" }); } catch (e) { inner = e; } return 1; } });
  assert.ok(inner instanceof tw.ToolwireError && inner.code === "INVALID_INPUT", String(inner));
  assert.match(inner.message, /^ToolCallAccumulator\.push\(\) was called from inside a call of the same ToolCallAccumulator/);
  inner = undefined;
  acc.push({ type: "ping", get x() { try { acc.message(); } catch (e) { inner = e; } return 1; } });
  assert.equal(inner?.code, "INVALID_INPUT", "a reading method from inside push");
  assert.deepEqual(acc.push({ type: "ping" }), []);
  acc.free();
  assert.throws(() => acc.push({ type: "ping" }), /was freed/);

  const policy = new tw.PermissionPolicy({ defaultAction: "allow", askDestructive: true });
  // A reading method inside a reading method of the same object works, as it did.
  assert.equal(policy.check("a", { get annotations() { assert.equal(policy.check("b"), "ask"); return { readOnlyHint: true }; } }), "allow");
  inner = undefined;
  policy.check("a", { get annotations() { try { policy.free(); } catch (e) { inner = e; } return {}; } });
  assert.equal(inner?.code, "INVALID_INPUT");
  assert.match(inner.message, /^PermissionPolicy\.free\(\) was called from inside a call of the same PermissionPolicy/);
  assert.equal(policy.check("a", { readOnlyHint: true }), "allow");
  policy.free();
  assert.throws(() => policy.check("a"), /was freed/);

  // A NameMap read in place by parseToolCalls is in use while it is read.
  const map = tw.NameMap.fromTools(normal, "openai");
  inner = undefined;
  const response = { choices: [], get x() { try { map.free(); } catch (e) { inner = e; } return 1; } };
  assert.deepEqual(tw.parseToolCalls(response, "openai", map), []);
  assert.equal(inner?.code, "INVALID_INPUT");
  assert.equal(map.size, 1);
  map.free();
  stillWorks();
});

test("through a Proxy of the object (Vue's reactive()), a call from inside its call is the same INVALID_INPUT, the object freeable after (s22e F3)", () => {
  const acc = new tw.ToolCallAccumulator("anthropic");
  const view = new Proxy(acc, {});
  let thrown;
  try {
    acc.push({ type: "ping", get x() { view.message(); return 1; } });
  } catch (e) {
    thrown = e;
  }
  // Thrown from a getter of the event, the guard's own error comes out as it was (not INVALID_JSON).
  assert.equal(thrown?.code, "INVALID_INPUT", String(thrown));
  assert.match(thrown.message, /^ToolCallAccumulator\.message\(\) was called from inside a call of the same ToolCallAccumulator/);
  assert.deepEqual(acc.push({ type: "ping" }), []);
  const map = tw.NameMap.fromTools(normal, "openai");
  const mview = new Proxy(map, {});
  assert.throws(() => map.prepareArguments("get_weather", { get city() { mview.free(); return "x"; } }), (e) => e.code === "INVALID_INPUT" && /NameMap\.free\(\) was called from inside/.test(e.message));
  assert.deepEqual(map.names(), ["get_weather"]);
  acc.free();
  map.free();
  assert.throws(() => map.names(), /was freed/);
  stillWorks();
});

test("a copy of an object that keeps its class (lodash's _.clone) is no object of the module: refused, never a second owner of its memory (s22e F2)", () => {
  const map = tw.NameMap.fromTools(normal, "openai");
  const copy = Object.assign(Object.create(Object.getPrototypeOf(map)), map);
  assert.deepEqual(Object.keys(map), [], "the pointer is not enumerable");
  for (const f of [() => copy.resolve("get_weather"), () => copy.names(), () => copy.free()]) {
    assert.throws(f, (e) => e instanceof tw.ToolwireError && e.code === "INVALID_INPUT" && /called on a copy of a NameMap/.test(e.message));
  }
  map.free();
  // The memory the map had, taken by another: the copy reads nothing of it, and frees nothing.
  const other = tw.NameMap.fromTools([{ name: "read_file", inputSchema: { type: "object" } }], "openai");
  assert.throws(() => copy.free(), /copy of a NameMap/);
  assert.deepEqual(other.names(), ["read_file"]);
  for (const cls of [tw.ToolCallAccumulator, tw.PermissionPolicy]) {
    const obj = cls === tw.PermissionPolicy ? new cls({}) : new cls("openai");
    const clone = Object.assign(Object.create(cls.prototype), obj);
    assert.throws(() => clone.free(), /called on a copy of a/);
    obj.free();
  }
  other.free();
  stillWorks();
});

test("a call whose promise the app holds, and not the client, runs to its end through a garbage collection (s22r F1)", async () => {
  const v8 = await import("node:v8");
  const vm = await import("node:vm");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  const fetch = async (_url, init) => {
    const msg = JSON.parse(init.body ?? "{}");
    if (!("id" in msg)) return new Response(null, { status: 202 });
    if (msg.method === "tools/call") await new Promise((r) => setTimeout(r, 400));
    const result = msg.method === "initialize" ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } : msg.method === "tools/list" ? { tools: [{ name: "slow", inputSchema: { type: "object" } }] } : { content: [{ type: "text", text: "done" }] };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }), { headers: { "content-type": "application/json" } });
  };
  const call = () => {
    const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
    return client.connect().then(() => client.callTool("slow", {}));
  };
  const viaHub = () => {
    const hub = new tw.McpHub({ a: { url: "http://127.0.0.1:1/mcp", fetch } });
    return hub.tools("openai").then(() => hub.callTool("mcp__a__slow", {}));
  };
  const pending = [call(), viaHub()];
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, 100));
    gc();
  }
  const [direct, routed] = await Promise.all(pending);
  assert.deepEqual(direct.content, [{ type: "text", text: "done" }]);
  assert.equal(routed.text, "done");
  // An explicit free() still ends what runs.
  const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
  await client.connect();
  const abandoned = client.callTool("slow", {});
  client.free();
  await assert.rejects(abandoned, (e) => e.code === "NOT_CONNECTED" && /was freed/.test(e.message));
});

test("a signal-like whose aborted getter fires its listeners aborts the call; every later signal works (s22e F1: it trapped the module)", async () => {
  const fetch = async (_url, init) => {
    const msg = JSON.parse(init.body ?? "{}");
    if (!("id" in msg)) return new Response(null, { status: 202 });
    if (msg.method === "tools/call") await new Promise((r) => setTimeout(r, 100));
    const result = msg.method === "initialize" ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } : { content: [{ type: "text", text: "ok" }] };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }), { headers: { "content-type": "application/json" } });
  };
  // A deadline worked out when `aborted` is read, which fires the listeners there and then; and one whose
  // addEventListener fires the listener it is given at once.
  const deadline = (ms) => {
    const listeners = [];
    const at = Date.now() + ms;
    let fired = false;
    return {
      get aborted() {
        if (!fired && Date.now() >= at) {
          fired = true;
          for (const f of [...listeners]) f({ type: "abort" });
        }
        return fired;
      },
      addEventListener: (type, f) => listeners.push(f),
      removeEventListener: (type, f) => listeners.splice(listeners.indexOf(f) >>> 0, 1),
    };
  };
  const eager = { aborted: false, addEventListener: (type, f) => f({ type: "abort" }), removeEventListener() {} };
  const client = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
  await client.connect();
  await assert.rejects(client.callTool("echo", {}, { signal: deadline(50) }), (e) => e.code === "ABORTED");
  await assert.rejects(client.callTool("echo", {}, { signal: eager }), (e) => e.code === "ABORTED");
  assert.deepEqual((await client.callTool("echo", {}, { signal: new AbortController().signal })).content, [{ type: "text", text: "ok" }]);
  const other = new tw.McpClient("http://127.0.0.1:1/mcp", { fetch });
  await other.connect({ signal: AbortSignal.timeout(5000) });
  await client.close();
  await other.close();
  stillWorks();
});

test("a pass-through inputSchema is read once: a getter is not read again to be put in the output", () => {
  const clean = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
  const other = { type: "object", properties: { city: { type: "string" } }, $ref: "#/$defs/missing" };
  for (const provider of ["anthropic", "openai", "openai-responses", "gemini", "bedrock"]) {
    let reads = 0;
    const tool = { name: "get_weather", get inputSchema() { return ++reads === 1 ? clean : other; } };
    const d = tw.convertMcpToolsDetailed([tool], provider);
    assert.equal(reads, 1, provider);
    assert.ok(!JSON.stringify(d.tools).includes("missing"), `${provider}: ${JSON.stringify(d.tools)}`);
    // A Proxy whose `get` answers otherwise than its own descriptor.
    const proxied = new Proxy({ name: "get_weather", inputSchema: other }, { get: (t, k) => (k === "inputSchema" ? clean : Reflect.get(t, k)) });
    const out = tw.convertMcpTools([proxied], provider);
    assert.ok(!JSON.stringify(out).includes("missing"), `${provider} (Proxy): ${JSON.stringify(out)}`);
  }
  // A plain tool's schema is still the caller's own object in the output.
  const plain = { name: "get_weather", inputSchema: clean };
  assert.equal(tw.convertMcpTools([plain], "anthropic")[0].input_schema, clean);
});

test("a recursive union whose branches nothing tells apart maps back in bounded time (it was exponential in the nesting)", () => {
  const node = (a, required = []) => ({ type: "object", properties: { a: { type: a }, children: { type: "array", items: { $ref: "#/$defs/node" } }, pad: { type: "array", items: { type: "integer" } } }, required });
  // The second shape requires `a`, null allowed, so strict mode keeps its null: the branches map `a: null` otherwise,
  // and deciding between them is bounded. (Shapes that map alike leave nothing to decide.)
  const schema = { type: "object", properties: { filter: { $ref: "#/$defs/node" } }, $defs: { node: { anyOf: [node("string"), node(["integer", "null"], ["a"]), node("boolean")] } } };
  const map = tw.NameMap.fromTools([{ name: "query", inputSchema: schema }], "openai", { strict: true });
  for (const [depth, pad] of [[40, 0], [60, 2000]]) {
    let sent = { a: null, children: null, pad: [] };
    let back = { pad: [] };
    for (let i = 0; i < depth; i++) {
      sent = { a: null, children: [sent], pad: Array(pad).fill(0) };
      back = { children: [back], pad: Array(pad).fill(0) };
    }
    const args = JSON.stringify({ filter: sent });
    const completion = { choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "query", arguments: args } }] } }] };
    const t = performance.now();
    const [call] = tw.parseToolCalls(completion, "openai", map);
    const acc = new tw.ToolCallAccumulator("openai", map);
    acc.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c", type: "function", function: { name: "query", arguments: args } }] } }] });
    const [streamed] = acc.finish();
    assert.ok(performance.now() - t < 5000, `depth ${depth}: ${performance.now() - t} ms`);
    if (pad === 0) {
      assert.equal(call.error ?? null, null);
      assert.deepEqual(call.arguments, { filter: back });
      assert.deepEqual(map.prepareArguments("query", args), { filter: back });
    } else {
      // Megabytes of levels nested that way: past the bound, an error, never arguments mapped in part.
      assert.equal(call.error.code, "LIMIT_EXCEEDED");
      assert.throws(() => map.prepareArguments("query", args), { code: "LIMIT_EXCEEDED" });
    }
    assert.deepEqual(streamed, call);
  }
  // Shapes that map alike (they differ in `a`'s type alone): nothing to decide, megabytes mapped.
  const alike = { ...schema, $defs: { node: { anyOf: [node("string"), node("integer"), node("boolean")] } } };
  const alikeMap = tw.NameMap.fromTools([{ name: "query", inputSchema: alike }], "openai", { strict: true });
  let sent = { a: null, children: null, pad: [] };
  let back = { pad: [] };
  for (let i = 0; i < 60; i++) {
    sent = { a: null, children: [sent], pad: Array(2000).fill(0) };
    back = { children: [back], pad: Array(2000).fill(0) };
  }
  assert.deepEqual(alikeMap.prepareArguments("query", JSON.stringify({ filter: sent })), { filter: back });
  stillWorks();
});

test("arguments too deep for their plan to map back are LIMIT_EXCEEDED through the hub as through prepareArguments, nothing sent", async () => {
  // A recursive tool whose key Claude takes renamed ($v -> dollar_v): past the plans' 128 levels the
  // hub sent the arguments half mapped (dollar_v below), where prepareArguments refused them.
  const tool = { name: "walk", inputSchema: { type: "object", properties: { $v: { type: "string" }, next: { $ref: "#" } } } };
  const nest = (n) => {
    let a = { dollar_v: "x" };
    for (let i = 0; i < n; i++) a = { dollar_v: "y", next: a };
    return a;
  };
  const seen = [];
  const fetch = async (url, init) => {
    const msg = init.body ? JSON.parse(init.body) : null;
    if (!msg || msg.id === undefined) return new Response(null, { status: 202 });
    if (msg.method === "tools/call") seen.push(msg.params.arguments);
    const result = msg.method === "initialize" ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "m", version: "1" } }
      : msg.method === "tools/list" ? { tools: [tool] } : { content: [{ type: "text", text: "ok" }] };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }), { headers: { "content-type": "application/json" } });
  };
  const hub = new tw.McpHub({ w: { url: "http://127.0.0.1:9/mcp", fetch } });
  await hub.tools("anthropic");
  const map = tw.NameMap.fromTools([tool], "anthropic");
  survives(() => map.prepareArguments("walk", nest(140)), ["LIMIT_EXCEEDED"]);
  await assert.rejects(hub.callTool("mcp__w__walk", nest(140)), (e) => e.code === "LIMIT_EXCEEDED" && /could not be mapped back/.test(e.message));
  assert.deepEqual(seen, []);
  await hub.callTool("mcp__w__walk", nest(3));
  assert.deepEqual(seen, [{ $v: "y", next: { $v: "y", next: { $v: "y", next: { $v: "x" } } } }]);
  await hub.closeAll();
  hub.free();
  map.free();
  stillWorks();
});

test("ToolCallAccumulator.push refuses the stream itself (async iterable, ReadableStream, SDK Stream) instead of reading {}", () => {
  const events = [
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "tu1", name: "get_weather", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city":"Paris"}' } },
    { type: "content_block_stop", index: 0 },
  ];
  // The SDKs' Stream: an own `controller`, events through Symbol.asyncIterator on its class.
  class Stream {
    constructor() {
      this.controller = new AbortController();
    }
    async *[Symbol.asyncIterator]() {
      yield* events;
    }
  }
  const streams = [
    ["an async generator", (async function* () { yield* events; })()],
    ["a ReadableStream", new ReadableStream({ start(c) { for (const e of events) c.enqueue(e); c.close(); } })],
    ["an SDK Stream", new Stream()],
    ["a plain async iterable", { [Symbol.asyncIterator]: async function* () { yield* events; } }],
  ];
  for (const [label, stream] of streams) {
    const acc = new tw.ToolCallAccumulator("anthropic");
    assert.throws(() => acc.push(stream), (e) => e.code === "INVALID_INPUT" && /stream event is a stream.*for await \(const event of stream\) acc\.push\(event\)/.test(e.message), label);
    // The accumulator is as it was: the events pushed one by one give the call.
    const calls = [...events.flatMap((e) => acc.push(e)), ...acc.finish()];
    assert.deepEqual(calls.map((c) => [c.tool, c.arguments]), [["get_weather", { city: "Paris" }]], label);
  }
  assert.throws(() => tw.parseToolCalls(new Stream(), "openai"), (e) => e.code === "INVALID_INPUT" && /response is a stream/.test(e.message));
  stillWorks();
});

test("values JSON would change are refused in what is sent for the caller, as in callTool's arguments", async () => {
  let sent = 0;
  const fetch = async () => {
    sent++;
    throw new Error("not sent");
  };
  const client = new tw.McpClient("http://127.0.0.1:9/mcp", { fetch });
  class Answer {
    get action() {
      return "accept";
    }
  }
  const refusedWith = async (p, code, re) => {
    await assert.rejects(p, (e) => e instanceof tw.ToolwireError && e.code === code && re.test(e.message));
  };
  await refusedWith(client.request("tools/call", { name: "echo", arguments: { count: NaN } }), "INVALID_INPUT", /params\.arguments\.count is NaN, which JSON makes null/);
  await refusedWith(client.request("tools/call", { name: "echo", arguments: { tags: new Set(["a"]) } }), "INVALID_INPUT", /params\.arguments\.tags is a Set/);
  await refusedWith(client.notify("notifications/x", { when: new Date(NaN) }), "INVALID_INPUT", /params\.when is an invalid Date, which JSON makes null/);
  await refusedWith(client.request("x/y", new Answer()), "INVALID_INPUT", /params is an Answer, which JSON makes \{\}/);
  assert.equal(sent, 0, "nothing was sent");
  assert.throws(() => tw.toolResultMessage({ id: "c", name: "t" }, { content: [], structuredContent: { score: Infinity } }, "gemini"), (e) => e.code === "INVALID_INPUT" && /result\.structuredContent\.score is Infinity, which JSON makes null/.test(e.message));
  assert.throws(() => tw.toolResultMessage({ id: "c", name: "t" }, { content: [], structuredContent: { tags: new Set() } }, "openai"), (e) => e.code === "INVALID_INPUT" && /structuredContent\.tags is a Set/.test(e.message));
  assert.throws(() => new tw.McpClient("http://127.0.0.1:9/mcp", { fetch, clientInfo: { name: "a", version: "1", icons: [{ src: "x", sizes: new Set() }] } }), (e) => e.code === "INVALID_OPTIONS" && /options\.clientInfo\.icons\[0\]\.sizes is a Set/.test(e.message));
  assert.throws(() => new tw.McpClient("http://127.0.0.1:9/mcp", { fetch, capabilities: { experimental: { x: { n: NaN } } } }), (e) => e.code === "INVALID_OPTIONS" && /options\.capabilities\.experimental\.x\.n is NaN/.test(e.message));
  // JSON values as they are still go.
  assert.equal(tw.toolResultMessage({ id: "c", name: "t" }, { content: [], structuredContent: { score: null, tags: {} } }, "gemini").functionResponse.response.output.score, null);
  client.free();
  stillWorks();
});

test("options.headers whose headers JSON does not see are refused, as the options object itself", () => {
  const fetch = async () => {
    throw new Error("not sent");
  };
  class AuthHeaders {
    get authorization() {
      return "Bearer T";
    }
  }
  const hidden = {};
  Object.defineProperty(hidden, "authorization", { value: "Bearer T" });
  for (const [label, headers, re] of [
    ["inherited", Object.create({ authorization: "Bearer T" }), /options\.headers inherits authorization from its prototype/],
    ["a getter of a class", new AuthHeaders(), /options\.headers.*authorization/],
    ["not enumerable", hidden, /options\.headers\.authorization is not enumerable/],
  ]) {
    assert.throws(() => new tw.McpClient("http://127.0.0.1:9/mcp", { fetch, headers }), (e) => e.code === "INVALID_OPTIONS" && re.test(e.message), label);
    assert.throws(() => new tw.McpHub({ s: { url: "http://127.0.0.1:9/mcp", fetch, headers } }), (e) => e.code === "INVALID_OPTIONS" && /authorization/.test(e.message), `hub: ${label}`);
  }
  new tw.McpClient("http://127.0.0.1:9/mcp", { fetch, headers: { authorization: "Bearer T" } }).free();
  new tw.McpClient("http://127.0.0.1:9/mcp", { fetch, headers: new Headers({ authorization: "Bearer T" }) }).free();
  stillWorks();
});

test("a guarded getter or method read on its class's prototype says so", () => {
  const wrong = (fn, re) => assert.throws(fn, (e) => e.code === "INVALID_INPUT" && re.test(e.message), String(re));
  wrong(() => tw.NameMap.prototype.size, /^NameMap\.size was read on NameMap\.prototype, not on a NameMap: use it on a NameMap toolwire made$/);
  wrong(() => tw.ToolCallAccumulator.prototype.push({}), /^ToolCallAccumulator\.push\(\) was called on ToolCallAccumulator\.prototype, not on a ToolCallAccumulator/);
  const map = tw.NameMap.fromJSON({ version: 1, entries: [] });
  wrong(() => Object.getOwnPropertyDescriptor(tw.NameMap.prototype, "size").get.call({}), /^NameMap\.size was read on an Object, not on a NameMap: read it on the NameMap \(obj\.size\)$/);
  assert.equal(map.size, 0);
  map.free();
  stillWorks();
});

test("an array of millions of nulls or empty objects is refused or read, never a trap that breaks the module", () => {
  // Each item once held a JS value of the module's while looking for what JSON would change in it:
  // past 2^23 of them its table of JS values could not grow, and the module trapped for good.
  for (const fill of [null, 0]) {
    assert.throws(() => tw.flattenContent(new Array(8_400_000).fill(fill)), { code: "LIMIT_EXCEEDED" }, String(fill));
    assert.equal(tw.convertMcpTools([{ name: "a", inputSchema: { type: "object" } }], "openai").length, 1);
  }
});
