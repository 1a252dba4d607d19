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
 * Loads the module once. A failed load rejects with a ToolwireError `LOAD_FAILED` and is not memoised, so it can
 * be retried. A call made while a load is under way waits for it: if that load succeeds, the call resolves (its own
 * input unread), and if it fails, the call loads from its own input, so that a bad input given by one caller (a
 * library's wrong file) never fails another's good one. Calls queue so, each trying its input only where all
 * before it failed. Once loaded, every call returns the promise that resolved. `input` defaults to the .wasm file
 * next to this one (bundlers that understand `new URL(..., import.meta.url)` copy it).
 */
export function initAsync(input) {
  if (ready) return loading;
  // A promise this call waits to read is given a handler now: its rejection is this call's to report, later, and not
  // an unhandled rejection while an earlier load is under way.
  if (input !== null && (typeof input === "object" || typeof input === "function") && typeof input.then === "function") {
    input = Promise.resolve(input);
    input.catch(() => {});
  }
  const before = loading;
  const attempt = (async () => {
    if (before) await before.catch(() => {});
    if (ready) return;
    await load(input);
    ready = true;
  })();
  loading = attempt;
  // Failed, and no call since: the next one starts afresh.
  attempt.catch(() => {
    if (loading === attempt) loading = null;
  });
  return attempt;
}

/** The glue this entry's module imports (convert.mjs's: "./toolwire_convert_bg.js"; scripts/build-pkg.sh). */
const ENTRY_GLUE = "./toolwire_bg.js";
const FILE = 'the file is exported as "toolwire/toolwire.wasm"';
const HINT =
  'pass the file to initAsync (a URL, a Response, its bytes or a WebAssembly.Module; it is exported as "toolwire/toolwire.wasm"), ' +
  'or let the bundler copy it (README, "Bundlers")';
const WORKERS =
  'Cloudflare Workers compile no WebAssembly at run time: import "toolwire" (its workerd build loads the module itself), or import the module and pass it: ' +
  'import wasm from "toolwire/toolwire.wasm"; await initAsync(wasm) (README, "Cloudflare Workers")';
const CSP =
  "the Content Security Policy in force (the page's, the worker's, the extension's) forbids compiling WebAssembly: " +
  "add 'wasm-unsafe-eval' to its script-src " +
  '(in a Manifest V3 extension, to content_security_policy.extension_pages in manifest.json; README, "Content Security Policy")';

const inWorkers = () => globalThis.navigator?.userAgent === "Cloudflare-Workers";
const isRequest = (v) => typeof v === "string" || v instanceof URL || (typeof Request === "function" && v instanceof Request);

/** The absolute URL a request input names, where it can be told: against the page's base URL, the worker's location. */
const base = () => globalThis.document?.baseURI ?? globalThis.location?.href;
function urlOf(input) {
  try {
    return new URL(input instanceof URL ? input.href : typeof input === "string" ? input : input.url, base());
  } catch {
    return undefined;
  }
}

async function load(input) {
  const defaulted = input === undefined;
  if (defaulted) {
    // Empty when the bundle is not an ES module (esbuild's default iife, CommonJS), and in Cloudflare Workers:
    // the file cannot be found from here. The `new URL` below stays literal: it is the pattern bundlers look for.
    if (!import.meta.url) {
      throw new ToolwireError("LOAD_FAILED", `toolwire: cannot tell where toolwire_bg.wasm is (import.meta.url is empty here): ${inWorkers() ? WORKERS : HINT}`);
    }
    try {
      input = new URL("./web/toolwire_bg.wasm", import.meta.url);
    } catch {
      // A module run from a blob: or data: URL (an inline worker: Vite's `?worker&inline`, one built from a string):
      // no relative URL resolves against it.
      const scheme = String(import.meta.url).split(":")[0];
      throw new ToolwireError(
        "LOAD_FAILED",
        `toolwire: cannot tell where toolwire_bg.wasm is (this module runs from a ${scheme}: URL, which has no file beside it, as an inline worker does): ` +
          "pass initAsync the file's absolute URL (from the page: new URL(wasmUrl, document.baseURI).href, with wasmUrl the bundler's URL of " +
          '"toolwire/toolwire.wasm", e.g. Vite\'s "toolwire/toolwire.wasm?url"), a Response, its bytes or a WebAssembly.Module',
      );
    }
  }
  // The fetch is made here rather than in wasm-bindgen's loader, so that a failure can name the URL and what
  // answered it.
  const state = { fetching: true, url: undefined, response: undefined, relative: undefined, defaulted };
  try {
    input = await input; // a promise of a Response, as fetch() gives
    if (isRequest(input)) {
      state.url = urlOf(input);
      // A Windows path (C:\...) reads as a URL of scheme "c": it is a path all the same.
      if (typeof input === "string" && (/^[a-z]:[\\/]/i.test(input) || (!state.url && !/^[a-z][a-z\d+.-]*:/i.test(input)))) state.relative = input;
      input = await fetch(input);
    }
    state.fetching = false;
    // Any view of the bytes (a DataView, an Int8Array or Float64Array over them, a Uint8Array into a larger buffer):
    // the bytes it views. WebAssembly.instantiate takes typed arrays, but V8 refuses a DataView.
    if (ArrayBuffer.isView(input)) input = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    if (typeof Response === "function" && input instanceof Response) state.response = input;
    await init({ module_or_path: await toolwireModule(input) });
  } catch (err) {
    const e = new ToolwireError("LOAD_FAILED", `toolwire: loading the WebAssembly module failed: ${explain(err, state)}`);
    e.cause = err;
    throw e;
  }
}

/**
 * The module compiled from `input` (a Response, the bytes or a WebAssembly.Module), once it is seen to be toolwire's.
 * wasm-bindgen's loader keeps a module's exports as soon as it is instantiated, before its start function runs: a
 * module that is not toolwire's but instantiates with toolwire's imports (one that imports nothing, such as another
 * library's) would fail there, and every later load would then return at once with its exports, each call throwing a
 * TypeError. So it is compiled and looked at here, and only toolwire's is handed on.
 */
async function toolwireModule(input) {
  let module;
  if (isModule(input)) module = input;
  else if (typeof Response === "function" && input instanceof Response) {
    // As wasm-bindgen's loader: a failed response says so, and one not served as application/wasm is read whole.
    // A no-cors fetch's Response (type "opaque") and Response.error() (type "error") have status 0, no URL and no body;
    // a redirect-"manual" fetch's answer to a redirect (type "opaqueredirect") has status 0 and no body.
    if (input.type === "opaque") throw new Error('the Response is opaque (type "opaque", from a fetch with mode "no-cors"): its body cannot be read');
    if (input.type === "opaqueredirect") {
      throw new Error(`the Response is a redirect that was not followed (type "opaqueredirect", from a fetch with redirect "manual" of ${input.url || "a URL that redirects"}): it has no body`);
    }
    if (input.type === "error") throw new Error('the Response is a network error (type "error", as Response.error() makes): it has no body');
    if (!input.ok) throw new Error(`failed to fetch Wasm: ${input.status} ${input.statusText} fetching '${input.url}'`);
    if (typeof WebAssembly.compileStreaming === "function") {
      try {
        module = await WebAssembly.compileStreaming(input);
      } catch (err) {
        if (input.bodyUsed) throw err;
      }
    }
    module ??= await WebAssembly.compile(await input.arrayBuffer());
  } else module = await WebAssembly.compile(input);
  const exports = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  const missing = ["__wbindgen_start", "convertMcpTools", "version"].filter((name) => !exports.has(name));
  if (missing.length) throw new Error(`the WebAssembly module given is not toolwire's (it exports no ${missing.join(", ")})`);
  // The module with the MCP client and the one without it (toolwire/convert's) import their own glue.
  const glue = WebAssembly.Module.imports(module)[0]?.module;
  if (glue !== ENTRY_GLUE && /^\.\/toolwire(_convert)?_bg\.js$/.test(glue)) {
    const file = (name) => ["toolwire", name.includes("convert") ? "convert.wasm" : "toolwire.wasm"].join("/");
    const what = (name) => (name.includes("convert") ? "the module without the MCP client" : "the module with the MCP client");
    throw new Error(`the WebAssembly module given is "${file(glue)}", ${what(glue)}; this entry takes "${file(ENTRY_GLUE)}", ${what(ENTRY_GLUE)}`);
  }
  return module;
}

/** A WebAssembly.Module, of this realm or another (a frame's). */
function isModule(value) {
  try {
    WebAssembly.Module.exports(value);
    return true;
  } catch {
    return false;
  }
}

// Where Vite's dev server puts the dependencies it pre-bundles (node_modules/.vite/deps/, or deps_temp_* while it
// works). Vite 7 and earlier (esbuild's optimizer) leave there no file a dependency names by
// `new URL(..., import.meta.url)`, so the .wasm is not found next to the module (vitejs/vite#8427); Vite 8 serves it.
const VITE_DEPS = /\/\.vite\/deps[^/]*\//;

/** What went wrong and what to do, from the error met and where the load was. */
function explain(err, { fetching, url, response, relative, defaulted }) {
  const message = String(err?.message ?? err);
  if (typeof WebAssembly === "undefined") {
    return `this runtime has no WebAssembly (it is turned off: a browser's hardened mode, such as iOS Lockdown Mode, or node --jitless), and toolwire is WebAssembly: it cannot run here (${message})`;
  }
  if (/Content.Security.Policy|unsafe-eval|wasm-eval|\bCSP\b/i.test(message)) return `${message}; ${CSP}`;
  if (/disallowed by embedder/i.test(message)) return `${message}; ${WORKERS}`;
  if (err?.name === "NotCapable" || err?.name === "PermissionDenied") {
    return `${message}; Deno must be allowed to read it (--allow-read; README, "Bun, Deno and single-file executables")`;
  }
  if (fetching) {
    // fetch() says only "Failed to parse URL": the URL is relative, and there is nothing to take it against.
    if (relative !== undefined) {
      const href = base();
      // Outside a page, a string starting with / (or C:\) is a file's path, as a file loader gives in Bun and Node.
      if (/^[a-z]:[\\/]/i.test(relative) || (!href && relative.startsWith("/"))) {
        return `${JSON.stringify(relative)} is a file's path, which fetch cannot read (${message}): pass initAsync the file's bytes (e.g. await readFile(path) from node:fs/promises, or await Bun.file(path).arrayBuffer())`;
      }
      const what = `${JSON.stringify(relative)} is a relative URL, and`;
      if (!href) {
        return `${what} only a page or a worker takes it against its location; there is none here (${message}): pass initAsync an absolute URL or the file's bytes; ${FILE}`;
      }
      const whose = globalThis.document ? "this page's base URL" : "this worker's location";
      return (
        `${what} ${whose}, ${href}, is no base for it (as in a worker started from a blob: or data: URL; ${message}): ` +
        `pass initAsync an absolute URL (in the page, new URL(${JSON.stringify(relative)}, location.href).href, sent to the worker); ${FILE}`
      );
    }
    if (url?.protocol === "file:") {
      // A page opened from disk (file://) or its worker: no fs there, but a server or the bundler.
      if (base()) {
        return (
          `${message}; a page or worker cannot fetch ${url.href} (fetch reads no file: URL): serve the page over http(s), or pass ` +
          'initAsync the file\'s bytes, e.g. inlined by the bundler (esbuild --loader:.wasm=binary: import bytes from "toolwire/toolwire.wasm"; ' +
          'await initAsync(bytes); README, "Bundlers")'
        );
      }
      return `${message}; fetch cannot read ${url.href} here: pass initAsync the file's bytes instead (e.g. fs.readFileSync)`;
    }
    return (
      `${url?.href ?? "the .wasm"} could not be fetched (${message}): the server is unreachable, or the request was refused: from another ` +
      `origin the file must be served with CORS headers (Access-Control-Allow-Origin), and a page's Content Security Policy must allow ` +
      "it in connect-src"
    );
  }
  if (response?.type === "opaque") {
    return (
      `${message}; a file of another origin can be read only when it is served with CORS headers (Access-Control-Allow-Origin): ` +
      'serve it so and fetch it without mode "no-cors" (or pass initAsync its URL), or serve it from the page\'s origin'
    );
  }
  if (response?.type === "opaqueredirect") {
    return `${message}; fetch the file with redirect "follow" (fetch's default) rather than "manual", or pass initAsync its URL`;
  }
  const type = response?.headers.get("content-type") ?? "";
  if (defaulted && VITE_DEPS.test(url?.pathname ?? "")) {
    return (
      `${url.href} is not the WebAssembly module${type ? ` (content-type ${type})` : ""} (${message}): Vite's dev server has ` +
      "pre-bundled toolwire into node_modules/.vite/deps without its .wasm, as Vite 7 and earlier do: add " +
      'optimizeDeps: { exclude: ["toolwire"] } to the Vite config (README, "Bundlers")'
    );
  }
  if (/html/i.test(type) || /magic word.* found 3c/i.test(message)) {
    return (
      `${response?.url || url?.href || "the input"} is an HTML page${type ? ` (content-type ${type})` : ""}, not the WebAssembly module ` +
      `(${message}): no file is served at that URL (a single-page app's fallback page?). Serve toolwire_bg.wasm there, or pass initAsync ` +
      `the URL it is at; ${FILE}`
    );
  }
  return `${message}; ${HINT}`;
}

export default initAsync;

/* @shared: the guards of the classes' methods (pkg-template/shared.js), written here by scripts/build-pkg.sh */

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
 * guards the static constructors, and is made a class of the module's (`facade`, below): `instanceof NameMap`
 * is true of those instances, and `NameMap.prototype` has their methods, as on Node.
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
}

export function parseToolCalls(response, provider, nameMap) {
  check();
  // A NameMap instance is read in place; its JSON (or nothing) goes the general way.
  if (!isNameMap(nameMap)) return wasm.parseToolCalls(response, provider, nameMap);
  if (nameMap.__wbg_ptr === 0) throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
  return withMap(nameMap, () => wasm.__parseToolCallsWithMap(response, provider, nameMap));
}

export function parseTextToolCalls(text, nameMap) {
  check();
  if (!isNameMap(nameMap)) return wasm.parseTextToolCalls(text, nameMap);
  if (nameMap.__wbg_ptr === 0) throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
  return withMap(nameMap, () => wasm.__parseTextToolCallsWithMap(text, nameMap));
}

export function toolResultMessage(call, result, provider, options) {
  check();
  return wasm.toolResultMessage(call, result, provider, options);
}

export function toolResultMessages(calls, results, provider, options) {
  check();
  return wasm.toolResultMessages(calls, results, provider, options);
}

export function toolsSystemPrompt(tools, options) {
  check();
  return wasm.toolsSystemPrompt(tools, options);
}

export function textToolResults(results, options) {
  check();
  return wasm.textToolResults(results, options);
}

/**
 * The classes below construct the module's own objects (after the check that it is loaded). Each is made a
 * class of the module's too: its prototype inherits the module class's, and `instanceof` it is true of the
 * module's objects. A subclass (`class Logged extends McpClient { ... }`) gets its objects with its own
 * prototype, its methods before the module's, as on Node, where the classes are the module's own.
 */
function facade(cls, moduleCls) {
  Object.setPrototypeOf(cls.prototype, moduleCls.prototype);
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(value) {
      return this === cls ? value instanceof moduleCls : Function.prototype[Symbol.hasInstance].call(this, value);
    },
  });
}

/** `obj`, with the prototype of the subclass constructed (`new.target`) when it is not `cls` itself. */
function adopt(obj, target, cls) {
  if (target !== cls) Object.setPrototypeOf(obj, target.prototype);
  return obj;
}

/** Assembles tool calls from a provider's stream (see index.d.ts). */
export class ToolCallAccumulator {
  constructor(provider, nameMap) {
    check();
    const map = isNameMap(nameMap);
    if (map && nameMap.__wbg_ptr === 0) {
      throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
    }
    // A NameMap instance is shared, not copied.
    const acc = map ? withMap(nameMap, () => wasm.ToolCallAccumulator.__withMap(provider, nameMap)) : new wasm.ToolCallAccumulator(provider, nameMap);
    return adopt(acc, new.target, ToolCallAccumulator);
  }
}
facade(ToolCallAccumulator, wasm.ToolCallAccumulator);

/** Reads a reply to toolsSystemPrompt as it streams (see index.d.ts). */
export class TextToolCallAccumulator {
  constructor(nameMap) {
    check();
    const map = isNameMap(nameMap);
    if (map && nameMap.__wbg_ptr === 0) {
      throw new ToolwireError("INVALID_INPUT", "this NameMap was freed (free() was called on it): make a new one");
    }
    // A NameMap instance is shared, not copied.
    const acc = map ? withMap(nameMap, () => wasm.TextToolCallAccumulator.__withMap(nameMap)) : new wasm.TextToolCallAccumulator(nameMap);
    return adopt(acc, new.target, TextToolCallAccumulator);
  }
}
facade(TextToolCallAccumulator, wasm.TextToolCallAccumulator);
facade(NameMap, wasm.NameMap);

/** allow / ask / deny by tool-name pattern (see index.d.ts). */
export class PermissionPolicy {
  constructor(config) {
    check();
    return adopt(new wasm.PermissionPolicy(config), new.target, PermissionPolicy);
  }
}
facade(PermissionPolicy, wasm.PermissionPolicy);

// @client-begin (scripts/build-pkg.sh leaves what follows, up to @client-end, out of convert.mjs)
/** An MCP client over Streamable HTTP (see index.d.ts). */
export class McpClient {
  constructor(url, options) {
    check();
    return adopt(new wasm.McpClient(url, options), new.target, McpClient);
  }
}
facade(McpClient, wasm.McpClient);

/** Several MCP servers behind one set of provider tools (see index.d.ts). */
export class McpHub {
  constructor(servers, options) {
    check();
    return adopt(new wasm.McpHub(servers, options), new.target, McpHub);
  }
}
facade(McpHub, wasm.McpHub);
// @client-end
