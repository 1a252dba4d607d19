// $ref expansion at the limits, from JS: a recursive model of many kinds converts for Gemini and Vertex (the
// reference that would nest past maxDepth is cut, and reported), the tools beside it as alone; OpenAI strict keeps
// shared definitions that inlining would grow as $defs, and a strict fallback for the budget says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";

// Pydantic's shape for `steps: list[Union[Task, Container0, ...]]`: an inline anyOf of $refs at each use.
function workflow(kinds) {
  const names = ["Task", ...Array.from({ length: kinds - 1 }, (_, i) => "Container" + i)];
  const steps = { type: "array", items: { anyOf: names.map((k) => ({ $ref: "#/$defs/" + k })) } };
  const $defs = { Task: { type: "object", properties: { type: { const: "task" }, action: { type: "string" } }, required: ["type", "action"] } };
  for (let i = 0; i < kinds - 1; i++) $defs["Container" + i] = { type: "object", properties: { type: { const: "c" + i }, steps }, required: ["type", "steps"] };
  return { name: "run_workflow", inputSchema: { type: "object", properties: { steps }, required: ["steps"], $defs } };
}
const other = { name: "get_status", inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } };

// Each round refers to the next twice: 1.3 KB of schema, 54 KB inlined at 8 levels, past the budget at 16.
function bracket(levels) {
  const $defs = {};
  for (let i = 0; i < levels; i++) {
    const next = { $ref: `#/$defs/Round${i + 1}` };
    $defs["Round" + i] = { type: "object", properties: { home: next, away: next, day: { type: "string" } }, required: ["home", "away", "day"] };
  }
  $defs["Round" + levels] = { type: "object", properties: { team: { type: "string" } }, required: ["team"] };
  return { name: "bracket", inputSchema: { type: "object", properties: { final: { $ref: "#/$defs/Round0" } }, required: ["final"], $defs } };
}

test("a recursive union of 10 kinds converts for Gemini and Vertex, cut before maxDepth and reported", () => {
  const tools = [other, workflow(10)];
  for (const provider of ["gemini", "vertex"]) assert.equal(tw.convertMcpTools(tools, provider).length, 1);
  // Unrolled 20 times, each kind in turn: cut where the next would pass 64 levels.
  const limits = { maxRefUnroll: 20 };
  for (const [provider, opts] of [["gemini", { limits }], ["gemini", { limits, geminiMode: "parametersJsonSchema" }], ["vertex", { limits }]]) {
    const { tools: out, report } = tw.convertMcpToolsDetailed(tools, provider, opts);
    assert.equal(tw.convertMcpToolsJson(JSON.stringify(tools), provider, opts), JSON.stringify(out), provider);
    const decls = out[0].functionDeclarations;
    assert.deepEqual(decls[0], tw.convertMcpTools([other], provider, opts)[0].functionDeclarations[0], provider);
    assert.match(JSON.stringify(decls[1]), /Recursive structure: Container/);
    const cut = report.tools[1].changes.filter((d) => d.rule === "refs/recursion-cut");
    assert.ok(cut.some((d) => d.message.includes("depth limit of 64 levels")), JSON.stringify(cut.slice(0, 3)));
    // checkTools leaves nothing out.
    assert.ok(tw.checkTools(tools, provider, opts).tools.every((t) => t.problems.every((d) => d.rule !== "tool/error")));
  }
});

test("OpenAI strict keeps shared definitions as $defs where inlining would grow them; Claude's fallback names the budget", () => {
  for (const levels of [8, 16]) {
    const tool = bracket(levels);
    const { tools: out, report } = tw.convertMcpToolsDetailed([tool], "openai", { strict: true });
    assert.equal(report.tools[0].strict, true, JSON.stringify(report.tools[0].problems));
    assert.ok(out[0].function.parameters.$defs, "kept as $defs");
    assert.ok(JSON.stringify(out).length < 3 * JSON.stringify(tool.inputSchema).length);
    assert.ok(report.tools[0].changes.some((d) => d.rule === "openai/strict-defs"));
  }
  const { report } = tw.convertMcpToolsDetailed([bracket(16)], "anthropic", { strict: true });
  const why = report.tools[0].problems.find((d) => d.rule === "anthropic/strict-fallback");
  assert.match(why.message, /expansion budget/);
});
