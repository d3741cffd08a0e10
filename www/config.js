// Where the demo finds its parts. Relative to this file, so the page works from any static path;
// each can be overridden by a query parameter (?model=…&tokenizer=…&db=…&embedder=none).
const params = new URLSearchParams(location.search);
const here = (path) => new URL(path, import.meta.url).href;

export const config = {
  /** The local embedder's files, fetched once and then served from the Cache API. */
  model: params.get("model") ?? here("../models/model.onnx"),
  tokenizer: params.get("tokenizer") ?? here("../models/tokenizer.json"),
  /** "none": keyword-only, no model download. */
  keywordOnly: params.get("embedder") === "none",
  /** The IndexedDB database the worker's store lives in. */
  db: params.get("db") ?? "engram-www",
  /** The workers, started from this folder so the service worker (scope: this folder) serves them offline. */
  worker: here("./engram-worker.js"),
  vectorWorker: here("./vector-worker.js"),
  /** The service worker that keeps the page's own files for offline reloads. */
  serviceWorker: here("./sw.js"),
};
