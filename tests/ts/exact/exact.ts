// Under `exactOptionalPropertyTypes` (part of @tsconfig/strictest), an optional property that is `undefined` is
// refused unless its type says `| undefined`. The MCP SDK's types (zod-inferred) write every optional field so
// (`title?: string | undefined`), and options are often read from the environment: toolwire's input types and
// options, which the runtime reads as not set when `undefined`, take both. Checked by `tsc --noEmit -p
// tests/ts/exact` (tests/js/sdk-types.test.mjs); nothing here runs.
import type {
  Tool as SdkTool,
  CallToolResult as SdkCallToolResult,
  ContentBlock as SdkContentBlock,
  ClientCapabilities as SdkClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import {
  convertMcpTools,
  convertMcpToolsDetailed,
  checkTools,
  toolsSystemPrompt,
  flattenContent,
  prefixToolName,
  toolResultMessage,
  toolResultMessages,
  NameMap,
  PermissionPolicy,
  McpClient,
  McpHub,
  type McpOAuthSaved,
  type OpenAIToolMessage,
} from "toolwire";

// What the SDK's client gives: `(await client.listTools()).tools`, `await client.callTool(...)`.
declare const tools: SdkTool[];
declare const result: SdkCallToolResult;
declare const blocks: SdkContentBlock[];
declare const capabilities: SdkClientCapabilities;
new McpClient("https://example.com/mcp", { capabilities });
convertMcpTools(tools, "openai");
convertMcpToolsDetailed(tools, "gemini");
NameMap.fromTools(tools, "anthropic").free();
toolsSystemPrompt(tools);
checkTools(tools, "bedrock");
new PermissionPolicy({ askDestructive: true }).check("mcp__a__b", tools[0]!);
toolResultMessage({ id: "c1", name: "echo" }, result, "anthropic");
toolResultMessage({ id: "c1", name: "echo" }, blocks, "gemini");
toolResultMessages([{ id: "c1", name: "echo" }], [result], "openai");
flattenContent(result);

// Options with values that may be undefined (a setting not given).
declare const text: string | undefined;
declare const count: number | undefined;
declare const flag: boolean | undefined;
declare const saved: McpOAuthSaved | undefined;
convertMcpTools([{ name: "echo", description: text, annotations: { readOnlyHint: flag } }], "openai", { strict: flag, server: text, limits: { maxDepth: count } });
toolResultMessage({ id: "c1", name: "echo" }, [{ type: "text", text: "hi" }], "anthropic", { maxChars: count, multimodal: flag });
toolResultMessage({ id: "c1", name: "echo" }, { content: [{ type: "resource", resource: { uri: "file:///a", text: "a", mimeType: text } }], isError: flag }, "openai");
flattenContent([{ type: "text", text: "hi" }], { maxChars: count });
prefixToolName("s", "t", { separator: text, portableNames: flag });
toolsSystemPrompt(tools, { instructions: text, maxSchemaChars: count });
new PermissionPolicy({ defaultAction: flag ? "deny" : undefined, askDestructive: flag });
const client = new McpClient("https://example.com/mcp", {
  timeoutMs: count,
  logLevel: undefined,
  listen: { onEnd: undefined },
  oauth: { redirectUrl: "https://app.example/cb", authorize: async () => "", clientSecret: text, saved, onSaved: undefined },
});
new McpClient("https://example.com/mcp", { capabilities: { roots: { listChanged: flag }, sampling: undefined, elicitation: { form: { applyDefaults: flag }, url: undefined } } });
toolResultMessage({ id: text, name: "echo" }, result, "anthropic");
toolResultMessage({ toolUseId: text, name: text }, result, "bedrock");
toolResultMessage({ functionCall: { id: text, name: text } }, result, "gemini");
await client.connect({ timeoutMs: count, signal: undefined });
await client.listTools({ timeoutMs: count, signal: undefined });
await client.callTool("echo", {}, { timeoutMs: count, onProgress: undefined, meta: undefined });
await client.notify("notifications/roots/list_changed", null, { timeoutMs: count });
const hub = new McpHub({ a: { url: "https://example.com/mcp", timeoutMs: count } }, { policy: undefined, confirm: undefined });
await hub.listTools({ timeoutMs: count, mode: undefined });
await hub.listen({ onEnd: undefined });
await hub.callTool("mcp__a__echo", {}, { provider: undefined, timeoutMs: count });

// imageMessage left undefined is not set: a plain tool message, as at run time.
const plain: OpenAIToolMessage = toolResultMessage({ id: "c1", name: "echo" }, result, "openai", { imageMessage: undefined, maxChars: count });
void plain;

// Output types stay exact: a result read back is no place for an explicit undefined.
// @ts-expect-error a tool of convertMcpTools' output has a string name
const named: { name: undefined } = convertMcpTools(tools, "anthropic")[0]!;
void named;
