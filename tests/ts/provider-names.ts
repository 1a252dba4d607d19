// Every provider name the runtime takes ({@link ProviderName}: the Provider names, "openai-chat" and "google") is
// taken wherever a provider is, and types as the provider it stands for. Checked by `tsc --noEmit -p tests/ts`.
import type { ChatCompletionTool, ChatCompletionToolMessageParam, ChatCompletionAssistantMessageParam } from "openai/resources/chat/completions";
import type { Part as GeminiPart, Content as GeminiContent } from "@google/genai";
import {
  convertMcpTools,
  convertMcpToolsDetailed,
  convertMcpToolsJson,
  checkTools,
  prefixToolName,
  toolsSystemPrompt,
  parseToolCalls,
  toolResultMessage,
  toolResultMessages,
  NameMap,
  ToolCallAccumulator,
  McpHub,
  type McpTool,
  type McpCallToolResult,
  type ToolCall,
  type Provider,
  type ProviderName,
  type GeminiTool,
  type Report,
  type ToolResultOutput,
  type ToolResultsOutput,
  type AnthropicToolResultBlock,
} from "toolwire";

declare const tools: McpTool[];
declare const result: McpCallToolResult;
declare const call: ToolCall;
declare const hub: McpHub;
declare const body: string | Uint8Array;

// A provider chosen at run time (a setting, a CLI flag) goes everywhere as a ProviderName.
export async function anyProvider(p: ProviderName): Promise<void> {
  convertMcpTools(tools, p);
  convertMcpToolsDetailed(tools, p);
  convertMcpToolsJson("[]", p);
  const text: string | Uint8Array = convertMcpToolsJson(body, p);
  checkTools(tools, p);
  prefixToolName("s", "t", { provider: p });
  toolsSystemPrompt(tools, { provider: p });
  parseToolCalls(undefined, p);
  NameMap.fromTools(tools, p);
  new ToolCallAccumulator(p).finish();
  await hub.tools(p);
  hub.nameMapFor(p);
  await hub.callTool("t", {}, { provider: p });
  const one: ToolResultOutput[typeof p] = toolResultMessage(call, result, p, { maxChars: 1000 });
  const all: ToolResultsOutput[typeof p] = toolResultMessages([call], [result], p);
  void [text, one, all];
  const canonical: Provider = p === "openai-chat" ? "openai" : p === "google" ? "gemini" : p;
  void canonical;
}

// A Provider setting, as a multi-provider app holds it: the results are those of every provider it may be.
export function resultsFor(p: Provider): [ToolResultOutput[Provider], ToolResultsOutput[Provider]] {
  return [toolResultMessage({ id: "c1", name: "echo" }, [{ type: "text", text: "hi" }], p), toolResultMessages([call], [result], p, { maxChars: 100 })];
}
// @ts-expect-error Gemini's result is no Anthropic block
const notAnthropic: AnthropicToolResultBlock = toolResultMessage(call, result, "gemini" as Provider);

// The aliases type as the providers they stand for.
const chatTools: ChatCompletionTool[] = convertMcpTools(tools, "openai-chat");
const googleTools: GeminiTool[] = convertMcpTools(tools, "google");
const googleDetailed: GeminiTool[] = convertMcpToolsDetailed(tools, "google").tools;
const chatResult: ChatCompletionToolMessageParam = toolResultMessage(call, result, "openai-chat");
const googleResult: GeminiPart = toolResultMessage(call, result, "google");
const googleResults: GeminiPart[] = toolResultMessages([call], [result], "google");
const chatTurn: ChatCompletionAssistantMessageParam = new ToolCallAccumulator("openai-chat").message();
const googleTurn: GeminiContent = new ToolCallAccumulator("google").message();
export async function hubAliases(): Promise<GeminiTool[]> {
  return hub.tools("google");
}
// A report names the provider converted for: "openai" for ollama and openai-chat, "gemini" for google.
const reported: Report["provider"] = checkTools(tools, "ollama").provider;
// @ts-expect-error a report never says "ollama"
const reportedOllama: "ollama" = reported;
// @ts-expect-error not a provider name ("claude" is UNKNOWN_PROVIDER at run time)
convertMcpTools(tools, "claude");
void [notAnthropic, chatTools, googleTools, googleDetailed, chatResult, googleResult, googleResults, chatTurn, googleTurn, reportedOllama];
