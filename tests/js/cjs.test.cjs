"use strict";
// The package's Node CommonJS entry, through package.json "main" (pkg/index.cjs), built by `make pkg`.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const contract = require("./contract.cjs");
const toolwire = require("../../pkg");

contract(toolwire, "cjs");

test("cjs: import and require share one instance (one ToolwireError class)", async () => {
  const esm = await import("../../pkg/index.mjs");
  assert.equal(esm.ToolwireError, toolwire.ToolwireError);
  assert.equal(esm.NameMap, toolwire.NameMap);
  try {
    esm.convertMcpTools([], "nope");
    assert.fail("expected a throw");
  } catch (e) {
    assert.ok(e instanceof toolwire.ToolwireError);
  }
});
