#!/usr/bin/env node
"use strict";
// toolwire check <file|->: what converting an MCP server's tools for a provider changes, and which
// problems remain. Exit status: 0 no problems, 1 problems remain, 2 usage or input error.
const fs = require("node:fs");
const toolwire = require("../index.cjs");

// For the help text only: the library validates the name (UNKNOWN_PROVIDER, with the one most likely meant).
const PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama"];
// Without --provider the check is for this one, and says so (on stderr, so --json stays JSON), as `docker pull`
// says "Using default tag: latest": a default kept for scripts written against it, never a silent one.
const DEFAULT_PROVIDER = "gemini";

const USAGE = `Usage: toolwire check <file|-> [options]

Reads an MCP tools/list result (a tools array, {tools:[...]}, or a JSON-RPC response
{result:{tools:[...]}}) from <file>, or stdin for "-", and reports for one provider what
conversion changes and which problems remain.

Options:
  --provider <name>   ${PROVIDERS.join(", ")},
                      or openai-chat (openai), google (gemini). ollama is converted as
                      OpenAI Chat: its report says provider "openai".
                      Default: ${DEFAULT_PROVIDER} (said on stderr when it applies)
  --server <name>     server name to prefix the tool names with
  --strict            request strict mode where the provider has one
  --changes           also list every change, not only problems
  --json              print the report as JSON
  -h, --help          show this help
  -v, --version       show the version

Exit status: 0 when no problem remains, 1 when some do, 2 on a usage or input error.`;

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { provider: undefined, json: false, changes: false, strict: false, server: undefined, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
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
      throw new UsageError(`${flag} is a switch: give it alone, or ${flag}=true / ${flag}=false (got "${inline}")`);
    };
    switch (flag) {
      case "--provider": opts.provider = value(); break;
      case "--server": opts.server = value(); break;
      case "--json": opts.json = on(); break;
      case "--changes": opts.changes = on(); break;
      case "--strict": opts.strict = on(); break;
      default:
        if (flag.startsWith("-") && flag !== "-") throw new UsageError(`unknown option ${flag}`);
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

/** The tools array of a tools/list result in any of the accepted wrappings. */
function toolsOf(doc) {
  if (Array.isArray(doc)) return doc;
  if (doc && Array.isArray(doc.tools)) return doc.tools;
  if (doc && doc.result && Array.isArray(doc.result.tools)) return doc.result.tools;
  if (doc && doc.error) throw new UsageError(`the input is a JSON-RPC error: ${JSON.stringify(doc.error)}`);
  throw new UsageError("expected a tools array, {tools:[...]} or {result:{tools:[...]}}");
}

function format(report, showChanges, asked) {
  const lines = [];
  let problems = report.problems.length;
  let changes = 0;
  for (const t of report.tools) {
    problems += t.problems.length;
    changes += t.changes.length;
    if (t.problems.length === 0 && !(showChanges && t.changes.length > 0)) continue;
    const renamed = t.name !== t.tool ? ` -> ${t.name}` : "";
    lines.push(`${t.problems.length ? "✗" : "✓"} ${t.server ? `${t.server}/` : ""}${t.tool}${renamed}`);
    for (const d of t.problems) lines.push(`    problem  ${d.path || "/"}  [${d.rule}] ${d.message}`);
    if (showChanges) for (const d of t.changes) lines.push(`    change   ${d.path || "/"}  [${d.rule}] ${d.message}`);
  }
  for (const d of report.problems) lines.push(`✗ (all tools)  [${d.rule}] ${d.message}`);
  const n = report.tools.length;
  lines.push(
    // "ollama" and the aliases are converted as another provider, which the report names.
    `${asked === report.provider ? asked : `${asked} (converted as ${report.provider})`}: ${n} tool${n === 1 ? "" : "s"}, ${changes} change${changes === 1 ? "" : "s"}, ` +
      `${problems} problem${problems === 1 ? "" : "s"}` +
      (changes && !showChanges ? " (--changes lists the changes)" : ""),
  );
  return { text: lines.join("\n"), problems };
}

function main(argv) {
  if (argv.includes("-h") || argv.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  if (argv.includes("-v") || argv.includes("--version")) {
    console.log(toolwire.version());
    return 0;
  }
  const [command, ...rest] = argv;
  if (command !== "check") throw new UsageError(command ? `unknown command "${command}"` : "no command given");
  const opts = parseArgs(rest);
  if (opts.provider === undefined) {
    opts.provider = DEFAULT_PROVIDER;
    console.error(`toolwire: using the default provider, ${DEFAULT_PROVIDER} (--provider <name> picks another)`);
  }
  const file = opts.files[0];
  const text = fs.readFileSync(file === "-" ? 0 : file, "utf8");
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file === "-" ? "stdin" : file} is not JSON: ${e.message}`);
  }
  const options = { strict: opts.strict || undefined, server: opts.server };
  const report = toolwire.checkTools(toolsOf(doc), opts.provider, options);
  const { text: out, problems } = format(report, opts.changes, opts.provider);
  console.log(opts.json ? JSON.stringify(report, null, 2) : out);
  return problems > 0 ? 1 : 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) {
    console.error(`toolwire: ${e.message}\n\n${USAGE}`);
  } else if (e instanceof toolwire.ToolwireError) {
    console.error(`toolwire: ${e.code}: ${e.message}`);
  } else if (e && e.code === "ENOENT") {
    console.error(`toolwire: ${e.message}`);
  } else {
    throw e;
  }
  process.exitCode = 2;
}
