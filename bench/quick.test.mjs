// Keeps the benchmark harness from rotting: runs `node bench/run.mjs --quick` (tiny input, one run of
// everything except Chromium and the slow peers) in a child process and checks that it completes and
// prints its tables. It asserts nothing about the figures: targets are printed, never enforced.
//
//   node --test bench/quick.test.mjs      (needs the built package in pkg/: make pkg)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./run.mjs", import.meta.url));

test("bench: node bench/run.mjs --quick runs and prints its tables", () => {
  const r = spawnSync(process.execPath, [script, "--quick"], {
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, BENCH_QUICK: "1" },
  });
  assert.equal(r.error, undefined, `could not run the bench: ${r.error}`);
  assert.equal(r.status, 0, `exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  const out = r.stdout;
  // The conversion tables: their header, and the floor row with a figure.
  assert.match(out, /^== Conversion: /m);
  assert.match(out, /^path\s+bytes ms\s+bytes\/floor\s+text ms\s+text\/floor\s+objects ms\s+hand-written ms\s+objects\/hand\s+<=1\.5x/m);
  assert.match(out, /^floor \(JSON\.parse \+ JSON\.stringify\)\s+\d+(\.\d+)?\s+1\.00x/m);
  // The paired JSON API table, which the target is read from.
  assert.match(out, /^path\s+median bytes\/floor\s+q1\s+q3\s+<=1\.0x/m);
  // Every provider path has a row with figures in both (a failed conversion prints "toolwire failed").
  for (const path of ["openai", "openai strict", "openai-responses", "anthropic", "anthropic strict", "gemini parameters", "gemini parametersJsonSchema", "vertex", "bedrock"]) {
    assert.match(out, new RegExp(`^${path}\\s+\\d+(\\.\\d+)?\\s+\\d+(\\.\\d+)?x\\s+\\d`, "m"), `row for ${path}`);
    assert.match(out, new RegExp(`^${path}\\s+\\d+\\.\\d\\dx\\s+\\d+\\.\\d\\dx\\s+\\d+\\.\\d\\dx\\s+(PASS|FAIL)$`, "m"), `paired row for ${path}`);
  }
  assert.doesNotMatch(out, /toolwire failed|failed: /);
  assert.match(out, /^JSON API <= 1\.0x floor, every path, paired \(quick set\)\s+\d+\/10 paths pass/m);
  // The other sections, and the closing summary.
  for (const section of ["Peers: ", "Tool results", "Package size", "Cold start", "Scaling", "Targets (figures, not assertions)"]) {
    assert.ok(out.includes(`== ${section}`), `section ${section}`);
  }
  // The bound under the object API's ratio, and toolwire's objects-to-text figure beside the peers.
  assert.match(out, /^The object API's objects cross into the module as JSON text: JSON\.stringify of the tools alone takes \d+(\.\d+)? ms, \d+(\.\d+)?x the fastest/m);
  assert.match(out, /^object API <= 1\.5x hand-written map \(quick set\)\s+\d+\/10 paths pass; worst \d+(\.\d+)?x \(JSON\.stringify of the input alone: \d/m);
  assert.match(out, /^peer\s+path\s+ms\s+vs toolwire objects/m);
  assert.match(out, /^toolwire objects in, JSON text out \(convertMcpToolsJson\(JSON\.stringify\(tools\)\), gemini parameters\): \d+(\.\d+)? ms[.;]/m);
  assert.match(out, /^result\s+provider\s+JSON\s+toolwire ms\s+floor ms/m);
  assert.match(out, /^small text\s+openai\s+[\d.]+ KB\s+\d/m);
  assert.doesNotMatch(out, /toolwire failed/);
  assert.match(out, /^file \(pkg\/\)\s+raw\s+gzip -9/m);
  assert.match(out, /^Node v\d+\.\d+\.\d+ \(\d+ fresh processes\)\s+require \d/m);
  assert.match(out, /^scale\s+tools\s+JSON\s+runs\s+floor ms/m);
  assert.match(out, /^scale\s+properties\s+JSON\s+floor ms/m);
  assert.match(out, /^ms\/MB at 16x vs 1x: openai \d+\.\d\dx, openai strict \d+\.\d\dx, gemini parameters \d+\.\d\dx \(floor/m);
  assert.match(out, /^target\s+figure\s+verdict/m);
});
