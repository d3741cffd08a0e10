// The Engram class: the async, typed API over the wasm core (documented in index.d.ts). It owns the
// call queue — every call runs in order, so a slow host embedder can never interleave two writes —
// and the store's lifecycle (open, recovery after an internal fault, close); every failure surfaces
// as an EngramError with a stable code. What a method needs beyond that lives beside it: options
// (open-options.js, options.js), host embedder vectors (host-vectors.js), LLM jobs (jobs.js),
// batches (batch.js), vector index builds (build-scheduler.js), exports (streams.js).

import { LIMITS } from "./limits.js";
import { EngramError, asEngramError, closedError, prepared, rejectingTyped } from "./errors.js";
import { optionsJson, requireString, searchArgs, splitEmbedding } from "./wire.js";
import { flushAdapter, withLock } from "./storage-bridge.js";
import { Embedder } from "./local-embedder.js";
import { BuildScheduler } from "./build-scheduler.js";
import { faultsOf, markFaulted, unlessFaulted } from "./faults.js";
import { forgetHandle } from "./instance.js";
import { openCore } from "./store-core.js";
import { GroupCommit } from "./group-commit.js";
import { prepareAddMany, prepareIngest, prepareIngestMany } from "./batch.js";
import { AutoConsolidator } from "./consolidate.js";
import { exportNamespace, exportStream, importExport } from "./streams.js";
import { is, readOptions } from "./options.js";
import { openSettings } from "./open-options.js";
import { HostVectors } from "./host-vectors.js";
import { author, consolidate, extract, ingestThenRun, SESSION_JOB_OPTIONS } from "./jobs.js";
import { abortedError, Progress, WATCH_OPTIONS } from "./progress.js";
import { OutOfBand } from "./out-of-band.js";
import { addForm } from "./add-forms.js";

const OPEN = Symbol("Engram.open");
const INGEST_OPTIONS = Object.freeze({ extract: is.boolean, author: is.boolean, ...SESSION_JOB_OPTIONS });
const CHANNEL_PREFIX = "engram-store:";

export class Engram {
  #core;
  #storage;
  #channel = null;
  /** Another context wrote to the shared storage since this one last looked. */
  #stale = false;
  /** The token of the lock hold this store's last commit ran under (see `#commit`); null after a failure. */
  #lastHold = null;
  #queue = Promise.resolve();
  #groups; // adds queued together, committed as one write (group-commit.js)
  #closed = false;
  /** The wasm instance's fault state, shared by every store on it (faults.js). */
  #faults;
  /** What opening did, to do it again on a new instance after an internal fault (open-options.js). */
  #reopen;
  #builds;
  #glue;
  #vectors;
  /** `{llm, level, concurrency, timeoutMs}` from open, and the Engram's side of an LLM job (jobs.js). */
  #llm;
  #jobs;
  #outOfBand; // failures of background work and damaged records left out, told to the host
  /** Runs consolidation epochs on their own (`autoConsolidate`); `null` when off. */
  #autoConsolidate = null;

  constructor(token, { core, glue, embedder, llm, reopen, background }) {
    if (token !== OPEN) throw new TypeError("use `await Engram.open(options)` to create an Engram");
    this.#core = core;
    this.#glue = glue;
    this.#reopen = reopen;
    this.#storage = reopen.storage;
    this.#faults = faultsOf(glue);
    this.#llm = llm;
    this.#outOfBand = new OutOfBand(background);
    this.#vectors = new HostVectors(embedder, () => this.#core, reopen.local);
    this.#groups = new GroupCommit({ enqueue: (work) => this.#enqueue(work), commit: (core, fn) => this.#commit(core, fn), vectors: this.#vectors });
    const failed = (e, what) => this.#outOfBand.failed(e, what);
    this.#jobs = { read: (work) => this.#run(work), write: (...args) => this.#write(...args), glue: () => this.#glue, llm, vectors: this.#vectors, failed };
    if (background.autoConsolidate) {
      this.#autoConsolidate = new AutoConsolidator(
        background.autoConsolidate,
        (options) => this.consolidate(options),
        (e) => this.#outOfBand.failed(e, "an automatic consolidation"),
      );
    }
    this.#builds = new BuildScheduler({
      glue: () => this.#glue,
      enqueue: (work) => this.#enqueue(work),
      commit: (c, commit) => this.#commit(c, commit),
      stats: () => this.vectorIndexStats(),
      ...background,
    });
    // Tabs (and workers) on one origin tell each other about commits, so reads re-sync only then.
    const storage = this.#storage;
    if (storage && typeof storage.channel === "string" && typeof BroadcastChannel === "function") {
      this.#channel = new BroadcastChannel(CHANNEL_PREFIX + storage.channel);
      this.#channel.onmessage = () => {
        this.#stale = true;
      };
    }
  }

  /** Opens a store (options in index.d.ts, `OpenOptions`). */
  static async open(options) {
    const settings = await openSettings(options);
    const progress = new Progress("opening the store", settings.watch);
    progress.check();
    progress.report("open", 0, 1);
    progress.check();
    // A reembed runs in batches: watched, each batch is reported, then the event loop gets a turn
    // (for the host's UI, and for its abort) before the next; an abort there rejects the open with
    // nothing written.
    const onBatch = progress.watched
      ? async (done, total) => {
          progress.report("reembed", done, total);
          progress.check();
          await new Promise((resolve) => setTimeout(resolve, 0));
          progress.check();
        }
      : undefined;
    const db = new Engram(OPEN, { ...(await openCore(settings.reopen, onBatch)), ...settings });
    db.#skipped(db.#core);
    // Aborted after the core's open finished: the store is closed again.
    if (progress.signal?.aborted) {
      await db.close().catch(() => {});
      throw abortedError("opening the store");
    }
    progress.finish("open");
    return db;
  }

  /** After an internal fault stopped this store's instance: the same store reopened on the live instance from its storage. */
  async #recover() {
    if (!this.#storage) {
      throw new EngramError(
        "Internal",
        `this in-memory store was lost with its wasm instance, stopped by an internal fault (${this.#faults.message}); open a new one (a store with a storage adapter reopens by itself)`,
      );
    }
    const { glue, core } = await openCore(this.#reopen);
    forgetHandle(this.#core);
    this.#core = core;
    this.#glue = glue;
    this.#faults = faultsOf(glue);
    this.#stale = false;
    this.#lastHold = null;
  }

  #enqueue(work) {
    this.#groups.seal(); // a later add must not run before this call
    const result = this.#queue.then(async () => {
      if (this.#closed) throw closedError();
      try {
        if (this.#faults.message !== null) await this.#recover();
        return await unlessFaulted(this.#faults, work(this.#core));
      } catch (e) {
        if (e instanceof WebAssembly.RuntimeError) markFaulted(this.#faults, e.message);
        throw asEngramError(e);
      }
    });
    this.#queue = result.catch(() => {});
    return result;
  }

  /** A read: first catches up with other writers on shared storage when they may have written. */
  #run(work) {
    return this.#enqueue(async (core) => {
      if (this.#storage && (this.#stale || (typeof this.#storage.lock === "function" && !this.#channel))) {
        this.#stale = false;
        await core.sync();
        this.#skipped(core);
      }
      return work(core);
    });
  }

  /** A write: `prepare` (embedding can be slow) outside the storage lock, `commit` under it after catching up with other writers. */
  #write(prepare, commit, { ownEpoch = false } = {}) {
    return this.#enqueue(async (core) => this.#commit(core, commit, await prepared(prepare))).then((out) => {
      this.#builds.wrote();
      // A consolidation's own write does not count toward the next automatic epoch.
      if (!ownEpoch) this.#autoConsolidate?.wrote();
      return out;
    });
  }

  /** A write of the arguments `prepare()` checks (and embeds) to `core[method]`, resolving to its result (JSON parsed). */
  #call(method, prepare) {
    const commit = async (core, args) => resultOf(await core[method](...args));
    return this.#write(async () => prepare(), commit);
  }

  /**
   * `#call` watched through `progress` (progress.js): `prepare(progress)` reports as it goes, the
   * commit aborts if the signal did (nothing written), the last report follows the write.
   */
  #watchedCall(method, progress, prepare) {
    progress.check();
    const commit = async (core, args) => {
      progress.check();
      return resultOf(await core[method](...args));
    };
    return this.#write(async () => prepare(progress), commit).then((out) => {
      progress.finish("write");
      return out;
    });
  }

  /**
   * `commit` under the storage lock after catching up with other writers (inside the queue). An
   * adapter that keeps its lock between calls (storage/adapter.js, "Holds") says when this call's
   * hold follows this store's last commit with no other holder in between: nobody else can have
   * written, so the catching up (a round trip to a remote store) is left out; a fenced hold also
   * spares the core's check after its create.
   */
  async #commit(core, commit, prepared) {
    if (!this.#storage) return commit(core, prepared);
    const last = this.#lastHold;
    this.#lastHold = null; // until this commit is known to have succeeded
    // A fault rejects the work under the lock, so the lock is released, not held for good.
    const underLock = async (hold) => {
      const follows = isHold(hold) && last !== null && hold.follows === last;
      if (this.#stale || !follows) {
        this.#stale = false;
        await core.sync();
        this.#skipped(core);
      }
      const fenced = isHold(hold) && hold.fenced === true;
      if (fenced) core.setFenced(true);
      try {
        const out = await commit(core, prepared);
        if (isHold(hold)) this.#lastHold = hold.token;
        return out;
      } finally {
        if (fenced) core.setFenced(false);
      }
    };
    const out = await withLock(this.#storage, (hold) => unlessFaulted(this.#faults, underLock(hold)));
    this.#channel?.postMessage("commit");
    // A compaction that failed after the write succeeded: reported once (tried again later).
    const failure = core.takeCompactionFailure();
    if (failure !== undefined) this.#outOfBand.failed(failure, "compacting the store");
    return out;
  }

  vectorIndexStats() {
    return this.#run(async (core) => JSON.parse(core.vectorIndexStats()));
  }

  reindex(options) {
    return this.#builds.reindex(options);
  }

  /** A memory object; or, as mem0's `add`, a string with options, or chat messages (add-forms.js). */
  add(input, options) {
    const { memory, session, ingestOptions } = addForm(input, options, this.#llm.llm !== null);
    if (session) return this.ingest(session, ingestOptions);
    return this.#groups.add(memory).then((out) => {
      this.#builds.wrote();
      this.#autoConsolidate?.wrote();
      return out;
    });
  }

  addMany(items, options) {
    const progress = new Progress("the addMany", readOptions(options, "addMany", WATCH_OPTIONS));
    return this.#watchedCall("addMany", progress, (p) => prepareAddMany(items, { vectors: this.#vectors, limits: LIMITS, progress: p }));
  }

  ingestMany(sessions, options) {
    const progress = new Progress("the ingestMany", readOptions(options, "ingestMany", WATCH_OPTIONS));
    return this.#watchedCall("ingestMany", progress, (p) => prepareIngestMany(sessions, { vectors: this.#vectors, limits: LIMITS, progress: p }));
  }

  get(id) {
    return this.#run(async (core) => {
      const found = core.get(requireString(id, "get: id"));
      return found === undefined ? null : JSON.parse(found);
    });
  }

  getAll(options) {
    return this.#run(async (core) => JSON.parse(core.getAll(optionsJson(options, "getAll"))));
  }

  update(id, patch) {
    return this.#call("update", async () => {
      requireString(id, "update: id");
      // mem0's form: the new text alone.
      if (typeof patch === "string") patch = { content: patch };
      const { json, vector } = splitEmbedding(patch, "update");
      return [id, json, await this.#vectors.vector(patch.content, patch.allowSecrets, vector)];
    });
  }

  delete(id) {
    return this.#call("delete", () => [requireString(id, "delete: id")]);
  }

  deleteAll(options) {
    return this.#call("deleteAll", () => [optionsJson(options, "deleteAll")]);
  }

  history(id) {
    return this.#run(async (core) => JSON.parse(core.history(requireString(id, "history: id"))));
  }

  search(query, options) {
    return this.#run(async (core) => {
      const { text, json, embedding } = searchArgs(query, options);
      return JSON.parse(core.search(text, json, await this.#vectors.query(text, embedding, "search")));
    });
  }

  /** Keeps a session verbatim; `{extract, author}` then run those jobs over its new turns. */
  ingest(session, options) {
    const given = readOptions(options, "ingest", INGEST_OPTIONS, "{extract: true}");
    const { extract, author, signal } = given;
    const progress = new Progress("the ingest", given);
    if (extract || author) {
      progress.check();
      return ingestThenRun((onProgress) => this.ingest(session, { signal, onProgress }), this, given, progress);
    }
    return this.#watchedCall("ingest", progress, (p) => prepareIngest(session, { vectors: this.#vectors, limits: LIMITS, progress: p }));
  }

  extract(sessionId, options) {
    return extract(this.#jobs, sessionId, options);
  }

  consolidate(options) {
    return consolidate(this.#jobs, options);
  }

  author(sessionId, options) {
    return author(this.#jobs, sessionId, options);
  }

  #skipped(core) {
    if (this.#storage) this.#outOfBand.skipped(core);
  }

  retract(thread, options) {
    return this.#call("retract", () => [requireString(thread, "retract: thread"), optionsJson(options, "retract")]);
  }

  llmUsage() {
    return this.#run(async (core) => JSON.parse(core.llmUsage()));
  }

  session(id) {
    return this.#run(async (core) => JSON.parse(core.session(requireString(id, "session: id"))));
  }

  sessions(options) {
    return this.#run(async (core) => JSON.parse(core.sessions(optionsJson(options, "sessions"))));
  }

  release(id) {
    return this.#call("release", () => [requireString(id, "release: id")]);
  }

  deleteSession(id) {
    return this.#call("deleteSession", () => [requireString(id, "deleteSession: id")]);
  }

  recallContext(query, options) {
    return this.#recall("recallContext", query, options);
  }

  recall(query, options) {
    return this.#recall("recall", query, options);
  }

  /** `recall` or `recallContext`: the query's vector from a host embedder goes with it. */
  #recall(method, query, options) {
    return this.#run(async (core) => {
      const json = optionsJson(options, method);
      return JSON.parse(core[method](requireString(query, `${method}: query`), json, await this.#vectors.query(query, undefined, method)));
    });
  }

  thread(label, options) {
    return this.#run(async (core) => JSON.parse(core.thread(requireString(label, "thread: label"), optionsJson(options, "thread"))));
  }

  gather(area, options) {
    return this.#run(async (core) => JSON.parse(core.gather(requireString(area, "gather: area"), optionsJson(options, "gather"))));
  }

  resume(options) {
    return this.#run(async (core) => JSON.parse(core.resume(optionsJson(options, "resume"))));
  }

  stats() {
    return this.#run(async (core) => JSON.parse(core.stats()));
  }

  reset() {
    return this.#call("reset", () => []);
  }

  /** Durability barrier: what is not yet stored, then the adapter's own `flush()` when it has one. */
  flush() {
    const commit = (core) => core.flush().then(() => flushAdapter(this.#storage));
    return this.#write(async () => undefined, commit);
  }

  compact(options) {
    const progress = new Progress("the compaction", readOptions(options, "compact", WATCH_OPTIONS));
    return this.#watchedCall("compact", progress, async (p) => {
      p.report("compact", 0, 1);
      return [];
    });
  }

  refresh() {
    return this.#enqueue(async (core) => {
      this.#stale = false;
      return core.sync();
    });
  }

  export(options) {
    return this.#run(async (core) => core.export(exportNamespace(options, "export")));
  }

  /** `export` as a ReadableStream; later calls on this store wait until it is read to its end or cancelled. */
  exportStream(options) {
    return exportStream((work) => this.#run(work), options, asEngramError);
  }

  import(source, options) {
    const progress = new Progress("the import", readOptions(options, "import", WATCH_OPTIONS));
    progress.check();
    return importExport((prepare, commit) => this.#write(prepare, commit), source, this.#glue, LIMITS.importBytes, progress);
  }

  /** Writes what is pending, then releases the wasm memory and the storage adapter. Closing twice is harmless. */
  close() {
    // A build in a worker stops at once (its reindex rejects with Closed); nothing else is awaited.
    this.#builds.close();
    this.#autoConsolidate?.close();
    this.#groups.seal(); // an add after close is Closed, not part of a group before it
    const done = this.#queue.then(async () => {
      if (this.#closed) return;
      this.#closed = true;
      try {
        if (this.#storage && this.#faults.message === null) {
          await withLock(this.#storage, () =>
            unlessFaulted(
              this.#faults,
              (async () => {
                await this.#core.sync();
                await this.#core.flush();
              })(),
            ),
          );
        }
      } catch (e) {
        throw asEngramError(e);
      } finally {
        this.#channel?.close();
        // A stopped instance is left alone: calling into it again could only trap again.
        if (this.#faults.message === null) this.#core.free();
        else forgetHandle(this.#core);
        await this.#storage?.close?.();
      }
    });
    this.#queue = done.catch(() => {});
    return done;
  }
}

rejectingTyped(Engram);

/** What an adapter's `lock` hands its `fn` when it keeps the lock between calls (adapter.js, "Holds"). */
function isHold(hold) {
  return hold !== null && typeof hold === "object" && typeof hold.token === "object" && hold.token !== null;
}

/** A core result: JSON text parsed, anything else (a count, nothing) as it is. */
const resultOf = (out) => (typeof out === "string" ? JSON.parse(out) : out);

export { EngramError, Embedder };
export { ERROR_CODES } from "./errors.js";

/** The bounds of what Engram accepts, as the core enforces them (a fresh copy each call). */
export function limits() {
  return { ...LIMITS };
}
