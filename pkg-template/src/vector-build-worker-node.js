// Node's vector graph build worker (dist/engram.vector-worker.node.cjs, run by worker_threads): loads
// its own instance of the wasm module through the package's Node glue and answers `{input}` with
// `{output}` (the ArrayBuffer transferred) or `{error: {code, message}}`.
import { parentPort } from "node:worker_threads";
import { buildVectorGraph } from "./wasm-node/engram.js";

parentPort.on("message", ({ input }) => {
  try {
    const output = buildVectorGraph(input);
    parentPort.postMessage({ output }, [output.buffer]);
  } catch (e) {
    // A trap stopped this worker's instance: it says so, and is never given another build.
    const stopped = e instanceof WebAssembly.RuntimeError;
    parentPort.postMessage({ error: { code: typeof e?.code === "string" ? e.code : "Internal", message: String(e?.message ?? e) }, stopped });
  }
});
