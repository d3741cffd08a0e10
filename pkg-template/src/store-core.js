// A store's core: the `EngramCore` handle on the live wasm instance, with the local embedder set
// and the storage loaded. Opening does this once; recovery after an internal fault does it again
// on the replacement instance, from the same settings (open-options.js `reopen`).

import { asEngramError } from "./errors.js";
import { withLock } from "./storage-bridge.js";
import { Embedder } from "./local-embedder.js";
import { faultsOf, unlessFaulted } from "./faults.js";
import { forgetHandle, liveCore } from "./instance.js";

/** A new core on the live instance, opened from storage when there is an adapter: `{glue, core}`. */
export async function openCore({ coreJson, storeJson, storage, adapter, local }, onBatch) {
  const glue = await liveCore();
  const faults = faultsOf(glue);
  let core;
  try {
    const handle = local ? await Embedder.handleOn(local, glue) : null;
    core = new glue.EngramCore(coreJson);
    if (handle) core.setEmbedder(handle);
    if (adapter) await withLock(storage, () => unlessFaulted(faults, core.open(adapter, storeJson, onBatch)));
  } catch (e) {
    if (faults.message === null) core?.free();
    else forgetHandle(core);
    throw asEngramError(e);
  }
  return { glue, core };
}
