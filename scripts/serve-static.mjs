// A static file server on 127.0.0.1 for the repo, so pages import pkg/ as a browser would: used by
// scripts/serve.mjs (the demo page), the Chromium tests and the browser benchmark.
import { createServer } from "node:http";
import { readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(fileURLToPath(import.meta.url), "..", "..");

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css" };

/**
 * Serves files under `root` on `port` of the loopback address (an ephemeral one by default);
 * `onServe(path, bytes)` hears of every file served (benchmarks count what a page loads).
 */
export async function serveStatic(root = repo, port = 0, { onServe } = {}) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(root, path);
    if (!file.startsWith(root + sep)) return res.writeHead(403).end();
    try {
      if (!statSync(file).isFile()) throw new Error("not a file");
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "content-length": body.length, "cache-control": "no-store" });
      res.end(body);
      onServe?.(path, body.length);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(port, "127.0.0.1", ok));
  // Closing also drops kept-alive connections, so a browser really finds nothing listening.
  const close = () =>
    new Promise((ok) => {
      server.close(ok);
      server.closeAllConnections();
    });
  return { origin: `http://127.0.0.1:${server.address().port}`, close };
}
