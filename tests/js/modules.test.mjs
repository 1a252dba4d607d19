// Node loads two modules (pkg-template/index.cjs): everything but the MCP client runs in the one built without
// it, and McpClient and McpHub in the whole one, loaded on the first of them. These check that a process that
// only converts never loads the whole one, and that the client's classes behave as the module's own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));

/** Runs `body` in a fresh Node process (CommonJS, `tw` = the package, `loaded()` = which glue files are loaded). */
function fresh(body) {
  const script = `
const tw = require(${JSON.stringify(pkgDir)});
const loaded = () => Object.keys(require.cache).filter((f) => /[\\\\/]node[\\\\/]toolwire(_convert)?\\.js$/.test(f)).map((f) => f.replace(/.*[\\\\/]/, "")).sort();
${body}`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split("\n");
}

test("modules: converting, naming and flattening in Node load only the module without the MCP client", () => {
  const out = fresh(`
console.log(loaded().join());
const tools = [{ name: "search", inputSchema: { type: "object", properties: { q: { type: ["string", "null"] } } } }];
tw.convertMcpTools(tools, "gemini", { server: "s" });
tw.convertMcpToolsJson(JSON.stringify(tools), "openai", { strict: true });
const map = tw.NameMap.fromTools(tools, "anthropic", { server: "s" });
tw.parseToolCalls({ content: [{ type: "tool_use", id: "1", name: "mcp__s__search", input: {} }] }, "anthropic", map);
new tw.PermissionPolicy({ deny: ["mcp__s__*"] }).check("mcp__s__search");
tw.flattenContent({ content: [{ type: "text", text: "x" }] });
console.log(loaded().join());
console.log(typeof tw.McpClient, typeof tw.McpHub);
console.log(loaded().join());`);
  assert.deepEqual(out, ["toolwire_convert.js", "toolwire_convert.js", "function function", "toolwire_convert.js"]);
});

test("modules: the first McpClient or McpHub loads the whole module, once; its objects are the classes' own", () => {
  const out = fresh(`
const client = new tw.McpClient("http://127.0.0.1:9/mcp");
console.log(loaded().join());
console.log(client instanceof tw.McpClient, client instanceof tw.McpHub, typeof client.connect, typeof client[Symbol.asyncDispose]);
class Mine extends tw.McpHub { extra() { return "mine"; } }
const hub = new Mine({ a: { url: "http://127.0.0.1:9/mcp" } });
console.log(hub instanceof Mine, hub instanceof tw.McpHub, hub.extra(), typeof hub.tools, Object.getPrototypeOf(hub) === Mine.prototype);
console.log({} instanceof tw.McpClient, tw.McpClient.prototype.callTool === Object.getPrototypeOf(client).callTool);
client.free();
try { client.close(); } catch (e) { console.log(e.name, e.code, e.message); }
try { new tw.McpClient(5); } catch (e) { console.log(e instanceof tw.ToolwireError, e.code); }
// A hub reads a PermissionPolicy of the other module by its toJSON.
const policy = new tw.PermissionPolicy({ deny: ["mcp__a__*"] });
const guarded = new tw.McpHub({ a: { url: "http://127.0.0.1:9/mcp" } }, { policy });
console.log(typeof guarded.tools);
console.log(loaded().join());`);
  assert.deepEqual(out, [
    "toolwire.js,toolwire_convert.js",
    "true false function function",
    "true true mine function true",
    "false true",
    "ToolwireError INVALID_INPUT this McpClient was freed (free() was called on it): make a new one",
    "true INVALID_INPUT",
    "function",
    "toolwire.js,toolwire_convert.js",
  ]);
});

test("modules: a method read from McpClient.prototype before any client is made loads the whole module", () => {
  const out = fresh(`
console.log(loaded().join());
const connect = tw.McpClient.prototype.connect;
console.log(typeof connect, "listTools" in tw.McpHub.prototype, loaded().join());
try { connect.call({}); } catch (e) { console.log(e.code); }`);
  assert.deepEqual(out, ["toolwire_convert.js", "function true toolwire.js,toolwire_convert.js", "INVALID_INPUT"]);
});
