// The browser's vector graph build worker (dist/engram.vector-worker.mjs, a module Worker): loads its
// own instance of the wasm module, the way the browser entry does, and answers `{input, wasm?}` with
// `{output}` (the ArrayBuffer transferred) or `{error: {code, message}}`. A build is pure and
// CPU-bound (seconds to minutes), so it runs here while the page's Engram keeps answering queries.
import init, { buildVectorGraph } from "./wasm-web/engram.js";

let ready = null;

self.onmessage = async ({ data: { input, wasm } }) => {
  try {
    // `wasm`: the source the page's `initWasm(source)` was given, when it can cross to a worker.
    ready ??= init(wasm === undefined ? undefined : { module_or_path: wasm });
    await ready;
    const output = buildVectorGraph(input);
    self.postMessage({ output }, [output.buffer]);
  } catch (e) {
    ready = null; // a failed load may be retried by the next message
    // A trap stopped this worker's instance: it says so, and is never given another build.
    const stopped = e instanceof WebAssembly.RuntimeError;
    self.postMessage({ error: { code: typeof e?.code === "string" ? e.code : "Internal", message: String(e?.message ?? e) }, stopped });
  }
};
