#!/usr/bin/env node
"use strict";
// toolwire check <file|->: what converting an MCP server's tools for a provider changes, and which
// problems remain. Exit status: 0 no problems, 1 problems remain, 2 usage or input error (and an internal error,
// said as one: never 1, which a script would read as a check that ran).
const fs = require("node:fs");
const toolwire = require("../index.cjs");
// The check on JSON text, as convertMcpToolsJson reads it: numbers as written (JSON.parse rounds an integer past 2^53
// and makes 1e400 Infinity, so a check of its objects would be of values the file does not hold).
const { __checkToolsJson: checkToolsJson } = require("../node/toolwire_convert.js");

// For the help text only: the library validates the name (UNKNOWN_PROVIDER, with the one most likely meant).
const PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama"];
// Without --provider the check is for this one, and says so (on stderr, so --json stays JSON), as `docker pull`
// says "Using default tag: latest": a default kept for scripts written against it, never a silent one.
const DEFAULT_PROVIDER = "gemini";

const USAGE = `Usage: toolwire check <file|-> [options]

Reads an MCP tools/list result (a tools array, {tools:[...]}, a JSON-RPC response
{result:{tools:[...]}}, or a JSON-RPC batch holding one among its responses) from <file>, or stdin
for "-", and reports for one provider what conversion changes and which problems remain.

Options:
  --provider <name>   ${PROVIDERS.join(", ")},
                      or openai-chat (openai), google (gemini).
                      Default: ${DEFAULT_PROVIDER} (said on stderr when it applies)
  --server <name>     server name to prefix the tool names with
  --strict            request strict mode where the provider has one
  --changes           also list every change, not only problems
  --json              print the report as JSON
  -h, --help          show this help
  -v, --version       show the version
  --                  end of the options: what follows is the file (one named -x)

Exit status: 0 when no problem remains, 1 when some do, 2 on a usage or input error
(or an internal error of toolwire, which the message calls one).`;

// The option a mistyped one most likely meant (`--provder`: `--provider`), by edit distance: at most two edits,
// or the option it begins (`--prov`); or nothing.
const OPTIONS = ["--provider", "--server", "--json", "--changes", "--strict", "--help", "--version"];
function didYouMean(flag) {
  const f = flag.toLowerCase().replace(/^-+/, "--");
  const distance = (a, b) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length];
  };
  const scored = OPTIONS.map((o) => [f.length > 3 && o.startsWith(f) ? 0 : distance(f, o), o]).filter(([d]) => d <= 2);
  scored.sort((a, b) => a[0] - b[0]);
  return scored.length ? `: did you mean ${scored[0][1]}?` : "";
}

class UsageError extends Error {}
/** The input could not be read or is not a tools list: said without the usage text. */
class InputError extends Error {}
/** The report could not be written (a full disk, an I/O error): the check's result is lost, which the exit status says. */
class OutputError extends Error {}

/**
 * Writes the report and a line break to stdout, whole. console.log would drop a failed write without a word (and exit
 * 0, "no problem remains", with the report lost). A reader that closed early (`| head`, EPIPE) has what it wanted: the
 * rest is dropped quietly. A stdout that is a non-blocking pipe that is full (EAGAIN) is waited on.
 */
function writeReport(text) {
  const bytes = Buffer.from(`${text}\n`);
  let done = 0;
  while (done < bytes.length) {
    try {
      done += fs.writeSync(1, bytes, done, bytes.length - done);
    } catch (e) {
      if (e && e.code === "EPIPE") return;
      if (e && e.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      throw new OutputError(`cannot write to stdout: ${e && e.message}`);
    }
  }
}

/**
 * Text from the input (tool and server names, keys quoted in messages) as it is safe to print: a terminal acts on
 * control characters (an escape sequence can set the title, clear the screen, or draw a line the report never had)
 * and bidirectional overrides reorder what is shown, so each is written as its escape, as JSON writes it.
 */
function shown(text) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Text from the command line, quoted as messages quote it, escaped as {@link shown} escapes it. */
function quoted(text) {
  return `"${shown(text)}"`;
}

/** The options that take a value: the argument after one (`--server -v`) is its value, never an option. */
const VALUE_OPTIONS = ["--provider", "--server"];

/** Whether the command line gives one of `names` as an option: not where it is an option's value, nor after `--`. */
function asks(argv, names) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") return false;
    if (VALUE_OPTIONS.includes(argv[i])) i++;
    else if (names.includes(argv[i])) return true;
  }
  return false;
}

function parseArgs(argv) {
  const opts = { provider: undefined, json: false, changes: false, strict: false, server: undefined, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // The end of the options: the rest are files, whatever they start with.
    if (arg === "--") {
      opts.files.push(...argv.slice(i + 1));
      break;
    }
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[++i];
    };
    // A switch given a value (`--strict=false`) takes it as said, never as on.
    const on = () => {
      if (inline === undefined) return true;
      const v = inline.toLowerCase();
      if (["true", "yes", "1", "on"].includes(v)) return true;
      if (["false", "no", "0", "off"].includes(v)) return false;
      throw new UsageError(`${flag} is a switch: give it alone, or ${flag}=true / ${flag}=false (got ${quoted(inline)})`);
    };
    // A value given twice is refused: which one was meant is not for the tool to guess.
    const once = (key) => {
      const v = value();
      if (opts[key] !== undefined) throw new UsageError(`${flag} is given twice (${quoted(opts[key])} and ${quoted(v)})`);
      return v;
    };
    switch (flag) {
      case "--provider": opts.provider = once("provider"); break;
      case "--server": opts.server = once("server"); break;
      case "--json": opts.json = on(); break;
      case "--changes": opts.changes = on(); break;
      case "--strict": opts.strict = on(); break;
      default:
        if (flag.startsWith("-") && flag !== "-") throw new UsageError(`unknown option ${shown(flag)}${didYouMean(flag)}`);
        opts.files.push(arg);
    }
  }
  if (opts.provider !== undefined) {
    // Checked before the file is read, by the library itself: it takes every name and alias it knows, and names the
    // provider most likely meant for one it does not ("opnai": did you mean "openai"?).
    toolwire.checkTools([], opts.provider);
  }
  if (opts.files.length !== 1) throw new UsageError("give exactly one file, or - for stdin");
  return opts;
}

/**
 * Whether `item` is a JSON-RPC response (`{jsonrpc: "2.0", id, result}` or `{..., error}`): one without its `id` too,
 * as a lone response is read without one.
 */
function isResponse(item) {
  return isMessage(item) && !("method" in item) && ("result" in item || "error" in item);
}

/**
 * Whether `item` is a JSON-RPC message: a response, or a request or notification (`{jsonrpc: "2.0", method}`). One
 * without `jsonrpc` is one too where it has no `name` (a tool has one), as a lone response is read without it.
 */
function isMessage(item) {
  return (
    item !== null &&
    typeof item === "object" &&
    !Array.isArray(item) &&
    (item.jsonrpc === "2.0" || (!("jsonrpc" in item) && !("name" in item))) &&
    ("method" in item || "result" in item || "error" in item)
  );
}

/** How deep {@link rpcError} writes an error that JSON.stringify cannot write whole: deeper values are cut. */
const ERROR_DEPTH = 32;

/** `value` with what lies deeper than `depth` levels written as "[…]" or "{…}". */
function cut(value, depth) {
  if (value === null || typeof value !== "object") return value;
  if (depth === 0) return Array.isArray(value) ? "[…]" : "{…}";
  if (Array.isArray(value)) return value.map((v) => cut(v, depth - 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cut(v, depth - 1)]));
}

/**
 * The error of a JSON-RPC error response, as an input error (the single response and the batch say it alike). An
 * error nested deeper than JSON.stringify can go (its stack overflows: a RangeError) is written cut, and says so.
 */
function rpcError(error) {
  let text;
  try {
    text = JSON.stringify(error);
  } catch {
    try {
      text = `${JSON.stringify(cut(error, ERROR_DEPTH))} (cut: it nests deeper than ${ERROR_DEPTH} levels)`;
    } catch {
      text = "(too large to print)";
    }
  }
  return new InputError(`the input is a JSON-RPC error: ${shown(text)}`);
}

/**
 * The source text of element `at` of the JSON array `text` (valid JSON, as JSON.parse read it), preceded by the text
 * before it with every character but a line break as spaces: the library's errors then say the file's line and column.
 */
function elementText(text, at) {
  let depth = 0;
  let start = 0;
  let index = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "[" || c === "{") {
      if (depth++ === 0) start = i + 1;
    } else if ((c === "]" || c === "}") && --depth > 0) {
      continue;
    } else if (c === "]" || (c === "," && depth === 1)) {
      // The end of an element: the array's, or a comma of its own.
      // Each character as many spaces as its UTF-8 bytes: the library's columns count bytes, as for a single response.
      if (index++ === at) return text.slice(0, start).replace(/[^\n]/gu, (c) => " ".repeat(Buffer.byteLength(c))) + text.slice(start, i);
      start = i + 1;
    }
  }
  throw new Error(`no element ${at} in the array`);
}

/**
 * The tools/list result in any of the accepted wrappings: how many tools it gives, the JSON text to check (the file's
 * own, or its response's in a batch) and its `nextCursor`, where it has one.
 */
function listOf(doc, text) {
  const cursorOf = (result) => (result && typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined);
  // A batch: the text of its one tools/list response (toolsOf finds it, or says why there is none).
  if (Array.isArray(doc) && doc.length > 0 && doc.every(isMessage)) {
    const tools = toolsOf(doc);
    const at = doc.findIndex((r) => isResponse(r) && r.result && r.result.tools === tools);
    return { given: tools.length, text: elementText(text, at), cursor: cursorOf(doc[at].result) };
  }
  const tools = toolsOf(doc);
  const cursor = Array.isArray(doc) ? undefined : Array.isArray(doc.tools) ? cursorOf(doc) : cursorOf(doc.result);
  return { given: tools.length, text, cursor };
}

/** The tools array of a tools/list result in any of the accepted wrappings. */
function toolsOf(doc) {
  // A JSON-RPC batch is no tools array: its one tools/list result is, where it holds exactly one. A 2025-03-26
  // server's JSON body may put its requests and notifications before the response (McpClient reads such a body
  // too), so only the responses count; a batch whose one response is an error says that error.
  if (Array.isArray(doc) && doc.length > 0 && doc.every(isMessage)) {
    const responses = doc.filter(isResponse);
    const lists = responses.filter((r) => r.result && Array.isArray(r.result.tools));
    if (lists.length === 1) return lists[0].result.tools;
    if (responses.length === 1 && responses[0].error) throw rpcError(responses[0].error);
    const n = responses.length;
    const others = doc.length - n;
    throw new InputError(
      `the input is a JSON-RPC batch of ${n} response${n === 1 ? "" : "s"}` +
        (others ? ` (and ${others} request${others === 1 ? "" : "s"} or notification${others === 1 ? "" : "s"})` : "") +
        `, ${lists.length || "none"} of them a tools list: give one tools/list response, or its tools`,
    );
  }
  if (Array.isArray(doc)) return doc;
  if (doc && Array.isArray(doc.tools)) return doc.tools;
  if (doc && doc.result && Array.isArray(doc.result.tools)) return doc.result.tools;
  if (doc && doc.error) throw rpcError(doc.error);
  throw new InputError("expected a tools array, {tools:[...]} or {result:{tools:[...]}}");
}

/** Where a problem of the list as a whole is: its tool where it names one (by name, or by index), else the list. */
function placeOf(d) {
  if (typeof d.tool === "string" && d.tool !== "") return `(tool ${quoted(d.tool)})`;
  const index = /^\/(\d+)(?:\/|$)/.exec(d.path || "");
  return index ? `(tool at index ${index[1]})` : "(all tools)";
}

function format(report, showChanges, asked, given) {
  const lines = [];
  let problems = report.problems.length;
  let changes = 0;
  for (const t of report.tools) {
    problems += t.problems.length;
    changes += t.changes.length;
    if (t.problems.length === 0 && !(showChanges && t.changes.length > 0)) continue;
    const renamed = t.name !== t.tool ? ` -> ${shown(t.name)}` : "";
    lines.push(`${t.problems.length ? "✗" : "✓"} ${t.server ? `${shown(t.server)}/` : ""}${shown(t.tool)}${renamed}`);
    for (const d of t.problems) lines.push(`    problem  ${shown(d.path || "/")}  [${d.rule}] ${shown(d.message)}`);
    if (showChanges) for (const d of t.changes) lines.push(`    change   ${shown(d.path || "/")}  [${d.rule}] ${shown(d.message)}`);
  }
  for (const d of report.problems) lines.push(`✗ ${placeOf(d)}  [${d.rule}] ${shown(d.message)}`);
  const n = Math.max(given, report.tools.length);
  // A tool the report has no entry for (no name, past a limit) was left out of the conversion: said, not uncounted.
  const left = n - report.tools.length;
  lines.push(
    // The aliases (openai-chat, google) are converted as another provider, which the report names.
    `${asked === report.provider ? asked : `${asked} (converted as ${report.provider})`}: ${n} tool${n === 1 ? "" : "s"}` +
      (left ? ` (${left} left out)` : "") +
      `, ${changes} change${changes === 1 ? "" : "s"}, ` +
      `${problems} problem${problems === 1 ? "" : "s"}` +
      (changes && !showChanges ? " (--changes lists the changes)" : ""),
  );
  return { text: lines.join("\n"), problems };
}

/**
 * A file's text: UTF-8, or UTF-16 where a byte order mark says so (PowerShell's `>` writes UTF-16LE), the mark
 * dropped (RFC 8259 lets a parser ignore it; editors on Windows write one before UTF-8).
 */
function decode(bytes) {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : "utf-8";
  // TextDecoder drops the mark of its encoding.
  return new TextDecoder(encoding, { fatal: true }).decode(bytes);
}

function main(argv) {
  if (asks(argv, ["-h", "--help"])) {
    writeReport(USAGE);
    return 0;
  }
  if (asks(argv, ["-v", "--version"])) {
    writeReport(toolwire.version());
    return 0;
  }
  const [command, ...rest] = argv;
  if (command !== "check") throw new UsageError(command ? `unknown command ${quoted(command)}` : "no command given");
  const opts = parseArgs(rest);
  if (opts.provider === undefined) {
    opts.provider = DEFAULT_PROVIDER;
    console.error(`toolwire: using the default provider, ${DEFAULT_PROVIDER} (--provider <name> picks another)`);
  }
  const file = opts.files[0];
  const where = file === "-" ? "stdin" : shown(file);
  let bytes;
  try {
    bytes = fs.readFileSync(file === "-" ? 0 : file);
  } catch (e) {
    // Whatever the reason (missing, a directory, no permission, too large): the check never ran.
    throw new InputError(`${where} cannot be read: ${shown(e.message)}`);
  }
  let text;
  let doc;
  try {
    text = decode(bytes);
    doc = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${where} is not JSON: ${shown(e.message)}`);
  }
  const list = listOf(doc, text);
  if (list.cursor !== undefined) {
    // A server that pages its tools/list: the list-level checks (tool count, duplicate names) saw this page only.
    console.error(`toolwire: the list continues (nextCursor ${shown(JSON.stringify(list.cursor))}): only this page was checked`);
  }
  const options = { strict: opts.strict || undefined, server: opts.server };
  const report = checkToolsJson(list.text, opts.provider, options);
  const { text: out, problems } = format(report, opts.changes, opts.provider, list.given);
  writeReport(opts.json ? JSON.stringify(report, null, 2) : out);
  return problems > 0 ? 1 : 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) {
    console.error(`toolwire: ${e.message}\n\n${USAGE}`);
  } else if (e instanceof InputError || e instanceof OutputError) {
    console.error(`toolwire: ${e.message}`);
  } else if (e instanceof toolwire.ToolwireError) {
    console.error(`toolwire: ${e.code}: ${shown(e.message)}`);
  } else {
    // Anything else is a bug of toolwire's (an input toolwire should have refused, or its own mistake): one line that
    // says so, and exit 2, never the uncaught throw's 1, which a script reads as "problems remain".
    let what;
    try {
      what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    } catch {
      what = "(an error that cannot be printed)";
    }
    console.error(`toolwire: internal error (a bug in toolwire; please report it with the input): ${shown(what)}`);
  }
  process.exitCode = 2;
}
