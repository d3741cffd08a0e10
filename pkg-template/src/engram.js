// The Engram class: the async, typed API over the wasm core (documented in index.d.ts). It owns the
// call queue — every call runs in order, so a slow host embedder can never interleave two writes —
// and the store's lifecycle (open, recovery after an internal fault, close); every failure surfaces
// as an EngramError with a stable code. What a method needs beyond that lives beside it: options
// (open-options.js, options.js), host embedder vectors (host-vectors.js), LLM jobs (jobs.js),
// batches (batch.js), vector index builds (build-scheduler.js), exports (streams.js).

import { EngramError, asEngramError, closedError, invalid, isAbortError, abortError } from "./errors.js";
import { fields, isPlainObject, optionsJson, packVectors, requireString, splitEmbedding, toJson } from "./wire.js";
import { withLock } from "./storage-bridge.js";
import { Embedder } from "./local-embedder.js";
import { BuildScheduler } from "./build-scheduler.js";
import { faultsOf, markFaulted, unlessFaulted } from "./faults.js";
import { forgetHandle, liveCore } from "./instance.js";
import { prepareAddMany, prepareIngestMany } from "./batch.js";
import { AutoConsolidator, consolidateOptions } from "./consolidate.js";
import { exportStream, readExport } from "./streams.js";
import { is, readOptions, SESSION_JOB_OPTIONS } from "./options.js";
import { openSettings } from "./open-options.js";
import { HostVectors } from "./host-vectors.js";
import { author, runJob } from "./jobs.js";

const OPEN = Symbol("Engram.open");
const INGEST_OPTIONS = Object.freeze({ extract: is.boolean, author: is.boolean, ...SESSION_JOB_OPTIONS });
const MESSAGES_OPTIONS = Object.freeze({ sessionId: is.passed, namespace: is.passed, date: is.passed, extract: is.boolean, ...SESSION_JOB_OPTIONS });
const REINDEX_OPTIONS = Object.freeze({ onProgress: is.callback, signal: is.signal, inWorker: is.boolean });
const EXPORT_OPTIONS = Object.freeze({ namespace: is.nameOrNull });
const CHANNEL_PREFIX = "engram-store:";
/** Adds per group commit: bounds one record's size and how long the first add of a group waits. */
const GROUP_MAX = 256;

/** A session id for `add(messages)` without one: random, also where `crypto.randomUUID` is missing (non-secure pages). */
function newSessionId() {
  const uuid = globalThis.crypto?.randomUUID?.();
  return `chat-${uuid ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`}`;
}

export class Engram {
  #core;
  #storage;
  #channel = null;
  /** Another context wrote to the shared storage since this one last looked. */
  #stale = false;
  #queue = Promise.resolve();
  /** The group of adds queued last and not started yet, which the next add joins (`#addOne`). */
  #openGroup = null;
  #closed = false;
  /** The wasm instance's fault state, shared by every store on it (faults.js). */
  #faults;
  /** What opening did, to do it again on a new instance after an internal fault (open-options.js). */
  #reopen;
  #builds;
  /** The core's limits on large inputs (`limits` in the wasm module), checked before copying. */
  #limits;
  #glue;
  #vectors;
  /** `{llm, level, concurrency, timeoutMs}` from open. */
  #llm;
  /** The Engram's side of an LLM job (jobs.js). */
  #jobs;
  /** `{onBackgroundError, onCorruption}`: callbacks of work done out of band. */
  #callbacks;
  /** Runs consolidation epochs on their own (`autoConsolidate`); `null` when off. */
  #autoConsolidate = null;

  constructor(token, { core, glue, embedder, llm, reopen, background }) {
    if (token !== OPEN) throw new TypeError("use `await Engram.open(options)` to create an Engram");
    this.#core = core;
    this.#glue = glue;
    this.#reopen = reopen;
    this.#storage = reopen.storage;
    this.#limits = JSON.parse(glue.limits());
    this.#faults = faultsOf(glue);
    this.#llm = llm;
    this.#callbacks = { onBackgroundError: background.onBackgroundError, onCorruption: background.onCorruption };
    this.#vectors = new HostVectors(embedder, () => this.#core);
    this.#jobs = {
      read: (work) => this.#run(work),
      write: (prepare, commit, options) => this.#write(prepare, commit, options),
      glue: () => this.#glue,
      llm,
      afterJob: () => this.#afterJob(),
    };
    if (background.autoConsolidate) {
      this.#autoConsolidate = new AutoConsolidator(background.autoConsolidate, (options) => this.consolidate(options), (e) => this.#reportBackground(e, "an automatic consolidation"));
    }
    this.#builds = new BuildScheduler({ glue: () => this.#glue, enqueue: (work) => this.#enqueue(work), commit: (c, commit) => this.#commit(c, commit), stats: () => this.vectorIndexStats(), ...background });
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
    const db = new Engram(OPEN, { ...(await openCore(settings.reopen)), ...settings });
    db.#reportSkipped(db.#core);
    return db;
  }

  /** After an internal fault stopped this store's instance: the same store reopened on the live instance from its storage. */
  async #recover() {
    if (!this.#storage) {
      throw new EngramError("Internal", `this in-memory store was lost with its wasm instance, stopped by an internal fault (${this.#faults.message}); open a new one (a store with a storage adapter reopens by itself)`);
    }
    const { glue, core } = await openCore(this.#reopen);
    forgetHandle(this.#core);
    this.#core = core;
    this.#glue = glue;
    this.#faults = faultsOf(glue);
    this.#stale = false;
  }

  #enqueue(work) {
    this.#openGroup = null; // a later add must not run before this call
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
        this.#reportSkipped(core);
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

  /** `commit` under the storage lock after catching up with other writers (inside the queue). */
  async #commit(core, commit, prepared) {
    if (!this.#storage) return commit(core, prepared);
    // A fault rejects the work under the lock, so the lock is released, not held for good.
    const out = await withLock(this.#storage, () =>
      unlessFaulted(this.#faults, (async () => {
        this.#stale = false;
        await core.sync();
        this.#reportSkipped(core);
        return commit(core, prepared);
      })()),
    );
    this.#channel?.postMessage("commit");
    // A compaction that failed after the write succeeded: reported once (tried again later).
    const failure = core.takeCompactionFailure();
    if (failure !== undefined) this.#reportBackground(failure, "compacting the store");
    return out;
  }

  /** Vectors for what a job wrote, when the host embeds; a failure is reported, the job's report stands. */
  async #afterJob() {
    try {
      await this.#vectors.catchUp((itemsJson, made) => {
        const { vectors, dims } = packVectors(made);
        return this.#write(async () => undefined, (core) => core.setVectors(itemsJson, vectors, dims), { ownEpoch: true });
      });
    } catch (e) {
      this.#reportBackground(e, "embedding the memories a job wrote");
    }
  }

  vectorIndexStats() {
    return this.#run(async (core) => JSON.parse(core.vectorIndexStats()));
  }

  async reindex(options) {
    const { onProgress, signal, inWorker } = readOptions(options, "reindex", REINDEX_OPTIONS);
    if (signal?.aborted) throw abortError("the reindex was aborted");
    return this.#builds.reindex({ onProgress, signal: signal ?? undefined, inWorker: inWorker ?? true });
  }

  /** A memory object; or, as mem0's `add`, a string (the content) with options, or chat messages. */
  add(input, options) {
    if (typeof input === "string") {
      if (options !== undefined && options !== null && !isPlainObject(options)) throw invalid('add: expected the other fields as an options object, like add(text, {kind: "semantic"})');
      if (options && "content" in options) throw invalid("add: the content is the string; `options` cannot carry `content` too");
      return this.#addOne({ ...(options && fields(options, "add")), content: input });
    }
    if (Array.isArray(input)) return this.#addMessages(input, options);
    if (options !== undefined) throw invalid("add: a memory object takes no second argument; put the fields in the object");
    return this.#addOne(input);
  }

  addMany(items) {
    return this.#write(
      () => prepareAddMany(items, { vectors: this.#vectors, limits: this.#limits }),
      async (core, { json, vectors, dims }) => JSON.parse(await core.addMany(json, vectors, dims)),
    );
  }

  ingestMany(sessions) {
    return this.#write(
      () => prepareIngestMany(sessions, { vectors: this.#vectors, limits: this.#limits }),
      async (core, json) => JSON.parse(await core.ingestMany(json)),
    );
  }

  /** Chat messages kept as a session, then extracted where this store has an `llm` (unless `extract: false`). */
  #addMessages(messages, options) {
    const { sessionId, namespace, date, extract, ...rest } = readOptions(options, "add (messages)", MESSAGES_OPTIONS);
    if (messages.length === 0) throw invalid("add: expected at least one message {role, content}");
    const session = { id: sessionId ?? newSessionId(), turns: messages };
    if (namespace !== undefined) session.namespace = namespace;
    if (date !== undefined) session.date = date;
    // Extraction by default where there is an llm; asked for without one, the report says nothing was extracted.
    if (extract ?? this.#llm.llm !== null) return this.ingest(session, { ...rest, extract: true });
    return this.ingest(session);
  }

  /**
   * Group commit: an add joins the group of adds queued just before it (no other call in between),
   * and the group is one storage write when its turn comes. Each add resolves once that write is
   * durable (its own refusal rejects it alone); a failed write rejects every add of the group.
   */
  #addOne(input) {
    let group = this.#openGroup;
    if (group === null || group.settled || group.items.length >= GROUP_MAX) {
      group = { items: [], settled: false };
      const items = group.items;
      this.#enqueue((core) => this.#commitGroup(core, group)).catch((e) => {
        // A group refused before it started (Closed) takes no more adds: a later add that joined
        // it would wait for a commit that never comes.
        group.settled = true;
        if (this.#openGroup === group) this.#openGroup = null;
        for (const item of items) item.reject(e);
      });
      this.#openGroup = group;
    }
    return new Promise((resolve, reject) => group.items.push({ input, resolve, reject })).then((out) => {
      this.#builds.wrote();
      this.#autoConsolidate?.wrote();
      return out;
    });
  }

  /** A group of adds (inside the queue): each prepared (its vector made), then all committed as one write. */
  async #commitGroup(core, group) {
    if (this.#openGroup === group) this.#openGroup = null; // started: later adds start a new group
    const ready = [];
    for (const item of group.items) {
      try {
        const { json, vector } = splitEmbedding(item.input, "add");
        ready.push({ item, json, v: await this.#vectors.vector(item.input.content, item.input.allowSecrets, vector) });
      } catch (e) {
        item.reject(asEngramError(e));
      }
    }
    if (ready.length === 0) return;
    const { vectors, dims } = packVectors(ready.map((r) => r.v));
    const outcomes = JSON.parse(await this.#commit(core, (c) => c.addGroup(`[${ready.map((r) => r.json).join(",")}]`, vectors, dims)));
    ready.forEach(({ item }, k) => {
      const o = outcomes[k];
      if (o.error) item.reject(new EngramError(o.error.code, o.error.message));
      else item.resolve(o.ok);
    });
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
    return this.#write(
      async () => {
        requireString(id, "update: id");
        const { json, vector } = splitEmbedding(patch, "update");
        return { json, v: await this.#vectors.vector(patch.content, patch.allowSecrets, vector) };
      },
      async (core, { json, v }) => JSON.parse(await core.update(id, json, v)),
    );
  }

  delete(id) {
    return this.#write(
      async () => requireString(id, "delete: id"),
      async (core, checked) => {
        await core.delete(checked);
      },
    );
  }

  deleteAll(options) {
    return this.#write(
      async () => optionsJson(options, "deleteAll"),
      (core, json) => core.deleteAll(json),
    );
  }

  history(id) {
    return this.#run(async (core) => JSON.parse(core.history(requireString(id, "history: id"))));
  }

  search(query, options) {
    return this.#run(async (core) => {
      if (query !== null && query !== undefined) requireString(query, "search: query");
      if (options !== undefined && options !== null && !isPlainObject(options)) throw invalid("search: expected an options object");
      const { embedding, ...rest } = options ? fields(options, "search") : {};
      const v = await this.#vectors.query(query, embedding, "search");
      return JSON.parse(core.search(query ?? undefined, toJson(rest, "search"), v));
    });
  }

  /** Keeps a session verbatim; `{extract, author}` then run those jobs over its new turns. */
  ingest(session, options) {
    const { extract, author, ...rest } = readOptions(options, "ingest", INGEST_OPTIONS, "{extract: true}");
    if (extract || author) {
      return this.ingest(session).then(async (ingested) => {
        const out = { ...ingested };
        if (extract) out.extracted = await this.extract(ingested.sessionId, rest);
        if (author) out.authored = await this.author(ingested.sessionId, rest);
        return out;
      });
    }
    return this.#write(
      async () => {
        if (!isPlainObject(session)) throw invalid("ingest: expected a session object");
        const given = fields(session, "ingest");
        // Bounds first, before work per turn (copying, guarding, embedding); the core checks again.
        const { ingestBytes, sessionTurns } = this.#limits;
        if (Array.isArray(given.turns) && given.turns.length > sessionTurns) throw invalid(`ingest: a session needs 1..${sessionTurns} turns, got ${given.turns.length}`);
        const text = Array.isArray(given.turns) ? given.turns.reduce((n, t) => n + (typeof t?.content === "string" ? t.content.length : 0), 0) : 0;
        if (text > ingestBytes) throw invalid(`ingest: the session's text is over ${ingestBytes} bytes; split it or drop old turns`);
        const turns = Array.isArray(given.turns) ? given.turns.map((t) => (isPlainObject(t) ? fields(t, "ingest: a turn") : t)) : given.turns;
        const [withVectors] = await this.#vectors.sessions([{ ...given, turns }]);
        return toJson(withVectors, "ingest");
      },
      async (core, json) => JSON.parse(await core.ingest(json)),
    );
  }

  async extract(sessionId, options) {
    requireString(sessionId, "extract: sessionId");
    const { signal, maxLlmCalls } = readOptions(options, "extract", SESSION_JOB_OPTIONS);
    if (signal?.aborted) throw new EngramError("Aborted", "the extraction was aborted before it started");
    if (!this.#llm.llm) return this.#run(async (core) => JSON.parse(core.extractWithoutLlm(sessionId)));
    return runJob(this.#jobs, "extract", { target: sessionId, options: maxLlmCalls === undefined ? {} : { maxLlmCalls }, signal });
  }

  async consolidate(options) {
    const { namespace, onProgress, signal, maxLlmCalls, dryRun, bufferCap } = consolidateOptions(options);
    if (signal?.aborted) throw new EngramError("Aborted", "the consolidation was aborted before it started");
    const coreOptions = { llmLevel: this.#llm.level, hasLlm: this.#llm.llm !== null, namespace, maxLlmCalls, bufferCap };
    if (dryRun) return this.#run(async (core) => JSON.parse(core.consolidateDryRun(toJson(coreOptions, "consolidate"))));
    return runJob(this.#jobs, "consolidate", { options: coreOptions, signal, onProgress: onProgress ?? undefined, ownEpoch: true });
  }

  async author(sessionId, options) {
    requireString(sessionId, "author: sessionId");
    const { signal, maxLlmCalls } = readOptions(options, "author", SESSION_JOB_OPTIONS);
    if (signal?.aborted) throw new EngramError("Aborted", "authoring was aborted before it started");
    return author(this.#jobs, sessionId, { signal: signal ?? undefined, maxLlmCalls });
  }

  /** Damaged records the core left out (opened with `onCorruption`), handed to the host once. */
  #reportSkipped(core) {
    const onCorruption = this.#callbacks.onCorruption;
    if (!onCorruption || !this.#storage) return;
    const skipped = JSON.parse(core.takeSkipped());
    if (skipped.length === 0) return;
    try {
      onCorruption({ skipped });
    } catch (e) {
      console.warn(`engram-wasm: onCorruption threw: ${e?.message ?? e}`);
    }
  }

  /** A failure of background work, handed to `onBackgroundError` (or a warning). */
  #reportBackground(e, what) {
    const error = asEngramError(e);
    try {
      if (this.#callbacks.onBackgroundError) this.#callbacks.onBackgroundError(error);
      else console.warn(`engram-wasm: ${what} failed (nothing was lost): ${error.message}`);
    } catch {
      // the host's handler failing must not break anything else
    }
  }

  retract(thread, options) {
    return this.#write(
      async () => [requireString(thread, "retract: thread"), optionsJson(options, "retract")],
      async (core, [t, json]) => JSON.parse(await core.retract(t, json)),
    );
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
    return this.#write(
      async () => requireString(id, "release: id"),
      async (core, checked) => JSON.parse(await core.release(checked)),
    );
  }

  deleteSession(id) {
    return this.#write(
      async () => requireString(id, "deleteSession: id"),
      async (core, checked) => JSON.parse(await core.deleteSession(checked)),
    );
  }

  recallContext(query, options) {
    return this.#run(async (core) => {
      requireString(query, "recallContext: query");
      const json = optionsJson(options, "recallContext");
      return JSON.parse(core.recallContext(query, json, await this.#vectors.query(query, undefined, "recallContext")));
    });
  }

  recall(query, options) {
    return this.#run(async (core) => {
      requireString(query, "recall: query");
      const json = optionsJson(options, "recall");
      return JSON.parse(core.recall(query, json, await this.#vectors.query(query, undefined, "recall")));
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
    return this.#write(async () => undefined, (core) => core.reset().then(() => undefined));
  }

  /** Durability barrier: what is not yet stored, then the adapter's own `flush()` when it has one. */
  flush() {
    return this.#write(
      async () => undefined,
      async (core) => {
        await core.flush();
        if (typeof this.#storage?.flush === "function") {
          try {
            await this.#storage.flush();
          } catch (e) {
            throw asEngramError(e, "Storage");
          }
        }
      },
    );
  }

  compact() {
    return this.#write(async () => undefined, (core) => core.compact().then(() => undefined));
  }

  refresh() {
    return this.#enqueue(async (core) => {
      this.#stale = false;
      return core.sync();
    });
  }

  export(options) {
    return this.#run(async (core) => core.export(readOptions(options, "export", EXPORT_OPTIONS).namespace ?? undefined));
  }

  /** `export` as a ReadableStream; later calls on this store wait until it is read to its end or cancelled. */
  exportStream(options) {
    let namespace;
    try {
      namespace = readOptions(options, "exportStream", EXPORT_OPTIONS).namespace ?? undefined;
    } catch (e) {
      return new ReadableStream({ start: (controller) => controller.error(e) });
    }
    return exportStream((work) => this.#run(work), namespace, asEngramError);
  }

  import(source) {
    return this.#write(
      () => readExport(source, this.#glue, this.#limits.importBytes),
      async (core, feed) => {
        try {
          return JSON.parse(await core.importFeed(feed));
        } finally {
          feed.free();
        }
      },
    );
  }

  /** Writes what is pending, then releases the wasm memory and the storage adapter. Closing twice is harmless. */
  close() {
    // A build in a worker stops at once (its reindex rejects with Closed); nothing else is awaited.
    this.#builds.close();
    this.#autoConsolidate?.close();
    this.#openGroup = null; // an add after close is Closed, not part of a group before it
    const done = this.#queue.then(async () => {
      if (this.#closed) return;
      this.#closed = true;
      try {
        if (this.#storage && this.#faults.message === null) {
          await withLock(this.#storage, () =>
            unlessFaulted(this.#faults, (async () => {
              await this.#core.sync();
              await this.#core.flush();
            })()),
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

// Arguments are the caller's: a getter or Proxy trap that throws while the facade reads one is the
// caller's InvalidInput, and no method throws synchronously (each returns a promise). Errors of the
// work itself are already typed on the queue (Internal for a fault); an AbortError stays as it is.
const typed = (e) => (e instanceof EngramError || isAbortError(e) ? e : asEngramError(e, "InvalidInput"));
for (const [target, name] of [[Engram, "open"], ...Object.getOwnPropertyNames(Engram.prototype).map((n) => [Engram.prototype, n])]) {
  const method = Object.getOwnPropertyDescriptor(target, name).value;
  if (name === "constructor" || typeof method !== "function") continue; // methods only, never a getter
  Object.defineProperty(target, name, {
    value: {
      [name](...args) {
        try {
          const out = method.apply(this, args);
          return out instanceof Promise ? out.catch((e) => Promise.reject(typed(e))) : out;
        } catch (e) {
          return Promise.reject(typed(e));
        }
      },
    }[name],
    writable: true,
    configurable: true,
  });
}

/**
 * A write's `prepare` step: it reads the caller's arguments (and awaits a host embedder, whose
 * failures are typed already), so an untyped throw there came from reading an argument (a revoked
 * Proxy, say): the caller's InvalidInput. A trap stays what it is.
 */
async function prepared(prepare) {
  try {
    return await prepare();
  } catch (e) {
    if (e instanceof EngramError || e instanceof WebAssembly.RuntimeError) throw e;
    throw asEngramError(e, "InvalidInput");
  }
}

/** A new core on the live instance, opened from storage when there is an adapter: `{glue, core}`. */
async function openCore({ coreJson, storeJson, storage, adapter, local }) {
  const glue = await liveCore();
  const faults = faultsOf(glue);
  let core;
  try {
    const handle = local ? await Embedder.handleOn(local, glue) : null;
    core = new glue.EngramCore(coreJson);
    if (handle) core.setEmbedder(handle);
    if (adapter) await withLock(storage, () => unlessFaulted(faults, core.open(adapter, storeJson)));
  } catch (e) {
    if (faults.message === null) core?.free();
    else forgetHandle(core);
    throw asEngramError(e);
  }
  return { glue, core };
}

export { EngramError, Embedder };
export { ERROR_CODES } from "./errors.js";
