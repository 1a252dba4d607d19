// The browser/bundler entry (pkg/web.mjs), run in Node with the .wasm bytes passed in (Node's fetch has
// no file: URLs). Checks the init protocol, then the same contract as the Node entries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import contract from "./contract.cjs";
import * as web from "../../pkg/web.mjs";

const wasmUrl = new URL("../../pkg/web/toolwire_bg.wasm", import.meta.url);

test("web: before initAsync every export throws a clear error", () => {
  assert.equal(typeof web.ToolwireError, "function", "the error class needs no wasm");
  const message = "toolwire: call `await initAsync()` first";
  assert.throws(() => web.convertMcpTools([], "openai"), (e) => e instanceof web.ToolwireError && e.code === "NOT_INITIALIZED" && e.message === message);
  assert.throws(() => web.convertMcpTools([], "openai"), { message });
  assert.throws(() => web.convertMcpToolsJson("[]", "openai"), { message });
  assert.throws(() => web.checkTools([], "openai"), { message });
  assert.throws(() => web.flattenContent([]), { message });
  assert.throws(() => web.version(), { message });
  assert.throws(() => web.NameMap.fromTools([], "openai"), { message });
  assert.throws(() => web.NameMap.fromJSON("{}"), { message });
  assert.throws(() => web.parseToolCalls({}, "openai"), { message });
  assert.throws(() => web.toolResultMessage({ id: "c", name: "t" }, [], "openai"), { message });
  assert.throws(() => web.toolsSystemPrompt([]), { message });
  assert.throws(() => new web.ToolCallAccumulator("openai"), { message });
  assert.throws(() => new web.PermissionPolicy({}), { message });
});

test("web: a failed load can be retried; initAsync is memoised once it succeeds", async () => {
  // Bytes that are no module, and the default location, which Node's fetch cannot read (file:): each a
  // ToolwireError that keeps what it met and says what to pass.
  for (const input of [new Uint8Array([0, 1, 2, 3]), undefined]) {
    const e = await web.initAsync(input).then(() => null, (e) => e);
    assert.ok(e instanceof web.ToolwireError, String(e));
    assert.equal(e.code, "LOAD_FAILED");
    assert.match(e.message, /^toolwire: loading the WebAssembly module failed: .*pass the file to initAsync/);
    assert.ok(e.cause instanceof Error, "the error met is kept as `cause`");
  }
  assert.throws(() => web.version(), { code: "NOT_INITIALIZED" }, "still not loaded");
  const bytes = readFileSync(wasmUrl);
  const first = web.initAsync(bytes);
  assert.equal(web.initAsync(), first, "same promise, input ignored");
  await first;
  assert.ok(web.ToolwireError.prototype instanceof Error);
  assert.ok(new web.PermissionPolicy({}) instanceof web.PermissionPolicy);
  assert.ok(new web.ToolCallAccumulator("openai") instanceof web.ToolCallAccumulator);
  assert.equal(web.default, web.initAsync);
});

contract(web, "web");
