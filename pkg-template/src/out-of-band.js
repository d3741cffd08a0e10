// What reaches the host out of band, beside the calls it made: failures of background work
// (automatic builds and consolidations, compactions, embedding what a job wrote), handed to
// `onBackgroundError` or logged; and damaged records a store opened with `onCorruption` left out.

import { asEngramError } from "./errors.js";

export class OutOfBand {
  #onBackgroundError;
  #onCorruption;

  constructor({ onBackgroundError, onCorruption }) {
    this.#onBackgroundError = onBackgroundError;
    this.#onCorruption = onCorruption;
  }

  /** A failure of work the host did not wait for (`what` names it); nothing was lost. */
  failed(e, what) {
    const error = asEngramError(e);
    try {
      if (this.#onBackgroundError) this.#onBackgroundError(error);
      else console.warn(`engram-wasm: ${what} failed (nothing was lost): ${error.message}`);
    } catch {
      // the host's handler failing must not break anything else
    }
  }

  /** Damaged records the core left out since it was last asked, handed to `onCorruption` once. */
  skipped(core) {
    if (!this.#onCorruption) return;
    const skipped = JSON.parse(core.takeSkipped());
    if (skipped.length === 0) return;
    try {
      this.#onCorruption({ skipped });
    } catch (e) {
      console.warn(`engram-wasm: onCorruption threw: ${e?.message ?? e}`);
    }
  }
}
