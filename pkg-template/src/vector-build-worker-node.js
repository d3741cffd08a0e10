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
    parentPort.postMessage({ error: { code: typeof e?.code === "string" ? e.code : "Internal", message: String(e?.message ?? e) } });
  }
});
