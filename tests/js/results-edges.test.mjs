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
