// The `toolwire` command of the package (pkg/bin/toolwire.cjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { convertMcpToolsJson } from "../../pkg/index.mjs";
import { corpusDir } from "./shared.mjs";

const bin = fileURLToPath(new URL("../../pkg/bin/toolwire.cjs", import.meta.url));
const run = (args, input, cwd) => spawnSync(process.execPath, [bin, ...args], { input, encoding: "utf8", cwd });

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
  for (const [provider, as] of [["ollama", "ollama"], ["openai-chat", "openai"], ["google", "gemini"], ["vertex", "vertex"]]) {
    const r = run(["check", cleanFile, "--provider", provider]);
    assert.equal(r.status, 0, `${provider}: ${r.stdout}${r.stderr}`);
    const said = provider === as ? provider : `${provider} (converted as ${as})`;
    assert.ok(r.stdout.includes(`${said}: 1 tool`), `${provider}: ${r.stdout}`);
    assert.equal(JSON.parse(run(["check", cleanFile, `--provider=${provider}`, "--json"]).stdout).provider, as);
  }
  // The help says which names are converted as another provider: the aliases, not ollama (s26r F3).
  const help = run(["--help"]).stdout;
  assert.match(help, /or openai-chat \(openai\), google \(gemini\)\.\n/);
  assert.doesNotMatch(help, /ollama is converted as|provider "openai"/);
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
    // Any reason a file cannot be read is an input error (the check never ran), not a crash.
    [["check", tmp], undefined, /cannot be read: EISDIR/],
    [["check", "x".repeat(5000) + ".json"], undefined, /cannot be read: ENAMETOOLONG/],
    // Nothing given is dropped: a value given twice is refused.
    [["check", cleanFile, "--provider", "openai", "--provider=anthropic"], undefined, /--provider is given twice \("openai" and "anthropic"\)/],
    [["check", cleanFile, "--server", "a", "--server", "b"], undefined, /--server is given twice/],
    [["check", "-"], Buffer.from([0x5b, 0xff, 0x5d]), /stdin is not JSON: .*not valid/],
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

test("bin: a byte order mark is read past: UTF-8 with one, UTF-16 (what Windows PowerShell writes)", () => {
  const text = JSON.stringify(clean);
  const files = {
    "utf8-bom.json": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    "utf16le.json": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]),
    "utf16be.json": Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]),
  };
  for (const [name, bytes] of Object.entries(files)) {
    writeFileSync(join(tmp, name), bytes);
    const r = run(["check", join(tmp, name), "--provider", "openai"]);
    assert.equal(r.status, 0, `${name}: ${r.stderr}`);
    assert.match(r.stdout, /^openai: 1 tool, 0 changes, 0 problems/m, name);
  }
});

test("bin: names and keys from the input are printed with control characters escaped", () => {
  // A server's tools/list could otherwise set the terminal's title, clear it, or draw report lines of its own.
  const hostile = [
    { name: "ok_tool", inputSchema: { type: "object" } },
    { name: "x\u001b]0;PWNED\u0007\u001b[2J\n✓ forged", inputSchema: { type: "object", properties: { "k\u001b[31m\u202eRED": { type: "string", format: "uri" } } } },
  ];
  const file = join(tmp, "hostile.json");
  writeFileSync(file, JSON.stringify(hostile));
  const r = run(["check", file, "--provider", "openai", "--strict", "--changes", "--server", "s\u009b1m"]);
  assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/.test(r.stdout), JSON.stringify(r.stdout));
  assert.ok(r.stdout.includes("x\\u001b]0;PWNED\\u0007\\u001b[2J\\u000a✓ forged"), r.stdout);
  assert.ok(r.stdout.includes("k\\u001b[31m\\u202eRED"), r.stdout);
  assert.ok(!/^✓ forged/m.test(r.stdout), "no line of the input's own");
  // --json is JSON, which escapes them itself.
  assert.equal(JSON.parse(run(["check", file, "--provider", "openai", "--json"]).stdout).tools[1].tool, hostile[1].name);
});

test("bin: -h and -v are options only where no option takes them as its value (pQ 9)", () => {
  // `--server -v`: the server is "-v", and the check runs.
  const r = run(["check", cleanFile, "--provider", "openai", "--server", "-v", "--json"]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).tools.map((t) => t.name), ["mcp__-v__ping"]);
  assert.equal(run(["check", cleanFile, "--provider", "-h"]).status, 2, "-h as the provider is a provider name, refused");
  assert.match(run(["check", cleanFile, "--provider", "-h"]).stderr, /UNKNOWN_PROVIDER: unknown provider "-h"/);
  // As options they still are, anywhere.
  assert.match(run(["check", cleanFile, "-v"]).stdout, /^\d+\.\d+\.\d+/);
  assert.match(run(["check", cleanFile, "--server", "s", "-h"]).stdout, /Usage: toolwire check/);
});

test("bin: -- ends the options: a file named as an option is read, -h after it is no help (s25d)", () => {
  const dashed = join(tmp, "-h");
  writeFileSync(dashed, JSON.stringify(clean));
  for (const args of [["check", "--provider", "openai", "--", "-h"], ["check", "--", "-h"]]) {
    const r = run(args, undefined, tmp);
    assert.equal(r.status, 0, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.doesNotMatch(r.stdout, /Usage: toolwire check/);
  }
  // What follows `--` is a file, not an option: two are refused as two files.
  assert.match(run(["check", "--", "-h", "--json"], undefined, tmp).stderr, /give exactly one file/);
  assert.match(run(["check", "--", cleanFile, "--provider", "openai"]).stderr, /give exactly one file/);
  // `-` after it is stdin still.
  assert.equal(run(["check", "--provider", "openai", "--", "-"], JSON.stringify(clean)).status, 0);
});

test("bin: every message that quotes the command line escapes control characters (pQ 9)", () => {
  for (const [args, message] of [
    [["\u001b]0;pwned\u0007check"], /unknown command "\\u001b]0;pwned\\u0007check"/],
    [["check", cleanFile, "--strict=\u001b[2J"], /\(got "\\u001b\[2J"\)/],
    [["check", cleanFile, "--b\u001b[2Jogus"], /unknown option --b\\u001b\[2Jogus/],
    [["check", cleanFile, "--server", "a\u0007", "--server", "b\u009b"], /--server is given twice \("a\\u0007" and "b\\u009b"\)/],
  ]) {
    const r = run(args);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(r.stderr), JSON.stringify(r.stderr));
  }
});

test("bin: a JSON-RPC batch response is unwrapped when one of its responses is a tools list, else refused (pQ 10)", () => {
  const response = (id, result) => ({ jsonrpc: "2.0", id, result });
  const batch = [response(1, { tools: [{ name: "search" }, { name: "fetch" }] })];
  let r = run(["check", "-", "--provider", "openai", "--json"], JSON.stringify(batch));
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).tools.map((t) => t.tool), ["search", "fetch"]);
  // Beside other responses (an error, another result): the one tools list.
  r = run(["check", "-", "--provider", "openai", "--json"], JSON.stringify([{ jsonrpc: "2.0", id: 0, error: { code: -32601, message: "nope" } }, ...batch, response(2, {})]));
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(JSON.parse(r.stdout).tools.length, 2);
  // None, or two: which one was meant is not for the tool to guess.
  for (const [doc, said] of [[[response(1, {})], /batch of 1 response, none of them a tools list/], [[...batch, response(2, { tools: [] })], /batch of 2 responses, 2 of them a tools list/]]) {
    r = run(["check", "-", "--provider", "openai"], JSON.stringify(doc));
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, said);
    assert.equal(r.stdout, "");
  }
});

test("bin: a batch's requests and notifications are not responses; its one error response is said as the error (rv2 F1, F2)", () => {
  const list = { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "a", inputSchema: { type: "object" } }] } };
  const log = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } };
  const ping = { jsonrpc: "2.0", id: "s1", method: "ping" };
  // What a 2025-03-26 server's JSON body may be: the server's messages, then the response; a response without
  // its `id` is read in a batch as it is alone (rA F9).
  const { id: _, ...idless } = list;
  for (const doc of [[log, list], [ping, list], [ping, log, list, log], [idless], [log, idless]]) {
    const r = run(["check", "-", "--provider", "openai", "--json"], JSON.stringify(doc));
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).tools.map((t) => t.tool), ["a"]);
  }
  // The only response an error: the server's error, as for a single error response.
  const error = { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } };
  const single = run(["check", "-", "--provider", "openai"], JSON.stringify(error));
  assert.equal(single.status, 2);
  for (const doc of [[error], [log, error], [ping, error, log]]) {
    const r = run(["check", "-", "--provider", "openai"], JSON.stringify(doc));
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.equal(r.stderr, single.stderr);
    assert.match(r.stderr, /JSON-RPC error: .*Method not found/);
    assert.equal(r.stdout, "");
  }
  // No response, or two tools lists: an input error that counts them.
  for (const [doc, said] of [
    [[log], /batch of 0 responses \(and 1 request or notification\), none of them a tools list/],
    [[ping, log], /batch of 0 responses \(and 2 requests or notifications\), none of them a tools list/],
    [[log, list, { ...list, id: 2 }], /batch of 2 responses \(and 1 request or notification\), 2 of them a tools list/],
    [[error, { ...error, id: 2 }], /batch of 2 responses, none of them a tools list/],
  ]) {
    const r = run(["check", "-", "--provider", "openai"], JSON.stringify(doc));
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, said);
    assert.equal(r.stdout, "");
  }
});

test("bin: a tool nested past the limits (too deep for JSON.stringify too) is a problem, the others reported (pQ 1)", () => {
  const depth = 20_000;
  const text = `[{"name":"good"},{"name":"x","inputSchema":{"type":"object","properties":{"a":${'{"type":"array","items":'.repeat(depth)}{}${"}".repeat(depth)}}}}]`;
  const file = join(tmp, "deep.json");
  writeFileSync(file, text);
  const r = run(["check", file, "--provider", "openai", "--json"]);
  assert.equal(r.status, 1, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.tools.map((t) => t.tool), ["good"]);
  assert.deepEqual(report.problems.map((p) => [p.path, p.rule]), [["/1", "tool/invalid"]]);
  assert.match(report.problems[0].message, /nested more than \d+ levels deep/);
});

test("bin: a JSON-RPC error nested deeper than JSON.stringify goes is an input error, written cut (s23b F1)", () => {
  const depth = 20_000;
  const error = `{"code":-32000,"message":"deep","data":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
  const single = `{"jsonrpc":"2.0","id":1,"error":${error}}`;
  for (const text of [single, `[${single}]`, `{"error":${error}}`]) {
    const r = run(["check", "-", "--provider", "openai"], text);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^toolwire: the input is a JSON-RPC error: \{"code":-32000,"message":"deep","data":\{"a":\{"a":.*"\{…\}"\}+ \(cut: it nests deeper than 32 levels\)\n$/);
    assert.equal(r.stderr.split("\n").length, 2, "one line");
    assert.doesNotMatch(r.stderr, /RangeError|\n\s+at /);
  }
  // One JSON.stringify can write is written whole, as before.
  const r = run(["check", "-", "--provider", "openai"], `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":${'{"a":'.repeat(40)}1${"}".repeat(40)}}}`);
  assert.equal(r.status, 2);
  assert.doesNotMatch(r.stderr, /cut|…/);
  assert.equal((r.stderr.match(/\{"a":/g) ?? []).length, 40);
});

test("bin: an error that is neither a usage, input nor toolwire error is an internal error: one line, exit 2, never 1 (s23b F1)", () => {
  // A bug, stood in for by a check that throws a TypeError (and one that throws no Error at all).
  for (const [thrown, said] of [
    ['new TypeError("boom\\nsecond line")', /^toolwire: internal error \(a bug in toolwire; please report it with the input\): TypeError: boom\\u000asecond line\n$/],
    ['"a string"', /^toolwire: internal error \(a bug in toolwire; please report it with the input\): a string\n$/],
  ]) {
    const preload = join(tmp, "bug.cjs");
    writeFileSync(preload, `const raw = require(${JSON.stringify(fileURLToPath(new URL("../../pkg/node/toolwire_convert.js", import.meta.url)))});
raw.__checkToolsJson = () => { throw ${thrown}; };`);
    const r = spawnSync(process.execPath, ["-r", preload, bin, "check", cleanFile, "--provider", "openai"], { encoding: "utf8" });
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, said);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  }
  assert.match(run(["--help"]).stdout, /2 on a usage or input error\n\(or an internal error of toolwire, which the message calls one\)/);
});

test("bin: a report, usage or version that cannot be written is exit 2 with a line saying so; a reader that closed early is no error", { skip: !existsSync("/dev/full") }, () => {
  const file = join(corpusDir, "server-github.json");
  const full = openSync("/dev/full", "w");
  try {
    for (const args of [["check", file, "--provider", "openai", "--json"], ["--help"], ["--version"]]) {
      const r = spawnSync(process.execPath, [bin, ...args], { stdio: ["ignore", full, "pipe"], encoding: "utf8" });
      assert.equal(r.status, 2, args.join(" "));
      assert.match(r.stderr, /^toolwire: cannot write to stdout: .*ENOSPC.*\n$/, args.join(" "));
    }
  } finally {
    closeSync(full);
  }
  // `| head -c 1`: the reader is gone (EPIPE); the status is the check's, and nothing is said.
  const big = join(corpusDir, "rootly-mcp.json"); // a report of 300 KB: past a pipe's buffer
  const want = run(["check", big, "--provider", "gemini", "--json"]).status;
  const [err, status] = [join(tmp, "err"), join(tmp, "status")];
  spawnSync("sh", ["-c", `{ "${process.execPath}" "${bin}" check "${big}" --provider gemini --json 2>"${err}"; echo $? >"${status}"; } | head -c 1 >/dev/null`]);
  assert.equal(readFileSync(err, "utf8"), "");
  assert.equal(readFileSync(status, "utf8").trim(), String(want));
  assert.ok(want === 0 || want === 1);
});

test("bin: the file is checked as written: a number JSON.parse would change is the library's text reader's verdict (s31b F1)", () => {
  // Past a double's range: INVALID_JSON with the file's line and column, as convertMcpToolsJson says it, never a null
  // the file does not hold. In a batch too, where the response's own text is checked.
  const schema = '{"type":"object","properties":{"limit":{"type":"number","maximum":1e400,"default":1e400}}}';
  const list = `{"tools":[{"name":"t",\n"inputSchema":${schema}}]}`;
  for (const text of [list, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\\"],[{,"}},\n{"jsonrpc":"2.0","id":1,"result":${list}}]`]) {
    const r = run(["check", "-", "--provider", "openai"], text);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    const line = text.split("\n").findIndex((l) => l.includes("1e400")) + 1;
    const column = text.split("\n")[line - 1].indexOf("1e400") + "1e400".length;
    assert.equal(r.stderr, `toolwire: INVALID_JSON: tools are not valid JSON: number out of range at line ${line} column ${column} (1e400 is past a double's range)\n`);
    assert.equal(r.stdout, "");
  }
  assert.throws(() => convertMcpToolsJson(list, "openai"), { code: "INVALID_JSON", message: /number out of range at line 2 column 85 / });
  // Without the number, the batch's response is checked from its own text (after a string of brackets and commas).
  const fine = `[{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\\"],[{,"}},{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}]`;
  const batch = run(["check", "-", "--provider", "openai", "--json"], fine);
  assert.equal(batch.status, 0, batch.stdout + batch.stderr);
  assert.deepEqual(JSON.parse(batch.stdout).tools.map((t) => t.tool), ["t"]);
  // Two integers past 2^53 that one double holds are two values: Gemini's enum strings of them collide, a problem.
  const big = '[{"name":"pick","inputSchema":{"type":"object","properties":{"id":{"type":"integer","enum":[12345678901234567891,12345678901234567892]}}}}]';
  const r = run(["check", "-", "--provider", "gemini", "--json"], big);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).tools[0].problems.map((p) => p.rule), ["gemini/enum-collision"]);
  assert.match(JSON.parse(r.stdout).tools[0].problems[0].message, /12345678901234567891 and 12345678901234567892/);
});

test("bin: a problem of one tool is labelled by it, and the summary counts the tools left out (s31b F3)", () => {
  const r = run(["check", "-", "--provider", "openai"], JSON.stringify([{ name: "a" }, { name: "" }, { description: "x" }]));
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^✗ \(tool at index 1\)  \[tool\/invalid\] /m);
  assert.match(r.stdout, /^✗ \(tool at index 2\)  \[tool\/invalid\] /m);
  assert.doesNotMatch(r.stdout, /\(all tools\)/);
  assert.match(r.stdout, /^openai: 3 tools \(2 left out\), 0 changes, 2 problems$/m);
  // A problem of the list as a whole is still the list's.
  const many = Array.from({ length: 129 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" } }));
  const all = run(["check", "-", "--provider", "openai"], JSON.stringify(many));
  assert.match(all.stdout, /^✗ \(all tools\)  \[limits\/tool-count\] /m);
  assert.match(all.stdout, /^openai: 129 tools, /m);
});

test("bin: a tools/list page with a nextCursor is said to be one page (s31b F4)", () => {
  const tools = [{ name: "a", inputSchema: { type: "object" } }];
  const said = 'toolwire: the list continues (nextCursor "page-2"): only this page was checked\n';
  for (const doc of [
    { tools, nextCursor: "page-2" },
    { jsonrpc: "2.0", id: 2, result: { tools, nextCursor: "page-2" } },
    [{ jsonrpc: "2.0", id: 2, result: { tools, nextCursor: "page-2" } }],
  ]) {
    for (const json of [[], ["--json"]]) {
      const r = run(["check", "-", "--provider", "openai", ...json], JSON.stringify(doc));
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.equal(r.stderr, said);
      if (json.length) assert.equal(JSON.parse(r.stdout).tools.length, 1);
    }
  }
  // The last page (no cursor, or an empty or null one) is said nothing of.
  for (const nextCursor of [undefined, "", null]) {
    assert.equal(run(["check", "-", "--provider", "openai"], JSON.stringify({ tools, nextCursor })).stderr, "");
  }
});

test("bin: a batch of responses without jsonrpc is read as a batch, as one such response is (s31b)", () => {
  const result = { tools: [{ name: "a", inputSchema: { type: "object" } }] };
  for (const doc of [[{ id: 1, result }], { id: 1, result }]) {
    const r = run(["check", "-", "--provider", "openai", "--json"], JSON.stringify(doc));
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).tools.map((t) => t.tool), ["a"]);
  }
  // A tool is no response: an array of tools is read as ever.
  const r = run(["check", "-", "--provider", "openai", "--json"], JSON.stringify([{ name: "b", result: 1 }]));
  assert.deepEqual(JSON.parse(r.stdout).tools.map((t) => t.tool), ["b"]);
});

test("bin: a batch's response is checked with the columns a single response gets, characters outside ASCII before it too", () => {
  const list = '{"tools":[{"name":"t","description":"日本語","inputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":1e400}}}}]}';
  const single = run(["check", "-", "--provider", "openai"], `{"jsonrpc":"2.0","id":1,"result":${list}}`);
  const batch = run(["check", "-", "--provider", "openai"], `[{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"日本語 🌧"}},{"jsonrpc":"2.0","id":1,"result":${list}}]`);
  const column = (r) => Number(/INVALID_JSON: .* at line 1 column (\d+)/.exec(r.stderr)?.[1]);
  assert.equal(single.status, 2, single.stderr);
  assert.equal(batch.status, 2, batch.stderr);
  // The batch's column is the single response's plus its prefix, counted as the library counts (UTF-8 bytes).
  const prefix = '[{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"日本語 🌧"}},';
  assert.equal(column(batch) - column(single), Buffer.byteLength(prefix), single.stderr + batch.stderr);
});

test("bin: a mistyped option is told the option it most likely meant, and nothing for one like none", () => {
  for (const [flag, meant] of [["--provder", "--provider"], ["-strict", "--strict"], ["--JSON", "--json"], ["--chnages", "--changes"], ["--serv", "--server"], ["--hlep", "--help"]]) {
    const r = run(["check", cleanFile, flag]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`unknown option ${flag}: did you mean ${meant}\\?`), flag);
  }
  const r = run(["check", cleanFile, "--verbose"]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown option --verbose\n/);
});
