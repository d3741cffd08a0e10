// The main thread's side of a vector graph build worker, shared by the Node (worker_threads) and
// browser (module Worker) entries: one build at a time over a small port, `{input}` → `{output}`
// with the ArrayBuffers transferred both ways.
import { EngramError } from "./errors.js";

/**
 * `port`: `{post(message, transfer), listen(onMessage, onFailure), terminate()}` over one worker.
 * Returns `{build(input) → Promise<Uint8Array>, terminate()}`; once the worker failed or was
 * terminated, every pending and later build rejects.
 */
export function workerBuilder(port, extra = {}) {
  let pending = null;
  let dead = null;
  const fail = (error) => {
    dead ??= error;
    const p = pending;
    pending = null;
    p?.reject(dead);
  };
  port.listen(
    (m) => {
      const p = pending;
      pending = null;
      const error = new EngramError(m?.error?.code ?? "Internal", `vector build failed in the worker: ${m?.error?.message ?? "no output"}`);
      // A worker whose instance trapped is done: the next reindex starts a new one (a new instance).
      if (m?.stopped === true) dead ??= error;
      if (!p) return;
      if (m?.output instanceof Uint8Array) p.resolve(m.output);
      else p.reject(error);
    },
    (message) => fail(new EngramError("Internal", `the vector build worker failed: ${message}`)),
  );
  return {
    build(input) {
      if (dead) return Promise.reject(dead);
      if (pending) return Promise.reject(new EngramError("Internal", "one vector build at a time per worker"));
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        try {
          port.post({ input, ...extra }, [input.buffer]);
        } catch (e) {
          fail(new EngramError("Internal", `cannot post to the vector build worker: ${e?.message ?? e}`));
        }
      });
    },
    terminate() {
      fail(new EngramError("Aborted", "the vector build worker was terminated"));
      port.terminate();
    },
  };
}
