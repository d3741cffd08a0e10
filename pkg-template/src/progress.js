// `{signal, onProgress}` of the calls that can run long (import, addMany, ingest, ingestMany, open's
// reembed, compact, reindex and the LLM jobs): one check of the options, one rejection on abort
// (EngramError `Aborted`) and one event shape, `{phase, done, total}` in the call's work units.

import { EngramError } from "./errors.js";
import { is } from "./options.js";

/** The option rules every long call takes (spread into its own option spec). */
export const WATCH_OPTIONS = Object.freeze({ signal: is.signal, onProgress: is.callback });

export function abortedError(what) {
  return new EngramError("Aborted", `${what} was aborted by the caller's signal`);
}

/**
 * One call's progress and abort: `report` keeps `done` non-decreasing and never above `total`
 * (`total` may grow as the call finds more work); `check` throws Aborted once the signal aborted.
 */
export class Progress {
  #what;
  #signal;
  #onProgress;
  #done = 0;
  #total = 0;
  /** Units of the stages already run (a call made of calls, like `ingest` with `{extract}`). */
  #base = 0;

  /**
   * `what` names the call in the Aborted message, "the import" say; a null signal or callback counts as none.
   * @param {string} what
   * @param {{signal?: AbortSignal | null, onProgress?: ((event: any) => void) | null}} [watch]
   */
  constructor(what, { signal, onProgress } = {}) {
    this.#what = what;
    this.#signal = signal ?? undefined;
    this.#onProgress = onProgress ?? undefined;
  }

  get signal() {
    return this.#signal;
  }

  /** Someone watches: work worth slicing (embedding, by a host embedder or the local model) is then done in slices. */
  get watched() {
    return this.#signal !== undefined || this.#onProgress !== undefined;
  }

  check() {
    if (this.#signal?.aborted) throw abortedError(this.#what);
  }

  /** Reports `done` of `total` units of this stage; `extra` fields ride along (a reindex step, say). */
  report(phase, done, total, extra) {
    this.#total = Math.max(this.#total, this.#base + total);
    this.#done = Math.min(this.#total, Math.max(this.#done, this.#base + done));
    if (!this.#onProgress) return;
    try {
      this.#onProgress({ ...extra, phase, done: this.#done, total: this.#total });
    } catch {
      // a throwing progress callback must not break the call
    }
  }

  /** The stage's last report: all its units done (after its write, for a write). */
  finish(phase) {
    const total = this.#total - this.#base;
    this.report(phase, total, total);
  }

  /** The `onProgress` of a call run as the next stage of this one: its units come after those so far. */
  stage() {
    this.#base = this.#total;
    if (!this.#onProgress) return undefined;
    return ({ phase, done, total, ...extra }) => this.report(phase, done, total, extra);
  }
}
