// The `toolwire` command of the package (pkg/bin/toolwire.cjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { corpusDir } from "./shared.mjs";

const bin = fileURLToPath(new URL("../../pkg/bin/toolwire.cjs", import.meta.url));
const run = (args, input) => spawnSync(process.execPath, [bin, ...args], { input, encoding: "utf8" });

const tmp = mkdtempSync(join(tmpdir(), "toolwire-bin-"));
const clean = [{ name: "ping", description: "Ping", inputSchema: { type: "object", properties: {} } }];
const cleanFile = join(tmp, "clean.json");
writeFileSync(cleanFile, JSON.stringify(clean));

test("bin: check <file> prints a readable report and a summary", () => {
  const r = run(["check", join(corpusDir, "server-github.json"), "--provider", "gemini"]);
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  assert.match(r.stdout, /^gemini: 26 tools, \d+ changes?, \d+ problems?/m);
  assert.equal(r.status, /, 0 problems/.test(r.stdout) ? 0 : 1, "exit 1 exactly when problems remain");
});

test("bin: --json prints the checkTools report", () => {
  const r = run(["check", join(corpusDir, "server-github.json"), "--provider=openai", "--json"]);
  const report = JSON.parse(r.stdout);
  assert.equal(report.provider, "openai");
  assert.equal(report.tools.length, 26);
  const problems = report.problems.length + report.tools.reduce((n, t) => n + t.problems.length, 0);
  assert.equal(r.status, problems > 0 ? 1 : 0);
});

test("bin: reads stdin, and accepts an array, {tools} and a JSON-RPC response", () => {
  for (const doc of [clean, { tools: clean }, { jsonrpc: "2.0", id: 1, result: { tools: clean } }]) {
    const r = run(["check", "-", "--provider", "anthropic", "--json"], JSON.stringify(doc));
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).tools.map((t) => t.tool), ["ping"]);
  }
  const r = run(["check", cleanFile]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^gemini: 1 tool, \d+ changes?, 0 problems/m);
});

test("bin: without --provider the default, gemini, is said on stderr (stdout stays the report)", () => {
  const r = run(["check", cleanFile, "--json"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).provider, "gemini");
  assert.match(r.stderr, /using the default provider, gemini \(--provider <name> picks another\)/);
  assert.equal(run(["check", cleanFile, "--provider", "gemini"]).stderr, "", "nothing said when it is given");
  assert.match(run(["--help"]).stdout, /Default: gemini/);
});

test("bin: every provider name the library takes (ollama, openai-chat, google), converted as the report says", () => {
  for (const [provider, as] of [["ollama", "openai"], ["openai-chat", "openai"], ["google", "gemini"], ["vertex", "vertex"]]) {
    const r = run(["check", cleanFile, "--provider", provider]);
    assert.equal(r.status, 0, `${provider}: ${r.stdout}${r.stderr}`);
    const said = provider === as ? provider : `${provider} (converted as ${as})`;
    assert.ok(r.stdout.includes(`${said}: 1 tool`), `${provider}: ${r.stdout}`);
    assert.equal(JSON.parse(run(["check", cleanFile, `--provider=${provider}`, "--json"]).stdout).provider, as);
  }
});

test("bin: an unknown provider is the library's UNKNOWN_PROVIDER, with the one meant, before the file is read", () => {
  for (const [provider, meant] of [["opnai", "openai"], ["claude", "anthropic"]]) {
    const r = run(["check", join(tmp, "missing.json"), "--provider", provider]);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`UNKNOWN_PROVIDER: unknown provider "${provider}": did you mean "${meant}"\\?`));
  }
});

test("bin: usage and input errors exit 2 with a message", () => {
  for (const [args, input, message] of [
    [[], undefined, /no command/],
    [["lint", cleanFile], undefined, /unknown command "lint"/],
    [["check"], undefined, /exactly one file/],
    [["check", cleanFile, "--provider", "nope"], undefined, /unknown provider "nope"/],
    [["check", join(tmp, "missing.json")], undefined, /ENOENT|no such file/],
    [["check", "-"], "{oops", /stdin is not JSON/],
    [["check", "-"], '{"result":{}}', /expected a tools array/],
    [["check", cleanFile, "--strict=maybe"], undefined, /--strict is a switch: give it alone, or --strict=true \/ --strict=false \(got "maybe"\)/],
  ]) {
    const r = run(args, input);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, message);
  }
});

test("bin: a switch given a value takes it as said", () => {
  // --json=false prints the text report, --json=true (or --json alone) the JSON one.
  assert.match(run(["check", cleanFile, "--json=false"]).stdout, /^gemini: 1 tool/m);
  assert.doesNotThrow(() => JSON.parse(run(["check", cleanFile, "--json=true"]).stdout));
  assert.doesNotThrow(() => JSON.parse(run(["check", cleanFile, "--json"]).stdout));
});

test("bin: --help and --version", () => {
  assert.match(run(["--help"]).stdout, /Usage: toolwire check/);
  assert.match(run(["--version"]).stdout, /^\d+\.\d+\.\d+/);
});
