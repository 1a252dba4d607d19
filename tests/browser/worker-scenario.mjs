// What tests/browser/worker.test.mjs runs inside each kind of worker: the package's browser entry (`tw`, already
// imported), initialised, converting real tools and calling a real MCP server. Returns plain data (it crosses
// postMessage); an unexpected exception is caught by the caller and reported as `error`.
//
// input: {tools, server, relativeServer, relativeSse, noCors, wasm}: the tools to convert, the MCP server's
// absolute URL, a path on the worker's own origin that reaches the same server, a path there that reaches a server
// of the deprecated HTTP+SSE transport, a URL of another origin whose server sends no CORS headers, and what to
// give initAsync (undefined: its default). Each of the optional ones is tried only when given.

/** A thrown value as data: a ToolwireError's name, code and message, and whether `instanceof` knows it. */
function thrown(tw, e) {
  return { name: e?.name, code: e?.code, message: String(e?.message ?? e), isToolwireError: e instanceof tw.ToolwireError };
}

async function catching(tw, fn) {
  try {
    await fn();
  } catch (e) {
    return thrown(tw, e);
  }
  return null;
}

export async function run(tw, { tools, server, relativeServer, relativeSse, noCors, wasm }) {
  const out = {
    scope: globalThis.constructor?.name,
    hasDocument: typeof document !== "undefined",
    hasWindow: typeof window !== "undefined",
  };
  // Before the module is loaded, every export says what to do.
  out.beforeInit = await catching(tw, () => tw.convertMcpTools([{ name: "a", inputSchema: { type: "object" } }], "openai"));

  await tw.initAsync(wasm);
  out.version = tw.version();
  out.gemini = tw.convertMcpTools(tools, "gemini");
  out.openai = tw.convertMcpTools(tools, "openai");
  out.unknownProvider = await catching(tw, () => tw.convertMcpTools(tools, "gpt"));

  const client = new tw.McpClient(server, { clientInfo: { name: "toolwire-worker-test", version: "1.0.0" } });
  await client.connect();
  out.transport = client.transport;
  out.tools = (await client.listTools()).map((t) => t.name);
  out.echo = (await client.callTool("echo", { message: "from a worker" })).content[0].text;

  // An aborted call: ABORTED as soon as the first progress notification arrives, and the session works on.
  const ac = new AbortController();
  const progress = [];
  const started = Date.now();
  out.aborted = await catching(tw, () =>
    client.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, {
      signal: ac.signal,
      onProgress: (p) => {
        progress.push(p.progress);
        ac.abort();
      },
    }),
  );
  out.abortedAfterMs = Date.now() - started;
  out.abortedProgress = progress;
  out.echoAfterAbort = (await client.callTool("echo", { message: "after the abort" })).content[0].text;
  out.serverName = client.serverInfo?.name;
  // Resolves to the DELETE's error, undefined when the session was ended.
  out.closed = (await client.close()) ?? null;

  // A path, as a page would give it: taken against the worker's own location.
  if (relativeServer) {
    const relative = new tw.McpClient(relativeServer);
    await relative.connect();
    out.relativeEcho = (await relative.callTool("echo", { message: "by a relative URL" })).content[0].text;
    out.relativeClosed = (await relative.close()) ?? null;

    const hub = new tw.McpHub({ site: { url: relativeServer } });
    const listed = await hub.listTools();
    out.hubErrors = listed.errors;
    const names = (await hub.tools("openai")).map((t) => t.function.name);
    out.hubEcho = names.find((n) => n.endsWith("echo"));
    out.hubCall = await hub.callTool(out.hubEcho, { message: "through the hub" });
    await hub.closeAll();
  }
  // The old transport found from a path: its endpoint event's URL is compared with the worker's origin.
  if (relativeSse) {
    const sse = new tw.McpClient(relativeSse);
    await sse.connect();
    out.sseTransport = sse.transport;
    out.sseEcho = (await sse.callTool("echo", { message: "over the old transport" })).content[0].text;
    out.sseClosed = (await sse.close()) ?? null;
  }
  // A server of another origin that sends no CORS headers: the browser refuses, and the error says why.
  if (noCors) {
    out.noCors = await catching(tw, () => new tw.McpClient(noCors).connect());
  }
  return out;
}
