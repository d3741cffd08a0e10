// Recipe, Electron companion: the main-process half. The engine lives in the main process with
// NodeFSStorage under the app's userData directory; the renderer reaches it through IPC handlers,
// which are plain functions here so they run (and are tested) under Node without Electron:
// tests/js/recipes.test.mjs drives them as the renderer would. main.mjs wires them to `ipcMain`.
import { Engram, openAICompatible } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { chatWithMemory } from "../chat-memory.mjs";

/**
 * Opens the store in `dir` (Electron: `join(app.getPath("userData"), "memory")`). `llm`: optional
 * `{fetch, baseURL, model, apiKey}` (Electron: `net.fetch`), used for chat and for extraction.
 * `embedder`: left out, the local model from ENGRAM_MODEL_DIR / ./models; `null` keyword-only.
 */
export async function openMemory({ dir, llm, embedder }) {
  return Engram.open({
    storage: new NodeFSStorage(dir),
    ...(embedder !== undefined ? { embedder } : {}),
    ...(llm ? { llm: openAICompatible(llm) } : {}),
  });
}

/**
 * The IPC surface, channel → handler(...args). Each resolves to `{ok: true, value}` or
 * `{ok: false, error: {code, message}}`: Electron passes a rejected handler's error to the renderer
 * as a message string only, so the code (InvalidInput, NotFound, …) travels in the value instead.
 * Only what the renderer needs is exposed; arguments are data (structured-cloned by Electron).
 */
export function memoryHandlers(memory, { llm } = {}) {
  const chats = new Map();
  const handlers = {
    "memory:add": (input, options) => memory.add(input, options),
    "memory:recall": (query, options) => memory.recallContext(query, options),
    "memory:search": (query, options) => memory.search(query, options),
    "memory:forget": (id) => memory.delete(id),
    "memory:stats": () => memory.stats(),
    /** One chat turn with memory (examples/chat-memory.mjs), the LLM called from main with its fetch. */
    "memory:chat": async (sessionId, text) => {
      if (!llm) throw Object.assign(new Error("no LLM configured in the main process"), { code: "Llm" });
      if (!chats.has(sessionId)) chats.set(sessionId, chatWithMemory({ memory, ...llm, sessionId }));
      const { reply, context } = await chats.get(sessionId).send(text);
      return { reply, memoryTokens: context.tokens };
    },
  };
  return Object.fromEntries(
    Object.entries(handlers).map(([channel, fn]) => [
      channel,
      async (...args) => {
        try {
          return { ok: true, value: await fn(...args) };
        } catch (e) {
          return { ok: false, error: { code: typeof e?.code === "string" ? e.code : "Internal", message: String(e?.message ?? e) } };
        }
      },
    ]),
  );
}

/** Wires the handlers to Electron's `ipcMain` (`ipcMain.handle(channel, (event, ...args) => …)`). */
export function registerMemoryIpc(ipcMain, handlers) {
  for (const [channel, handler] of Object.entries(handlers)) ipcMain.handle(channel, (_event, ...args) => handler(...args));
  return () => Object.keys(handlers).forEach((channel) => ipcMain.removeHandler(channel));
}
