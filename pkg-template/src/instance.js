// The live wasm instance. A trap stops an instance for good (faults.js); the next call that needs
// one gets a replacement: a new evaluation of the glue module (wasm-bindgen glue keeps its instance
// in module-level variables, so a new instance needs new glue), shared by every store and embedder.
// Handles made on the stopped instance are never called into again (`forgetHandle`).
import { EngramError, asEngramError } from "./errors.js";
import { freshCore, loadCore } from "./core.js";
import { faultsOf } from "./faults.js";

let live = null;
let starting = null;

/** The glue of a running instance: the first one loaded, or the replacement of a stopped one. */
export async function liveCore() {
  // Twice at most: a replacement that is itself stopped before anyone used it is not retried in a loop.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (live && faultsOf(live).message === null) return live;
    starting ??= start(live === null).finally(() => {
      starting = null;
    });
    await starting;
  }
  throw new EngramError("Internal", "a new wasm instance stopped as soon as it started");
}

async function start(first) {
  try {
    live = await (first ? loadCore() : freshCore());
  } catch (e) {
    // The next call tries again (a fetch that failed may work later).
    throw first ? asEngramError(e) : new EngramError("Internal", `cannot start a new wasm instance after an internal fault: ${e?.message ?? e}`, { cause: e });
  }
}

/**
 * Drops a handle (EngramCore, LocalEmbedder) of a stopped instance without calling into it: its
 * finalizer would otherwise call the stopped instance's `free` when it is garbage-collected, which
 * could trap again outside any call. `__destroy_into_raw` is wasm-bindgen's own detach step (what
 * `free` does before it calls into wasm).
 */
export function forgetHandle(handle) {
  try {
    handle?.__destroy_into_raw?.();
  } catch {
    // nothing to release
  }
}
