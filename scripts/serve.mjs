// A tiny static file server for the demo: `node scripts/serve.mjs [dir]` (default www-demo), on
// 127.0.0.1 only, port from PORT (default 8080; 0 picks a free one). Serves .wasm as application/wasm,
// which WebAssembly.instantiateStreaming requires. Ctrl-C stops it.
//
//   import { startStatic } from "./serve.mjs";
//   const s = await startStatic({ root: "www-demo", port: 0, files: { "/config.js": { type: ".js", body } } });
//   s.url; await s.close();
//
// `files` serves fixed contents at exact paths (scripts/demo.mjs serves the generated config.js that way).
import { createServer } from "node:http";
import { createReadStream, realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const HOST = "127.0.0.1";

export const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

/** Serves `root` on 127.0.0.1; resolves to {url, port, close()} once it listens. */
export function startStatic({ root = "www-demo", port = 8080, files = {} } = {}) {
  root = resolve(root);

  async function fileFor(urlPath) {
    let path;
    try {
      path = resolve(join(root, decodeURIComponent(urlPath)));
    } catch {
      return null; // malformed percent-encoding
    }
    if (path !== root && !path.startsWith(root + sep)) return null; // outside the served directory
    try {
      const info = await stat(path);
      if (info.isDirectory()) return fileFor(join(urlPath, "index.html"));
      return info.isFile() ? { path, size: info.size } : null;
    } catch {
      return null;
    }
  }

  const server = createServer(async (req, res) => {
    const urlPath = new URL(req.url ?? "/", "http://localhost").pathname;
    const readable = req.method === "GET" || req.method === "HEAD";
    const fixed = readable ? files[urlPath] : undefined;
    if (fixed) {
      const body = Buffer.from(fixed.body);
      res.writeHead(200, {
        "content-type": TYPES[fixed.type] ?? "application/octet-stream",
        "content-length": body.length,
        "cache-control": "no-store",
      });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    if (!readable) {
      res.writeHead(405, { "content-type": TYPES[".txt"], allow: "GET, HEAD" });
      res.end(`method not allowed: ${req.method} (the demo's files are read with GET or HEAD)\n`);
      return;
    }
    const file = await fileFor(urlPath);
    if (!file) {
      res.writeHead(404, { "content-type": TYPES[".txt"] });
      res.end(req.method === "HEAD" ? undefined : "not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file.path)] ?? "application/octet-stream",
      "content-length": file.size,
      "cache-control": "no-store",
    });
    if (req.method === "HEAD") res.end();
    else createReadStream(file.path).pipe(res);
  });

  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () => {
      server.off("error", reject);
      const { port: actual } = server.address();
      resolvePromise({
        root,
        port: actual,
        url: `http://${HOST}:${actual}/`,
        server,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const s = await startStatic({ root: process.argv[2] ?? "www-demo", port: Number(process.env.PORT ?? 8080) });
  console.log(`Serving ${s.root} at ${s.url} (Ctrl-C stops)`);
  const stop = async () => {
    await s.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
