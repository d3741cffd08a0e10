// The Engram class: the async, typed API over the wasm core. Every call runs in order on one queue,
// so a slow host embedder can never interleave two writes, and every failure surfaces as an
// EngramError with a stable code.

import { EngramError, asEngramError, invalid } from "./errors.js";
import { isPlainObject, optionsJson, requireString, splitEmbedding, toJson, toVector } from "./wire.js";
import { embedDocument, embedDocuments, embedQuery, resolveEmbedder } from "./embedder.js";
import { defaultEmbedder, loadCore, vectorBuilder } from "./core.js";
import { checkedAdapter, withLock } from "./storage-bridge.js";
import { Embedder } from "./local-embedder.js";

const OPEN = Symbol("Engram.open");
const OPEN_OPTIONS = new Set(["embedder", "idSeed", "storage", "reembed", "compactAfter", "vectorIndex", "autoReindex", "onBackgroundError"]);
const REINDEX_STEPS_MAX = 16;

function abortError() {
  if (typeof DOMException === "function") return new DOMException("the reindex was aborted", "AbortError");
  const e = new Error("the reindex was aborted");
  e.name = "AbortError";
  return e;
}
const CHANNEL_PREFIX = "engram-store:";

export class Engram {
  #core;
  #embedder;
  #storage;
  #channel = null;
  /** Another context wrote to the shared storage since this one last looked. */
  #stale = false;
  #queue = Promise.resolve();
  #closed = false;
  #trapped = null;
  #glue;
  #auto;
  #onBackgroundError;
  /** The reindex running now (explicit or automatic), and the worker building for it. */
  #reindexing = null;
  #builder = null;

  constructor(token, core, embedder, storage, glue, auto, onBackgroundError) {
    if (token !== OPEN) throw new TypeError("use `await Engram.open(options)` to create an Engram");
    this.#core = core;
    this.#embedder = embedder;
    this.#storage = storage;
    this.#glue = glue;
    this.#auto = auto;
    this.#onBackgroundError = onBackgroundError;
    // Tabs (and workers) on one origin tell each other about commits, so reads re-sync only then.
    if (storage && typeof storage.channel === "string" && typeof BroadcastChannel === "function") {
      this.#channel = new BroadcastChannel(CHANNEL_PREFIX + storage.channel);
      this.#channel.onmessage = () => {
        this.#stale = true;
      };
    }
  }

  /**
   * Opens a store. `storage`: a storage adapter (`MemoryStorage`, `IndexedDBStorage`,
   * `NodeFSStorage` from `engram-wasm/node-fs`, or your own); without it the store lives in memory.
   * `embedder`: an `Embedder` (Engram's local model, run inside the core), a host embedder
   * `{embedDocuments, embedQuery, id?, dims?}`, or `null` for keyword-only search. Left out: in Node
   * the local model from `ENGRAM_MODEL_DIR` or `./models`; in browsers keyword-only. A store whose
   * vectors came from another embedder refuses to open (`Embedder`) unless `reembed: true`.
   */
  static async open(options = {}) {
    if (!isPlainObject(options)) throw invalid("open: expected an options object");
    for (const key of Object.keys(options)) {
      if (!OPEN_OPTIONS.has(key)) throw invalid(`open: unknown option \`${key}\` (allowed: ${[...OPEN_OPTIONS].join(", ")})`);
    }
    const storage = options.storage ?? null;
    const adapter = storage === null ? null : checkedAdapter(storage);
    if (options.reembed !== undefined && typeof options.reembed !== "boolean") throw invalid("open: `reembed` must be a boolean");
    const chosen = options.embedder === undefined ? await defaultEmbedder() : options.embedder;
    const local = chosen instanceof Embedder ? Embedder.handleOf(chosen) : null;
    const embedder = local ? null : resolveEmbedder(chosen);
    let glue;
    try {
      glue = await loadCore();
    } catch (e) {
      throw asEngramError(e);
    }
    const coreOptions = {};
    if (options.idSeed !== undefined) coreOptions.idSeed = options.idSeed;
    if (options.vectorIndex !== undefined) {
      if (!isPlainObject(options.vectorIndex)) throw invalid("open: `vectorIndex` must be an object like {graphMin: 20000}");
      coreOptions.vectorIndex = options.vectorIndex;
    }
    if (options.autoReindex !== undefined && typeof options.autoReindex !== "boolean") throw invalid("open: `autoReindex` must be a boolean");
    if (options.onBackgroundError !== undefined && typeof options.onBackgroundError !== "function") throw invalid("open: `onBackgroundError` must be a function");
    // Automatic builds only where they can run off this thread.
    const auto = options.autoReindex ?? vectorBuilder() !== null;
    // A host embedder that names itself gets the same protection as the local one.
    if (embedder && typeof embedder.id === "string" && Number.isInteger(embedder.dims)) coreOptions.embedder = { id: embedder.id, dims: embedder.dims };
    let core;
    try {
      core = new glue.EngramCore(toJson(coreOptions, "open"));
      if (local) core.setEmbedder(local);
      if (adapter) {
        const storeOptions = {};
        if (options.reembed !== undefined) storeOptions.reembed = options.reembed;
        if (options.compactAfter !== undefined) storeOptions.compactAfter = options.compactAfter;
        await withLock(storage, () => core.open(adapter, toJson(storeOptions, "open")));
      }
    } catch (e) {
      core?.free();
      throw asEngramError(e);
    }
    return new Engram(OPEN, core, embedder, storage, glue, auto, options.onBackgroundError ?? null);
  }

  #enqueue(work) {
    const result = this.#queue.then(async () => {
      if (this.#closed) throw new EngramError("Closed", "this Engram has been closed");
      if (this.#trapped) throw new EngramError("Internal", `the wasm instance stopped after an internal fault: ${this.#trapped}`);
      try {
        return await work(this.#core);
      } catch (e) {
        if (e instanceof WebAssembly.RuntimeError) this.#trapped = e.message;
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
      }
      return work(core);
    });
  }

  /**
   * A write. `prepare` runs first, outside the storage lock (embedding can be slow); `commit` runs
   * under the lock after catching up with other writers, so two contexts never commit over each other.
   */
  #write(prepare, commit) {
    return this.#enqueue(async (core) => {
      const prepared = await prepare();
      if (!this.#storage) return commit(core, prepared);
      const out = await withLock(this.#storage, async () => {
        this.#stale = false;
        await core.sync();
        return commit(core, prepared);
      });
      this.#channel?.postMessage("commit");
      return out;
    }).then((out) => {
      this.#scheduleAutoReindex();
      return out;
    });
  }

  /** After a write: start a background build when one is due (one at a time, never blocking). */
  #scheduleAutoReindex() {
    if (!this.#auto || this.#reindexing || this.#closed) return;
    let due = false;
    try {
      due = JSON.parse(this.#core.vectorIndexStats()).needsBuild;
    } catch {
      return; // a call is in flight; the next write looks again
    }
    if (!due) return;
    this.#startReindex({ force: false }).catch((e) => {
      if (e?.name === "AbortError" || this.#closed) return;
      this.#onBackgroundError?.(asEngramError(e));
    });
  }

  /** Tiers of the memory and raw-turn vector indexes, and whether a build is due. */
  vectorIndexStats() {
    return this.#run(async (core) => JSON.parse(core.vectorIndexStats()));
  }

  /**
   * Builds the vector index's graph segments now: plans each build (cheap), builds it in a worker
   * (Node `worker_threads`; in-process where no worker is available, or with `inWorker: false`,
   * which blocks this thread for the build), and installs it through the write path (persisted with
   * storage). Queries keep being answered from the current tiers meanwhile. `onProgress` gets
   * `{status: "build" | "installed" | "done", target, points, loaded, total, …}`; `signal` aborts
   * (the worker is terminated; nothing is installed; rejects with an `AbortError`).
   */
  async reindex(options = {}) {
    if (!isPlainObject(options)) throw invalid("reindex: expected an options object");
    for (const key of Object.keys(options)) {
      if (!["onProgress", "signal", "inWorker"].includes(key)) throw invalid(`reindex: unknown option \`${key}\``);
    }
    const { onProgress, signal, inWorker } = options;
    if (onProgress !== undefined && typeof onProgress !== "function") throw invalid("reindex: `onProgress` must be a function");
    if (signal?.aborted) throw abortError();
    // A running (automatic) reindex finishes first; then this one builds whatever is left.
    while (this.#reindexing) await this.#reindexing.catch(() => {});
    return this.#startReindex({ force: true, onProgress, signal, inWorker: inWorker ?? true });
  }

  #startReindex(options) {
    const run = this.#reindexLoop(options).finally(() => {
      if (this.#reindexing === run) this.#reindexing = null;
    });
    this.#reindexing = run;
    return run;
  }

  async #reindexLoop({ force, onProgress, signal, inWorker = true }) {
    const steps = [];
    let loaded = 0;
    let total = 0;
    const report = (event) => {
      try {
        onProgress?.(event);
      } catch {
        // a throwing progress callback must not break the build
      }
    };
    for (let i = 0; i < REINDEX_STEPS_MAX; i++) {
      if (signal?.aborted) throw abortError();
      const input = await this.#enqueue(async (core) => core.planVectorBuild(i === 0 ? force : true) ?? null);
      if (!input) break;
      const { target, points } = JSON.parse(this.#glue.describeVectorBuild(input));
      total += points;
      report({ status: "build", target, points, loaded, total });
      const output = await this.#build(input, inWorker, signal);
      if (signal?.aborted) throw abortError();
      const installed = await this.#write(async () => null, async (core) => JSON.parse(await core.installVectorBuild(output)));
      loaded += points;
      steps.push(installed);
      report({ status: "installed", ...installed, loaded, total });
    }
    report({ status: "done", loaded, total });
    return { steps, stats: await this.vectorIndexStats() };
  }

  /** One build: in the environment's worker when there is one, otherwise here (blocking). */
  async #build(input, inWorker, signal) {
    const make = inWorker ? vectorBuilder() : null;
    if (!make) return this.#glue.buildVectorGraph(input);
    const builder = make();
    this.#builder = builder;
    const onAbort = () => builder.terminate();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await builder.build(input);
    } catch (e) {
      if (signal?.aborted || this.#closed) throw abortError();
      throw asEngramError(e);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      builder.terminate();
      if (this.#builder === builder) this.#builder = null;
    }
  }

  /** Stores a memory (in the buffer layer) or reinforces an identical one; see `deduplicated`. */
  add(input) {
    return this.#write(
      async () => {
        const { json, vector } = splitEmbedding(input, "add");
        let v = vector;
        if (!v && this.#embedder && typeof input.content === "string" && input.content.trim() !== "") {
          v = await embedDocument(this.#embedder, input.content);
        }
        return { json, v };
      },
      async (core, { json, v }) => JSON.parse(await core.add(json, v)),
    );
  }

  /** The memory with this id, or null. */
  get(id) {
    return this.#run(async (core) => {
      const found = core.get(requireString(id, "get: id"));
      return found === undefined ? null : JSON.parse(found);
    });
  }

  /** Memories of one namespace, newest first (`limit` defaults to 100). */
  getAll(options) {
    return this.#run(async (core) => JSON.parse(core.getAll(optionsJson(options, "getAll"))));
  }

  /** Changes fields of a memory; a new `content` is re-indexed (and re-embedded with an embedder). */
  update(id, patch) {
    return this.#write(
      async () => {
        requireString(id, "update: id");
        const { json, vector } = splitEmbedding(patch, "update");
        let v = vector;
        if (!v && this.#embedder && typeof patch.content === "string" && patch.content.trim() !== "") {
          v = await embedDocument(this.#embedder, patch.content);
        }
        return { json, v };
      },
      async (core, { json, v }) => JSON.parse(await core.update(id, json, v)),
    );
  }

  /** Deletes one memory; rejects with NotFound if there is none with this id. */
  delete(id) {
    return this.#write(
      async () => requireString(id, "delete: id"),
      async (core, checked) => {
        await core.delete(checked);
      },
    );
  }

  /** Deletes every memory of a namespace (`default` when omitted); resolves to how many. */
  deleteAll(options) {
    return this.#write(
      async () => optionsJson(options, "deleteAll"),
      (core, json) => core.deleteAll(json),
    );
  }

  /** ADD / UPDATE / DELETE / REINFORCE events of a memory, oldest first. */
  history(id) {
    return this.#run(async (core) => JSON.parse(core.history(requireString(id, "history: id"))));
  }

  /**
   * Hybrid search in a namespace plus `default`, best first. `query` may be null for a pure vector
   * search with `options.embedding`.
   */
  search(query, options) {
    return this.#run(async (core) => {
      if (query !== null && query !== undefined) requireString(query, "search: query");
      if (options !== undefined && options !== null && !isPlainObject(options)) throw invalid("search: expected an options object");
      const { embedding, ...rest } = options ?? {};
      let v = embedding === undefined || embedding === null ? undefined : toVector(embedding, "search: embedding");
      if (!v && this.#embedder && typeof query === "string" && query.trim() !== "") {
        v = await embedQuery(this.#embedder, query);
      }
      return JSON.parse(core.search(query ?? undefined, toJson(rest, "search"), v));
    });
  }

  /**
   * Keeps a conversation session verbatim: `{id, namespace?, date?, turns: [{role, content, speaker?, id?}]}`.
   * Each turn becomes a raw entry `<session id>#<turn index>`; re-ingesting is idempotent per turn.
   */
  ingest(session) {
    return this.#write(
      async () => {
        if (!isPlainObject(session)) throw invalid("ingest: expected a session object");
        let turns = session.turns;
        if (this.#embedder && Array.isArray(turns) && turns.every(isPlainObject)) {
          // Turns the caller gave no vector get one from the host embedder, in one batch.
          const missing = turns.flatMap((t, i) => (t.embedding === undefined && typeof t.content === "string" && t.content.trim() !== "" ? [i] : []));
          if (missing.length > 0) {
            const texts = missing.map((i) => (typeof turns[i].speaker === "string" ? `${turns[i].speaker}: ${turns[i].content}` : turns[i].content));
            const vectors = await embedDocuments(this.#embedder, texts);
            turns = turns.slice();
            missing.forEach((i, k) => {
              turns[i] = { ...turns[i], embedding: Array.from(vectors[k]) };
            });
          }
        }
        return toJson({ ...session, turns }, "ingest");
      },
      async (core, json) => JSON.parse(await core.ingest(json)),
    );
  }

  /** The turns of a session, in order (NotFound if there is no such session). */
  session(id) {
    return this.#run(async (core) => JSON.parse(core.session(requireString(id, "session: id"))));
  }

  /** Session ids of a namespace. */
  sessions(options) {
    return this.#run(async (core) => JSON.parse(core.sessions(optionsJson(options, "sessions"))));
  }

  /** Deletes a session's raw entries and the memories derived only from them. */
  deleteSession(id) {
    return this.#write(
      async () => requireString(id, "deleteSession: id"),
      async (core, checked) => JSON.parse(await core.deleteSession(checked)),
    );
  }

  /**
   * The block to prepend to a prompt for `query`: relevant memories and turns by section, each
   * escaped and delimited as data, never over `maxTokens` (default 1000).
   */
  recallContext(query, options) {
    return this.#run(async (core) => JSON.parse(core.recallContext(requireString(query, "recallContext: query"), optionsJson(options, "recallContext"))));
  }

  /** Session-start context: core memories, then recent ones, within `maxTokens` (default 1000). */
  resume(options) {
    return this.#run(async (core) => JSON.parse(core.resume(optionsJson(options, "resume"))));
  }

  /** Counts by namespace, kind and layer; index sizes. */
  stats() {
    return this.#run(async (core) => JSON.parse(core.stats()));
  }

  /** Forgets everything in this store (in storage too). */
  reset() {
    return this.#write(
      async () => undefined,
      async (core) => {
        await core.reset();
      },
    );
  }

  /**
   * Durability barrier: writes what is not yet stored (search touches), then asks the adapter for
   * its strict barrier (`flush()`, when it has one). Once it resolves, everything done before it
   * survives a crash or power loss.
   */
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

  /** Rewrites the stored form as one snapshot (also done automatically as chunks accumulate). */
  compact() {
    return this.#write(
      async () => undefined,
      async (core) => {
        await core.compact();
      },
    );
  }

  /** Catches up with writes other tabs or processes made to the same storage; resolves to whether anything changed. */
  refresh() {
    return this.#enqueue(async (core) => {
      this.#stale = false;
      return core.sync();
    });
  }

  /**
   * The whole store, or one namespace (`{namespace}`), as one portable, checksummed file:
   * memories, history, raw turns, vectors and the embedder id.
   */
  export(options) {
    return this.#run(async (core) => {
      if (options !== undefined && options !== null && !isPlainObject(options)) throw invalid("export: expected an options object");
      const { namespace, ...rest } = options ?? {};
      const unknown = Object.keys(rest);
      if (unknown.length) throw invalid(`export: unknown option \`${unknown[0]}\` (allowed: namespace)`);
      if (namespace !== undefined && namespace !== null) requireString(namespace, "export: namespace");
      return core.export(namespace ?? undefined);
    });
  }

  /**
   * Merges an export file into this store by id (records with the same id are replaced), as one
   * write. A damaged file is `Corrupt`, a file of another embedder `Embedder`; either changes nothing.
   */
  import(bytes) {
    return this.#write(
      async () => {
        if (!(bytes instanceof Uint8Array)) throw invalid("import: expected the file's bytes as a Uint8Array");
        return bytes;
      },
      async (core, checked) => JSON.parse(await core.import(checked)),
    );
  }

  /**
   * Writes what is pending, then releases the wasm memory and the storage adapter (the store owns
   * the adapter it was opened with). Later calls reject with `Closed`. Closing twice is harmless.
   */
  close() {
    // A build in a worker stops at once; its install (queued behind this) then finds the store closed.
    this.#builder?.terminate();
    const done = this.#queue.then(async () => {
      if (this.#closed) return;
      this.#closed = true;
      try {
        if (this.#storage && !this.#trapped) {
          await withLock(this.#storage, async () => {
            await this.#core.sync();
            await this.#core.flush();
          });
        }
      } catch (e) {
        throw asEngramError(e);
      } finally {
        this.#channel?.close();
        this.#core.free();
        await this.#storage?.close?.();
      }
    });
    this.#queue = done.catch(() => {});
    return done;
  }
}

export { EngramError, Embedder };
export { ERROR_CODES } from "./errors.js";
