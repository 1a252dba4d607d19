"use strict";
// Node, CommonJS. wasm-bindgen's `nodejs` build compiles and instantiates the .wasm synchronously when it
// is first required, so there is nothing to initialise: every export works as soon as this returns.
// index.mjs re-exports this same module, so ESM and CJS importers in one process share its instances
// (and one ToolwireError class, so `instanceof` holds across them).
//
// Two modules: everything but the MCP client runs in the module built without it (node/toolwire_convert.js,
// web/toolwire_convert_bg.wasm: a third smaller, so `require` compiles a third less); McpClient and McpHub
// construct their objects in the whole module (node/toolwire.js, web/toolwire_bg.wasm, the browser's),
// which is loaded on the first of them. Nothing crosses between the two but JSON: a hub reads a
// PermissionPolicy by its toJSON, and gives its name maps as JSON.
const wasm = require("./node/toolwire_convert.js");

/**
 * The errors toolwire throws are real `Error` objects named "ToolwireError" with a stable `code` (and
 * `tool`/`path` where known). This class recognises them with `instanceof`, and can build one.
 */
class ToolwireError extends Error {
  constructor(code, message, tool, path) {
    super(message);
    // Enumerable, as on the errors toolwire throws, so that JSON.stringify keeps it (Error's own is not).
    Object.defineProperty(this, "message", { value: String(message ?? ""), enumerable: true, writable: true, configurable: true });
    this.name = "ToolwireError";
    this.code = code;
    if (tool !== undefined) this.tool = tool;
    if (path !== undefined) this.path = path;
  }

  static [Symbol.hasInstance](value) {
    return value instanceof Error && value.name === "ToolwireError" && typeof value.code === "string";
  }
}

/* @shared: the guards of the classes' methods (pkg-template/shared.js), written here by scripts/build-pkg.sh */

/** Every tool call in a response; a NameMap instance is read in place, its JSON (or nothing) the general way. */
function parseToolCalls(response, provider, nameMap) {
  if (!isNameMap(nameMap)) return wasm.parseToolCalls(response, provider, nameMap);
  if (nameMap.__wbg_ptr === 0) throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
  return withMap(nameMap, () => wasm.__parseToolCallsWithMap(response, provider, nameMap));
}

/** The `<tool_call>` blocks of a reply to toolsSystemPrompt; a NameMap instance is read in place. */
function parseTextToolCalls(text, nameMap) {
  if (!isNameMap(nameMap)) return wasm.parseTextToolCalls(text, nameMap);
  if (nameMap.__wbg_ptr === 0) throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
  return withMap(nameMap, () => wasm.__parseTextToolCallsWithMap(text, nameMap));
}

/**
 * Assembles tool calls from a provider's stream; a NameMap instance is shared, not copied. It constructs the
 * module's own objects, and is a class of the module's too (its prototype inherits the module class's, and
 * `instanceof` it is true of the module's objects): a subclass gets its objects with its own prototype.
 */
class ToolCallAccumulator {
  constructor(provider, nameMap) {
    const map = isNameMap(nameMap);
    if (map && nameMap.__wbg_ptr === 0) {
      throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
    }
    const acc = map ? withMap(nameMap, () => wasm.ToolCallAccumulator.__withMap(provider, nameMap)) : new wasm.ToolCallAccumulator(provider, nameMap);
    if (new.target !== ToolCallAccumulator) Object.setPrototypeOf(acc, new.target.prototype);
    return acc;
  }
}
Object.setPrototypeOf(ToolCallAccumulator.prototype, wasm.ToolCallAccumulator.prototype);
Object.defineProperty(ToolCallAccumulator, Symbol.hasInstance, {
  value(value) {
    return this === ToolCallAccumulator ? value instanceof wasm.ToolCallAccumulator : Function.prototype[Symbol.hasInstance].call(this, value);
  },
});

/** Reads a reply to toolsSystemPrompt as it streams; a NameMap instance is shared, not copied (as ToolCallAccumulator). */
class TextToolCallAccumulator {
  constructor(nameMap) {
    const map = isNameMap(nameMap);
    if (map && nameMap.__wbg_ptr === 0) {
      throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
    }
    const acc = map ? withMap(nameMap, () => wasm.TextToolCallAccumulator.__withMap(nameMap)) : new wasm.TextToolCallAccumulator(nameMap);
    if (new.target !== TextToolCallAccumulator) Object.setPrototypeOf(acc, new.target.prototype);
    return acc;
  }
}
Object.setPrototypeOf(TextToolCallAccumulator.prototype, wasm.TextToolCallAccumulator.prototype);
Object.defineProperty(TextToolCallAccumulator, Symbol.hasInstance, {
  value(value) {
    return this === TextToolCallAccumulator ? value instanceof wasm.TextToolCallAccumulator : Function.prototype[Symbol.hasInstance].call(this, value);
  },
});

/**
 * The members of McpClient and McpHub objects (tests/js/modules.test.mjs checks them against the module's
 * classes): the entry's classes forward each to the module's, which is loaded on first use.
 */
const CLIENT_MEMBERS = {
  McpClient: {
    methods: ["free", "callTool", "close", "connect", "listAll", "listTools", "listen", "notify", "request"],
    getters: ["capabilities", "droppedTools", "instructions", "protocolVersion", "serverInfo", "sessionId", "toolsStale", "transport"],
  },
  McpHub: {
    methods: ["free", "callTool", "closeAll", "listAll", "listTools", "listen", "nameMapFor", "notify", "reportFor", "request", "tools"],
    getters: ["droppedTools", "listErrors", "nameMap", "report", "servers"],
  },
};

/** The whole module, with the MCP client: loaded (synchronously, once) by the first McpClient or McpHub. */
let client;
let clientFailure;
function clientModule() {
  if (client !== undefined) return client;
  let m;
  try {
    m = require("./node/toolwire.js");
    // A bundler's runtime (webpack's) may keep the exports of a module that threw while loading and give
    // them again: their functions then throw a ReferenceError. The first failure says what went wrong.
    m.version();
  } catch (e) {
    if (clientFailure === undefined || e?.name === "ToolwireError") {
      // A file that is no module, or another build's (a stale copy beside a bundle), is LOAD_FAILED too.
      clientFailure =
        e?.name === "ToolwireError"
          ? e
          : new ToolwireError("LOAD_FAILED", `toolwire: cannot load the module with the MCP client (web/toolwire_bg.wasm, or its copy beside a bundle; another build's?): ${e?.message ?? e}`);
      if (clientFailure !== e) clientFailure.cause = e;
    }
    throw clientFailure;
  }
  guardClasses(m, { McpClient, McpHub });
  client = m;
  return client;
}

/**
 * McpClient and McpHub construct the module's objects with their own prototype (or a subclass's), and their
 * prototypes forward each method and getter to the module's class's, guarded there: a spy or stub set on
 * `McpClient.prototype` reaches every client, and reading a method there or freezing the prototype loads
 * nothing (a getter read on it, or a method called on another object, loads the module, which says so).
 */
function forwardTo(cls, name) {
  const { methods, getters } = CLIENT_MEMBERS[name];
  for (const key of methods) {
    const forward = { [key](...args) { return clientModule()[name].prototype[key].apply(this, args); } }[key];
    Object.defineProperty(cls.prototype, key, { value: forward, writable: true, configurable: true });
  }
  // What wasm-bindgen's free() calls on its object (not enumerable, as on the module's class).
  Object.defineProperty(cls.prototype, "__destroy_into_raw", {
    value() { return isOwn(this, cls) ? clientModule()[name].prototype.__destroy_into_raw.call(this) : 0; },
    writable: true,
    configurable: true,
  });
  for (const key of getters) {
    Object.defineProperty(cls.prototype, key, { get() { return Reflect.get(clientModule()[name].prototype, key, this); }, configurable: true });
  }
  // `using` frees; `await using` closes, then frees (as in the module's classes; shared.js).
  if (typeof Symbol.dispose === "symbol") {
    Object.defineProperty(cls.prototype, Symbol.dispose, { value() { isOwn(this, cls) ? this.free() : cls.prototype.free.call(this); }, writable: true, configurable: true });
  }
  closeOnAsyncDispose(cls, name === "McpHub" ? "closeAll" : "close");
  Object.defineProperty(cls, "name", { value: name }); // (kept in a bundle that renamed the class)
}

/** The prototype an object made as `new.target` gets (as the spec's GetPrototypeFromConstructor). */
function prototypeFor(target, fallback) {
  const p = target.prototype;
  return p !== null && (typeof p === "object" || typeof p === "function") ? p : fallback.prototype;
}

/** A client of one MCP server (see index.d.ts). */
class McpClient {
  constructor(url, options) {
    const obj = new (clientModule().McpClient)(url, options);
    Object.setPrototypeOf(obj, prototypeFor(new.target, McpClient));
    return obj;
  }
}
forwardTo(McpClient, "McpClient");

/** Several MCP servers behind one set of tools (see index.d.ts). */
class McpHub {
  constructor(servers, options) {
    const obj = new (clientModule().McpHub)(servers, options);
    Object.setPrototypeOf(obj, prototypeFor(new.target, McpHub));
    return obj;
  }
}
forwardTo(McpHub, "McpHub");

/** Kept for code shared with browsers, where it must be awaited once. Node needs nothing. */
function initAsync() {
  return Promise.resolve();
}

module.exports = {
  convertMcpTools: wasm.convertMcpTools,
  convertMcpToolsJson: wasm.convertMcpToolsJson,
  convertMcpToolsDetailed: wasm.convertMcpToolsDetailed,
  checkTools: wasm.checkTools,
  processJsonSchema: wasm.processJsonSchema,
  prefixToolName: wasm.prefixToolName,
  parseToolName: wasm.parseToolName,
  flattenContent: wasm.flattenContent,
  NameMap: wasm.NameMap,
  parseToolCalls,
  parseTextToolCalls,
  ToolCallAccumulator,
  TextToolCallAccumulator,
  toolResultMessage: wasm.toolResultMessage,
  toolResultMessages: wasm.toolResultMessages,
  toolsSystemPrompt: wasm.toolsSystemPrompt,
  textToolResults: wasm.textToolResults,
  PermissionPolicy: wasm.PermissionPolicy,
  McpClient,
  McpHub,
  ToolwireError,
  version: wasm.version,
  initAsync,
  default: initAsync,
};
// `default` is the default export for compilers that turn ES imports into require() (TypeScript with
// esModuleInterop, Babel, bundlers): they take `exports.default` only from a module that says this.
Object.defineProperty(module.exports, "__esModule", { value: true });
