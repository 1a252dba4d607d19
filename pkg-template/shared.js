// Shared by index.cjs (Node) and web.mjs (browsers, bundlers): scripts/build-pkg.sh writes this text where each
// says `@shared`. Not a module of its own: it uses the `wasm` and `ToolwireError` of the file it goes into.

/**
 * The objects whose method runs now (by their pointer into the module, the same through a Proxy of the object:
 * Vue's `reactive()`, a store's wrapper, and the module: in Node the MCP client's objects live in a module of
 * their own, whose pointers may equal the other's), each with whether the method changes it: a getter or
 * `toJSON` of an argument may call into the same object, which wasm-bindgen would refuse from inside the module
 * (leaving the object borrowed for good, and unfreeable).
 */
const inUse = [];
const inModule = [];
const inChange = [];
let depth = 0;
function busy(obj, changing, mod = wasm) {
  const ptr = obj.__wbg_ptr;
  for (let i = 0; i < depth; i++) if (inUse[i] === ptr && inModule[i] === mod && (changing || inChange[i])) return true;
  return false;
}
function enter(obj, changing, mod = wasm) {
  inUse[depth] = obj.__wbg_ptr;
  inModule[depth] = mod;
  inChange[depth++] = changing;
}
/** (A stack of its own, not push and pop: shortening an array by its `length` costs a call 150 ns.) */
function leave() {
  inModule[--depth] = undefined;
  inUse[depth] = undefined;
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

/** {@link guardFreed}'s `afterFree` mark of a method whose promise rejects once the object is freed. */
const REJECT = Symbol("reject");
/**
 * The promise-returning methods of McpClient and McpHub, once freed: each rejects with the freed error (not a throw,
 * which `.catch()` would not see), and `close()` / `closeAll()` resolve as for nothing to close, as they never reject.
 */
const ASYNC_AFTER_FREE = {
  McpClient: { connect: REJECT, listen: REJECT, listTools: REJECT, callTool: REJECT, request: REJECT, notify: REJECT, listAll: REJECT, close: () => undefined },
  McpHub: { listTools: REJECT, tools: REJECT, callTool: REJECT, listen: REJECT, request: REJECT, notify: REJECT, listAll: REJECT, closeAll: () => [] },
};
/**
 * `free()` a second time does nothing, and a method of an instance already freed throws a ToolwireError
 * (`INVALID_INPUT`: "this NameMap was freed") instead of wasm-bindgen's "null pointer passed to rust". A method
 * called on anything but an instance (a method passed on its own, another class's object), one called from
 * inside a method of the same object that it would conflict with (`changing`: the methods that change it), and
 * `free()` called from inside one of its methods throw an `INVALID_INPUT` ToolwireError too, before the module is
 * entered.
 */
function guardFreed(cls, name, changing = [], mod = wasm, owner = cls, afterFree = {}) {
  // `owner`: the class whose objects these are (in Node, McpClient's and McpHub's objects are the entry's
  // classes', which forward to the module's: index.cjs).
  const proto = cls.prototype;
  // The pointer an instance holds is its own but not enumerable: a copy that keeps the class (lodash's
  // `_.clone`, a store's snapshot, `Object.assign(Object.create(proto), obj)`) copies enumerable fields only, and
  // so is no instance (`isOwn`), rather than a second owner of the pointer, which would read another object's
  // memory after the first is freed and corrupt the module's allocator when freed itself. wasm-bindgen's glue
  // sets it (`obj.__wbg_ptr = ptr`) through this setter, once; later writes (free) are to the own property.
  Object.defineProperty(proto, "__wbg_ptr", {
    set(ptr) {
      Object.defineProperty(this, "__wbg_ptr", { value: ptr, writable: true, enumerable: false, configurable: true });
    },
    configurable: true,
  });
  // "an McpClient" (em-see-pee), "a NameMap".
  const aName = `${/^(Mcp|[AEIOU])/.test(name) ? "an" : "a"} ${name}`;
  const freed = () => new ToolwireError("INVALID_INPUT", `this ${name} was freed (free() was called on it): make a new one`);
  // `read`: `key` is a getter (`size`), read rather than called.
  const notOne = (key, v, read = false) => {
    const what = read ? `${name}.${key} was read` : `${name}.${key}() was called`;
    let copy = false;
    let prototype = false;
    try {
      // A class's prototype (an inspector or a test framework reading `NameMap.prototype.size`), whose
      // `constructor.name` would make it "a NameMap".
      prototype = Object.prototype.hasOwnProperty.call(v, "constructor") && typeof v.constructor === "function" && v.constructor.prototype === v;
      copy = !prototype && v instanceof owner;
    } catch {}
    if (prototype)
      return new ToolwireError("INVALID_INPUT", `${what} on ${v.constructor.name || name}.prototype, not on ${aName}: use it on ${aName} toolwire made`);
    if (copy)
      return new ToolwireError(
        "INVALID_INPUT",
        `${what} on a copy of ${aName} (a clone, as lodash's _.clone or a store's snapshot makes one), which is no ${name}: keep and use the ${name} toolwire made`,
      );
    if (read) return new ToolwireError("INVALID_INPUT", `${what} on ${describeThis(v)}, not on ${aName}: read it on the ${name} (obj.${key})`);
    return new ToolwireError(
      "INVALID_INPUT",
      `${what} on ${describeThis(v)}, not on ${aName}: a method passed on its own (emitter.on("data", obj.${key})) loses its object; pass (x) => obj.${key}(x), or obj.${key}.bind(obj)`,
    );
  };
  // An McpClient's or McpHub's `__abandon` (its running calls and streams end with it) is free()'s alone: off the
  // prototype, where a call on another object (of another class: a NameMap) would reach the module unchecked.
  const abandon = proto.__abandon;
  delete proto.__abandon;
  const reentered = (key) =>
    new ToolwireError("INVALID_INPUT", `${name}.${key}() was called from inside a call of the same ${name} (by a getter or toJSON of an argument?), which it cannot take: call it after that call returns`);
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === "constructor" || key.startsWith("__")) continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === "free" && typeof d.value === "function") {
      const free = d.value;
      d.value = function () {
        if (!isOwn(this, owner)) throw notOne(key, this);
        if (this.__wbg_ptr === 0) return;
        if (depth !== 0 && busy(this, true, mod)) throw reentered(key);
        // An McpClient's or McpHub's running calls and streams end with it (not with a garbage collection).
        if (typeof abandon === "function") abandon.call(this);
        free.call(this);
      };
    } else if (typeof d.value === "function") {
      const method = d.value;
      const changes = changing.includes(key);
      // A method that returns a promise says it by one, freed or not (`afterFree`: a value it resolves to, as a
      // close() of a freed client has nothing to close, or REJECT).
      const after = Object.prototype.hasOwnProperty.call(afterFree, key) ? afterFree[key] : undefined;
      d.value = function (...args) {
        if (!isOwn(this, owner)) throw notOne(key, this);
        if (this.__wbg_ptr === 0) {
          if (after === undefined) throw freed();
          return after === REJECT ? Promise.reject(freed()) : Promise.resolve(after());
        }
        if (depth !== 0 && busy(this, changes, mod)) throw reentered(key);
        enter(this, changes, mod);
        try {
          return method.apply(this, args);
        } finally {
          leave();
        }
      };
    } else if (d.get) {
      const get = d.get;
      d.get = function () {
        if (!isOwn(this, owner)) throw notOne(key, this, true);
        if (this.__wbg_ptr === 0) throw freed();
        if (depth !== 0 && busy(this, false, mod)) throw reentered(key);
        return get.call(this);
      };
    } else continue;
    Object.defineProperty(proto, key, d);
  }
  // `using` ends with [Symbol.dispose](), which wasm-bindgen sets to the unguarded free.
  if (typeof Symbol.dispose === "symbol" && typeof proto[Symbol.dispose] === "function") {
    const free = proto.free;
    // (An instance's own free(): a subclass's, where it has one.)
    Object.defineProperty(proto, Symbol.dispose, { value: function () { isOwn(this, owner) ? this.free() : free.call(this); }, writable: true, configurable: true });
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
      // On anything but an instance, the close method says so (INVALID_INPUT), as every method does. On an
      // instance, its own close() and free() (a subclass's, where it has them).
      if (!isOwn(this, cls)) return proto[close].call(this);
      if (this.__wbg_ptr === 0) return;
      await this[close]();
      this.free();
    },
    writable: true,
    configurable: true,
  });
}
/**
 * Guards the classes of a module: `wasm`'s here, and in Node the MCP client's module's when it loads
 * (index.cjs), whose McpClient and McpHub objects are of the entry's classes (`owners`), which have the
 * `await using` of their own.
 */
function guardClasses(m, owners = {}) {
  if (m.McpClient && !owners.McpClient) closeOnAsyncDispose(m.McpClient, "close");
  if (m.McpHub && !owners.McpHub) closeOnAsyncDispose(m.McpHub, "closeAll");
  for (const [cls, name, changing, afterFree] of [
    [m.NameMap, "NameMap"],
    [m.ToolCallAccumulator, "ToolCallAccumulator", ["push", "finish"]],
    [m.TextToolCallAccumulator, "TextToolCallAccumulator", ["push", "finish"]],
    [m.PermissionPolicy, "PermissionPolicy"],
    [m.McpClient, "McpClient", [], ASYNC_AFTER_FREE.McpClient],
    [m.McpHub, "McpHub", [], ASYNC_AFTER_FREE.McpHub],
  ]) {
    if (cls) guardFreed(cls, name, changing, m, owners[name] ?? cls, afterFree);
  }
}
guardClasses(wasm);
