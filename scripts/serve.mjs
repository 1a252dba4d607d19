// A tiny static file server for the demo: `node scripts/serve.mjs [dir]` (default www-demo), on
// 127.0.0.1 only, port from PORT (default 8080). Serves .wasm as application/wasm, which
// WebAssembly.instantiateStreaming requires. Ctrl-C stops it.
import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";

const root = resolve(process.argv[2] ?? "www-demo");
const port = Number(process.env.PORT ?? 8080);
const host = "127.0.0.1";

const TYPES = {
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
  const file = req.method === "GET" || req.method === "HEAD" ? await fileFor(urlPath) : null;
  if (!file) {
    res.writeHead(req.method === "GET" || req.method === "HEAD" ? 404 : 405, { "content-type": TYPES[".txt"] });
    res.end("not found\n");
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

server.listen(port, host, () => {
  const { port: actual } = server.address();
  console.log(`Serving ${root} at http://${host}:${actual}/ (Ctrl-C stops)`);
});

process.on("SIGINT", () => {
  server.close();
  process.exit(0);
});
