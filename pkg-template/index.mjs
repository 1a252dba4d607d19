// Node, ES modules. Loads the CommonJS entry (index.cjs) so that `import` and `require` in the same
// process share one WebAssembly instance. Synchronous: no initialisation is needed in Node.
import { createRequire } from "node:module";

const api = createRequire(import.meta.url)("./index.cjs");

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
  ToolCallAccumulator,
  toolResultMessage,
  toolsSystemPrompt,
  PermissionPolicy,
  McpClient,
  McpHub,
  ToolwireError,
  version,
  initAsync,
} = api;

export default initAsync;
