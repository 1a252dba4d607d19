// Must NOT type-check: an Anthropic tool definition is not an OpenAI Chat tool.
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { convertMcpTools, type McpTool } from "toolwire";

declare const tools: McpTool[];
export const wrong: ChatCompletionTool[] = convertMcpTools(tools, "anthropic");
