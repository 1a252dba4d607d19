// toolwire/convert: everything toolwire does but the MCP client (McpClient, McpHub), in browsers and bundlers
// from a module built without it (469 KB of gzip against 709 KB); in Node, the same as "toolwire" (whose
// conversions run in that module already). Its types are the package's (index.d.ts), the client's classes
// as types only.
export type * from "./index.js";
export {
  checkTools,
  convertMcpTools,
  convertMcpToolsDetailed,
  convertMcpToolsJson,
  flattenContent,
  initAsync,
  NameMap,
  parseTextToolCalls,
  parseToolCalls,
  parseToolName,
  PermissionPolicy,
  prefixToolName,
  processJsonSchema,
  textToolResults,
  TextToolCallAccumulator,
  ToolCallAccumulator,
  toolResultMessage,
  toolResultMessages,
  toolsSystemPrompt,
  ToolwireError,
  version,
} from "./index.js";
export { default } from "./index.js";
