// Browser entry (script type=module without a bundler, bundlers, Electron renderers, workers): the
// ES-module glue fetches engram_bg.wasm next to it on first use, or from `initWasm(source)`. Model
// files are fetched once and kept in the Cache API, so a static page works offline afterwards.
import init, * as glue from "./wasm-web/engram.js";
import { registerEnvironment } from "./core.js";
import { EngramError, invalid } from "./errors.js";
import { checkAborted } from "./local-embedder.js";
import { workerBuilder } from "./vector-builder.js";

let ready = null;
/** The custom wasm source of `initWasm`, in a form a build worker can load it from too. */
let workerWasm;

/**
 * Loads the wasm module now, optionally from a custom source (URL, Response, bytes or
 * WebAssembly.Module); otherwise the first `Engram.open()` loads it from next to this file.
 */
export function initWasm(source) {
  if (!ready) workerWasm = postableSource(source);
  ready ??= init(source === undefined ? undefined : { module_or_path: source }).then(() => glue);
  return ready;
}

function postableSource(source) {
  if (source === undefined || source === null) return undefined;
  // Relative URLs are resolved here: the worker would resolve them against its own script.
  if (typeof source === "string") return new URL(source, globalThis.location?.href).href;
  if (source instanceof URL) return source.href;
  if (typeof Request === "function" && source instanceof Request) return source.url;
  if (typeof Response === "function" && source instanceof Response) return source.url || undefined;
  // A compiled module crosses to a worker without being compiled again; bytes are copied.
  if (source instanceof WebAssembly.Module || source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  return undefined;
}

/**
 * Vector graph builds run in a module Worker (engram.vector-worker.mjs next to this file; written as
 * `new Worker(new URL(…, import.meta.url))` so bundlers that understand workers emit it) with its own
 * instance of the wasm module, so a build never blocks the page or the worker answering queries.
 */
function browserVectorBuilder({ url } = {}) {
  const worker = url
    ? new Worker(url, { type: "module" })
    : new Worker(new URL("./engram.vector-worker.mjs", import.meta.url), { type: "module" });
  return workerBuilder(
    {
      post: (message, transfer) => worker.postMessage(message, transfer),
      listen(onMessage, onFailure) {
        worker.onmessage = (e) => onMessage(e.data);
        worker.onmessageerror = () => onFailure("a message could not be read");
        worker.onerror = (e) => {
          e.preventDefault?.();
          onFailure(e.message || `cannot load or run ${url ?? "engram.vector-worker.mjs"} (set vectorIndex.workerUrl where it is served)`);
        };
      },
      terminate: () => worker.terminate(),
    },
    workerWasm === undefined ? {} : { wasm: workerWasm },
  );
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

let instances = 0;

/**
 * A new wasm instance after an internal fault stopped the first one: the glue keeps its instance in
 * module-level variables, so it is imported again under a unique URL (a new module evaluation) and
 * started from the same source. Works where the glue is served next to this file (the package's
 * layout); the stopped instance's memory stays reserved until the page reloads (a module is never
 * unloaded).
 */
async function freshGlue() {
  const url = new URL(`./wasm-web/engram.js?instance=${++instances}`, import.meta.url).href;
  const fresh = await import(/* webpackIgnore: true */ /* @vite-ignore */ url);
  await fresh.default(workerWasm === undefined ? undefined : { module_or_path: workerWasm });
  return fresh;
}

registerEnvironment({ loadCore: () => initWasm(), freshCore: freshGlue, readSource, vectorBuilder: typeof Worker === "function" ? browserVectorBuilder : null });

export { Engram, EngramError, ERROR_CODES, Embedder } from "./engram.js";
export { openAICompatible } from "./llm.js";
export { MemoryStorage } from "./storage/memory.js";
export { IndexedDBStorage } from "./storage/indexeddb.js";
export { encrypted } from "./storage/encrypted.js";
export { deriveKey, encryptBytes, decryptBytes } from "./encryption.js";
export { openInWorker } from "./worker-client.js";
