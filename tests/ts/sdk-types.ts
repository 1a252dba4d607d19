// toolwire's outputs type-check against the official provider SDK types: what convertMcpTools and
// toolResultMessage return can be passed to each SDK without a cast. Checked by `tsc --noEmit -p tests/ts`
// (tests/js/sdk-types.test.mjs); nothing here runs.
import type { ChatCompletion, ChatCompletionTool, ChatCompletionToolMessageParam, ChatCompletionUserMessageParam, ChatCompletionAssistantMessageParam } from "openai/resources/chat/completions";
import type { FunctionTool, ResponseInputItem, Response as OpenAIResponse } from "openai/resources/responses/responses";
import type { Tool as AnthropicTool, ToolResultBlockParam, Message as AnthropicMessage, MessageParam, ContentBlock as AnthropicContentBlock } from "@anthropic-ai/sdk/resources/messages";
import type { BetaMessageParam } from "@anthropic-ai/sdk/resources/beta/messages";
import type { Tool as GeminiTool, Part as GeminiPart, FunctionCall, Type as GeminiType, GenerateContentResponse, Content as GeminiContent } from "@google/genai";
import type { Tool as BedrockTool, ToolResultBlock, ContentBlock as BedrockContentBlock, ConverseResponse, Message as BedrockMessage } from "@aws-sdk/client-bedrock-runtime";
import type {
  Tool as SdkTool,
  CallToolResult as SdkCallToolResult,
  ClientCapabilities as SdkClientCapabilities,
  ElicitResult as SdkElicitResult,
  ListRootsResult as SdkListRootsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { tool as agentsTool } from "@openai/agents-core";
import type { BaseMessageLike } from "@langchain/core/messages";
import {
  convertMcpTools,
  parseToolCalls,
  toolResultMessage,
  toolResultMessages,
  NameMap,
  ToolCallAccumulator,
  McpClient,
  McpHub,
  ToolwireError,
  type JsonValue,
  type JsonObject,
  type NameMapJson,
  type McpTool,
  type McpCallToolResult,
  type McpContentBlock,
  type ToolCall,
  type McpOAuthSaved,
  type McpRequestResults,
  type McpResource,
  type McpResourceTemplate,
  type AnthropicAssistantBlock,
  type GeminiModelPart,
} from "toolwire";

// js-genai declares `Schema.type` as a TypeScript enum, which no JSON value can be typed as (TS enums are
// nominal). Widen swaps each enum for the string values it stands for (`Type.OBJECT` is "OBJECT" on the wire)
// and checks everything else as declared.
type Widen<T> = T extends GeminiType ? `${T}` : T extends (infer U)[] ? Widen<U>[] : T extends object ? { [K in keyof T]: Widen<T[K]> } : T;

declare const tools: McpTool[];
declare const result: McpCallToolResult;
declare const call: ToolCall;
declare const map: NameMap;
// A map made from tools typed as object schemas (the MCP SDK's, McpObjectTool): its calls' arguments are objects.
declare const objectMap: NameMap<JsonObject>;

// Tool definitions.
const openaiTools: ChatCompletionTool[] = convertMcpTools(tools, "openai");
const responsesTools: FunctionTool[] = convertMcpTools(tools, "openai-responses");
const anthropicTools: AnthropicTool[] = convertMcpTools(tools, "anthropic");
const geminiTools: Widen<GeminiTool>[] = convertMcpTools(tools, "gemini");
const vertexTools: Widen<GeminiTool>[] = convertMcpTools(tools, "vertex", { geminiMode: "parametersJsonSchema" });
const bedrockTools: BedrockTool[] = convertMcpTools(tools, "bedrock");
// Ollama takes Chat's tools.
const ollamaTools: ChatCompletionTool[] = convertMcpTools(tools, "ollama");

// Tool results.
const openaiResult: ChatCompletionToolMessageParam = toolResultMessage(call, result, "openai");
const withImages = toolResultMessage(call, result, "openai", { imageMessage: true });
const openaiMessages: Array<ChatCompletionToolMessageParam | ChatCompletionUserMessageParam> = Array.isArray(withImages) ? withImages : [withImages];
const responsesResult: ResponseInputItem = toolResultMessage(call, result, "openai-responses");
const anthropicResult: ToolResultBlockParam = toolResultMessage(call, result, "anthropic");
const geminiResult: GeminiPart = toolResultMessage(call, result, "gemini");
const bedrockResult: BedrockContentBlock = toolResultMessage(call, result, "bedrock");
const bedrockBlock: ToolResultBlock = toolResultMessage(call, result, "bedrock").toolResult;
// Ollama's tool message.
const ollamaResult: { role: "tool"; tool_name: string; content: string; images?: string[] } = toolResultMessage(call, result, "ollama");
// The results of a whole turn.
const turn: Array<ChatCompletionToolMessageParam | ChatCompletionUserMessageParam> = toolResultMessages([call, call], [result, result], "openai", { imageMessage: true });
const anthropicTurnResults: ToolResultBlockParam[] = toolResultMessages([call], [result], "anthropic");
const geminiTurnResults: GeminiPart[] = toolResultMessages([call], [result], "gemini");
const bedrockTurnResults: BedrockContentBlock[] = toolResultMessages([call], [result], "bedrock");
const responsesTurnResults: ResponseInputItem[] = toolResultMessages([call], [result], "openai-responses");
// The calls of OpenAI's parallel wrapper go back as they came: the Responses output answers the wrapper's id.
const parallelCalls = parseToolCalls({ output: [] }, "openai-responses");
const wrapperId: string | null | undefined = parallelCalls[0]?.parallel?.id;
const toolUseIndex: number | undefined = parallelCalls[0]?.parallel?.index;
const parallelResults: ResponseInputItem[] = toolResultMessages(parallelCalls, parallelCalls.map(() => result), "openai-responses");
// The call as each SDK gives it.
declare const responsesCall: import("openai/resources/responses/responses").ResponseFunctionToolCall;
declare const chatCall: import("openai/resources/chat/completions").ChatCompletionMessageFunctionToolCall;
declare const bedrockUse: import("@aws-sdk/client-bedrock-runtime").ToolUseBlock;
declare const anthropicUse: import("@anthropic-ai/sdk/resources/messages").ToolUseBlock;
const fromResponsesCall: ResponseInputItem = toolResultMessage(responsesCall, result, "openai-responses");
const fromChatCall: ChatCompletionToolMessageParam = toolResultMessage(chatCall, result, "openai");
const fromBedrockUse: BedrockContentBlock = toolResultMessage(bedrockUse, result, "bedrock");
const fromBedrockBlock: BedrockContentBlock = toolResultMessage({ toolUse: bedrockUse }, result, "bedrock");
const fromAnthropicUse: ToolResultBlockParam = toolResultMessage(anthropicUse, result, "anthropic");
// Chat's `message.tool_calls[i]`, which the openai SDK types as a function or a custom tool's call, needs no narrowing.
declare const chatAnyCall: import("openai/resources/chat/completions").ChatCompletionMessageToolCall;
declare const chatCustomCall: import("openai/resources/chat/completions").ChatCompletionMessageCustomToolCall;
const fromChatAnyCall: ChatCompletionToolMessageParam = toolResultMessage(chatAnyCall, result, "openai");
const fromChatCustomCall: ChatCompletionToolMessageParam = toolResultMessage(chatCustomCall, result, "openai");
const chatTurnResults: Array<ChatCompletionToolMessageParam | ChatCompletionUserMessageParam> = toolResultMessages([chatAnyCall, chatCustomCall], [result, result], "openai");
// A Responses custom tool's call is answered by a custom_tool_call_output.
declare const responsesCustomCall: import("openai/resources/responses/responses").ResponseCustomToolCall;
const fromResponsesCustomCall: import("openai/resources/responses/responses").ResponseCustomToolCallOutput = toolResultMessage(responsesCustomCall, result, "openai-responses");
// message()'s custom call item, with the status a stream cut short leaves on it, is answered the same way.
declare const customItem: import("toolwire").OpenAIResponsesCustomToolCallItem;
const customItemStatus: "in_progress" | "completed" | "incomplete" | undefined = customItem.status;
const fromCustomItem: import("openai/resources/responses/responses").ResponseCustomToolCallOutput = toolResultMessage(customItem, result, "openai-responses");
const customCalls = parseToolCalls({ output: [] }, "openai-responses");
const customMarked: true | undefined = customCalls[0]?.custom;
const customOutputs: ResponseInputItem[] = toolResultMessages(customCalls, customCalls.map(() => result), "openai-responses");

// Tool calls: what parseToolCalls returns feeds an MCP tools/call. Arguments are objects where the types show every
// tool's input schema to be an object schema, or without a name map; any JSON value otherwise (a wrapped root).
const calls: ToolCall<JsonObject>[] = parseToolCalls({}, "anthropic", objectMap);
const forMcp: { name: string; arguments?: Record<string, unknown> } = { name: calls[0].tool, arguments: calls[0].arguments ?? undefined };
const unmapped: ToolCall<JsonObject>[] = parseToolCalls({}, "openai");
const anyValue: ToolCall<JsonValue>[] = parseToolCalls({}, "anthropic", map);
// @ts-expect-error a map of McpTool[] may unwrap a tool's arguments to a string, an array, null...
const notForMcp: ToolCall<JsonObject>[] = parseToolCalls({}, "anthropic", map);
// @ts-expect-error so may a map given as JSON, whose tools the types do not show
const fromJson: ToolCall<JsonObject>[] = parseToolCalls({}, "anthropic", objectMap.toJSON());
const argsOf: JsonObject = objectMap.prepareArguments("t", "{}");
// @ts-expect-error prepareArguments of a map of McpTool[] may give any JSON value
const argsOfAny: JsonObject = map.prepareArguments("t", "{}");
// toolwire's own client takes any call's arguments: anything but an object rejects with INVALID_ARGUMENTS.
declare const mcp: McpClient;
for (const c of anyValue) if (!c.error) void mcp.callTool(c.tool, c.arguments);
const streamed: ToolCall<JsonObject>[] = new ToolCallAccumulator("anthropic", objectMap).finish();
// @ts-expect-error a stream read through a map of McpTool[]
const streamedAny: ToolCall<JsonObject>[] = new ToolCallAccumulator("anthropic", map).finish();
declare const fc: FunctionCall;
parseToolCalls({ candidates: [{ content: { parts: [{ functionCall: fc }] } }] }, "gemini");
// A Gemini call goes back into the model's turn with its part's signature.
const callPart: GeminiPart = { functionCall: { id: calls[0].id ?? undefined, name: calls[0].providerName, args: calls[0].arguments ?? {} }, thoughtSignature: calls[0].thoughtSignature };
// The parts of a response each SDK hands out go in as they are.
declare const responsesResponse: OpenAIResponse;
declare const anthropicMessage: AnthropicMessage;
declare const geminiResponse: GenerateContentResponse;
declare const converse: ConverseResponse;
parseToolCalls(responsesResponse.output, "openai-responses");
parseToolCalls(responsesResponse.output[0], "openai-responses");
parseToolCalls(anthropicMessage.content, "anthropic");
parseToolCalls(geminiResponse.functionCalls, "gemini"); // undefined when the model called nothing
declare const completion: ChatCompletion;
parseToolCalls(completion.choices[0].message.tool_calls, "openai"); // undefined when the model called nothing
parseToolCalls(anthropicMessage.content.length ? anthropicMessage.content : null, "anthropic");
parseToolCalls(geminiResponse.candidates?.[0], "vertex");
if (converse.output) parseToolCalls(converse.output, "bedrock");

// The model's turn from a stream goes back into the conversation as each SDK types a message of its own.
const openaiTurn: ChatCompletionAssistantMessageParam = new ToolCallAccumulator("openai").message();
const anthropicTurn: MessageParam = new ToolCallAccumulator("anthropic", map).message();
const anthropicBetaTurn: BetaMessageParam = new ToolCallAccumulator("anthropic", map).message();
const geminiTurn: GeminiContent = new ToolCallAccumulator("gemini").message();
const vertexTurn: GeminiContent = new ToolCallAccumulator("vertex").message();
const bedrockTurn: BedrockMessage = new ToolCallAccumulator("bedrock").message();
const responsesTurn: ResponseInputItem[] = new ToolCallAccumulator("openai-responses").message();
// A Chat turn's calls are functions' or custom tools' (`{type: "custom", custom: {name, input}}`), as the SDK's: reading
// `function` needs the check of `type` first, and each is a call the SDK's message holds.
const turnCalls = new ToolCallAccumulator("openai").message().tool_calls ?? [];
// @ts-expect-error a custom tool's call has no `function`
const unchecked: string[] = turnCalls.map((t) => t.function.name);
const checked: string[] = turnCalls.map((t) => (t.type === "function" ? t.function.name : t.custom.name));
const sdkCalls: import("openai/resources/chat/completions").ChatCompletionMessageToolCall[] = turnCalls;
const ollamaCalls = new ToolCallAccumulator("ollama").message().tool_calls ?? [];
// @ts-expect-error so may Ollama's, through its OpenAI-compatible endpoint
const ollamaUnchecked: string[] = ollamaCalls.map((t) => t.function.name);
const ollamaChecked: string[] = ollamaCalls.map((t) => (t.type === "custom" ? t.custom.input : t.function.name));
// Every kind of output item a Responses stream gives (not the client's own outputs) is one of the turn's (what the SDK
// adds fails here when it is upgraded).
declare const responsesKind: Exclude<import("openai/resources/responses/responses").ResponseOutputItem["type"], "function_call_output" | "custom_tool_call_output" | "computer_call_output" | "local_shell_call_output" | "shell_call_output" | "apply_patch_call_output" | "mcp_approval_response">;
const responsesTurnKind: import("toolwire").OpenAIResponsesItem["type"] = responsesKind;
// Every kind of block the Messages API answers with is one of the turn's, and every field a Gemini part of the model's
// turn may have is typed (what the SDKs add fails here when they are upgraded).
declare const anthropicKind: AnthropicContentBlock["type"];
const turnKind: AnthropicAssistantBlock["type"] = anthropicKind;
type RequestOnly = "functionResponse" | "mediaResolution" | "videoMetadata" | "partMetadata" | "mediaProcessing" | "speechMetadata";
const partKeys: Exclude<keyof GeminiPart, RequestOnly> = null as unknown as keyof GeminiModelPart;
const untyped: never = null as unknown as Exclude<keyof GeminiPart, RequestOnly | keyof GeminiModelPart>;
// An Anthropic response's blocks, and a Gemini response's parts, are the turn's blocks and parts.
declare const sdkBlocks: AnthropicContentBlock[];
const asTurn: AnthropicAssistantBlock[] = sdkBlocks.map((b) => (b.type === "tool_use" || b.type === "server_tool_use" ? { ...b, input: {} } : b));
declare const someAccumulator: ToolCallAccumulator;
const someTurn: JsonObject[] | { role: string } = someAccumulator.message();

// What the MCP SDK's client returns goes in as it is: its tools (nested schemas typed as `object`,
// `_meta` as unknown values) and its tool results (`structuredContent` as unknown values).
declare const sdkTools: SdkTool[];
declare const sdkResult: SdkCallToolResult;
const fromSdk: ChatCompletionTool[] = convertMcpTools(sdkTools.map((t) => ({ ...t, serverName: "s" })), "openai");
const sdkMap = NameMap.fromTools(sdkTools, "gemini");
const sdkMapIsObjects: NameMap<JsonObject> = sdkMap;
// McpObjectTool: a tool of toolwire's own types whose schema is typed as an object schema; McpTool's may not be.
const declared = NameMap.fromTools([{ name: "t", inputSchema: { type: "object", properties: { q: { type: "string" } } } }], "openai");
const declaredIsObjects: NameMap<JsonObject> = declared;
// @ts-expect-error a root schema that is not an object schema is wrapped, and its arguments unwrap to a string
const wrappedIsObjects: NameMap<JsonObject> = NameMap.fromTools([{ name: "t", inputSchema: { type: "string" } }], "openai");
// @ts-expect-error McpTool[] says nothing of the schemas' roots
const listedIsObjects: NameMap<JsonObject> = NameMap.fromTools(tools, "openai");
const sdkAnswer: ToolResultBlockParam = toolResultMessage(call, sdkResult, "anthropic");
// A result's structuredContent may be any JSON value (2026-07-28; an array outputSchema): a string is no object.
const resultAsWord: McpCallToolResult = { content: [], structuredContent: "hello" };
const resultAsList: McpCallToolResult = { structuredContent: [1, 2, 3] };
const sc = result.structuredContent;
const scWord: string = typeof sc === "string" ? sc.toUpperCase() : "";
// @ts-expect-error not known to be an object
const scObject: { [key: string]: unknown } = sc ?? {};
void toolResultMessage(call, resultAsWord, "gemini");
// A call without `error` has its arguments: the SDK's callTool takes them without a null check.
for (const c of parseToolCalls({}, "openai", sdkMap)) {
  if (c.error) throw new Error(c.error.message);
  const request: { name: string; arguments?: Record<string, unknown> } = { name: c.tool, arguments: c.arguments };
  void request;
}

// Requests by name, on a client and on one server of a hub; what a refused one says.
declare const client: McpClient;
declare const hub: McpHub;
const read: Promise<McpRequestResults["resources/read"]> = client.request("resources/read", { uri: "demo://about" }, { timeoutMs: 1000 });
const prompts: Promise<McpRequestResults["prompts/list"]> = hub.request("docs", "prompts/list");
const ping: Promise<McpRequestResults["ping"]> = client.request("ping");
// A method toolwire has no result type for is JSON.
const custom: Promise<JsonValue> = client.request("x-vendor/stats");
// A confirmation is told the call's server, tool and provider, and gets a signal the call's abort aborts.
declare function dialog(text: string, signal: AbortSignal): Promise<boolean>;
const confirming = new McpHub(
  { docs: { url: "https://example.com/mcp" } },
  { policy: { ask: ["*"] }, confirm: (name, args, { server, tool, provider, signal }) => dialog(`${provider} calls ${tool} on ${server} (${name})`, signal) },
);
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
// What a PROTOCOL error of the client holds: a page's cursor that is no string, the input requests' bound, an
// HTTP+SSE endpoint of another origin.
const protocolDetails = (e: ToolwireError): [JsonValue | undefined, number | undefined, string | undefined] => [e.nextCursor, e.limit, e.endpoint];
const resources: Promise<McpResource[]> = client.listAll("resources/list", null, { timeoutMs: 1000 });
const templates: Promise<McpResourceTemplate[]> = hub.listAll("docs", "resources/templates/list");
// OpenAI Agents JS: a strict tool's parameters are what tool({ strict: true }) takes, once narrowed on `strict`.
for (const t of convertMcpTools(tools, "openai-responses", { strict: true })) {
  const execute = async (input: unknown) => JSON.stringify(input);
  if (t.strict) agentsTool({ name: t.name, description: t.description ?? "", parameters: t.parameters, strict: true, execute });
}
for (const t of convertMcpTools(tools, "openai", { strict: true })) {
  if (t.function.strict) agentsTool({ name: t.function.name, description: "", parameters: t.function.parameters, strict: true, execute: async () => "" });
}
// LangChain takes the result messages as message-likes (type aliases have the index signature interfaces lack).
const langchainToolMessage: BaseMessageLike = toolResultMessage(call, result, "openai");
const langchainTurn: BaseMessageLike[] = toolResultMessages([call], [result], "openai", { imageMessage: true });
const langchainOllama: BaseMessageLike = toolResultMessage(call, result, "ollama");
const looseRecords: Record<string, unknown>[] = [
  toolResultMessage(call, result, "openai-responses"),
  toolResultMessage(call, result, "anthropic"),
  toolResultMessage(call, result, "gemini"),
  toolResultMessage(call, result, "bedrock"),
  new ToolCallAccumulator("anthropic").message(),
  new ToolCallAccumulator("gemini").message(),
  new ToolCallAccumulator("bedrock").message(),
];

// A hub offering its tools to two providers: each call read with its own provider's map.
const viaOpenAI: Promise<{ text: string; isError: boolean }> = hub.callTool("mcp__docs__search", { q: "x" }, { provider: "openai", timeoutMs: 1000 });
const openaiNames: NameMapJson | null = hub.nameMapFor("openai");

// A port from the MCP SDK's Client, as its users write it, without casts: typed results by method, listAll's
// items, SDK result types from onRequest, the SDK's ClientCapabilities, `_meta` on progress and log messages.
async function sdkPort(): Promise<void> {
  const caps: SdkClientCapabilities = { roots: { listChanged: true }, elicitation: { form: { applyDefaults: true } } };
  const decline = async (): Promise<SdkElicitResult> => ({ action: "decline" });
  const rootsOf = (): SdkListRootsResult => ({ roots: [{ uri: "file:///a", name: "a" }] });
  const port = new McpClient("http://127.0.0.1/mcp", {
    capabilities: caps,
    listen: { onEnd: (end) => void (end.error ? end.error.code : end.offered) },
    onRequest: ({ method }, { id, signal }) => (signal.aborted ? Promise.reject(new Error(String(id))) : method === "roots/list" ? rootsOf() : decline()),
    onLog: ({ level, _meta }) => void [level, _meta],
  });
  const res = await port.request("resources/list");
  for (const r of res.resources) void r.uri.toUpperCase();
  const contents = await port.request("resources/read", { uri: res.resources[0].uri });
  const text: string | undefined = contents.contents[0].text;
  const all = await port.listAll("resources/list");
  const uri: string = all[0].uri;
  const templated: string = (await port.listAll("resources/templates/list"))[0].uriTemplate;
  const got = await port.request("prompts/get", { name: "p", arguments: { city: "Paris" } });
  const role: "user" | "assistant" = got.messages[0].role;
  const listedPrompts: string[] = (await port.listAll("prompts/list")).map((p) => p.name);
  const done = await port.request("completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "E" } });
  const values: string[] = done.completion.values;
  await port.request("resources/subscribe", { uri });
  await port.request("logging/setLevel", { level: "debug" });
  const called = await port.callTool("echo", {}, { onProgress: (p) => void p._meta, meta: { "example.com/trace": "t" } });
  // A call's result always has its content (`[]` when the server sent none): read without a check, as the MCP SDK's.
  const firstBlock: McpContentBlock | undefined = called.content[0];
  const viaHub: McpContentBlock[] = (await hub.callTool("mcp__docs__search", {})).result.content;
  await port.notify("notifications/roots/list_changed");
  await hub.notify("docs", "notifications/roots/list_changed", null, { timeoutMs: 1000 });
  // @ts-expect-error a resource's uri is a string
  const wrongUri: number = all[0].uri;
  // @ts-expect-error resources/read is no list
  void port.listAll("resources/read");
  // @ts-expect-error roots.listChanged is a boolean
  void new McpClient("http://127.0.0.1/mcp", { capabilities: { roots: { listChanged: "yes" } } });
  // @ts-expect-error the SDK's name of the option: toolwire's is timeoutMs (INVALID_OPTIONS at run time too)
  await port.callTool("echo", {}, { timeout: 300 });
  void [text, templated, role, listedPrompts, values, wrongUri];
}

export {
  read, prompts, ping, custom, sdkPort, refused, givingUp, signedIn, service, oauthStep, inward, connected, closed, expired, resources, templates,
  fromSdk,
  openaiTools, responsesTools, anthropicTools, geminiTools, vertexTools, bedrockTools,
  wrapperId, toolUseIndex, parallelResults,
  openaiResult, openaiMessages, responsesResult, anthropicResult, geminiResult, bedrockResult, bedrockBlock, forMcp, callPart,
  unmapped, notForMcp, fromJson, argsOf, argsOfAny, streamed, streamedAny, sdkMapIsObjects, declaredIsObjects, wrappedIsObjects, listedIsObjects,
  turnKind, partKeys, untyped, asTurn, anthropicBetaTurn,
  openaiTurn, anthropicTurn, geminiTurn, vertexTurn, bedrockTurn, responsesTurn, someTurn,
};
