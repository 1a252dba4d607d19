// Node, ES modules. Loads the CommonJS entry (index.cjs) so that `import` and `require` in the same
// process share the same WebAssembly instances (index.cjs says which). Synchronous: no initialisation is needed in Node. A plain
// import (not createRequire) so that bundlers targeting Node follow it.
import api from "./index.cjs";

export const {
  convertMcpTools,
  convertMcpToolsJson,
  convertMcpToolsDetailed,
  checkTools,
  processJsonSchema,
  prefixToolName,
  parseToolName,
  flattenContent,
  NameMap,
  parseToolCalls,
  parseTextToolCalls,
  ToolCallAccumulator,
  TextToolCallAccumulator,
  toolResultMessage,
  toolResultMessages,
  toolsSystemPrompt,
  textToolResults,
  PermissionPolicy,
  McpClient,
  McpHub,
  ToolwireError,
  version,
  initAsync,
} = api;

export default initAsync;
