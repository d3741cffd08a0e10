// Browser entry (script type=module without a bundler, bundlers, Electron renderers, workers): the
// ES-module glue fetches engram_bg.wasm next to it on first use, or from `initWasm(source)`. Model
// files are fetched once and kept in the Cache API, so a static page works offline afterwards.
import init, * as glue from "./wasm-web/engram.js";
import { registerEnvironment } from "./core.js";
import { EngramError, invalid } from "./errors.js";
import { checkAborted } from "./local-embedder.js";

let ready = null;

/**
 * Loads the wasm module now, optionally from a custom source (URL, Response, bytes or
 * WebAssembly.Module); otherwise the first `Engram.open()` loads it from next to this file.
 */
export function initWasm(source) {
  ready ??= init(source === undefined ? undefined : { module_or_path: source }).then(() => glue);
  return ready;
}

const CACHE = "engram-models-v1";

async function cached(url) {
  try {
    const cache = await caches.open(CACHE);
    return { cache, hit: await cache.match(url) };
  } catch {
    return { cache: null, hit: undefined }; // no Cache API here (e.g. not a secure context)
  }
}

/** Reads a response body, reporting progress as it arrives. */
async function readBody(res, name, progress, signal) {
  const total = Number(res.headers.get("content-length")) || 0;
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    checkAborted(signal);
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    progress({ status: "progress", file: name, loaded, total, progress: total ? (100 * loaded) / total : 0 });
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

async function readSource(source, { name, progress, signal }) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (typeof source !== "string" && !(source instanceof URL)) throw invalid(`Embedder.load: \`${name}\` must be bytes or a URL`);
  const url = new URL(source, globalThis.location?.href).href;
  checkAborted(signal);
  progress({ status: "initiate", file: name });
  const { cache, hit } = await cached(url);
  if (hit) {
    const bytes = new Uint8Array(await hit.arrayBuffer());
    progress({ status: "done", file: name, loaded: bytes.length, total: bytes.length, progress: 100, cached: true });
    return bytes;
  }
  let res;
  try {
    res = await fetch(url, { signal });
  } catch (e) {
    throw new EngramError(signal?.aborted ? "Aborted" : "Embedder", `fetching ${name} from ${url}: ${e.message}`);
  }
  if (!res.ok) throw new EngramError("Embedder", `fetching ${name} from ${url}: HTTP ${res.status}`);
  const bytes = await readBody(res, name, progress, signal);
  // Written only once the whole body arrived, so a cut download is never cached as a model.
  await cache?.put(url, new Response(bytes, { headers: { "content-type": "application/octet-stream" } })).catch(() => {});
  progress({ status: "done", file: name, loaded: bytes.length, total: bytes.length, progress: 100 });
  return bytes;
}

registerEnvironment({ loadCore: () => initWasm(), readSource });

export { Engram, EngramError, ERROR_CODES, Embedder } from "./engram.js";
export { MemoryStorage } from "./storage/memory.js";
export { IndexedDBStorage } from "./storage/indexeddb.js";
export { openInWorker } from "./worker-client.js";
