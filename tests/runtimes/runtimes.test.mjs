// The built package under Bun and Deno, the runtimes its README gives recipes for ("Bun, Deno and single-file
// executables"), beside Node: the same conversions of the whole corpus, calls, a stream and an MCP server
// (server-everything on 127.0.0.1) give the same output in all three; the loading failures the README describes
// (Deno without read permission, a Bun executable whose package is gone) are the LOAD_FAILED it says, and its
// single-file executable recipe runs.
// Bun and Deno come from their npm packages (scripts/setup.sh --runtimes, pinned there, this platform's builds) into
// .tools/runtimes.
// Run: make pkg && bash scripts/setup.sh --runtimes && node --test tests/runtimes/
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEverything } from "../servers/everything.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const corpus = join(process.env.TOOLWIRE_SHARED ?? join(repo, "..", "shared"), "corpus", "tools");
// This platform's builds, linked by scripts/setup.sh --runtimes.
const bun = join(repo, ".tools/runtimes/bin/bun");
const deno = join(repo, ".tools/runtimes/bin/deno");

let project; // a project with the built package as node_modules/toolwire
let ev; // server-everything
before(async () => {
  for (const [what, path] of [["bun", bun], ["deno", deno], ["the built package (make pkg)", join(repo, "pkg", "package.json")], ["the corpus", corpus]]) {
    assert.ok(existsSync(path), `${what} not found at ${path} (bash scripts/setup.sh --runtimes)`);
  }
  project = mkdtempSync(join(tmpdir(), "toolwire-runtimes-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "runtimes-app", private: true, type: "module", dependencies: { toolwire: "*" } }));
  cpSync(join(repo, "pkg"), join(project, "node_modules", "toolwire"), { recursive: true });
  for (const f of ["app.mjs", "web-exe.ts"]) copyFileSync(join(here, f), join(project, f));
  ev = await startEverything();
});
after(async () => {
  await ev?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** Runs a command in the project; {status, stdout, stderr}. */
function run(cmd, args, { cwd = project } = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 120_000, maxBuffer: 256 << 20, env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } });
  if (r.error) throw r.error;
  return r;
}

function denoArgs(...rest) {
  return ["run", "--no-prompt", "--no-lock", ...rest];
}

test("Node, Bun and Deno give the same output for the corpus, calls, a stream and an MCP server", () => {
  const port = new URL(ev.url).port;
  const outputs = {};
  for (const [runtime, cmd, args] of [
    ["node", process.execPath, ["app.mjs", corpus, ev.url]],
    ["bun", bun, ["app.mjs", corpus, ev.url]],
    ["deno", deno, denoArgs(`--allow-read=node_modules/toolwire/web,${corpus}`, `--allow-net=127.0.0.1:${port}`, "app.mjs", corpus, ev.url)],
  ]) {
    const r = run(cmd, args);
    assert.equal(r.status, 0, `${runtime} failed:\n${r.stderr}`);
    outputs[runtime] = JSON.parse(r.stdout);
  }
  const node = outputs.node;
  // What the Node run gave is what the package gives (checked here, so that the comparison below is of something).
  assert.equal(node.gemini.length, 34);
  assert.ok(node.gemini.flatMap((g) => g[0]?.functionDeclarations ?? []).length > 1000);
  assert.equal(node.calls[0].id, "c1");
  assert.equal(node.calls[0].server, "airbnb-mcp");
  assert.equal(node.calls[0].tool, "airbnb_search");
  assert.deepEqual(node.streamed.map((c) => [c.id, c.arguments]), [["t1", { a: 1 }]]);
  assert.deepEqual(node.error, { isToolwireError: true, code: "UNKNOWN_PROVIDER" });
  assert.ok(node.mcp.tools.includes("echo"), node.mcp.tools.join());
  assert.deepEqual(node.mcp.echo, { type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "Echo: from a runtime" }], is_error: false });
  assert.deepEqual(outputs.bun, node, "bun");
  assert.deepEqual(outputs.deno, node, "deno");
});

test("Deno without read permission for the .wasm: LOAD_FAILED naming the flag to give", () => {
  writeFileSync(join(project, "plain.mjs"), 'import { convertMcpTools } from "toolwire";\nconsole.log(convertMcpTools([{ name: "a" }], "gemini").length);\n');
  const denied = run(deno, denoArgs("plain.mjs"));
  assert.notEqual(denied.status, 0);
  assert.match(denied.stderr, /LOAD_FAILED|cannot read its WebAssembly module/);
  assert.match(denied.stderr, /--allow-read=node_modules\/toolwire\/web/);
  const allowed = run(deno, denoArgs("--allow-read=node_modules/toolwire/web", "plain.mjs"));
  assert.equal(allowed.status, 0, allowed.stderr);
  assert.equal(allowed.stdout.trim(), "1");
});

test("Bun single-file executables: the Node build fails with LOAD_FAILED once its package is gone; the README's recipe runs", () => {
  writeFileSync(join(project, "plain.mjs"), 'import { convertMcpTools } from "toolwire";\nconsole.log(convertMcpTools([{ name: "a" }], "gemini").length);\n');
  for (const [src, exe] of [["plain.mjs", "plain-exe"], ["web-exe.ts", "web-exe"]]) {
    const r = run(bun, ["build", "--compile", src, "--outfile", exe]);
    assert.equal(r.status, 0, `${src}: ${r.stderr}`);
  }
  const expected = JSON.stringify([{ functionDeclarations: [{ name: "a", parameters: { type: "OBJECT", properties: { x: { type: "STRING", nullable: true } } } }] }]);
  // With the package in place both run (the Node build reads the .wasm from where the package was at build time).
  assert.equal(run(join(project, "plain-exe"), []).stdout.trim(), "1");
  assert.equal(run(join(project, "web-exe"), []).stdout.trim(), expected);
  renameSync(join(project, "node_modules"), join(project, "node_modules.away"));
  try {
    const gone = run(join(project, "plain-exe"), [], { cwd: tmpdir() });
    assert.notEqual(gone.status, 0);
    assert.match(gone.stderr, /code: "LOAD_FAILED"/);
    // (Node's entry reads the module without the MCP client first: pkg-template/index.cjs.)
    assert.match(gone.stderr, /cannot read its WebAssembly module; tried \S+toolwire_convert_bg\.wasm \(ENOENT\)/);
    const embedded = run(join(project, "web-exe"), [], { cwd: tmpdir() });
    assert.equal(embedded.status, 0, embedded.stderr);
    assert.equal(embedded.stdout.trim(), expected);
  } finally {
    renameSync(join(project, "node_modules.away"), join(project, "node_modules"));
  }
});
