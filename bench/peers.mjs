// Real peers from npm: other libraries' own code that turns MCP tools into a provider's tool format,
// driven offline. Each peer is set up once per input set (untimed: imports, clients, a first call that
// checks the peer really produced tools), then timed by run.mjs exactly like toolwire.
//
// Every peer starts where an MCP client app starts: with each server's `tools/list` result as objects.
// Where the library wants an MCP client, it gets a stub whose `listTools()` resolves to that server's
// corpus tools at once (no transport, no JSON-RPC). Where it wants the network, it gets a `fetch` that
// captures the request body and answers with a minimal valid response at once, so what is timed is the
// library's own work. What each timing covers is in its `timed` text, printed under the peers table.
//
// A peer that cannot be set up (not installed, a runtime error, an unexpected result) is reported with
// the reason instead of a figure.
import { installedVersion } from "./lib.mjs";

/** An MCP client stub: `listTools()` resolves to the given tools, in one page. */
function stubMcpClient(tools) {
  return {
    listTools: async () => ({ tools }),
    callTool: async () => ({ content: [{ type: "text", text: "stub" }] }),
    // Some adapters ask the client about the server; answer like a plain tools-only server.
    getServerCapabilities: () => ({ tools: {} }),
    getServerVersion: () => ({ name: "stub", version: "0" }),
  };
}

/** A fetch that keeps the last request body and answers with a one-part Gemini text response. */
function geminiStubFetch() {
  const state = { body: null, count: 0 };
  const payload = JSON.stringify({
    candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: "gemini-2.5-flash",
  });
  const fetch = async (_url, init) => {
    state.body = typeof init?.body === "string" ? init.body : init?.body == null ? null : String(init.body);
    state.count++;
    return new Response(payload, { status: 200, headers: { "content-type": "application/json" } });
  };
  return { fetch, state };
}

const versions = (...names) => names.map((n) => `${n} ${installedVersion(n) ?? "(not installed)"}`).join(", ");

/** Counts the function declarations of a Gemini request body (text). */
function declarationsIn(bodyText) {
  const body = JSON.parse(bodyText);
  return (body.tools ?? []).reduce((n, t) => n + (t.functionDeclarations?.length ?? 0), 0);
}

/**
 * The peers. Each: {id, label, packages, path (the toolwire path it is compared with), equivalent (does
 * it do schema work comparable to that toolwire path), body (its figure ends at the serialised request
 * body, not at objects), timed (what the clock covers), slow (skipped in quick mode),
 * setup(set) -> {run, prepare?, overhead?}}.
 */
export const PEERS = [
  {
    id: "genai-mcpToTool",
    label: "@google/genai mcpToTool(client).tool()",
    packages: ["@google/genai"],
    path: "gemini-json",
    equivalent: false,
    timed:
      "for each server: mcpToTool(stub client) and `await tool()` (lists the tools, checks names, builds " +
      "{functionDeclarations}). It copies inputSchema as parametersJsonSchema untouched: no schema work.",
    async setup(set) {
      const { mcpToTool } = await import("@google/genai");
      const run = async () => {
        const out = [];
        for (const s of set.servers) out.push(await mcpToTool(stubMcpClient(s.tools)).tool());
        return out;
      };
      const check = await run();
      const n = check.reduce((k, t) => k + t.functionDeclarations.length, 0);
      if (n !== set.toolCount) throw new Error(`mcpToTool returned ${n} declarations for ${set.toolCount} tools`);
      return { run };
    },
  },
  {
    id: "genai-generateContent",
    label: "@google/genai generateContent (parameters)",
    packages: ["@google/genai"],
    path: "gemini",
    equivalent: true,
    body: true,
    timed:
      "one models.generateContent() with every tool as {name, description, parameters: inputSchema without " +
      "its root $schema} (with $schema the SDK would pass the schema through untouched): the SDK's " +
      "processJsonSchema converts each to Gemini's Schema (types upper-cased, nullable anyOf folded, " +
      "additionalProperties dropped), builds and serialises the request; a stub fetch answers at once.",
    async setup(set) {
      const { GoogleGenAI } = await import("@google/genai");
      const { fetch, state } = geminiStubFetch();
      const ai = new GoogleGenAI({ apiKey: "bench-offline", httpOptions: { fetch } });
      const declarations = () =>
        set.servers.flatMap((s) =>
          s.tools.map((t) => {
            const { $schema, ...parameters } = t.inputSchema ?? {};
            return { name: `${s.server}__${t.name}`, description: t.description ?? "", parameters };
          }),
        );
      const call = (tools) =>
        ai.models.generateContent({
          model: "gemini-2.5-flash",
          contents: "hi",
          config: tools ? { tools, automaticFunctionCalling: { disable: true } } : {},
        });
      const run = async () => {
        const res = await call([{ functionDeclarations: declarations() }]);
        return state.body.length + (res.text?.length ?? 0);
      };
      try {
        await run();
      } catch (e) {
        // One tool the SDK cannot convert fails the whole request. Say how many, and which first.
        const all = declarations();
        let bad = 0;
        let first = null;
        for (const d of all) {
          try {
            await call([{ functionDeclarations: [d] }]);
          } catch {
            bad++;
            first ??= d.name;
          }
        }
        throw new Error(
          `the SDK's processJsonSchema throws "${e.message}" on ${bad} of ${all.length} tools (first: ${first}), ` +
            "and one such tool fails the whole request",
        );
      }
      const n = declarationsIn(state.body);
      if (n !== set.toolCount) throw new Error(`the request carried ${n} declarations for ${set.toolCount} tools`);
      const first = JSON.parse(state.body).tools[0].functionDeclarations[0];
      if (!first.parameters || first.parametersJsonSchema) throw new Error("the SDK did not convert `parameters`");
      // The same request without tools: the SDK's fixed cost per request, included in the figure.
      return { run, overhead: () => call(null) };
    },
  },
  {
    id: "aisdk-google",
    label: "Vercel AI SDK: @ai-sdk/mcp + @ai-sdk/google",
    packages: ["ai", "@ai-sdk/google", "@ai-sdk/mcp"],
    path: "gemini-json",
    equivalent: false,
    body: true,
    timed:
      "for each server, mcpClient.toolsFromDefinitions(tools/list result) (the AI SDK's MCP tool wrapping; " +
      "clients made beforehand with an in-memory transport), then one generateText() with all of them on " +
      "google('gemini-2.5-flash'): prepareTools puts each JSON Schema in parametersJsonSchema as is, and " +
      "the request is serialised; a stub fetch answers at once. No schema conversion.",
    async setup(set) {
      const { generateText } = await import("ai");
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      const { createMCPClient } = await import("@ai-sdk/mcp");
      const { fetch, state } = geminiStubFetch();
      const google = createGoogleGenerativeAI({ apiKey: "bench-offline", fetch });
      const transport = () => ({ start: async () => {}, send: async () => {}, close: async () => {} });
      const clients = [];
      for (const s of set.servers) {
        clients.push(
          await createMCPClient({
            transport: transport(),
            initialInitializeResult: {
              protocolVersion: "2025-11-25",
              capabilities: { tools: {} },
              serverInfo: { name: s.server, version: "0" },
            },
          }),
        );
      }
      const call = (tools) => generateText({ model: google("gemini-2.5-flash"), prompt: "hi", tools, maxRetries: 0 });
      const run = async () => {
        const tools = {};
        set.servers.forEach((s, i) => {
          const converted = clients[i].toolsFromDefinitions({ tools: s.tools });
          // Key by server too: tool names repeat across servers, and a tool set is a record.
          for (const [name, tool] of Object.entries(converted)) tools[`${s.server}__${name}`] = tool;
        });
        const res = await call(tools);
        return state.body.length + res.text.length;
      };
      await run();
      const n = declarationsIn(state.body);
      if (n !== set.toolCount) throw new Error(`the request carried ${n} declarations for ${set.toolCount} tools`);
      return { run, overhead: () => call(undefined) };
    },
  },
  {
    id: "langchain-gemini",
    label: "LangChain: loadMcpTools + ChatGoogleGenerativeAI",
    packages: ["@langchain/mcp-adapters", "@langchain/core", "@langchain/google-genai"],
    path: "gemini",
    equivalent: true,
    slow: true,
    timed:
      "for each server, loadMcpTools(server, stub client) (inlines $refs, flattens allOf/anyOf/oneOf, drops " +
      "$schema: simplifyJsonSchemaForLLM), then ChatGoogleGenerativeAI.invocationParams({tools}) converts " +
      "them for Gemini (drops additionalProperties/$schema/strict). Input: fresh copies of the tools per run " +
      "(loadMcpTools writes into inputSchema), made before the clock starts.",
    async setup(set) {
      const { loadMcpTools } = await import("@langchain/mcp-adapters");
      const { ChatGoogleGenerativeAI } = await import("@langchain/google-genai");
      const chat = new ChatGoogleGenerativeAI({ apiKey: "bench-offline", model: "gemini-2.5-flash" });
      const prepare = () => set.servers.map((s) => structuredClone(s.tools));
      const run = async (copies) => {
        const tools = [];
        for (let i = 0; i < set.servers.length; i++) {
          tools.push(...(await loadMcpTools(set.servers[i].server, stubMcpClient(copies[i]), { throwOnLoadError: true })));
        }
        return chat.invocationParams({ tools }).tools;
      };
      const out = await run(prepare());
      const n = out.reduce((k, t) => k + (t.functionDeclarations?.length ?? 0), 0);
      if (n !== set.toolCount) throw new Error(`returned ${n} declarations for ${set.toolCount} tools`);
      return { run, prepare };
    },
  },
  {
    id: "langchain-openai",
    label: "LangChain: loadMcpTools + convertToOpenAITool",
    packages: ["@langchain/mcp-adapters", "@langchain/core"],
    path: "openai",
    equivalent: true,
    slow: true,
    timed:
      "for each server, loadMcpTools(server, stub client) (as above), then @langchain/core's " +
      "convertToOpenAITool on each tool (what ChatOpenAI.bindTools does). Fresh copies per run, untimed.",
    async setup(set) {
      const { loadMcpTools } = await import("@langchain/mcp-adapters");
      const { convertToOpenAITool } = await import("@langchain/core/utils/function_calling");
      const prepare = () => set.servers.map((s) => structuredClone(s.tools));
      const run = async (copies) => {
        const out = [];
        for (let i = 0; i < set.servers.length; i++) {
          const tools = await loadMcpTools(set.servers[i].server, stubMcpClient(copies[i]), { throwOnLoadError: true });
          for (const t of tools) out.push(convertToOpenAITool(t));
        }
        return out;
      };
      const out = await run(prepare());
      if (out.length !== set.toolCount) throw new Error(`returned ${out.length} tools for ${set.toolCount} tools`);
      return { run, prepare };
    },
  },
  ...[true, false].map((strict) => ({
    id: strict ? "openai-agents-strict" : "openai-agents",
    label: `OpenAI Agents SDK mcpToFunctionTool${strict ? " (strict)" : ""}`,
    packages: ["@openai/agents-core"],
    path: strict ? "openai-strict" : "openai",
    equivalent: true,
    timed:
      `for each tool, mcpToFunctionTool(tool, server, convertSchemasToStrict=${strict}) (what getAllMcpTools ` +
      (strict
        ? "does: validates the schema for Structured Outputs, clones it and rewrites it strict (every property " +
          "required, optionals nullable, additionalProperties false), falling back to non-strict when it cannot)"
        : "does without strict: copies the schema with defaults for type/properties/required") +
      ", then the FunctionTool -> {type: 'function', name, description, parameters, strict} mapping that " +
      "@openai/agents-openai sends.",
    async setup(set) {
      const { mcpToFunctionTool } = await import("@openai/agents-core");
      const servers = set.servers.map((s) => ({ name: s.server }));
      // The SDK console.warn()s every tool it cannot make strict; count those warnings instead of printing
      // them (swapping console.warn costs nothing measurable).
      let warnings = 0;
      const run = () => {
        const warn = console.warn;
        console.warn = () => void warnings++;
        try {
          const out = [];
          set.servers.forEach((s, i) => {
            for (const t of s.tools) {
              const ft = mcpToFunctionTool(t, servers[i], strict);
              out.push({ type: "function", name: ft.name, description: ft.description, parameters: ft.parameters, strict: ft.strict });
            }
          });
          return out;
        } finally {
          console.warn = warn;
        }
      };
      const out = run();
      if (out.length !== set.toolCount) throw new Error(`returned ${out.length} tools for ${set.toolCount} tools`);
      const nonStrict = out.filter((t) => !t.strict).length;
      const note = strict ? `${nonStrict} of ${out.length} tools fell back to non-strict` : null;
      return { run, note };
    },
  })),
];

/** The packages behind every peer, with their installed versions, for the header. */
export function peerVersions() {
  const names = [...new Set(PEERS.flatMap((p) => p.packages)), "@langchain/langgraph", "zod"];
  return versions(...names);
}

export { versions };
