"use strict";
// One cold start of the npm package in Node, run by bench/run.mjs in a fresh `node` process each time:
//
//   node bench/coldstart-node.cjs <pkg dir> <tools.json>
//
// Reads the input first (not timed), then times, with performance.now() inside this process:
//   require  = require(<pkg dir>): loads index.cjs and wasm-bindgen's glue, which reads the .wasm file,
//              compiles it (new WebAssembly.Module) and instantiates it, all synchronously;
//   first    = the first convertMcpToolsJson(text, "openai") call (first-call costs included);
//   total    = require + first, the figure the 20 ms target is about;
//   client   = then the first `new McpClient(url)` (nothing sent): Node loads the module with the MCP client
//              in it on the first McpClient or McpHub (pkg-template/index.cjs), and this is what that costs.
// Prints one JSON line. Node's own start-up (before this script runs) is not included; run.mjs reports
// the whole process's wall time separately.
const { performance } = require("node:perf_hooks");
const { readFileSync } = require("node:fs");

const [pkgDir, inputFile] = process.argv.slice(2);
const text = readFileSync(inputFile, "utf8");

const t0 = performance.now();
const toolwire = require(pkgDir);
const t1 = performance.now();
const out = toolwire.convertMcpToolsJson(text, "openai", { server: "bench" });
const t2 = performance.now();
const client = new toolwire.McpClient("http://127.0.0.1:9/mcp");
const t3 = performance.now();
client.free();

process.stdout.write(JSON.stringify({ require: t1 - t0, first: t2 - t1, total: t2 - t0, client: t3 - t2, outBytes: out.length }) + "\n");
