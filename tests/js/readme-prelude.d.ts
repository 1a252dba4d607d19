// What the READMEs' examples take from the text around them, with the types these have in a real program
// (tests/js/readme-types.test.mjs type-checks each example as a module with these in scope).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { GoogleGenAI, Content } from "@google/genai";
import type { MessageParam, MessageCreateParamsNonStreaming, RawMessageStreamEvent, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type * as toolwire from "toolwire";

declare global {
  // The names an earlier example imported from "toolwire".
  const McpClient: typeof toolwire.McpClient;
  const ToolCallAccumulator: typeof toolwire.ToolCallAccumulator;
  const TextToolCallAccumulator: typeof toolwire.TextToolCallAccumulator;
  const toolResultMessage: typeof toolwire.toolResultMessage;

  // "`mcpClient` is a `Client` of the official MCP SDK (`@modelcontextprotocol/sdk`) and `gemini` a `GoogleGenAI`".
  const mcpClient: Client;
  const gemini: GoogleGenAI;
  const model: string;
  const contents: Content[];
  /** The name map of the example before (made from the MCP SDK's tools). */
  const names: toolwire.NameMap<toolwire.JsonObject>;
  const nameMap: toolwire.NameMap<toolwire.JsonObject>;
  /** Tools from `listTools()`. */
  const tools: toolwire.McpTool[];

  // Anthropic: a request, its messages, a `tool_use` block of the response, the SDK's event stream.
  const request: MessageCreateParamsNonStreaming;
  const headers: Record<string, string>;
  const messages: MessageParam[];
  const block: ToolUseBlock;
  const stream: AsyncIterable<RawMessageStreamEvent>;
  const pending: toolwire.ToolCall<toolwire.JsonObject>[];

  // LangChain: "`chatModel` is a chat model of LangChain's (`ChatOpenAI`, `ChatAnthropic`...)".
  const chatModel: BaseChatModel;

  // The app's own.
  /** A model without native tool calling: the text of its reply to the system prompt and the messages. */
  function complete(system: string, messages: { role: string; content: string }[]): Promise<string>;
  function completeStream(system: string, messages: { role: string; content: string }[]): AsyncIterable<string>;
  function show(text: string): void;
  const replyStream: AsyncIterable<string>;
  /** A model's reply as text (index.d.ts's examples), an MCP client, and the app's running of a call. */
  const reply: string;
  const client: toolwire.McpClient;
  function run(call: toolwire.ToolCall<toolwire.JsonObject>): void;
  const url: string;
  const githubUrl: string;
  const token: string;
  function signIn(): Promise<string>;
  function refreshToken(resourceMetadata?: string): Promise<string>;
  function askUser(params: toolwire.JsonValue): Promise<toolwire.JsonObject>;
  function openPopupAndWaitForRedirect(url: string, signal: AbortSignal): Promise<string>;
  function showSignInButton(onClick: () => void): void;
  function hideSignInButton(): void;

  // Bun's global, as far as the examples use it.
  const Bun: { file(path: string | URL): { arrayBuffer(): Promise<ArrayBuffer> } };
}

export {};
