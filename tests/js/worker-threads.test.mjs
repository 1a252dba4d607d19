// The Node entry (pkg/index.mjs and pkg/index.cjs) in worker_threads: each thread loads its own WebAssembly
// instance synchronously, converts real corpus tools as the main thread does, and throws ToolwireErrors its
// `instanceof` knows. A NameMap crosses to a thread as its toJSON() (a structured clone of the instance is
// refused, saying so), and threads converting at the same time do not disturb one another. A server URL that is a
// path has no location to be taken against in a thread: NETWORK says so, unless a fetch of the caller's takes it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import * as tw from "../../pkg/index.mjs";
import { corpusDir, repo } from "./shared.mjs";

const CORPUS = ["mcp-server-sqlite", "google-calendar-mcp", "notion-mcp-server"];
const tools = CORPUS.flatMap((name) => JSON.parse(readFileSync(join(corpusDir, `${name}.json`), "utf8")).tools);

// The thread: loads the entry (ESM by import(), CommonJS by require()), then answers with plain data.
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const thrown = (tw, fn) => {
  try {
    fn();
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message, isToolwireError: e instanceof tw.ToolwireError };
  }
  return null;
};
(async () => {
  const { entry, kind, tools, mapJson, mapClone, response } = workerData;
  const tw = kind === "esm" ? await import(entry) : require(entry);
  const out = { threadId: require("node:worker_threads").threadId, version: tw.version() };
  out.gemini = tw.convertMcpTools(tools, "gemini");
  out.openai = tw.convertMcpTools(tools, "openai");
  out.unknownProvider = thrown(tw, () => tw.convertMcpTools(tools, "gpt"));
  out.fromJson = tw.parseToolCalls(response, "openai", mapJson);
  out.fromClone = thrown(tw, () => tw.parseToolCalls(response, "openai", mapClone));
  // A path, with no location to take it against: NETWORK saying so; a fetch of the caller's gets it as given.
  out.path = await new tw.McpClient("/mcp").connect().then(() => null, (e) => ({ code: e.code, message: e.message }));
  let fetched;
  const ownFetch = async (url) => {
    fetched = url;
    throw new TypeError("no server in this test");
  };
  await new tw.McpClient("/mcp", { fetch: ownFetch }).connect().catch(() => {});
  out.ownFetchGot = fetched;
  // The module works on after the errors.
  out.after = tw.convertMcpTools([{ name: "t", inputSchema: { type: "object" } }], "openai")[0].function.name;
  parentPort.postMessage(out);
})().catch((e) => parentPort.postMessage({ error: { name: e?.name, code: e?.code, message: String(e?.message ?? e), stack: e?.stack } }));
`;

function runThread(kind) {
  const map = tw.NameMap.fromTools(tools.slice(0, 6), "openai", { server: "sqlite" });
  const response = { choices: [{ message: { tool_calls: [{ id: "c1", type: "function", function: { name: map.names()[0], arguments: '{"query":"select 1"}' } }] } }] };
  const workerData = {
    entry: kind === "esm" ? pathToFileURL(join(repo, "pkg", "index.mjs")).href : join(repo, "pkg", "index.cjs"),
    kind,
    tools,
    response,
    mapJson: map.toJSON(),
    mapClone: map, // copied by structured cloning: only its pointer crosses
  };
  const expectedCall = tw.parseToolCalls(response, "openai", map);
  map.free();
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD, { eval: true, workerData });
    worker.once("message", (m) => {
      worker.terminate();
      if (m.error) reject(new Error(`the ${kind} thread threw: ${JSON.stringify(m.error)}`));
      else resolve({ ...m, expectedCall });
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the ${kind} thread exited (${code}) without answering`)));
  });
}

function assertThread(r) {
  assert.ok(r.threadId > 0, "ran off the main thread");
  assert.equal(r.version, tw.version());
  assert.equal(r.gemini[0].functionDeclarations.length, tools.length);
  assert.deepEqual(r.gemini, tw.convertMcpTools(tools, "gemini"));
  assert.deepEqual(r.openai.map((t) => t.function.name), tools.map((t) => t.name));
  assert.deepEqual(r.openai, tw.convertMcpTools(tools, "openai"));
  assert.equal(r.unknownProvider?.code, "UNKNOWN_PROVIDER", JSON.stringify(r.unknownProvider));
  assert.equal(r.unknownProvider.isToolwireError, true);
  assert.match(r.unknownProvider.message, /did you mean "openai"/);
  // The map's JSON is the map.
  assert.deepEqual(r.fromJson, r.expectedCall);
  assert.equal(r.fromJson[0].server, "sqlite");
  assert.equal(r.fromJson[0].tool, "read_query");
  // Its structured clone holds nothing but a pointer into the main thread's memory: refused.
  assert.equal(r.fromClone?.code, "INVALID_INPUT", JSON.stringify(r.fromClone));
  assert.equal(r.fromClone.isToolwireError, true);
  assert.match(r.fromClone.message, /structured cloning/);
  assert.match(r.fromClone.message, /nameMap\.toJSON\(\)/);
  assert.equal(r.path?.code, "NETWORK", JSON.stringify(r.path));
  assert.equal(r.path.message, 'initialize: the URL "/mcp" is relative, which only a page or a worker takes against its location, and there is none here: give the server\'s absolute URL');
  assert.equal(r.ownFetchGot, "/mcp");
  assert.equal(r.after, "t");
}

test("worker_threads, the ESM entry: converts as the main thread does; ToolwireErrors; a NameMap as its JSON", async () => {
  assertThread(await runThread("esm"));
});

test("worker_threads, the CommonJS entry: the same", async () => {
  assertThread(await runThread("cjs"));
});

test("two threads and the main thread converting at once: each its own instance, the same results", async () => {
  const [a, b] = await Promise.all([runThread("esm"), runThread("cjs"), Promise.resolve(tw.convertMcpTools(tools, "gemini"))]);
  assert.notEqual(a.threadId, b.threadId);
  assertThread(a);
  assertThread(b);
});
