// The Web Worker side of `openInWorker`: one Engram (and its embedder) lives in this worker and
// answers the page's calls by message, so embedding and search never block the page.
import { Embedder, Engram, IndexedDBStorage } from "./entry-browser.js";

let engram = null;

const methods = new Set(["add", "get", "getAll", "update", "delete", "deleteAll", "history", "search", "ingest", "session", "sessions",
  "deleteSession", "recallContext", "resume", "stats", "reset", "flush", "compact", "refresh", "export", "import", "close"]);

async function open({ model, tokenizer, indexedDB, ...options }) {
  if (engram) throw Object.assign(new Error("this worker already holds an open Engram"), { code: "InvalidInput" });
  let embedder = options.embedder ?? null;
  if (model !== undefined || tokenizer !== undefined) {
    embedder = await Embedder.load({ model, tokenizer, onProgress: (event) => self.postMessage({ progress: event }) });
  }
  // Adapters cannot be posted to a worker; the page names the database and the worker opens it.
  const storage = indexedDB === undefined ? undefined : new IndexedDBStorage(indexedDB);
  engram = await Engram.open({ ...options, embedder, ...(storage ? { storage } : {}) });
}

self.onmessage = async ({ data: { id, method, args } }) => {
  try {
    let result;
    if (method === "open") result = await open(args[0] ?? {});
    else if (!engram) throw Object.assign(new Error("open the worker's Engram first"), { code: "Closed" });
    else if (!methods.has(method)) throw Object.assign(new Error(`unknown method ${method}`), { code: "InvalidInput" });
    else result = await engram[method](...args);
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: { code: e?.code ?? "Internal", message: String(e?.message ?? e) } });
  }
};
