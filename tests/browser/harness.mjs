// Real headless Chromium for tests, driven over the W3C WebDriver protocol by Debian's chromedriver
// (the pages it loads are served by scripts/serve-static.mjs).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
  const args = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    `--user-data-dir=${profile}`,
  ];
  const session = await call("POST", "/session", {
    capabilities: {
      alwaysMatch: { browserName: "chrome", "goog:chromeOptions": { binary: process.env.CHROMIUM ?? "/usr/bin/chromium", args }, "goog:loggingPrefs": { browser: "ALL" } },
    },
  });
  const sid = session.sessionId;
  await call("POST", `/session/${sid}/timeouts`, { script: 60_000, pageLoad: 60_000 });
  return {
    goto: (url) => call("POST", `/session/${sid}/url`, { url }),
    /** Runs `script` (a function body using `done(value)`) in the page and returns what it passes to done. */
    evalAsync: (script) => call("POST", `/session/${sid}/execute/async`, { script: `const done = arguments[arguments.length - 1]; ${script}`, args: [] }),
    /** Waits for the page to set window.__engramResult. */
    result: () =>
      call("POST", `/session/${sid}/execute/async`, {
        script: "const done = arguments[arguments.length - 1]; (function poll() { if (window.__engramResult) done(window.__engramResult); else setTimeout(poll, 25); })();",
        args: [],
      }),
    /** A PNG of the viewport. */
    screenshot: async () => Buffer.from(await call("GET", `/session/${sid}/screenshot`), "base64"),
    /** The browser console's entries since the last call ({level, message, timestamp}). */
    browserLog: () => call("POST", `/session/${sid}/se/log`, { type: "browser" }),
    setWindowSize: (width, height) => call("POST", `/session/${sid}/window/rect`, { width, height }),
    async close() {
      await call("DELETE", `/session/${sid}`).catch(() => {});
      driver.kill();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
