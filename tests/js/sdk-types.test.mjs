// toolwire's outputs type-check against the official SDK types (openai, @anthropic-ai/sdk, @google/genai,
// @aws-sdk/client-bedrock-runtime): `tsc --noEmit -p tests/ts` over tests/ts/sdk-types.ts, which assigns
// every output of convertMcpTools, toolResultMessage and parseToolCalls to the SDK's own types.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

test("outputs type-check against the official provider SDK types", () => {
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(repo, "tests", "ts")], { encoding: "utf8" });
  assert.equal(r.status, 0, `tsc -p tests/ts\n${r.stdout}${r.stderr}`);
});

test("under exactOptionalPropertyTypes, the MCP SDK's tools and results and options that may be undefined are taken", () => {
  // tests/ts/exact: the SDK writes optional fields `?: T | undefined`, which the flag refuses where toolwire's
  // input types say `?: T`.
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(repo, "tests", "ts", "exact")], { encoding: "utf8" });
  assert.equal(r.status, 0, `tsc -p tests/ts/exact\n${r.stdout}${r.stderr}`);
});

test("the check can fail: a wrong shape is rejected by the SDK types", () => {
  // Guards against a tsconfig that silently checks nothing (e.g. `any` leaking in).
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(repo, "tests", "ts", "negative")], { encoding: "utf8" });
  assert.notEqual(r.status, 0, "tsc must reject tests/ts/negative/wrong.ts");
  assert.match(r.stdout, /wrong\.ts.*TS2322/s);
});
