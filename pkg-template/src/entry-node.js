// Node entry (ESM `import` and CJS `require`, Electron main): the CommonJS wasm glue loads the module
// synchronously from disk next to it.
import * as glue from "./wasm-node/engram.js";
import { setCoreLoader } from "./engram.js";

setCoreLoader(async () => glue);

export { Engram, EngramError, ERROR_CODES } from "./engram.js";

/** Present for parity with the browser entry: in Node the wasm module loads with the package. */
export function initWasm() {
  return Promise.resolve();
}
