// toolwire's outputs type-check against the official provider SDK types: what convertMcpTools and
// toolResultMessage return can be passed to each SDK without a cast. Checked by `tsc --noEmit -p tests/ts`
// (tests/js/sdk-types.test.mjs); nothing here runs.
import type { ChatCompletionTool, ChatCompletionToolMessageParam, ChatCompletionUserMessageParam, ChatCompletionAssistantMessageParam } from "openai/resources/chat/completions";
import type { FunctionTool, ResponseInputItem, Response as OpenAIResponse } from "openai/resources/responses/responses";
import type { Tool as AnthropicTool, ToolResultBlockParam, Message as AnthropicMessage, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { Tool as GeminiTool, Part as GeminiPart, FunctionCall, Type as GeminiType, GenerateContentResponse, Content as GeminiContent } from "@google/genai";
import type { Tool as BedrockTool, ToolResultBlock, ContentBlock as BedrockContentBlock, ConverseResponse, Message as BedrockMessage } from "@aws-sdk/client-bedrock-runtime";
import type { Tool as SdkTool, CallToolResult as SdkCallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  convertMcpTools,
  parseToolCalls,
  toolResultMessage,
  NameMap,
  ToolCallAccumulator,
  McpClient,
  McpHub,
  ToolwireError,
  type JsonValue,
  type JsonObject,
  type McpTool,
  type McpCallToolResult,
  type ToolCall,
  type McpOAuthSaved,
} from "toolwire";

// js-genai declares `Schema.type` as a TypeScript enum, which no JSON value can be typed as (TS enums are
// nominal). Widen swaps each enum for the string values it stands for (`Type.OBJECT` is "OBJECT" on the wire)
// and checks everything else as declared.
type Widen<T> = T extends GeminiType ? `${T}` : T extends (infer U)[] ? Widen<U>[] : T extends object ? { [K in keyof T]: Widen<T[K]> } : T;

declare const tools: McpTool[];
declare const result: McpCallToolResult;
declare const call: ToolCall;
declare const map: NameMap;

// Tool definitions.
const openaiTools: ChatCompletionTool[] = convertMcpTools(tools, "openai");
const responsesTools: FunctionTool[] = convertMcpTools(tools, "openai-responses");
const anthropicTools: AnthropicTool[] = convertMcpTools(tools, "anthropic");
const geminiTools: Widen<GeminiTool>[] = convertMcpTools(tools, "gemini");
const vertexTools: Widen<GeminiTool>[] = convertMcpTools(tools, "vertex", { geminiMode: "parametersJsonSchema" });
const bedrockTools: BedrockTool[] = convertMcpTools(tools, "bedrock");

// Tool results.
const openaiResult: ChatCompletionToolMessageParam = toolResultMessage(call, result, "openai");
const withImages = toolResultMessage(call, result, "openai", { imageMessage: true });
const openaiMessages: Array<ChatCompletionToolMessageParam | ChatCompletionUserMessageParam> = Array.isArray(withImages) ? withImages : [withImages];
const responsesResult: ResponseInputItem = toolResultMessage(call, result, "openai-responses");
const anthropicResult: ToolResultBlockParam = toolResultMessage(call, result, "anthropic");
const geminiResult: GeminiPart = toolResultMessage(call, result, "gemini");
const bedrockResult: BedrockContentBlock = toolResultMessage(call, result, "bedrock");
const bedrockBlock: ToolResultBlock = toolResultMessage(call, result, "bedrock").toolResult;

// Tool calls: what parseToolCalls returns feeds an MCP tools/call.
const calls: ToolCall[] = parseToolCalls({}, "anthropic", map);
const forMcp: { name: string; arguments?: Record<string, unknown> } = { name: calls[0].tool, arguments: calls[0].arguments ?? undefined };
declare const fc: FunctionCall;
parseToolCalls({ candidates: [{ content: { parts: [{ functionCall: fc }] } }] }, "gemini");
// A Gemini call goes back into the model's turn with its part's signature.
const callPart: GeminiPart = { functionCall: { id: call.id ?? undefined, name: call.providerName, args: call.arguments ?? {} }, thoughtSignature: call.thoughtSignature };
// The parts of a response each SDK hands out go in as they are.
declare const responsesResponse: OpenAIResponse;
declare const anthropicMessage: AnthropicMessage;
declare const geminiResponse: GenerateContentResponse;
declare const converse: ConverseResponse;
parseToolCalls(responsesResponse.output, "openai-responses");
parseToolCalls(responsesResponse.output[0], "openai-responses");
parseToolCalls(anthropicMessage.content, "anthropic");
parseToolCalls(geminiResponse.functionCalls, "gemini"); // undefined when the model called nothing
parseToolCalls(geminiResponse.candidates?.[0], "vertex");
if (converse.output) parseToolCalls(converse.output, "bedrock");

// The model's turn from a stream goes back into the conversation as each SDK types a message of its own.
const openaiTurn: ChatCompletionAssistantMessageParam = new ToolCallAccumulator("openai").message();
const anthropicTurn: MessageParam = new ToolCallAccumulator("anthropic", map).message();
const geminiTurn: GeminiContent = new ToolCallAccumulator("gemini").message();
const vertexTurn: GeminiContent = new ToolCallAccumulator("vertex").message();
const bedrockTurn: BedrockMessage = new ToolCallAccumulator("bedrock").message();
const responsesTurn: JsonObject[] = new ToolCallAccumulator("openai-responses").message();
declare const someAccumulator: ToolCallAccumulator;
const someTurn: JsonObject[] | { role: string } = someAccumulator.message();

// What the MCP SDK's client returns goes in as it is: its tools (nested schemas typed as `object`,
// `_meta` as unknown values) and its tool results (`structuredContent` as unknown values).
declare const sdkTools: SdkTool[];
declare const sdkResult: SdkCallToolResult;
const fromSdk: ChatCompletionTool[] = convertMcpTools(sdkTools.map((t) => ({ ...t, serverName: "s" })), "openai");
const sdkMap: NameMap = NameMap.fromTools(sdkTools, "gemini");
const sdkAnswer: ToolResultBlockParam = toolResultMessage(call, sdkResult, "anthropic");
// A call without `error` has its arguments: the SDK's callTool takes them without a null check.
for (const c of parseToolCalls({}, "openai", sdkMap)) {
  if (c.error) throw new Error(c.error.message);
  const request: { name: string; arguments?: Record<string, unknown> } = { name: c.tool, arguments: c.arguments };
  void request;
}

// Requests by name, on a client and on one server of a hub; what a refused one says.
declare const client: McpClient;
declare const hub: McpHub;
const read: Promise<JsonValue> = client.request("resources/read", { uri: "demo://about" }, { timeoutMs: 1000 });
const prompts: Promise<JsonValue> = hub.request("docs", "prompts/list");
const ping: Promise<JsonValue> = client.request("ping");
const refused = (e: unknown): string | undefined => (e instanceof ToolwireError && e.code === "CAPABILITY_NOT_NEGOTIATED" ? e.capability : undefined);

// A token renewed on a 401; a handshake with a signal; close() resolves to the DELETE's error, if any.
declare function refreshToken(metadata?: string): Promise<string>;
const renewing = new McpClient("https://example.com/mcp", {
  headers: { authorization: "Bearer old" },
  onUnauthorized: async ({ challenge }) => ({ authorization: `Bearer ${await refreshToken(challenge?.resource_metadata)}` }),
});
const givingUp = new McpClient("https://example.com/mcp", { onUnauthorized: () => null });

// OAuth: a user in a popup (resolving to the redirect URL), what is kept between sessions; a service on its own.
declare function popup(url: string): Promise<string>;
declare const kept: McpOAuthSaved | undefined;
const signedIn = new McpClient("https://example.com/mcp", {
  oauth: { redirectUrl: "https://app.example/cb", authorize: ({ url, state }) => popup(`${url}#${state}`), saved: kept, onSaved: (s: McpOAuthSaved) => void s.tokens?.access_token },
});
const service = new McpClient("https://example.com/mcp", {
  oauth: { grantType: "client_credentials", clientId: "svc", clientSecret: "pw", scope: "tools", issuer: "https://auth.example.com" },
});
const oauthStep = (e: unknown) => (e instanceof ToolwireError && e.code === "UNAUTHORIZED" ? [e.oauthStep, e.oauthError] : undefined);
const inward = (e: unknown): boolean => e instanceof ToolwireError && e.oauthRefused === "private-network";
const connected: Promise<void> = renewing.connect({ timeoutMs: 5000, signal: new AbortController().signal });
const closed: Promise<ToolwireError | undefined> = renewing.close();
const expired = (e: unknown): boolean => e instanceof ToolwireError && e.code === "SESSION_EXPIRED";
const resources: Promise<JsonObject[]> = client.listAll("resources/list", null, { timeoutMs: 1000 });
const templates: Promise<JsonObject[]> = hub.listAll("docs", "resources/templates/list");

export {
  read, prompts, ping, refused, givingUp, signedIn, service, oauthStep, inward, connected, closed, expired, resources, templates,
  fromSdk,
  openaiTools, responsesTools, anthropicTools, geminiTools, vertexTools, bedrockTools,
  openaiResult, openaiMessages, responsesResult, anthropicResult, geminiResult, bedrockResult, bedrockBlock, forMcp, callPart,
  openaiTurn, anthropicTurn, geminiTurn, vertexTurn, bedrockTurn, responsesTurn, someTurn,
};
