// Real headless Chromium for tests, driven over the W3C WebDriver protocol by Debian's chromedriver,
// with a static file server on 127.0.0.1 for the repo (so pages import pkg/ as a browser would).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(fileURLToPath(import.meta.url), "..", "..", "..");

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css" };

/** Serves files under `root` on an ephemeral loopback port. */
export async function serveStatic(root = repo, port = 0) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(root, path);
    if (!file.startsWith(root + sep)) return res.writeHead(403).end();
    try {
      if (!statSync(file).isFile()) throw new Error("not a file");
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "content-length": body.length, "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(port, "127.0.0.1", ok));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok)) };
}

async function freePort() {
  const s = createServer();
  await new Promise((ok) => s.listen(0, "127.0.0.1", ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}

/** Starts chromedriver + a headless Chromium session. */
export async function startBrowser() {
  const port = await freePort();
  const driver = spawn(process.env.CHROMEDRIVER ?? "chromedriver", [`--port=${port}`], { stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { "content-type": "application/json" }, body: body && JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`webdriver ${method} ${path}: ${json.value?.message ?? res.status}`);
    return json.value;
  };
  for (let i = 0; ; i++) {
    try {
      if ((await call("GET", "/status")).ready) break;
    } catch {}
    if (i > 100) throw new Error("chromedriver did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const profile = mkdtempSync(join(tmpdir(), "engram-chromium-"));
  const args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", `--user-data-dir=${profile}`];
  const session = await call("POST", "/session", {
    capabilities: { alwaysMatch: { browserName: "chrome", "goog:chromeOptions": { binary: process.env.CHROMIUM ?? "/usr/bin/chromium", args } } },
  });
  const sid = session.sessionId;
  await call("POST", `/session/${sid}/timeouts`, { script: 60_000, pageLoad: 60_000 });
  return {
    goto: (url) => call("POST", `/session/${sid}/url`, { url }),
    /** Runs `script` (a function body using `done(value)`) in the page and returns what it passes to done. */
    evalAsync: (script) => call("POST", `/session/${sid}/execute/async`, { script: `const done = arguments[arguments.length - 1]; ${script}`, args: [] }),
    /** Waits for the page to set window.__engramResult. */
    result: () => call("POST", `/session/${sid}/execute/async`, {
      script: "const done = arguments[arguments.length - 1]; (function poll() { if (window.__engramResult) done(window.__engramResult); else setTimeout(poll, 25); })();",
      args: [],
    }),
    async close() {
      await call("DELETE", `/session/${sid}`).catch(() => {});
      driver.kill();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
