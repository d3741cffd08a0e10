// Consolidation on the JS side: checks `consolidate()`'s options, and runs epochs on their own
// (`autoConsolidate`) after enough writes or time. The epoch itself is the core's plan → calls →
// apply; the facade runs the calls through the host's LLM between the two.
import { invalid } from "./errors.js";
import { fields, isPlainObject } from "./wire.js";

export const CONSOLIDATE_OPTIONS = new Set(["namespace", "onProgress", "signal", "maxLlmCalls", "dryRun", "bufferCap"]);
const AUTO_OPTIONS = new Set(["everyWrites", "everyMs", "bufferCap"]);

/** `consolidate(options)`'s options, checked; the signal and progress callback stay on the JS side. */
export function consolidateOptions(options) {
  if (!isPlainObject(options)) throw invalid("consolidate: expected an options object");
  for (const key of Object.keys(options)) {
    if (!CONSOLIDATE_OPTIONS.has(key)) throw invalid(`consolidate: unknown option \`${key}\` (allowed: ${[...CONSOLIDATE_OPTIONS].join(", ")})`);
  }
  const { namespace, onProgress, signal, maxLlmCalls, dryRun, bufferCap } = fields(options, "consolidate");
  if (namespace !== undefined && typeof namespace !== "string") throw invalid("consolidate: `namespace` must be a string");
  if (onProgress !== undefined && onProgress !== null && typeof onProgress !== "function") throw invalid("consolidate: `onProgress` must be a function");
  if (signal !== undefined && signal !== null && !(typeof signal === "object" && typeof signal.aborted === "boolean")) throw invalid("consolidate: `signal` must be an AbortSignal");
  if (maxLlmCalls !== undefined && (!Number.isInteger(maxLlmCalls) || maxLlmCalls < 0)) throw invalid("consolidate: `maxLlmCalls` must be a non-negative integer");
  if (dryRun !== undefined && typeof dryRun !== "boolean") throw invalid("consolidate: `dryRun` must be a boolean");
  if (bufferCap !== undefined && (!Number.isInteger(bufferCap) || bufferCap < 1 || bufferCap > 1_000_000)) throw invalid("consolidate: `bufferCap` must be an integer in 1..1000000");
  return { namespace, onProgress: onProgress ?? null, signal: signal ?? undefined, maxLlmCalls, dryRun: dryRun === true, bufferCap };
}

/** `autoConsolidate` from open's options: `null` (off, the default) or `{everyWrites, everyMs, bufferCap}`. */
export function autoConsolidateOptions(auto) {
  if (auto === undefined || auto === null || auto === false) return null;
  if (!isPlainObject(auto)) throw invalid("open: `autoConsolidate` must be an object like {everyWrites: 100} or {everyMs: 600000}");
  for (const key of Object.keys(auto)) {
    if (!AUTO_OPTIONS.has(key)) throw invalid(`open: unknown autoConsolidate option \`${key}\` (allowed: ${[...AUTO_OPTIONS].join(", ")})`);
  }
  const { everyWrites, everyMs, bufferCap } = auto;
  if (everyWrites !== undefined && (!Number.isInteger(everyWrites) || everyWrites < 1)) throw invalid("open: `autoConsolidate.everyWrites` must be a positive integer");
  if (everyMs !== undefined && (!Number.isInteger(everyMs) || everyMs < 1000)) throw invalid("open: `autoConsolidate.everyMs` must be an integer of at least 1000 (milliseconds)");
  if (everyWrites === undefined && everyMs === undefined) throw invalid("open: `autoConsolidate` needs `everyWrites` or `everyMs`");
  if (bufferCap !== undefined && (!Number.isInteger(bufferCap) || bufferCap < 1 || bufferCap > 1_000_000)) throw invalid("open: `autoConsolidate.bufferCap` must be an integer in 1..1000000");
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
