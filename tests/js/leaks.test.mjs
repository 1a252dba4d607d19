// A JS exception the module catches costs nothing once its error is returned: 10,000 through each kind of place
// (a getter, a Proxy trap, a toJSON, a constructor refusing its argument, a fetch, onRequest, onProgress, onLog,
// a hub's confirm) leave the module's externref table (`__liveJsValues()`, the JS values it holds) as it was.
// Each used to keep one slot holding `undefined` for good (wasm-bindgen's code for a `catch` import returning a JS
// value; src/wasm/caught.rs), and at about 2^23 of them every call of the module trapped. And a promise the module
// gave up on (a timeout, an abort) that never settles holds nothing either (it held two values until it settled).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as tw from "../../pkg/index.mjs";

// Node runs conversions in one module and the MCP client in another (pkg-template/index.cjs): the JS values
// both hold.
const modules = ["../../pkg/node/toolwire_convert.js", "../../pkg/node/toolwire.js"].map((p) => createRequire(import.meta.url)(p));
const raw = { __liveJsValues: () => modules.reduce((sum, m) => sum + m.__liveJsValues(), 0) };
const N = 10_000;
// A call through a client takes about 2 ms here: a thousand of each is enough to see one slot a throw.
const CALLS = 1_000;

/** Runs `fn` once to warm up (the module makes a few values once), then `n` times: the table must not grow. */
async function flat(label, fn, n = N) {
  const t0 = performance.now();
  await fn(0);
  const before = raw.__liveJsValues();
  for (let i = 1; i <= n; i++) await fn(i);
  // What a call given up lets go of goes in the tasks after its rejection (its stream's reading ends).
  await new Promise((resolve) => setTimeout(resolve, 100));
  const grown = raw.__liveJsValues() - before;
  if (process.env.LEAKS_TIMING) console.log(label, Math.round(performance.now() - t0), "ms");
  assert.ok(grown <= 0, `${label}: ${grown} more JS values held after ${n} rounds`);
}

/** Calls `fn`, which must throw a ToolwireError (with `code` if given). */
function refused(fn, code) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof tw.ToolwireError, `expected a ToolwireError, got ${e?.name}: ${e?.message}`);
    if (code) assert.equal(e.code, code, e.message);
    return;
  }
  assert.fail("returned");
}

const thrower = (what) => ({ get() { throw new Error(what); } });

test("throws caught from getters, Proxy traps, toJSON and constructors hold nothing", async () => {
  const getterResponse = () => Object.defineProperty({}, "choices", { enumerable: true, ...thrower("choices getter") });
  await flat("parseToolCalls, a throwing getter", () => refused(() => tw.parseToolCalls(getterResponse(), "openai"), "INVALID_JSON"));
  const getterTool = () => [Object.defineProperty({ inputSchema: { type: "object" } }, "name", { enumerable: true, ...thrower("name getter") })];
  await flat("convertMcpTools, a tool with a throwing getter", () => refused(() => tw.convertMcpTools(getterTool(), "openai"), "INVALID_JSON"));
  const toJSON = () => [{ name: "t", inputSchema: { type: "object" }, toJSON() { throw new Error("toJSON"); } }];
  await flat("convertMcpTools, a throwing toJSON", () => refused(() => tw.convertMcpTools(toJSON(), "openai"), "INVALID_JSON"));
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  await flat("parseToolCalls, a revoked Proxy", () => refused(() => tw.parseToolCalls(proxy, "openai"), "INVALID_JSON"));
  await flat("convertMcpTools, a revoked Proxy", () => refused(() => tw.convertMcpTools(proxy, "openai"), "INVALID_JSON"));
  const ownKeys = new Proxy({}, { ownKeys() { throw new Error("ownKeys trap"); } });
  await flat("flattenContent, a Proxy whose ownKeys throws", () => refused(() => tw.flattenContent(ownKeys), "INVALID_JSON"));
  // `new URL()` throwing on a URL it cannot parse.
  await flat("new McpClient, a URL new URL() refuses", () => refused(() => new tw.McpClient("http://[::1/mcp"), "INVALID_INPUT"));
  // `new Uint8Array(buffer, offset, length)` throwing on a view that lies about its bounds.
  class LyingView extends DataView {
    get byteLength() { return 1e9; }
  }
  const acc = new tw.ToolCallAccumulator("openai");
  await flat("ToolCallAccumulator.push, a DataView new Uint8Array() refuses", () => refused(() => acc.push(new LyingView(new ArrayBuffer(4))), "INVALID_INPUT"));
  acc.free();
});

/**
 * A fetch answering as an MCP server: `initialize`, `tools/list` and `tools/call`, whose answer is an SSE stream
 * made by `call(msg, send, answered)`: `send(obj)` writes an event, `answered(id)` resolves with the client's
 * answer to a request the server sent (as the client POSTs it).
 */
function mcpFetch(call) {
  const waiting = new Map();
  const enc = new TextEncoder();
  return async (url, init) => {
    const msg = init?.body ? JSON.parse(init.body) : null;
    if (!msg) return new Response(null, { status: 405 });
    if (msg.method === undefined) {
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
      return new Response(null, { status: 202 });
    }
    if (msg.id === undefined) return new Response(null, { status: 202 });
    const json = (result) => new Response(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }), { headers: { "content-type": "application/json" } });
    if (msg.method === "initialize") return json({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "m", version: "1" } });
    if (msg.method === "tools/list") return json({ tools: [{ name: "echo", inputSchema: { type: "object" } }] });
    if (msg.method !== "tools/call") return json({});
    const body = new ReadableStream({
      async start(controller) {
        const send = (o) => controller.enqueue(enc.encode(`data: ${JSON.stringify(o)}\n\n`));
        const answered = (id) => new Promise((resolve) => waiting.set(id, resolve));
        await call(msg, send, answered);
        send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "ok" }] } });
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
}

test("throws caught from a fetch, onRequest, onProgress, onLog and a hub's confirm hold nothing", async () => {
  const url = "http://127.0.0.1:9/mcp";
  const fetch = () => {
    throw new TypeError("fetch threw");
  };
  await flat("connect(), a fetch that throws", async () => {
    const client = new tw.McpClient(url, { fetch, timeoutMs: 5_000 });
    await assert.rejects(client.connect(), (e) => e instanceof tw.ToolwireError && e.code === "NETWORK");
    client.free();
  }, CALLS);

  // One client for many calls: what a throwing callback costs, not what a client does.
  let id = 0;
  const errors = [];
  const onRequest = () => {
    throw Object.assign(new Error("no roots here"), { code: -32001 });
  };
  const asking = new tw.McpClient(url, {
    capabilities: { roots: {} },
    onRequest,
    fetch: mcpFetch(async (msg, send, answered) => {
      const rid = `r${id++}`;
      const answer = answered(rid);
      send({ jsonrpc: "2.0", id: rid, method: "roots/list" });
      errors.push((await answer).error);
    }),
  });
  await asking.connect();
  await flat("callTool, an onRequest that throws", async () => {
    assert.equal((await asking.callTool("echo", {})).content[0].text, "ok");
  }, CALLS);
  assert.equal(errors.length, CALLS + 1);
  assert.deepEqual(errors.at(-1), { code: -32001, message: "no roots here" });
  await asking.close();
  asking.free();

  // onProgress, onLog: reported on console.error, and the call goes on.
  const consoleError = console.error;
  let reported = 0;
  console.error = () => reported++;
  try {
    const noisy = new tw.McpClient(url, {
      onLog: () => {
        throw new Error("onLog threw");
      },
      fetch: mcpFetch(async (msg, send) => {
        send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: msg.params._meta.progressToken, progress: 1 } });
        send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } });
      }),
    });
    await noisy.connect();
    const onProgress = () => {
      throw new Error("onProgress threw");
    };
    await flat("callTool, an onProgress and an onLog that throw", async () => {
      assert.equal((await noisy.callTool("echo", {}, { onProgress })).content[0].text, "ok");
    }, CALLS);
    await noisy.close();
    noisy.free();
  } finally {
    console.error = consoleError;
  }
  assert.equal(reported, 2 * (CALLS + 1));

  const hub = new tw.McpHub({ fs: { url, fetch: mcpFetch(async () => {}) } }, {
    policy: { defaultAction: "ask" },
    confirm: () => {
      throw new Error("confirm threw");
    },
  });
  await hub.tools("openai");
  await flat("McpHub callTool, a confirm that throws", async () => {
    await assert.rejects(hub.callTool("mcp__fs__echo", {}), (e) => e instanceof tw.ToolwireError && e.code === "PERMISSION_DENIED");
  }, CALLS);
  await hub.closeAll();
  hub.free();
});

test("a promise the module gave up on that never settles holds nothing: a fetch, onRequest and confirm ignoring their signal", async () => {
  const url = "http://127.0.0.1:9/mcp";
  const never = () => new Promise(() => {});
  await flat("connect() timed out, its fetch never settling", async () => {
    const client = new tw.McpClient(url, { fetch: never });
    await assert.rejects(client.connect({ timeoutMs: 1 }), (e) => e instanceof tw.ToolwireError && e.code === "TIMEOUT");
    client.free();
  }, CALLS);

  let abort;
  let id = 0;
  const ignoring = new tw.McpClient(url, {
    capabilities: { roots: {} },
    onRequest: () => {
      queueMicrotask(abort);
      return never();
    },
    fetch: mcpFetch(async (msg, send) => {
      send({ jsonrpc: "2.0", id: `r${id++}`, method: "roots/list" });
      await never();
    }),
  });
  await ignoring.connect();
  await flat("callTool aborted while onRequest never settles", async () => {
    const ac = new AbortController();
    abort = () => ac.abort();
    await assert.rejects(ignoring.callTool("echo", {}, { signal: ac.signal }), (e) => e instanceof tw.ToolwireError && e.code === "ABORTED");
  }, CALLS);
  await ignoring.close();
  ignoring.free();

  const hub = new tw.McpHub({ fs: { url, fetch: mcpFetch(async () => {}) } }, {
    policy: { defaultAction: "ask" },
    confirm: () => {
      queueMicrotask(abort);
      return never();
    },
  });
  await hub.tools("openai");
  await flat("McpHub callTool aborted while confirm never settles", async () => {
    const ac = new AbortController();
    abort = () => ac.abort();
    await assert.rejects(hub.callTool("mcp__fs__echo", {}, { signal: ac.signal }), (e) => e instanceof tw.ToolwireError);
  }, CALLS);
  await hub.closeAll();
  hub.free();
});

test("a promise a callback returned that never settles holds nothing: onProgress, onLog, onNotification", async () => {
  // What these callbacks return is not awaited: it used to be, in a task tied to nothing, whose promise held three
  // JS values per notification until it settled, after close() and free() too (a write to a stream nobody reads).
  const url = "http://127.0.0.1:9/mcp";
  const never = () => new Promise(() => {});
  const fetch = mcpFetch(async (msg, send) => {
    send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: msg.params._meta.progressToken, progress: 1 } });
    send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } });
    send({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///a" } });
  });
  const { writable } = new TransformStream();
  const writer = writable.getWriter();
  const client = new tw.McpClient(url, { fetch, onLog: never, onNotification: (m) => writer.write(m) });
  await client.connect();
  const before = raw.__liveJsValues();
  await flat("callTool, an onProgress, onLog and onNotification whose promises never settle", async () => {
    assert.equal((await client.callTool("echo", {}, { onProgress: never })).content[0].text, "ok");
  }, CALLS);
  await client.close();
  client.free();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(raw.__liveJsValues() <= before, `${raw.__liveJsValues() - before} more JS values held after close() and free()`);

  // A rejection (of a promise, or of a thenable whose then throws) is still reported, once each, named
  // (onNotification hears the log message and the resources/updated).
  const consoleError = console.error;
  const reported = [];
  console.error = (what, e) => reported.push(`${what} ${e.message}`);
  try {
    const rejecting = new tw.McpClient(url, {
      fetch,
      onLog: async () => {
        throw new Error("onLog rejected");
      },
      onNotification: () => ({ then() { throw new Error("then threw"); } }),
    });
    await rejecting.connect();
    await rejecting.callTool("echo", {}, { onProgress: () => Promise.reject(new Error("onProgress rejected")) });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await rejecting.close();
    rejecting.free();
  } finally {
    console.error = consoleError;
  }
  assert.deepEqual(reported.sort(), [
    "toolwire: the onLog callback failed: onLog rejected",
    "toolwire: the onNotification callback failed: then threw",
    "toolwire: the onNotification callback failed: then threw",
    "toolwire: the onProgress callback failed: onProgress rejected",
  ]);
});
