// Shared helpers of the MCP tests: spawning the test servers, reading their stats, raw MCP over fetch,
// and loading the package under test.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, "..", "..");
export const misbehavingPath = join(repo, "tests", "servers", "misbehaving.mjs");

/**
 * Spawns tests/servers/misbehaving.mjs on an ephemeral 127.0.0.1 port.
 * Resolves {base, port, url(scenario, tag?), stats(key), resetStats(key), stop()}.
 */
export function startMisbehaving({ env = {} } = {}) {
  const child = spawn(process.execPath, [misbehavingPath], {
    cwd: repo,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr.on("data", (c) => {
    errors += c;
    if (errors.length > 20_000) errors = errors.slice(-20_000);
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill("SIGKILL"), 3000);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`misbehaving server did not start: ${errors}`));
    }, 15_000);
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const port = Number(m[1]);
        const base = `http://127.0.0.1:${port}`;
        resolve({
          base,
          port,
          child,
          stderr: () => errors,
          url: (scenario, tag) => `${base}/mcp/${scenario}${tag ? `/${tag}` : ""}`,
          stats: async (key) => (await fetch(`${base}/stats/${key}`)).json(),
          resetStats: async (key) => (await fetch(`${base}/stats/${key}`, { method: "DELETE" })).json(),
          stop,
        });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`misbehaving server exited (${code}) before listening: ${errors}`));
    });
  });
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function freePort() {
  const net = await import("node:net");
  const s = net.createServer().listen(0, "127.0.0.1");
  await new Promise((r) => s.once("listening", r));
  const port = s.address().port;
  await new Promise((r) => s.close(r));
  return port;
}

let tagN = 0;
/** A fresh tag so that every test has its own stats and sessions: "t<pid>-<n>". */
export const freshTag = () => `t${process.pid}-${++tagN}`;

/** Polls fn() until it returns a truthy value (returned) or the time is up (returns the last value). */
export async function waitFor(fn, { timeoutMs = 3000, intervalMs = 25 } = {}) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return fn();
}

/** The package under test (built by `make pkg`). */
export async function loadPkg() {
  const entry = join(repo, "pkg", "index.mjs");
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build the package first (make pkg)`);
  return import("../../pkg/index.mjs");
}

/** Asserts that a promise rejects with a ToolwireError of `code`; returns the error for more checks. */
export async function rejectsWith(promise, code, message) {
  let err;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected a ToolwireError ${code}, but the promise resolved${message ? ` (${message})` : ""}`);
  assert.equal(err.name, "ToolwireError", `expected a ToolwireError ${code}, got ${err?.name}: ${err?.message}`);
  assert.equal(err.code, code, `expected code ${code}, got ${err.code}: ${err.message}`);
  return err;
}

/**
 * A fetch (over the real one) whose Response is a plain object whose body reader yields `chunk(bytes)` for each
 * chunk of the real body: a polyfill's or a test's fetch whose reader yields strings, or worse.
 */
export const rechunking = (chunk) => async (url, init) => {
  const res = await fetch(url, init);
  const reader = res.body?.getReader();
  const body = reader && {
    getReader: () => ({
      read: async () => {
        const { done, value } = await reader.read();
        return done ? { done, value: undefined } : { done, value: chunk(value) };
      },
      cancel: (why) => reader.cancel(why),
    }),
  };
  return { status: res.status, type: res.type, headers: res.headers, body: body ?? null };
};

/** Rejects after ms: guards a test against a promise that never settles. */
export function within(ms, promise, what = "the operation") {
  let t;
  return Promise.race([
    promise.finally(() => clearTimeout(t)),
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
    }),
  ]);
}

// ---- raw MCP over fetch (for the server self-tests) ------------------------------------------------------

export const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** POSTs one JSON-RPC message; returns {status, headers, text, bytes, contentType, messages}. */
export async function post(url, message, headers = {}) {
  const res = await fetch(url, { method: "POST", headers: { ...JSON_HEADERS, ...headers }, body: typeof message === "string" ? message : JSON.stringify(message) });
  return readResponse(res);
}

export async function readResponse(res) {
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString("utf8");
  const contentType = res.headers.get("content-type") ?? "";
  let messages = [];
  if (contentType.startsWith("text/event-stream")) messages = parseSse(bytes).filter((e) => e.data !== "").map((e) => JSON.parse(e.data));
  else if (contentType.startsWith("application/json") && text) {
    try {
      const v = JSON.parse(text);
      messages = Array.isArray(v) ? v : [v];
    } catch {
      messages = [];
    }
  }
  return { status: res.status, headers: res.headers, text, bytes, contentType, messages };
}

/**
 * A small reference SSE parser (WHATWG rules): strips one leading BOM, accepts CRLF/CR/LF, joins multi-line data
 * with "\n", strips one space after the colon, ignores comments and unknown fields. Returns [{event, id, data, retry}].
 * Events with an empty data buffer are returned too (data ""), so priming events can be seen.
 */
export function parseSse(input) {
  let text = Buffer.isBuffer(input) ? input.toString("utf8") : input;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const events = [];
  let data = [];
  let event;
  let id;
  let retry;
  let touched = false;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (touched) events.push({ event: event ?? "message", id, data: data.join("\n"), retry });
      data = [];
      event = undefined;
      retry = undefined;
      touched = false;
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id") id = value;
    else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
    else continue;
    touched = true;
  }
  return events;
}

/** initialize + notifications/initialized on a raw endpoint; returns {sessionId, init, headers(extra)}. */
export async function rawConnect(url, { protocolVersion = "2025-11-25" } = {}) {
  const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-test", version: "0.0.1" } } });
  const sessionId = init.headers.get("mcp-session-id") ?? undefined;
  const negotiated = init.messages.find((m) => m.id === 1)?.result?.protocolVersion;
  const h = (extra = {}) => ({ ...(sessionId !== undefined ? { "mcp-session-id": sessionId } : {}), ...(negotiated ? { "mcp-protocol-version": negotiated } : {}), ...extra });
  const initialized = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, h());
  return { init, initialized, sessionId, negotiated, headers: h };
}

/**
 * Reads an SSE response incrementally, calling onEvent({event, id, data, retry}) per complete event (including
 * priming events with empty data) as it arrives. Resolves {raw: Buffer, chunks: number} when the stream ends.
 */
export async function readSseIncrementally(res, onEvent) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const parts = [];
  let chunks = 0;
  let text = "";
  let first = true;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks++;
    parts.push(Buffer.from(value));
    text += decoder.decode(value, { stream: true });
    if (first && text.length) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    // Cut after the last complete event (a blank line), never at the very end (a CR may be half a CRLF).
    const re = /(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r(?!\n))/g; // a CRLF pair is one line end
    let cut = -1;
    let m;
    while ((m = re.exec(text))) if (m.index + m[0].length < text.length || !m[0].endsWith("\r")) cut = m.index + m[0].length;
    if (cut > 0) {
      const complete = text.slice(0, cut);
      text = text.slice(cut);
      for (const ev of parseSse(complete)) await onEvent(ev);
    }
  }
  if (text) for (const ev of parseSse(text)) await onEvent(ev);
  return { raw: Buffer.concat(parts), chunks };
}
