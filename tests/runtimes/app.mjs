// Run by tests/runtimes/runtimes.test.mjs under Node, Bun and Deno, from a project that has the built package in
// node_modules/toolwire: the documented entry points, their output printed as one line of JSON for the test to
// compare across runtimes.
//   <runtime> app.mjs <corpus directory> [<MCP server URL>]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  convertMcpTools,
  convertMcpToolsJson,
  NameMap,
  parseToolCalls,
  ToolCallAccumulator,
  toolResultMessage,
  McpClient,
  ToolwireError,
  version,
} from "toolwire";

const [dir, url] = process.argv.slice(2);
const servers = readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));
const out = { version: version() };
out.gemini = servers.map((s) => convertMcpTools(s.tools, "gemini"));
out.vertex = servers.map((s) => convertMcpTools(s.tools, "vertex"));
out.anthropicStrict = servers.map((s) => convertMcpTools(s.tools, "anthropic", { strict: true }));
out.openaiStrict = servers.map((s) => JSON.parse(convertMcpToolsJson(JSON.stringify(s.tools), "openai", { strict: true })));
out.bedrockBytes = servers.map((s) => new TextDecoder().decode(convertMcpToolsJson(new TextEncoder().encode(JSON.stringify(s.tools)), "bedrock")));
const tools = servers.flatMap((s) => s.tools.map((t) => ({ ...t, serverName: s.server })));
const map = NameMap.fromTools(tools, "openai");
const name = map.toJSON().entries[0].name;
out.calls = parseToolCalls({ choices: [{ message: { tool_calls: [{ id: "c1", type: "function", function: { name, arguments: "{}" } }] } }] }, "openai", map);
const acc = new ToolCallAccumulator("anthropic", map);
out.streamed = [];
for (const event of [
  { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name, input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "1}" } },
  { type: "content_block_stop", index: 0 },
]) out.streamed.push(...acc.push(event));
out.streamed.push(...acc.finish());
try {
  convertMcpTools([{ name: "x" }], "nope");
} catch (e) {
  out.error = { isToolwireError: e instanceof ToolwireError, code: e.code };
}
if (url) {
  const client = new McpClient(url);
  await client.connect();
  const listed = await client.listTools();
  const echo = await client.callTool("echo", { message: "from a runtime" });
  out.mcp = { tools: listed.map((t) => t.name).sort(), echo: toolResultMessage({ id: "t1", name: "echo" }, echo, "anthropic") };
  await client.close();
}
console.log(JSON.stringify(out));
