// Every JavaScript and TypeScript example of README.md and pkg-template/README.md type-checks with `tsc --strict`
// against the package's declarations (pkg/) and the real SDK types it is used with (@modelcontextprotocol/sdk,
// @google/genai, @anthropic-ai/sdk, undici). Each block is a module of its own; what it takes from the text
// around it (an MCP SDK client, the model's response, an event stream, your own functions) is declared in
// tests/js/readme-prelude.d.ts, with the types those have in a real program. Each block is checked twice, against
// the DOM library (a page, a bundle, a worker, Bun) and against Node's (`@types/node`, where `fetch` takes undici's
// `dispatcher`), but a block that uses browser globals (`window`, `location`, `localStorage`...) is checked against
// the DOM alone, and one that imports Node's own (`undici`, `node:*`) against Node's alone. A block that is a
// fragment on purpose says so with a line `// (fragment: not type-checked)` of its own, which the reader sees too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { repo } from "./shared.mjs";

const READMES = ["README.md", "pkg-template/README.md"];
const LANGS = new Set(["js", "javascript", "mjs", "ts", "typescript"]);
const FRAGMENT = "// (fragment: not type-checked)";
const BROWSER = /\b(window|location|localStorage|document|addEventListener)\b/;
const NODE = /from "(undici|node:[\w/]+)"/;

/** The fenced code blocks of a Markdown text: `{lang, line, code}` (indented fences in lists included). */
function codeBlocks(markdown) {
  const lines = markdown.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[j])) body.push(lines[j++].slice(indent.length));
    blocks.push({ lang: lang.toLowerCase(), line: i + 1, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** The blocks to check, with a file name each. */
function examples() {
  const out = [];
  for (const readme of READMES) {
    const text = readFileSync(join(repo, readme), "utf8");
    for (const b of codeBlocks(text)) {
      if (!LANGS.has(b.lang)) continue;
      const name = `${readme.replace(/[^\w]+/g, "_")}_L${b.line}.ts`;
      const skipped = b.code.split("\n").some((l) => l.trim() === FRAGMENT);
      out.push({ ...b, readme, name, skipped, browser: !NODE.test(b.code), node: !BROWSER.test(b.code) });
    }
  }
  // The examples of index.d.ts's doc comments (what an editor shows on hover), with the names they use imported.
  const dts = readFileSync(join(repo, "pkg-template", "index.d.ts"), "utf8").replace(/^\s*\* ?/gm, "");
  for (const b of codeBlocks(dts)) {
    if (!LANGS.has(b.lang)) continue;
    const used = DTS_NAMES.filter((n) => new RegExp(`\\b${n}\\b`).test(b.code));
    const code = `import { ${used.join(", ")} } from "toolwire";\n${b.code}`;
    out.push({ ...b, code, readme: "index.d.ts", name: `index_d_ts_L${b.line}.ts`, skipped: false, browser: true, node: true });
  }
  return out;
}

/** What the doc comments' examples take from the package without importing it. */
const DTS_NAMES = ["toolsSystemPrompt", "NameMap", "parseTextToolCalls", "textToolResults", "ToolCallAccumulator", "McpCallToolResult", "parseToolCalls", "toolResultMessage"];

const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
const root = join(repo, "target", "readme-types");

/**
 * Type-checks `files` (name → text) in a directory of its own under target/, where `toolwire` is pkg/. `undici`:
 * checked against the `undici` package's own types (node_modules has one for the test servers), with the DOM library
 * and Node's together, as an app with both has them; else `undici` is undici-types (see below).
 */
function typecheck(dir, browser, files, undici = false) {
  const at = join(root, dir);
  rmSync(at, { recursive: true, force: true });
  mkdirSync(join(at, "node_modules"), { recursive: true });
  symlinkSync(join(repo, "pkg"), join(at, "node_modules", "toolwire"), "dir");
  copyFileSync(join(repo, "tests", "js", "readme-prelude.d.ts"), join(at, "readme-prelude.d.ts"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(at, name), text);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: "es2022",
    module: "esnext",
    moduleResolution: "bundler",
    lib: browser || undici ? ["es2022", "dom", "dom.iterable", "dom.asynciterable"] : ["es2022"],
    types: browser && !undici ? [] : ["node"],
    typeRoots: [join(repo, "node_modules", "@types")],
    skipLibCheck: true,
    // `npm i undici` gives the undici whose types @types/node carries (undici-types, published with it); the one
    // node_modules has for the test servers is older, and its `Agent` is no `Dispatcher` of @types/node's.
    // `@openai/agents` is `@openai/agents-core` and the OpenAI model's package: its `tool()` is the core's.
    paths: { undici: [join(repo, "node_modules", undici ? "undici" : "undici-types")], "@openai/agents": [join(repo, "node_modules", "@openai", "agents-core")] },
  };
  writeFileSync(join(at, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["readme-prelude.d.ts", ...Object.keys(files)] }, null, 1));
  const r = spawnSync(process.execPath, [tsc, "-p", at], { encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A block as a module: `export {}` makes one of a block without imports (its top-level `await` needs one). */
const asModule = (code) => `${code}\nexport {};\n`;

test("README examples: every JS/TS block type-checks under --strict against the package's types", () => {
  assert.ok(existsSync(join(repo, "pkg", "index.d.ts")), "build the package first (make pkg)");
  const all = examples();
  assert.ok(all.length >= 15, `found ${all.length} blocks`);
  const skipped = all.filter((b) => b.skipped);
  assert.ok(skipped.length <= 3, `few fragments: ${skipped.map((b) => `${b.readme}:${b.line}`)}`);
  for (const browser of [false, true]) {
    const blocks = all.filter((b) => !b.skipped && (browser ? b.browser : b.node));
    const files = Object.fromEntries(blocks.map((b) => [b.name, asModule(b.code)]));
    const { status, output } = typecheck(browser ? "browser" : "node", browser, files);
    // Each error names its README and line: `README_md_L88.ts(3,5)` is line 88 + 3 of README.md.
    assert.equal(status, 0, `${browser ? "browser" : "Node"} examples:\n${output}`);
  }
  // A fetch of the undici package resolves to undici's own Response, whose type is not the global one's (nor that
  // of @types/node's undici-types): the client's `fetch` option takes it all the same.
  const undiciBlocks = all.filter((b) => !b.skipped && /from "undici"/.test(b.code));
  assert.ok(undiciBlocks.length >= 2, `undici examples: ${undiciBlocks.length}`);
  const { status, output } = typecheck("undici", false, Object.fromEntries(undiciBlocks.map((b) => [b.name, asModule(b.code)])), true);
  assert.equal(status, 0, `examples with the undici package's own types:\n${output}`);
});

test("README examples: the check fails for an example that does not type-check", () => {
  // Guards against a setup that checks nothing (a block not found, `any` leaking in from an unresolved import).
  const bad = {
    "wrong_call.ts": asModule(`import { parseToolCalls } from "toolwire";\nconst calls = parseToolCalls(await res.json(), "anthropic");\nconst n: number = calls[0].tool;`),
    "wrong_sdk.ts": asModule(`const tools = await mcpClient.listTools();\nconst n: number = tools.tools[0].name;`),
    "unresolved.ts": asModule(`import { nothing } from "toolwire";\nnothing();`),
  };
  const { status, output } = typecheck("negative", false, bad);
  assert.notEqual(status, 0);
  for (const f of Object.keys(bad)) assert.match(output, new RegExp(`${f.replace(".", "\\.")}\\(\\d+,\\d+\\): error`), `${f} fails\n${output}`);
  // A fragment marker is a whole line of its own, and a block with none is checked.
  const blocks = codeBlocks("text\n\n```js\nconst a = 1; // (fragment: not type-checked) here\n```\n\n  ```ts\n  const b: number = 2;\n  ```\n");
  assert.deepEqual(blocks.map((b) => [b.lang, b.line, b.code]), [["js", 3, "const a = 1; // (fragment: not type-checked) here"], ["ts", 7, "const b: number = 2;"]]);
});
