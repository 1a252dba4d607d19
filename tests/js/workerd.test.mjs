// The package in Cloudflare's Workers runtime (workerd, through miniflare): bundled as wrangler bundles a
// Worker (esbuild with the conditions workerd, worker, browser; `.wasm` imports left as modules, which the
// runtime compiles at load: a WebAssembly.Module), then run, calling an MCP server on 127.0.0.1.
// - `import ... from "toolwire"` takes the workerd entry, which loads the module itself: every export works
//   without initAsync, and initAsync() resolves.
// - `toolwire/web`, where Workers compile no WebAssembly from bytes: initAsync() and initAsync(bytes) fail
//   with LOAD_FAILED saying what to do; initAsync(the imported module) works.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { startServer } from "../servers/modern.mjs";
import { repo } from "./shared.mjs";

const tmp = mkdtempSync(join(tmpdir(), "toolwire-workerd-"));
const installed = join(tmp, "node_modules", "toolwire");
let mcp; // the 2025/2026 test server

before(async () => {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const [packed] = JSON.parse(execFileSync(npm, ["pack", "--json", "--pack-destination", tmp], { cwd: join(repo, "pkg"), encoding: "utf8" }));
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", join(tmp, packed.filename), "-C", installed, "--strip-components=1"]);
  mcp = await startServer({ era: "dual" });
});

after(() => mcp?.close());

/** Bundles a Worker's source as wrangler does; returns miniflare's `modules` for it. */
async function bundleWorker(name, source) {
  const dir = join(tmp, name);
  const out = join(dir, "dist");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(dir, "worker.mjs"), source);
  const wasm = [];
  const result = await build({
    entryPoints: [join(dir, "worker.mjs")],
    bundle: true,
    format: "esm",
    outdir: out,
    conditions: ["workerd", "worker", "browser"],
    logLevel: "silent",
    plugins: [
      {
        // wrangler's CompiledWasm rule: a `.wasm` import stays an import of a module uploaded beside the bundle.
        name: "wasm-modules",
        setup(b) {
          b.onResolve({ filter: /\.wasm$/ }, async (args) => {
            if (args.pluginData === "wasm-modules") return undefined;
            // A package's file (toolwire/toolwire.wasm) through its exports map, as any other import.
            const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: "wasm-modules" });
            if (found.errors.length) return { errors: found.errors };
            const file = found.path;
            copyFileSync(file, join(out, basename(file)));
            wasm.push(basename(file));
            return { path: `./${basename(file)}`, external: true };
          });
        },
      },
    ],
  });
  assert.deepEqual(result.errors, []);
  return [{ type: "ESModule", path: join(out, "worker.js") }, ...[...new Set(wasm)].map((f) => ({ type: "CompiledWasm", path: join(out, f) }))];
}

/** Runs the Worker in workerd; resolves to its JSON answer to one request. */
async function runWorker(modules, bindings = {}, dataBlobBindings = {}) {
  const mf = new Miniflare({
    modules,
    modulesRoot: join(modules[0].path, ".."),
    compatibilityDate: "2025-01-01",
    bindings: { MCP_URL: mcp.url, ...bindings },
    dataBlobBindings,
    cf: false, // the placeholder Request.cf object, never fetched
  });
  try {
    const res = await mf.dispatchFetch("http://localhost/");
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text);
  } finally {
    await mf.dispose();
  }
}

const TOOLS = `[{ name: "create_issue", inputSchema: { type: "object", properties: { title: { type: "string", format: "uri" } }, required: ["title"] } }]`;

test("workerd: `toolwire` takes the workerd entry, ready on import: converts, maps calls, and calls an MCP server", async () => {
  const modules = await bundleWorker(
    "entry",
    `import { convertMcpTools, NameMap, parseToolCalls, McpClient, flattenContent, initAsync, version, ToolwireError } from "toolwire";
     const info = (e) => ({ name: e.name, code: e.code, message: e.message, isToolwireError: e instanceof ToolwireError });
     export default {
       async fetch(request, env) {
         const out = {};
         // No initAsync: the entry loaded the module before the first request.
         out.gemini = convertMcpTools(${TOOLS}, "gemini", { server: "gh" })[0].functionDeclarations[0].name;
         const map = NameMap.fromTools(${TOOLS}, "openai", { server: "gh" });
         const response = { choices: [{ message: { tool_calls: [{ id: "c1", type: "function", function: { name: "mcp__gh__create_issue", arguments: '{"title":"x"}' } }] } }] };
         out.call = parseToolCalls(response, "openai", map)[0];
         out.callFromText = parseToolCalls(response, "openai", JSON.stringify(map))[0].tool;
         await initAsync(); // code shared with browsers still awaits it: it resolves at once
         out.version = version();
         try { convertMcpTools([], "nope"); } catch (e) { out.unknownProvider = info(e); }
         const client = new McpClient(env.MCP_URL);
         await client.connect();
         const tools = await client.listTools();
         out.mcpTools = tools.map((t) => t.name);
         out.anthropic = convertMcpTools(tools, "anthropic").length;
         out.echo = flattenContent(await client.callTool("echo", { message: "hi" }));
         try { await client.callTool("nope", {}); } catch (e) { out.rpcError = info(e); }
         await client.close();
         return Response.json(out);
       },
     };`,
  );
  // Only the bundle and the module: the workerd entry was chosen, and it imports the .wasm as a module.
  assert.deepEqual(modules.map((m) => [m.type, basename(m.path)]), [["ESModule", "worker.js"], ["CompiledWasm", "toolwire_bg.wasm"]]);
  const out = await runWorker(modules);
  assert.equal(out.gemini, "mcp__gh__create_issue");
  assert.deepEqual(out.call, { id: "c1", providerName: "mcp__gh__create_issue", server: "gh", tool: "create_issue", arguments: { title: "x" } });
  assert.equal(out.callFromText, "create_issue");
  assert.match(out.version, /^\d+\.\d+\.\d+/);
  assert.deepEqual([out.unknownProvider.code, out.unknownProvider.isToolwireError], ["UNKNOWN_PROVIDER", true]);
  assert.ok(out.mcpTools.includes("echo"), out.mcpTools.join());
  assert.equal(out.anthropic, out.mcpTools.length);
  assert.equal(out.echo, "Echo: hi");
  assert.deepEqual([out.rpcError.code, out.rpcError.isToolwireError], ["JSONRPC_ERROR", true]);
});

test("workerd: toolwire/web without the module says what to do; with the imported module it loads", async () => {
  const modules = await bundleWorker(
    "web",
    `import { initAsync, version } from "toolwire/web";
     import wasm from "toolwire/toolwire.wasm";
     const info = (e) => ({ code: e.code, message: e.message, cause: e.cause ? String(e.cause.message ?? e.cause) : null });
     export default {
       async fetch(request, env) {
         const out = { isModule: wasm instanceof WebAssembly.Module };
         try { await initAsync(); } catch (e) { out.none = info(e); }
         try { await initAsync(env.WASM_BYTES); } catch (e) { out.bytes = info(e); }
         await initAsync(wasm);
         out.version = version();
         return Response.json(out);
       },
     };`,
  );
  const out = await runWorker(modules, {}, { WASM_BYTES: join(installed, "web", "toolwire_bg.wasm") });
  assert.equal(out.isModule, true, "toolwire/toolwire.wasm is a WebAssembly.Module in Workers");
  const workers = 'import wasm from "toolwire/toolwire.wasm"; await initAsync(wasm) (README, "Cloudflare Workers")';
  assert.equal(out.none.code, "LOAD_FAILED");
  assert.match(out.none.message, /import\.meta\.url is empty here/);
  assert.ok(out.none.message.includes(workers), out.none.message);
  assert.equal(out.bytes.code, "LOAD_FAILED");
  assert.match(out.bytes.cause, /disallowed by embedder/);
  assert.ok(out.bytes.message.includes(`Cloudflare Workers compile no WebAssembly at run time: import "toolwire"`), out.bytes.message);
  assert.ok(out.bytes.message.includes(workers), out.bytes.message);
  assert.doesNotMatch(out.bytes.message, /pass the file to initAsync \(a URL/, "the advice that fails here is not given");
  assert.match(out.version, /^\d+\.\d+\.\d+/);
});
