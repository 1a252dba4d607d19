// `using` and `await using` on every class that has [Symbol.dispose] at run time (and McpClient, McpHub's
// [Symbol.asyncDispose], which closes the sessions). Checked by `tsc --noEmit -p tests/ts`; nothing here runs.
import { NameMap, ToolCallAccumulator, PermissionPolicy, McpClient, McpHub, type McpTool } from "toolwire";

declare const tools: McpTool[];

export async function disposed(): Promise<void> {
  using map = NameMap.fromTools(tools, "openai");
  using acc = new ToolCallAccumulator("anthropic", map);
  using policy = new PermissionPolicy({ allow: ["mcp__docs"] });
  using freedOnly = new McpClient("https://example.com/mcp");
  await using client = new McpClient("https://example.com/mcp");
  await using hub = new McpHub({ docs: { url: "https://example.com/mcp" } }, { policy });
  const ended: Promise<void> = client[Symbol.asyncDispose]();
  const hubEnded: Promise<void> = hub[Symbol.asyncDispose]();
  void [acc.finish(), freedOnly.transport, ended, hubEnded];
}
