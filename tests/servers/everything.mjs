#!/usr/bin/env node
// Starts @modelcontextprotocol/server-everything (the devDependency, pinned in package.json) in streamableHttp
// mode on 127.0.0.1, waits until it listens and prints its MCP endpoint URL.
//
//   node tests/servers/everything.mjs            # ephemeral port; prints e.g. http://127.0.0.1:41234/mcp
//   PORT=38101 node tests/servers/everything.mjs # fixed port
//   MODE=sse node tests/servers/everything.mjs   # the deprecated HTTP+SSE transport; prints e.g. http://127.0.0.1:41234/sse
//   import { startEverything } from "./everything.mjs"; const e = await startEverything(); ... await e.stop();
//
// The server is run as `node -r <shared>/scripts/loopback-only.cjs -r tests/servers/preload.cjs
// .../server-everything/dist/index.js streamableHttp` (it calls app.listen(PORT) without a host; the preload
// forces 127.0.0.1), with a minimal environment (its `get-env` tool prints the environment) and PORT set.
// <shared> is $TOOLWIRE_SHARED, else ../shared beside the repository. The server exits with its parent.

import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, "..", "..");
export const sharedDir = process.env.TOOLWIRE_SHARED ?? join(repo, "..", "shared");
export const loopbackPreload = join(sharedDir, "scripts", "loopback-only.cjs");
export const ourPreload = join(here, "preload.cjs");
export const everythingEntry = join(repo, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

/**
 * Starts server-everything; resolves {url, port, child, logs(), stop()} once it listens. `mode`: "streamableHttp"
 * (url: /mcp) or "sse", the deprecated HTTP+SSE transport of 2024-11-05 (url: its event stream, /sse; it takes
 * messages at /message?sessionId=..., see its dist/transports/sse.js).
 */
export function startEverything({ port = 0, timeoutMs = 30_000, mode = "streamableHttp" } = {}) {
  for (const [what, path] of [
    ["the loopback preload (set TOOLWIRE_SHARED)", loopbackPreload],
    ["server-everything (run scripts/setup.sh or npm ci)", everythingEntry],
  ]) {
    if (!existsSync(path)) return Promise.reject(new Error(`everything: ${what} not found at ${path}`));
  }
  const child = spawn(process.execPath, ["-r", loopbackPreload, "-r", ourPreload, everythingEntry, mode], {
    cwd: repo,
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, PORT: String(port), TOOLWIRE_REPORT_LISTEN: "1", TOOLWIRE_PARENT_PID: String(process.pid) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = [];
  const keep = (chunk) => {
    for (const l of chunk.toString().split("\n")) if (l) lines.push(l);
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  };
  child.stdout.on("data", keep); // server-everything logs every request on stdout: always drain it
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
      reject(new Error(`everything: not listening after ${timeoutMs} ms; output:\n${lines.join("\n")}`));
    }, timeoutMs);
    child.stderr.on("data", (chunk) => {
      keep(chunk);
      const m = /toolwire-listening (\d+)/.exec(chunk.toString());
      if (m) {
        clearTimeout(timer);
        const p = Number(m[1]);
        resolve({ url: `http://127.0.0.1:${p}/${mode === "sse" ? "sse" : "mcp"}`, port: p, child, logs: () => lines.join("\n"), stop });
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`everything: exited (${code ?? signal}) before listening; output:\n${lines.join("\n")}`));
    });
  });
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const server = await startEverything({ port: Number(process.env.PORT ?? 0), mode: process.env.MODE ?? "streamableHttp" });
  process.stdout.write(`${server.url}\n`);
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  server.child.once("exit", (code) => process.exit(code ?? 1));
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 500).unref();
}
