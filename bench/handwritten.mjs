// The baseline that most MCP client apps actually ship: a few lines of `tools.map(...)` per provider that
// copy the name and description and hand `inputSchema` over as the parameters. Written here the way such
// code is usually written (the tool name is prefixed with the server's, as multi-server apps do), and
// deliberately no smarter: these do NOT make schemas valid for the provider (no strict-mode rewrite, no
// Gemini type mapping, no $ref inlining). They are the speed to beat, not equivalent work.
//
// Each function takes one server's tools (objects, as `listTools()` returned them) and its name, and
// returns the value for the provider's `tools` field, in the same shape toolwire returns.

const toolName = (server, t) => `${server}__${t.name}`;

/** OpenAI Chat Completions: `{type: "function", function: {name, description, parameters}}`. */
export function openai(tools, server) {
  return tools.map((t) => ({
    type: "function",
    function: { name: toolName(server, t), description: t.description ?? "", parameters: t.inputSchema },
  }));
}

/** OpenAI Responses API: the same, flattened. */
export function openaiResponses(tools, server) {
  return tools.map((t) => ({
    type: "function",
    name: toolName(server, t),
    description: t.description ?? "",
    parameters: t.inputSchema,
  }));
}

/** Anthropic Messages: `{name, description, input_schema}`. */
export function anthropic(tools, server) {
  return tools.map((t) => ({ name: toolName(server, t), description: t.description ?? "", input_schema: t.inputSchema }));
}

/**
 * What Gemini apps typically do: Gemini's `parameters` rejects `$schema` and `additionalProperties`, so
 * they get deleted, recursively (the same thing LangChain's `removeAdditionalProperties` does).
 */
function cleanForGemini(schema) {
  if (Array.isArray(schema)) return schema.map(cleanForGemini);
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const key of Object.keys(schema)) {
    if (key === "$schema" || key === "additionalProperties") continue;
    out[key] = cleanForGemini(schema[key]);
  }
  return out;
}

/** Gemini / Vertex `parameters` (OpenAPI subset): one Tool holding every function declaration. */
export function gemini(tools, server) {
  return [
    {
      functionDeclarations: tools.map((t) => ({
        name: toolName(server, t),
        description: t.description ?? "",
        parameters: cleanForGemini(t.inputSchema),
      })),
    },
  ];
}

/** Gemini `parametersJsonSchema`: the JSON Schema is passed through as is. */
export function geminiJsonSchema(tools, server) {
  return [
    {
      functionDeclarations: tools.map((t) => ({
        name: toolName(server, t),
        description: t.description ?? "",
        parametersJsonSchema: t.inputSchema,
      })),
    },
  ];
}

/** Bedrock Converse: `{toolSpec: {name, description, inputSchema: {json}}}`. */
export function bedrock(tools, server) {
  return tools.map((t) => ({
    toolSpec: { name: toolName(server, t), description: t.description ?? "", inputSchema: { json: t.inputSchema } },
  }));
}

// Tool results, as apps hand them back: the text blocks joined, images and the rest left out (OpenAI
// Chat, Gemini) or the blocks copied as the provider's (Anthropic). Again the speed to beat, not
// equivalent work: no size cap, no image check, no placeholders for what is dropped.

/** OpenAI Chat: `{role: "tool", tool_call_id, content: text}`. */
export function openaiResult(call, result) {
  const text = (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  return { role: "tool", tool_call_id: call.id, content: text };
}

/** Anthropic: a `tool_result` block with text and image blocks. */
export function anthropicResult(call, result) {
  const content = (result.content ?? []).flatMap((b) =>
    b.type === "text"
      ? [{ type: "text", text: b.text }]
      : b.type === "image"
        ? [{ type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } }]
        : [],
  );
  return { type: "tool_result", tool_use_id: call.id, content, is_error: result.isError === true };
}

/** Gemini: a `functionResponse` with the structured content, or the text, as its response. */
export function geminiResult(call, result) {
  const text = (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  return { functionResponse: { name: call.name, response: { output: result.structuredContent ?? text } } };
}
