// Consolidation on the JS side: checks `consolidate()`'s options, and runs epochs on their own
// (`autoConsolidate`) after enough writes or time. The epoch itself is the core's plan → calls →
// apply (jobs.js).
import { invalid } from "./errors.js";
import { is, readOptions } from "./options.js";

const BUFFER_CAP = is.intIn(1, 1_000_000);
const CONSOLIDATE_OPTIONS = Object.freeze({ namespace: is.string, onProgress: is.callback, signal: is.signal, maxLlmCalls: is.count, dryRun: is.boolean, bufferCap: BUFFER_CAP });
const AUTO_OPTIONS = Object.freeze({ everyWrites: is.intIn(1, Number.MAX_SAFE_INTEGER), everyMs: is.intIn(1000, Number.MAX_SAFE_INTEGER), bufferCap: BUFFER_CAP });

/** `consolidate(options)`'s options, checked; the signal and progress callback stay on the JS side. */
export function consolidateOptions(options) {
  const { namespace, onProgress, signal, maxLlmCalls, dryRun, bufferCap } = readOptions(options, "consolidate", CONSOLIDATE_OPTIONS);
  return { namespace, onProgress: onProgress ?? null, signal: signal ?? undefined, maxLlmCalls, dryRun: dryRun === true, bufferCap };
}

/** `autoConsolidate` from open's options: `null` (off, the default) or `{everyWrites, everyMs, bufferCap}`. */
export function autoConsolidateOptions(auto) {
  if (auto === undefined || auto === null || auto === false) return null;
  const { everyWrites, everyMs, bufferCap } = readOptions(auto, "open: autoConsolidate", AUTO_OPTIONS, "{everyWrites: 100} or {everyMs: 600000}");
  if (everyWrites === undefined && everyMs === undefined) throw invalid("open: `autoConsolidate` needs `everyWrites` or `everyMs`");
  return { everyWrites, everyMs, bufferCap };
}

/**
 * Runs consolidation epochs on their own: after `everyWrites` writes or every `everyMs`, one at a
 * time, through the store's queue like any write (so never in the middle of a query). A failure
 * goes to `onBackgroundError` (or a warning); the epoch's write is all or nothing, so nothing is lost.
 */
export class AutoConsolidator {
  #settings;
  #run;
  #report;
  #writes = 0;
  #running = null;
  #timer = null;
  #closed = false;

  /** `run(options)` runs one epoch; `report(error)` hands a failure to the host. */
  constructor(settings, run, report) {
    this.#settings = settings;
    this.#run = run;
    this.#report = report;
    if (settings.everyMs !== undefined) {
      this.#timer = setInterval(() => this.#start(), settings.everyMs);
      // A timer must not keep a Node process alive on its own.
      this.#timer?.unref?.();
    }
  }

  /** After a write of the host's has resolved (the epoch's own write is not reported here). */
  wrote() {
    if (this.#settings.everyWrites === undefined) return;
    this.#writes++;
    this.#startIfDue();
  }

  #startIfDue() {
    if (this.#settings.everyWrites !== undefined && this.#writes >= this.#settings.everyWrites) this.#start();
  }

  /** The epoch running now, if any (tests and `close` wait on it). */
  get running() {
    return this.#running;
  }

  #start() {
    if (this.#running || this.#closed) return;
    this.#writes = 0;
    const options = this.#settings.bufferCap === undefined ? {} : { bufferCap: this.#settings.bufferCap };
    this.#running = this.#run(options)
      .catch((e) => {
        if (!this.#closed) this.#report(e);
      })
      .finally(() => {
        this.#running = null;
        // Writes that came in during the epoch count toward the next one.
        this.#startIfDue();
      });
  }

  close() {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
