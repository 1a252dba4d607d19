#!/usr/bin/env node
// The "client under test" that the official conformance CLI (@modelcontextprotocol/conformance) launches:
//
//   conformance client --command "node tests/mcp/conformance-client.mjs" --scenario initialize
//
// The CLI appends the mock server's URL as the last argument and sets MCP_CONFORMANCE_SCENARIO. This runner uses
// toolwire's McpClient from the built package (../../pkg, `make pkg`) and does what the scenario expects:
//   initialize   connect (initialize + notifications/initialized), list tools, close
//   tools_call   connect, list tools, call every tool with {a: 2, b: 3} (the mock has add_numbers(a, b)), close
//   sse-retry    connect, list tools, call test_reconnection: the POST stream closes after a priming event with
//                retry: 500; McpClient must GET with Last-Event-ID after ~500 ms and get the result there
//   elicitation-sep1034-client-defaults
//                declare the elicitation capability, listen on the standalone stream (where the mock's server
//                sends its elicitation/create), call the mock's tool; the request (fields with defaults, none
//                required) is accepted with every field's default, as a form would pre-fill them
//   (other)      connect, list tools, close
//   auth/*       the same as tools_call, with `oauth`: the mock authorization server's redirect is read from a
//                fetch that does not follow it (oauthFor below); the servers of `mustRefuse` (below) must be refused
// With MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28 (the alpha suite's scenarios) the client speaks 2026-07-28:
// `era: "modern"`, but `era: "auto"` (the default, initialize first) for tools_call, whose mock refuses
// initialize as a 2026-07-28 server does; and
//   request-metadata, json-schema-ref-no-deref   connect (server/discover), list tools, close
//   http-standard-headers   call a tool, read a resource, get a prompt (Mcp-Method, Mcp-Name)
//   http-custom-headers     the calls MCP_CONFORMANCE_CONTEXT lists (their x-mcp-header arguments in Mcp-Param-*)
//   http-invalid-tool-headers   call every tool listed: the 11 with broken x-mcp-header marks must be left out
//   json-schema-2020-12-preservation   echo the first tool's inputSchema through json_schema_echo, unchanged
//   sep-2322-client-request-state   the four test_mrtr_* tools; their input_required asks (elicitation) are
//                           accepted with {confirmed: true} and each call sent again with the answers
// It exits 0 when the flow completed, 1 otherwise (the CLI's checks decide pass/fail either way).
//
// `--sdk` (or TOOLWIRE_CONFORMANCE_CLIENT=sdk) runs the same flow with the official TypeScript SDK client
// instead: a reference that proves the harness (CLI, mocks, loopback preload) works before McpClient exists.
// scripts/conformance.sh runs this for the four 0.1.16 scenarios above (the SDK 1.x client speaks no 2026-07-28).

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize";
const useSdk = process.argv.includes("--sdk") || process.env.TOOLWIRE_CONFORMANCE_CLIENT === "sdk";
const log = (...a) => process.stderr.write(`[conformance-client ${useSdk ? "sdk" : "toolwire"} ${scenario}] ${a.join(" ")}\n`);

if (!/^https?:\/\//.test(url ?? "")) {
  log(`expected the server URL as the last argument, got ${JSON.stringify(url)}`);
  process.exit(2);
}

// The CLI kills the client after its --timeout (30 s by default); give up a little earlier with a clear message.
const watchdog = setTimeout(() => {
  log("gave up after 25 s");
  process.exit(1);
}, 25_000);

/** Elicitation requests seen, each accepted with the defaults its form's fields declare (SEP-1034). */
const elicited = [];
const modern = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === "2026-07-28";
const era = modern && scenario !== "tools_call" ? "modern" : "auto";
const capabilities = scenario.startsWith("elicitation") || scenario.startsWith("sep-2322") ? { elicitation: {} } : {};
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
function acceptWithDefaults(params) {
  elicited.push(params);
  if (scenario.startsWith("sep-2322")) return { action: "accept", content: { confirmed: true } };
  const fields = Object.entries(params?.requestedSchema?.properties ?? {}).filter(([, s]) => s && "default" in s);
  return { action: "accept", content: Object.fromEntries(fields.map(([name, s]) => [name, s.default])) };
}

const argsFor = (tool) => (tool.inputSchema?.properties && "a" in tool.inputSchema.properties ? { a: 2, b: 3 } : {});

/** The flow, written once against a tiny adapter: {connect, listTools, callTool, close}. */
async function run(client) {
  await client.connect();
  log("connected", JSON.stringify({ protocolVersion: client.protocolVersion, serverInfo: client.serverInfo }));
  if (modern && !useSdk && client.protocolVersion !== "2026-07-28") throw new Error(`spoke ${client.protocolVersion}, not 2026-07-28`);
  const tools = await client.listTools();
  log(`listed ${tools.length} tool(s): ${tools.map((t) => t.name).join(", ")}`);
  // The auth/* mocks may want more scopes for a call than for the listing (scope-step-up): every tool is called.
  if (scenario === "tools_call" || scenario.startsWith("auth/")) {
    for (const tool of tools) {
      const result = await client.callTool(tool.name, argsFor(tool));
      log(`called ${tool.name}:`, JSON.stringify(result).slice(0, 300));
    }
  } else if (scenario === "sse-retry") {
    const tool = tools.find((t) => t.name === "test_reconnection") ?? tools[0];
    if (!tool) throw new Error("the sse-retry mock listed no tool");
    const started = Date.now();
    const result = await client.callTool(tool.name, {});
    log(`called ${tool.name} in ${Date.now() - started} ms:`, JSON.stringify(result).slice(0, 300));
    const text = result?.content?.[0]?.text ?? "";
    if (!/Reconnection test completed/.test(text)) throw new Error(`unexpected sse-retry result: ${JSON.stringify(result)}`);
  } else if (scenario === "http-standard-headers") {
    const [tool] = tools;
    log(`called ${tool.name}:`, JSON.stringify(await client.callTool(tool.name, {})));
    const [resource] = await client.listAll("resources/list");
    log(`read ${resource.uri}:`, JSON.stringify(await client.request("resources/read", { uri: resource.uri })));
    const [prompt] = await client.listAll("prompts/list");
    log(`got ${prompt.name}:`, JSON.stringify(await client.request("prompts/get", { name: prompt.name, arguments: {} })));
  } else if (scenario === "http-custom-headers") {
    if (!context.toolCalls?.length) throw new Error("MCP_CONFORMANCE_CONTEXT lists no toolCalls");
    for (const call of context.toolCalls) log(`called ${call.name}:`, JSON.stringify(await client.callTool(call.name, call.arguments)));
  } else if (scenario === "http-invalid-tool-headers") {
    log(`left out ${client.droppedTools.length}: ${client.droppedTools.map((d) => `${d.name} (${d.reason})`).join("; ")}`);
    if (client.droppedTools.length !== 11 || tools.length !== 1) throw new Error(`expected 11 tools left out and 1 kept`);
    for (const tool of tools) log(`called ${tool.name}:`, JSON.stringify(await client.callTool(tool.name, { region: "us-west1" })));
  } else if (scenario === "json-schema-2020-12-preservation") {
    const focal = tools.find((t) => t.name !== "json_schema_echo");
    log("echoed:", JSON.stringify(await client.callTool("json_schema_echo", { schema: focal.inputSchema })));
  } else if (scenario.startsWith("sep-2322")) {
    for (const name of ["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"]) {
      log(`called ${name}:`, JSON.stringify(await client.callTool(name, {})));
    }
    if (elicited.length !== 2) throw new Error(`expected 2 elicitations, got ${elicited.length}`);
  } else if (scenario.startsWith("elicitation")) {
    const listening = client.listen();
    for (const tool of tools) {
      const result = await client.callTool(tool.name, {});
      log(`called ${tool.name}:`, JSON.stringify(result).slice(0, 300));
    }
    if (elicited.length === 0) throw new Error("the server asked nothing");
    await client.close();
    log(`listen() ended with ${await listening}`);
    return;
  }
  await client.close();
  log("closed");
}

/**
 * `oauth` for the auth/* scenarios: the user is a fetch of the authorization URL that does not follow the
 * mock authorization server's redirect, whose Location is the redirect URI with the code and state. A client
 * registered beforehand comes in MCP_CONFORMANCE_CONTEXT (client_id, client_secret); the CIMD scenario's
 * server takes this URL as the client's metadata document.
 */
function oauthFor(ctx) {
  return {
    redirectUrl: "http://localhost:3000/callback",
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    ...(ctx.client_id ? { clientId: ctx.client_id } : {}),
    ...(ctx.client_secret ? { clientSecret: ctx.client_secret } : {}),
    ...(scenario === "auth/client-credentials-basic" ? { grantType: "client_credentials" } : {}),
    authorize: async ({ url: at }) => {
      const res = await fetch(at, { redirect: "manual" });
      const back = res.headers.get("location");
      log(`authorize: HTTP ${res.status}, back to ${back}`);
      if (!back) throw new Error(`the authorization endpoint answered HTTP ${res.status} without a redirect`);
      return back;
    },
    onSaved: (saved) => log("saved:", JSON.stringify(saved)),
  };
}

async function toolwireAdapter() {
  const { McpClient } = await import("../../pkg/index.mjs");
  // Default clientInfo ({name: "toolwire", version}): the initialize scenario checks both are present.
  const c = new McpClient(url, {
    timeoutMs: 20_000,
    capabilities,
    era,
    ...(scenario.startsWith("auth/") ? { oauth: oauthFor(context) } : {}),
    onRequest: ({ method, params }) => {
      if (method === "elicitation/create") return acceptWithDefaults(params);
      throw Object.assign(new Error(`Method not found: ${method}`), { code: -32601 });
    },
  });
  return {
    connect: () => c.connect(),
    listen: () => c.listen(),
    listTools: () => c.listTools(),
    listAll: (method) => c.listAll(method),
    request: (method, params) => c.request(method, params),
    get droppedTools() {
      return c.droppedTools;
    },
    callTool: (name, args) => c.callTool(name, args),
    close: () => c.close(),
    get protocolVersion() {
      return c.protocolVersion;
    },
    get serverInfo() {
      return c.serverInfo;
    },
  };
}

async function sdkAdapter() {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const client = new Client({ name: "sdk-reference-conformance-client", version: "1.0.0" }, { capabilities });
  if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, (req) => acceptWithDefaults(req.params));
  const transport = new StreamableHTTPClientTransport(new URL(url));
  return {
    connect: () => client.connect(transport),
    // The SDK opens the standalone stream by itself after initialization.
    listen: async () => true,
    listTools: async () => (await client.listTools()).tools,
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
    get protocolVersion() {
      return client.getServerVersion ? transport.protocolVersion : undefined;
    },
    get serverInfo() {
      return client.getServerVersion();
    },
  };
}

/** Scenarios whose servers must be refused, and the step that refuses them (or the HTTP status that stands). */
const mustRefuse = {
  "auth/resource-mismatch": "discovery", // the resource metadata names another server
  "auth/metadata-issuer-mismatch": "discovery", // the authorization server's metadata names another issuer
  "auth/iss-wrong-issuer": "authorization", // the redirect's iss is another issuer (RFC 9207)
  "auth/iss-unexpected": "authorization", // an iss nobody advertised, and another issuer's
  "auth/iss-supported-missing": "authorization", // iss advertised, the redirect has none
  "auth/iss-normalized": "authorization", // iss with a trailing slash: another string, another issuer
  "auth/scope-retry-limit": 403, // more scopes, again and again: asked once per request, then the 403 stands
};

try {
  if (mustRefuse[scenario]) {
    const refused = await run(await toolwireAdapter()).then(() => null, (e) => e);
    const expected = mustRefuse[scenario];
    if (refused?.code !== "UNAUTHORIZED" || (typeof expected === "number" ? refused.status !== expected : refused.oauthStep !== expected)) {
      throw new Error(`expected a refusal at ${mustRefuse[scenario]}, got ${refused}`);
    }
    log("refused as expected:", refused.message);
  } else {
    await run(useSdk ? await sdkAdapter() : await toolwireAdapter());
  }
  clearTimeout(watchdog);
  process.exit(0); // a GET stream may still be open (sse-retry's mock never ends it)
} catch (err) {
  log("FAILED:", err?.code ? `[${err.code}]` : "", err?.stack ?? String(err));
  process.exit(1);
}
