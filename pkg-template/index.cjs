"use strict";
// Node, CommonJS. wasm-bindgen's `nodejs` build compiles and instantiates the .wasm synchronously when it
// is first required, so there is nothing to initialise: every export works as soon as this returns.
// index.mjs re-exports this same module, so ESM and CJS importers in one process share one instance
// (and one ToolwireError class, so `instanceof` holds across them).
const wasm = require("./node/toolwire.js");

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

/**
 * The objects whose method runs now, each with whether the method changes it: a getter or `toJSON` of an
 * argument may call into the same object, which wasm-bindgen would refuse from inside the module (leaving the
 * object borrowed for good, and unfreeable).
 */
const inUse = [];
const inChange = [];
let depth = 0;
function busy(obj, changing) {
  for (let i = 0; i < depth; i++) if (inUse[i] === obj && (changing || inChange[i])) return true;
  return false;
}
function enter(obj, changing) {
  inUse[depth] = obj;
  inChange[depth++] = changing;
}
/** (A stack of its own, not push and pop: shortening an array by its `length` costs a call 150 ns.) */
function leave() {
  inUse[--depth] = undefined;
}

/** Whether `v` is an object of the module's class `cls` (not a detached method's `this`, nor another class's object). */
function isOwn(v, cls) {
  try {
    return v instanceof cls && typeof v.__wbg_ptr === "number";
  } catch {
    return false;
  }
}

function describeThis(v) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return String(v);
  try {
    const c = v.constructor?.name;
    if (c) return `${/^[AEIOU]/.test(c) ? "an" : "a"} ${c}`;
  } catch {}
  return "an object";
}

/**
 * `free()` a second time does nothing, and a method of an instance already freed throws a ToolwireError
 * (`INVALID_INPUT`: "this NameMap was freed") instead of wasm-bindgen's "null pointer passed to rust". A method
 * called on anything but an instance (a method passed on its own, another class's object), one called from
 * inside a method of the same object that it would conflict with (`changing`: the methods that change it), and
 * `free()` called from inside one of its methods throw an `INVALID_INPUT` ToolwireError too, before the module is
 * entered.
 */
function guardFreed(cls, name, changing = []) {
  const proto = cls.prototype;
  const freed = () => new ToolwireError("INVALID_INPUT", `this ${name} was freed (free() was called on it): make a new one`);
  const notOne = (key, v) =>
    new ToolwireError(
      "INVALID_INPUT",
      `${name}.${key}() was called on ${describeThis(v)}, not on a ${name}: a method passed on its own (emitter.on("data", obj.${key})) loses its object; pass (x) => obj.${key}(x), or obj.${key}.bind(obj)`,
    );
  const reentered = (key) =>
    new ToolwireError("INVALID_INPUT", `${name}.${key}() was called from inside a call of the same ${name} (by a getter or toJSON of an argument?), which it cannot take: call it after that call returns`);
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === "constructor" || key.startsWith("__")) continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === "free" && typeof d.value === "function") {
      const free = d.value;
      d.value = function () {
        if (!isOwn(this, cls)) throw notOne(key, this);
        if (this.__wbg_ptr === 0) return;
        if (depth !== 0 && busy(this, true)) throw reentered(key);
        free.call(this);
      };
    } else if (typeof d.value === "function") {
      const method = d.value;
      const changes = changing.includes(key);
      d.value = function (...args) {
        if (!isOwn(this, cls)) throw notOne(key, this);
        if (this.__wbg_ptr === 0) throw freed();
        if (depth !== 0 && busy(this, changes)) throw reentered(key);
        enter(this, changes);
        try {
          return method.apply(this, args);
        } finally {
          leave();
        }
      };
    } else if (d.get) {
      const get = d.get;
      d.get = function () {
        if (!isOwn(this, cls)) throw notOne(key, this);
        if (this.__wbg_ptr === 0) throw freed();
        if (depth !== 0 && busy(this, false)) throw reentered(key);
        return get.call(this);
      };
    } else continue;
    Object.defineProperty(proto, key, d);
  }
  // `using` ends with [Symbol.dispose](), which wasm-bindgen sets to the unguarded free.
  if (typeof Symbol.dispose === "symbol" && typeof proto[Symbol.dispose] === "function") {
    const free = proto.free;
    Object.defineProperty(proto, Symbol.dispose, { value: function () { free.call(this); }, writable: true, configurable: true });
  }
}

/** `fn()` with `map` marked as in use (a NameMap read in place by a function of the module). */
function withMap(map, fn) {
  enter(map, false);
  try {
    return fn();
  } finally {
    leave();
  }
}

/** `nameMap` is one of the module's NameMaps (false for a Proxy whose traps throw: that is read as JSON, and refused). */
function isNameMap(v) {
  return isOwn(v, wasm.NameMap);
}

/**
 * `await using` on an McpClient or McpHub ends its sessions as `close()` / `closeAll()` do (HTTP DELETE), then
 * frees it; `using` and `free()` only free it, leaving the sessions open on the servers.
 */
function closeOnAsyncDispose(cls, close) {
  if (typeof Symbol.asyncDispose !== "symbol") return;
  const proto = cls.prototype;
  Object.defineProperty(proto, Symbol.asyncDispose, {
    value: async function () {
      if (this.__wbg_ptr === 0) return;
      await proto[close].call(this);
      proto.free.call(this);
    },
    writable: true,
    configurable: true,
  });
}
closeOnAsyncDispose(wasm.McpClient, "close");
closeOnAsyncDispose(wasm.McpHub, "closeAll");
for (const [cls, name, changing] of [[wasm.NameMap, "NameMap"], [wasm.ToolCallAccumulator, "ToolCallAccumulator", ["push", "finish"]], [wasm.PermissionPolicy, "PermissionPolicy"], [wasm.McpClient, "McpClient"], [wasm.McpHub, "McpHub"]]) {
  guardFreed(cls, name, changing);
}

/** Every tool call in a response; a NameMap instance is read in place, its JSON (or nothing) the general way. */
function parseToolCalls(response, provider, nameMap) {
  if (!isNameMap(nameMap)) return wasm.parseToolCalls(response, provider, nameMap);
  if (nameMap.__wbg_ptr === 0) throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
  return withMap(nameMap, () => wasm.__parseToolCallsWithMap(response, provider, nameMap));
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
  ToolCallAccumulator,
  toolResultMessage: wasm.toolResultMessage,
  toolResultMessages: wasm.toolResultMessages,
  toolsSystemPrompt: wasm.toolsSystemPrompt,
  PermissionPolicy: wasm.PermissionPolicy,
  McpClient: wasm.McpClient,
  McpHub: wasm.McpHub,
  ToolwireError,
  version: wasm.version,
  initAsync,
  default: initAsync,
};
// `default` is the default export for compilers that turn ES imports into require() (TypeScript with
// esModuleInterop, Babel, bundlers): they take `exports.default` only from a module that says this.
Object.defineProperty(module.exports, "__esModule", { value: true });
