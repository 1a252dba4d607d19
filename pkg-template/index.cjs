"use strict";
// Node, CommonJS. wasm-bindgen's `nodejs` build compiles and instantiates the .wasm synchronously when it
// is first required, so there is nothing to initialise: every export works as soon as this returns.
// index.mjs re-exports this same module, so ESM and CJS importers in one process share one instance
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
    if (clientFailure === undefined || e?.name === "ToolwireError") clientFailure = e;
    throw clientFailure;
  }
  guardClasses(m);
  client = m;
  // (By these names, not `cls.name`: a bundler renames a class whose name the glue's class has.)
  for (const [cls, name] of [[McpClient, "McpClient"], [McpHub, "McpHub"]]) {
    try {
      Object.setPrototypeOf(cls.prototype, m[name].prototype);
    } catch {
      // A frozen prototype (SES's harden) keeps the Proxy, which reads through to the module's class.
    }
  }
  return client;
}

/**
 * Until the client's module is loaded, the prototype of McpClient.prototype (McpHub.prototype) is this Proxy:
 * reading there (`McpClient.prototype.close`, a spy set on it, a mock walking its methods) loads the module
 * and reads the module's class's prototype, which then takes the Proxy's place. Where the module cannot be
 * loaded, it reads as an empty object (and the constructor throws the LOAD_FAILED).
 */
function loadingPrototype(name) {
  const real = () => {
    try {
      return clientModule()[name].prototype;
    } catch {
      return null;
    }
  };
  return new Proxy(Object.create(null), {
    get: (_, key, receiver) => {
      const p = real();
      return p === null ? undefined : Reflect.get(p, key, receiver);
    },
    has: (_, key) => {
      const p = real();
      return p !== null && key in p;
    },
    ownKeys: () => {
      const p = real();
      return p === null ? [] : Reflect.ownKeys(p);
    },
    getOwnPropertyDescriptor: (_, key) => {
      const p = real();
      const d = p === null ? undefined : Reflect.getOwnPropertyDescriptor(p, key);
      // (Reported configurable: a Proxy may not call a property its target lacks anything else.)
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    getPrototypeOf: () => (client === undefined ? Object.prototype : client[name].prototype),
  });
}

/**
 * A client of one MCP server. Its objects are the module's own, with this class's prototype (which inherits
 * the module class's): `instanceof`, `constructor`, a spy or stub set on `McpClient.prototype`, and subclasses
 * work as on any class.
 */
class McpClient {
  constructor(url, options) {
    const obj = new (clientModule().McpClient)(url, options);
    Object.setPrototypeOf(obj, new.target.prototype);
    return obj;
  }
}

/** Several MCP servers behind one set of tools (as McpClient, in the client's module). */
class McpHub {
  constructor(servers, options) {
    const obj = new (clientModule().McpHub)(servers, options);
    Object.setPrototypeOf(obj, new.target.prototype);
    return obj;
  }
}

for (const [cls, name] of [[McpClient, "McpClient"], [McpHub, "McpHub"]]) {
  Object.setPrototypeOf(cls.prototype, loadingPrototype(name));
  Object.defineProperty(cls, "name", { value: name }); // (kept in a bundle that renamed the class)
}

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
