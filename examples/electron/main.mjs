// Recipe, Electron companion: the app's main process (Electron 28+, ES modules). Electron's binary
// cannot be installed in the test environment, so tests/js/install.test.mjs runs this file under Node
// against a stand-in for the `electron` module. Start with `npx electron examples/electron/main.mjs`
// in an app that depends on engram-wasm.
import { app, BrowserWindow, ipcMain, net } from "electron";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { memoryHandlers, openMemory, registerMemoryIpc } from "./memory-main.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
// Any chat-completions server; net.fetch goes through Chromium's network stack (proxies, certificates).
const llm = { fetch: net.fetch, baseURL: process.env.LLM_BASE_URL ?? "http://localhost:11434/v1", model: process.env.LLM_MODEL ?? "llama3.1" };

let memory;
app.whenReady().then(async () => {
  memory = await openMemory({ dir: join(app.getPath("userData"), "memory"), llm });
  registerMemoryIpc(ipcMain, memoryHandlers(memory, { llm }));
  const win = new BrowserWindow({ webPreferences: { preload: join(here, "preload.cjs"), contextIsolation: true, sandbox: true } });
  await win.loadFile(join(here, "renderer.html"));
});

// Flush and release the store before the process ends (a write in flight completes first).
let closed = false;
app.on("before-quit", (event) => {
  if (closed || !memory) return;
  event.preventDefault();
  memory.close().finally(() => {
    closed = true;
    app.quit();
  });
});
app.on("window-all-closed", () => app.quit());
