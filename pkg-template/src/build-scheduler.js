// Vector index builds of one Engram: explicit `reindex()` calls and the automatic builds that start
// after writes. A build plans on the Engram's call queue (cheap), builds off it (in a worker where
// there is one), and installs through the queue's write path, so queries keep being answered from
// the current tiers meanwhile. One build runs at a time.

import { asEngramError, closedError } from "./errors.js";
import { vectorBuilder } from "./core.js";
import { is, readOptions } from "./options.js";
import { abortedError, Progress, WATCH_OPTIONS } from "./progress.js";

const REINDEX_OPTIONS = Object.freeze({ ...WATCH_OPTIONS, inWorker: is.boolean });
const aborted = () => abortedError("the reindex");

/** Builds per reindex: each is bounded by the segment size; this bounds the loop even if the index keeps changing under it. */
const REINDEX_STEPS_MAX = 16;
const ABORTED = Symbol("aborted");

/** `promise`, or Aborted as soon as `signal` aborts. */
function unlessAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(aborted());
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export class BuildScheduler {
  /** The Engram's current glue (it changes when the store moves to a new instance after a fault). */
  #glue;
  /** The Engram's call queue: `enqueue(core => …)`, and `commit(core, fn)` for a write under its storage lock. */
  #enqueue;
  #commit;
  /** The Engram's `vectorIndexStats()`, what an explicit reindex resolves with. */
  #stats;
  /** Automatic builds: on, paused after a failure (until a `reindex()` succeeds), a check scheduled. */
  #auto;
  #autoPaused = false;
  #autoTimer = null;
  /** Writes made through the Engram (an automatic build that saw more of them looks again). */
  #writes = 0;
  #onBackgroundError;
  #workerUrl;
  #closing = false;
  /** The reindex running now (explicit or automatic), and the worker building for it. */
  #reindexing = null;
  #builder = null;

  /** `{glue: () => glue, enqueue, commit, stats, auto, onBackgroundError, workerUrl}`; see the fields above. */
  constructor({ glue, enqueue, commit, stats, auto, onBackgroundError, workerUrl }) {
    this.#glue = glue;
    this.#enqueue = enqueue;
    this.#commit = commit;
    this.#stats = stats;
    this.#auto = auto;
    this.#onBackgroundError = onBackgroundError;
    this.#workerUrl = workerUrl;
  }

  /** After a write has resolved. */
  wrote() {
    this.#writes++;
    this.#scheduleAutoReindex();
  }

  /**
   * An explicit reindex (`{onProgress, signal, inWorker}`, as the caller gave them): waits for a
   * running build, then builds whatever the exact tier holds. Success resumes paused automatic builds.
   */
  async reindex(options) {
    const { onProgress, inWorker = true, signal: given } = readOptions(options, "reindex", REINDEX_OPTIONS);
    const signal = given ?? undefined;
    if (signal?.aborted) throw aborted();
    if (this.#closing) throw closedError();
    while (this.#reindexing)
      await unlessAborted(
        this.#reindexing.catch(() => {}),
        signal,
      );
    const result = await this.#startReindex({ force: true, onProgress, signal, inWorker, background: false });
    this.#autoPaused = false;
    return result;
  }

  /** Stops at once: a build in a worker is terminated (its reindex rejects with Closed). */
  close() {
    this.#closing = true;
    clearTimeout(this.#autoTimer);
    this.#autoTimer = null;
    this.#builder?.terminate();
  }

  /**
   * After a write: once the write has resolved, look (on the queue, cheaply) whether a build is due
   * and run it in the background. One at a time; never on open; a query never waits for a build.
   */
  #scheduleAutoReindex() {
    if (!this.#auto || this.#autoPaused || this.#closing || this.#reindexing || this.#autoTimer) return;
    this.#autoTimer = setTimeout(() => {
      this.#autoTimer = null;
      if (!this.#auto || this.#autoPaused || this.#closing || this.#reindexing) return;
      const writes = this.#writes;
      this.#startReindex({ force: false, inWorker: true, background: true }).then(
        () => {
          // Writes made during the build may have made another one due.
          if (this.#writes !== writes) this.#scheduleAutoReindex();
        },
        (e) => {
          if (this.#closing || e?.code === "Aborted") return;
          this.#autoPaused = true; // reported once, not after every later write
          const error = asEngramError(e);
          try {
            if (this.#onBackgroundError) this.#onBackgroundError(error);
            else console.warn(`engram-wasm: a background vector index build failed; automatic builds pause until reindex() succeeds: ${error.message}`);
          } catch {
            // the host's handler failing must not become an unhandled rejection
          }
        },
      );
    }, 0);
  }

  #startReindex(options) {
    const run = this.#reindexLoop(options).finally(() => {
      if (this.#reindexing === run) this.#reindexing = null;
    });
    this.#reindexing = run;
    return run;
  }

  #checkRunning(signal) {
    if (this.#closing) throw closedError();
    if (signal?.aborted) throw aborted();
  }

  /** plan → build (off the queue) → install (a queued write) until nothing is left to build. */
  async #reindexLoop({ force, onProgress, signal, inWorker, background }) {
    const steps = [];
    let loaded = 0;
    let total = 0;
    // Points are the units.
    const progress = new Progress("the reindex", { onProgress });
    const make = inWorker ? vectorBuilder() : null;
    let builder = null;
    try {
      for (let i = 0; i < REINDEX_STEPS_MAX; i++) {
        this.#checkRunning(signal);
        const input = await this.#enqueue(async (core) => core.planVectorBuild(force) ?? null);
        if (!input) break;
        const { target, points } = JSON.parse(this.#glue().describeVectorBuild(input));
        total += points;
        progress.report("build", loaded, total, { target, points });
        let output;
        if (make) {
          // One worker serves every build of this reindex; it is terminated when the loop ends.
          builder ??= this.#builder = make({ background, url: this.#workerUrl });
          output = await this.#buildIn(builder, input, signal);
        } else {
          try {
            output = this.#glue().buildVectorGraph(input);
          } catch (e) {
            // A trap here stops this thread's instance (faults.js saw it); the store's next call recovers.
            throw asEngramError(e);
          }
        }
        this.#checkRunning(signal);
        const installed = await this.#enqueue((core) => (signal?.aborted ? ABORTED : this.#commit(core, async (c) => JSON.parse(await c.installVectorBuild(output)))));
        if (installed === ABORTED) throw aborted();
        loaded += points;
        steps.push(installed);
        progress.report("install", loaded, total, installed);
      }
    } finally {
      builder?.terminate();
      if (this.#builder === builder) this.#builder = null;
    }
    progress.report("done", loaded, total);
    return { steps, stats: background ? null : await this.#stats() };
  }

  /** One build in the worker; an abort terminates the worker and rejects at once. */
  #buildIn(builder, input, signal) {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        builder.terminate();
        reject(aborted());
      };
      if (signal?.aborted) return onAbort(); // aborted while the build was being planned
      signal?.addEventListener("abort", onAbort, { once: true });
      builder
        .build(input)
        .then(resolve, (e) => reject(this.#closing ? closedError() : asEngramError(e)))
        .finally(() => signal?.removeEventListener("abort", onAbort));
    });
  }
}
