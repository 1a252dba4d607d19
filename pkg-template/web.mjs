// Browsers and bundlers. The WebAssembly module must be fetched and compiled asynchronously, so nothing
// works until `await initAsync()` has resolved; until then every export throws an Error that says so
// (instead of wasm-bindgen's "Cannot read properties of undefined").
import init, * as wasm from "./web/toolwire.js";

let loading = null;
let ready = false;

/**
 * The errors toolwire throws are real `Error` objects named "ToolwireError" with a stable `code` (and
 * `tool`/`path` where known). This class recognises them with `instanceof`, and can build one.
 */
export class ToolwireError extends Error {
  constructor(code, message, tool, path) {
    super(message);
    this.name = "ToolwireError";
    this.code = code;
    if (tool !== undefined) this.tool = tool;
    if (path !== undefined) this.path = path;
  }

  static [Symbol.hasInstance](value) {
    return value instanceof Error && value.name === "ToolwireError" && typeof value.code === "string";
  }
}

/**
 * Loads the module once; later calls return the same promise. `input` defaults to the .wasm file next to
 * this one (bundlers that understand `new URL(..., import.meta.url)` copy it). A failed load rejects with a
 * ToolwireError `LOAD_FAILED` and is not memoised, so it can be retried.
 */
export function initAsync(input) {
  loading ??= load(input).then(
    () => {
      ready = true;
    },
    (err) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}

const HINT =
  "pass the file to initAsync (a URL, a Response, its bytes or a WebAssembly.Module; it is exported as " +
  '"toolwire/toolwire.wasm"), or let the bundler copy it (README, "Bundlers")';

async function load(input) {
  if (input === undefined) {
    // Empty when the bundle is not an ES module (esbuild's default iife, CommonJS): the file cannot be
    // found from here. The `new URL` below stays literal: it is the pattern bundlers look for.
    if (!import.meta.url) {
      throw new ToolwireError("LOAD_FAILED", `toolwire: cannot tell where toolwire_bg.wasm is (import.meta.url is empty in this bundle): ${HINT}`);
    }
    input = new URL("./web/toolwire_bg.wasm", import.meta.url);
  }
  try {
    await init({ module_or_path: input });
  } catch (err) {
    const e = new ToolwireError("LOAD_FAILED", `toolwire: loading the WebAssembly module failed: ${err?.message ?? err}; ${HINT}`);
    e.cause = err;
    throw e;
  }
}

export default initAsync;

function check() {
  if (!ready) throw new ToolwireError("NOT_INITIALIZED", "toolwire: call `await initAsync()` first");
}

export function convertMcpTools(tools, provider, options) {
  check();
  return wasm.convertMcpTools(tools, provider, options);
}

export function convertMcpToolsJson(json, provider, options) {
  check();
  return wasm.convertMcpToolsJson(json, provider, options);
}

export function convertMcpToolsDetailed(tools, provider, options) {
  check();
  return wasm.convertMcpToolsDetailed(tools, provider, options);
}

export function checkTools(tools, provider, options) {
  check();
  return wasm.checkTools(tools, provider, options);
}

export function processJsonSchema(schema) {
  check();
  return wasm.processJsonSchema(schema);
}

export function prefixToolName(server, tool, options) {
  check();
  return wasm.prefixToolName(server, tool, options);
}

export function parseToolName(name, options) {
  check();
  return wasm.parseToolName(name, options);
}

export function flattenContent(content, options) {
  check();
  return wasm.flattenContent(content, options);
}

export function version() {
  check();
  return wasm.version();
}

/**
 * The name map. Instances come from the wasm-bindgen class (so their methods need no guard); this facade
 * only guards the static constructors and makes `instanceof NameMap` work on those instances.
 */
export class NameMap {
  constructor() {
    // The module's own constructor throws the ToolwireError that says how a map is made.
    check();
    new wasm.NameMap();
  }

  static fromTools(tools, provider, options) {
    check();
    return wasm.NameMap.fromTools(tools, provider, options);
  }

  static fromJSON(json) {
    check();
    return wasm.NameMap.fromJSON(json);
  }

  static [Symbol.hasInstance](value) {
    return value instanceof wasm.NameMap;
  }
}

export function parseToolCalls(response, provider, nameMap) {
  check();
  // A NameMap instance is read in place; its JSON (or nothing) goes the general way.
  return nameMap instanceof wasm.NameMap
    ? wasm.__parseToolCallsWithMap(response, provider, nameMap)
    : wasm.parseToolCalls(response, provider, nameMap);
}

export function toolResultMessage(call, result, provider, options) {
  check();
  return wasm.toolResultMessage(call, result, provider, options);
}

export function toolsSystemPrompt(tools, options) {
  check();
  return wasm.toolsSystemPrompt(tools, options);
}

/** Assembles tool calls from a provider's stream (see index.d.ts). */
export class ToolCallAccumulator {
  constructor(provider, nameMap) {
    check();
    // A NameMap instance is shared, not copied.
    return nameMap instanceof wasm.NameMap
      ? wasm.ToolCallAccumulator.__withMap(provider, nameMap)
      : new wasm.ToolCallAccumulator(provider, nameMap);
  }

  static [Symbol.hasInstance](value) {
    return value instanceof wasm.ToolCallAccumulator;
  }
}

/** allow / ask / deny by tool-name pattern (see index.d.ts). */
export class PermissionPolicy {
  constructor(config) {
    check();
    return new wasm.PermissionPolicy(config);
  }

  static [Symbol.hasInstance](value) {
    return value instanceof wasm.PermissionPolicy;
  }
}

/** An MCP client over Streamable HTTP (see index.d.ts). */
export class McpClient {
  constructor(url, options) {
    check();
    return new wasm.McpClient(url, options);
  }

  static [Symbol.hasInstance](value) {
    return value instanceof wasm.McpClient;
  }
}

/** Several MCP servers behind one set of provider tools (see index.d.ts). */
export class McpHub {
  constructor(servers, options) {
    check();
    return new wasm.McpHub(servers, options);
  }

  static [Symbol.hasInstance](value) {
    return value instanceof wasm.McpHub;
  }
}
