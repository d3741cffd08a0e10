// `openInWorker`: the page's handle on an Engram running in a module Web Worker. Same async methods
// as Engram; arguments and results cross by structured clone.
import { EngramError, invalid } from "./errors.js";
import { isPlainObject } from "./wire.js";

const METHODS = ["add", "get", "getAll", "update", "delete", "deleteAll", "history", "search", "ingest", "session", "sessions",
  "deleteSession", "recallContext", "resume", "stats", "reset", "flush", "compact", "refresh", "export", "import", "close"];

/**
 * Starts a worker running Engram. `options`: `model` and `tokenizer` URLs to load the local embedder
 * there (cached for offline use), `onProgress` for its load events, `workerUrl` to override where
 * `engram.worker.mjs` is served from; other options go to `Engram.open`.
 */
export async function openInWorker(options = {}) {
  if (!isPlainObject(options)) throw invalid("openInWorker: expected an options object");
  const { onProgress, workerUrl, ...rest } = options;
  if (onProgress !== undefined && typeof onProgress !== "function") throw invalid("openInWorker: `onProgress` must be a function");
  for (const key of ["model", "tokenizer"]) if (rest[key] instanceof URL) rest[key] = rest[key].href;
  const worker = new Worker(workerUrl ?? new URL("./engram.worker.mjs", import.meta.url), { type: "module" });
  const pending = new Map();
  let next = 0;
  worker.onmessage = ({ data }) => {
    if (data.progress) return onProgress?.(data.progress);
    const call = pending.get(data.id);
    if (!call) return;
    pending.delete(data.id);
    if (data.error) call.reject(new EngramError(data.error.code, data.error.message));
    else call.resolve(data.result);
  };
  worker.onerror = (e) => {
    for (const call of pending.values()) call.reject(new EngramError("Internal", `worker failed: ${e.message}`));
    pending.clear();
  };
  const call = (method, args) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, args });
    });
  await call("open", [rest]);
  const client = { terminate: () => worker.terminate() };
  for (const m of METHODS) client[m] = (...args) => call(m, args);
  const close = client.close;
  client.close = async () => {
    await close();
    worker.terminate();
  };
  return client;
}
