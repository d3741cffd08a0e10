// Browser entry (script type=module without a bundler, bundlers, Electron renderers, workers): the
// ES-module glue fetches engram_bg.wasm next to it on first use, or from `initWasm(source)`.
import init, * as glue from "./wasm-web/engram.js";
import { setCoreLoader } from "./engram.js";

let ready = null;

/**
 * Loads the wasm module now, optionally from a custom source (URL, Response, bytes or
 * WebAssembly.Module); otherwise the first `Engram.open()` loads it from next to this file.
 */
export function initWasm(source) {
  ready ??= init(source === undefined ? undefined : { module_or_path: source }).then(() => glue);
  return ready;
}

setCoreLoader(() => initWasm());

export { Engram, EngramError, ERROR_CODES } from "./engram.js";
