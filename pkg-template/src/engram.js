// The Engram class: the async, typed API over the wasm core. Every call runs in order on one queue,
// so a slow host embedder can never interleave two writes, and every failure surfaces as an
// EngramError with a stable code. Vector index builds are scheduled by build-scheduler.js.

import { EngramError, abortError, asEngramError, closedError, invalid, isAbortError } from "./errors.js";
import { fields, isInstance, isPlainObject, optionsJson, packVectors, requireString, splitEmbedding, toJson, toVector } from "./wire.js";
import { embedDocument, embedDocuments, embedQuery, resolveEmbedder } from "./embedder.js";
import { defaultEmbedder, vectorBuilder } from "./core.js";
import { checkedAdapter, withLock } from "./storage-bridge.js";
import { Embedder } from "./local-embedder.js";
import { BuildScheduler } from "./build-scheduler.js";
import { faultsOf, markFaulted, unlessFaulted } from "./faults.js";
import { forgetHandle, liveCore } from "./instance.js";
import { DEFAULT_LLM_CONCURRENCY, DEFAULT_LLM_TIMEOUT_MS, LLM_LEVELS, runCalls } from "./llm.js";
import { prepareAddMany, prepareIngestMany } from "./batch.js";
import { AutoConsolidator, autoConsolidateOptions, consolidateOptions } from "./consolidate.js";
import { exportStream, readExport } from "./streams.js";

const OPEN = Symbol("Engram.open");
const OPEN_OPTIONS = new Set(["embedder", "idSeed", "storage", "reembed", "compactAfter", "vectorIndex", "autoReindex", "onBackgroundError", "llm", "llmLevel", "llmConcurrency", "llmTimeoutMs", "autoConsolidate", "guards", "onCorruption"]);
const EXTRACT_OPTIONS = new Set(["signal", "maxLlmCalls"]);
const INGEST_OPTIONS = new Set(["extract", "author", "signal", "maxLlmCalls"]);
const AUTHOR_OPTIONS = new Set(["signal", "maxLlmCalls"]);

/** `{llm, level, concurrency, timeoutMs}` from open's options; no `llm` means level "off". */
function llmSettings(options) {
  const { llm = null, llmLevel, llmConcurrency = DEFAULT_LLM_CONCURRENCY, llmTimeoutMs = DEFAULT_LLM_TIMEOUT_MS } = options;
  if (llm !== null && typeof llm !== "function") throw invalid("open: `llm` must be a function (request, {signal}) => Promise<string | {text, usage}>, e.g. openAICompatible({...})");
  if (llmLevel !== undefined && !LLM_LEVELS.has(llmLevel)) throw invalid(`open: \`llmLevel\` must be one of ${[...LLM_LEVELS].join(", ")}`);
  if (llm === null && llmLevel !== undefined && llmLevel !== "off") throw invalid(`open: \`llmLevel: "${llmLevel}"\` needs an \`llm\``);
  if (!Number.isInteger(llmConcurrency) || llmConcurrency < 1 || llmConcurrency > 64) throw invalid("open: `llmConcurrency` must be an integer in 1..64");
  if (!Number.isInteger(llmTimeoutMs) || llmTimeoutMs < 1) throw invalid("open: `llmTimeoutMs` must be a positive integer (milliseconds)");
  const level = llm === null ? "off" : (llmLevel ?? "auto");
  return { llm: level === "off" ? null : llm, level, concurrency: llmConcurrency, timeoutMs: llmTimeoutMs };
}
const REINDEX_OPTIONS = new Set(["onProgress", "signal", "inWorker"]);

function isSignal(s) {
  return s !== null && typeof s === "object" && typeof s.aborted === "boolean" && typeof s.addEventListener === "function";
}

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
  #embedder;
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
  /** What opening did, to do it again on a new instance after an internal fault: `{coreJson, storeJson, adapter, local}`. */
  #reopen;
  #builds;
  /** The core's byte budgets for large inputs (`limits` in the wasm module), checked before copying. */
  #limits;
  /** Receives failures of background work: automatic builds (through the scheduler), compactions. */
  #onBackgroundError;
  #glue;
  /** `{llm, level, concurrency, timeoutMs}` from open (`llmSettings`). */
  #llm;
  /** Runs consolidation epochs on their own (`autoConsolidate`); `null` when off. */
  #autoConsolidate = null;
  /** Told of damaged records left out (`onCorruption` at open); `null`: such records refuse to open. */
  #onCorruption = null;

  constructor(token, core, embedder, storage, glue, vectors, llm, reopen) {
    if (token !== OPEN) throw new TypeError("use `await Engram.open(options)` to create an Engram");
    this.#core = core;
    this.#reopen = reopen;
    this.#embedder = embedder;
    this.#storage = storage;
    this.#limits = JSON.parse(glue.limits());
    this.#faults = faultsOf(glue);
    this.#onBackgroundError = vectors.onBackgroundError;
    this.#onCorruption = vectors.onCorruption ?? null;
    this.#glue = glue;
    this.#llm = llm;
    if (vectors.autoConsolidate) {
      this.#autoConsolidate = new AutoConsolidator(vectors.autoConsolidate, (options) => this.consolidate(options), (e) => this.#reportBackground(e, "an automatic consolidation"));
    }
    this.#builds = new BuildScheduler({
      glue: () => this.#glue,
      enqueue: (work) => this.#enqueue(work),
      commit: (c, commit) => this.#commit(c, commit),
      stats: () => this.vectorIndexStats(),
      ...vectors,
    });
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
   * `vectorIndex: {graphMin, alwaysGraph, workerUrl}` tunes the vector index and says where its build
   * worker is served; `autoReindex` (default: where a worker is available) starts builds after
   * writes; `onBackgroundError` receives a failed automatic build's error. A record written whole
   * and damaged since (its checksum fails) refuses to open (`Corrupt`) unless `onCorruption` is
   * given: then the store opens without it and `onCorruption({skipped})` names each record left out.
   */
  static async open(options = {}) {
    if (!isPlainObject(options)) throw invalid("open: expected an options object");
    for (const key of Object.keys(options)) {
      if (!OPEN_OPTIONS.has(key)) throw invalid(`open: unknown option \`${key}\` (allowed: ${[...OPEN_OPTIONS].join(", ")})`);
    }
    const llm = llmSettings(options);
    const autoConsolidate = autoConsolidateOptions(options.autoConsolidate);
    const storage = options.storage ?? null;
    const adapter = storage === null ? null : checkedAdapter(storage);
    if (options.reembed !== undefined && typeof options.reembed !== "boolean") throw invalid("open: `reembed` must be a boolean");
    const coreOptions = {};
    if (options.idSeed !== undefined) coreOptions.idSeed = options.idSeed;
    let workerUrl;
    if (options.vectorIndex !== undefined) {
      if (!isPlainObject(options.vectorIndex)) throw invalid("open: `vectorIndex` must be an object like {graphMin: 20000}");
      const { workerUrl: url, ...tuning } = options.vectorIndex; // the rest is checked by the core
      if (url !== undefined && typeof url !== "string" && !(url instanceof URL)) throw invalid("open: `vectorIndex.workerUrl` must be a string or a URL");
      workerUrl = url;
      coreOptions.vectorIndex = tuning;
    }
    if (options.autoReindex !== undefined && typeof options.autoReindex !== "boolean") throw invalid("open: `autoReindex` must be a boolean");
    if (options.guards !== undefined && options.guards !== null) {
      if (!isPlainObject(options.guards)) throw invalid('open: `guards` must be an object like {secrets: "redact", injection: "flag"}');
      coreOptions.guards = options.guards; // the policies are checked by the core
    }
    if (options.onBackgroundError !== undefined && options.onBackgroundError !== null && typeof options.onBackgroundError !== "function") {
      throw invalid("open: `onBackgroundError` must be a function");
    }
    if (options.onCorruption !== undefined && options.onCorruption !== null && typeof options.onCorruption !== "function") {
      throw invalid("open: `onCorruption` must be a function");
    }
    const chosen = options.embedder === undefined ? await defaultEmbedder() : options.embedder;
    const local = chosen instanceof Embedder ? chosen : null;
    const embedder = local ? null : resolveEmbedder(chosen);
    // Automatic builds only where they can run off this thread.
    const auto = options.autoReindex ?? vectorBuilder() !== null;
    // A host embedder that names itself gets the same protection as the local one.
    if (embedder && typeof embedder.id === "string" && Number.isInteger(embedder.dims)) coreOptions.embedder = { id: embedder.id, dims: embedder.dims };
    const storeOptions = {};
    if (options.reembed !== undefined) storeOptions.reembed = options.reembed;
    if (options.compactAfter !== undefined) storeOptions.compactAfter = options.compactAfter;
    if (typeof options.onCorruption === "function") storeOptions.skipDamaged = true;
    const reopen = { coreJson: toJson(coreOptions, "open"), storeJson: toJson(storeOptions, "open"), storage, adapter, local };
    const { glue, core } = await openCore(reopen);
    const db = new Engram(OPEN, core, embedder, storage, glue, { auto, onBackgroundError: options.onBackgroundError ?? null, onCorruption: options.onCorruption ?? null, workerUrl, autoConsolidate }, llm, reopen);
    db.#reportSkipped(core);
    return db;
  }

  /**
   * After an internal fault stopped this store's instance: the same store on the live instance,
   * reopened from its storage adapter (everything acknowledged is there). A store without storage
   * cannot come back: its data lived only in the stopped instance.
   */
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

  /**
   * A write. `prepare` runs first, outside the storage lock (embedding can be slow); `commit` runs
   * under the lock after catching up with other writers, so two contexts never commit over each other.
   */
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
    this.#reportCompactionFailure(core);
    return out;
  }

  /**
   * An automatic compaction that failed after a write succeeded: reported once, like a failed
   * background build (the core waits for twice the chunks before it tries again).
   */
  #reportCompactionFailure(core) {
    const failure = core.takeCompactionFailure();
    if (failure === undefined) return;
    const error = asEngramError(failure);
    try {
      if (this.#onBackgroundError) this.#onBackgroundError(error);
      else console.warn(`engram-wasm: compacting the store failed (the write itself succeeded; compaction is tried again later): ${error.message}`);
    } catch {
      // the host's handler failing must not fail the write
    }
  }

  /** Tiers of the memory and raw-turn vector indexes, and whether a build is due. */
  vectorIndexStats() {
    return this.#run(async (core) => JSON.parse(core.vectorIndexStats()));
  }

  /**
   * Builds the vector index's graph segments now: plans each build (cheap), builds it in a worker
   * (Node `worker_threads`, a module Worker in browsers; in-process where no worker is available, or
   * with `inWorker: false`, which blocks this thread for the build), and installs it through the
   * write path (persisted with storage). Queries keep being answered from the current tiers meanwhile.
   * `onProgress` gets `{status: "build" | "installed" | "done", target, points, loaded, total, …}`;
   * `signal` aborts (the worker is terminated; nothing is installed; rejects with an `AbortError`).
   * A running automatic build finishes first. Resolves to `{steps, stats}`.
   */
  async reindex(options = {}) {
    if (!isPlainObject(options)) throw invalid("reindex: expected an options object");
    for (const key of Object.keys(options)) {
      if (!REINDEX_OPTIONS.has(key)) throw invalid(`reindex: unknown option \`${key}\` (allowed: ${[...REINDEX_OPTIONS].join(", ")})`);
    }
    const { onProgress, signal, inWorker } = fields(options, "reindex");
    if (onProgress !== undefined && onProgress !== null && typeof onProgress !== "function") throw invalid("reindex: `onProgress` must be a function");
    if (signal !== undefined && signal !== null && !isSignal(signal)) throw invalid("reindex: `signal` must be an AbortSignal");
    if (inWorker !== undefined && typeof inWorker !== "boolean") throw invalid("reindex: `inWorker` must be a boolean");
    if (signal?.aborted) throw abortError("the reindex was aborted");
    return this.#builds.reindex({ onProgress, signal: signal ?? undefined, inWorker: inWorker ?? true });
  }

  /**
   * Stores a memory (in the buffer layer) or reinforces an identical one; see `deduplicated`.
   * Also takes, as mem0's `add` does, a plain string (the content; `options` holds the other fields)
   * or an array of chat messages `[{role, content}]`: those are kept as a session (`addMessages`).
   */
  add(input, options) {
    if (typeof input === "string") {
      if (options !== undefined && options !== null && !isPlainObject(options)) return Promise.reject(invalid("add: expected the other fields as an options object, like add(text, {kind: \"semantic\"})"));
      if (options && "content" in options) return Promise.reject(invalid("add: the content is the string; `options` cannot carry `content` too"));
      try {
        return this.#addOne({ ...(options && fields(options, "add")), content: input });
      } catch (e) {
        return Promise.reject(e);
      }
    }
    if (Array.isArray(input)) return this.#addMessages(input, options);
    if (options !== undefined) return Promise.reject(invalid("add: a memory object takes no second argument; put the fields in the object"));
    return this.#addOne(input);
  }

  /**
   * `add` for every item (an object as `add` takes it, or a string for its content), as one write:
   * every item is checked first (a bad one fails the call, naming `items[i]`, and nothing is
   * written), the host embedder is asked once for the whole batch, and duplicates within the batch
   * reinforce the earlier item as sequential adds would. One result per item, as `add` returns it.
   */
  addMany(items) {
    return this.#write(
      () => prepareAddMany(items, { embedder: this.#embedder, guarded: (text, allow) => this.#guarded(text, allow), limits: this.#limits }),
      async (core, { json, vectors, dims }) => JSON.parse(await core.addMany(json, vectors, dims)),
    );
  }

  /** `ingest` for every session, as one write (all or nothing); one report per session. */
  ingestMany(sessions) {
    return this.#write(
      () => prepareIngestMany(sessions, { embedder: this.#embedder, guarded: (text, allow) => this.#guarded(text, allow), limits: this.#limits }),
      async (core, json) => JSON.parse(await core.ingestMany(json)),
    );
  }

  /**
   * Chat messages as a session: ingested (turns `<sessionId>#<index>`), then extracted into typed
   * memories when this store has an `llm` (unless `extract: false`). `sessionId` names the
   * session (the array is then the whole conversation so far, as with `ingest`); without it each
   * call is a new session.
   */
  #addMessages(messages, options) {
    if (options !== undefined && options !== null && !isPlainObject(options)) return Promise.reject(invalid("add: expected an options object after the messages"));
    let given;
    try {
      given = options ? fields(options, "add") : {};
    } catch (e) {
      return Promise.reject(e);
    }
    const { sessionId, namespace, date, extract, ...rest } = given;
    for (const key of Object.keys(rest)) {
      if (!EXTRACT_OPTIONS.has(key)) return Promise.reject(invalid(`add: unknown option \`${key}\` for messages (allowed: sessionId, namespace, date, extract, ${[...EXTRACT_OPTIONS].join(", ")})`));
    }
    if (messages.length === 0) return Promise.reject(invalid("add: expected at least one message {role, content}"));
    if (extract !== undefined && typeof extract !== "boolean") return Promise.reject(invalid("add: `extract` must be a boolean"));
    const session = { id: sessionId ?? newSessionId(), turns: messages };
    if (namespace !== undefined) session.namespace = namespace;
    if (date !== undefined) session.date = date;
    // Extraction by default where there is an llm; asked for without one, the report says nothing was extracted.
    if (extract ?? this.#llm.llm !== null) return this.ingest(session, { ...rest, extract: true });
    return this.ingest(session);
  }

  /**
   * Group commit: an add joins the group of adds queued just before it (no other call in between,
   * so calls still run in their order), and the group is one storage write — one record, one
   * fsync, one lock — when its turn comes. Each add resolves once that write is durable (its own
   * refusal, e.g. InvalidInput, rejects it alone); a failed write rejects every add of the group.
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

  /** `{json, v}` of an add: its JSON and its vector (given, or from the host embedder). */
  async #prepareAdd(input) {
    const { json, vector } = splitEmbedding(input, "add");
    let v = vector;
    if (!v && this.#embedder && typeof input.content === "string" && input.content.trim() !== "") {
      v = await embedDocument(this.#embedder, this.#guarded(input.content, input.allowSecrets));
    }
    return { json, v };
  }

  /** A group of adds (inside the queue): prepared one by one, then committed as one write. */
  async #commitGroup(core, group) {
    if (this.#openGroup === group) this.#openGroup = null; // started: later adds start a new group
    const ready = [];
    for (const item of group.items) {
      try {
        ready.push({ item, ...(await this.#prepareAdd(item.input)) });
      } catch (e) {
        item.reject(asEngramError(e));
      }
    }
    if (ready.length === 0) return;
    const { vectors, dims } = packVectors(ready.map((r) => r.v));
    const inputs = `[${ready.map((r) => r.json).join(",")}]`;
    const outcomes = JSON.parse(await this.#commit(core, (c) => c.addGroup(inputs, vectors, dims)));
    ready.forEach(({ item }, k) => {
      const o = outcomes[k];
      if (o.error) item.reject(new EngramError(o.error.code, o.error.message));
      else item.resolve(o.ok);
    });
  }

  /**
   * The text a host embedder may see: as the store's guards keep it (secrets redacted), never the
   * caller's. Throws InvalidInput where the guards reject it, before anything is embedded.
   */
  #guarded(text, allowSecrets) {
    return JSON.parse(this.#core.guardText(text, allowSecrets === true)).text;
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
          v = await embedDocument(this.#embedder, this.#guarded(patch.content, patch.allowSecrets));
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
      const { embedding, ...rest } = options ? fields(options, "search") : {};
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
  ingest(session, options) {
    if (options !== undefined && options !== null) {
      // Bad options reject like every other failure: a method never throws synchronously.
      let problem = null;
      if (!isPlainObject(options)) problem = "ingest: expected an options object like {extract: true}";
      else {
        try {
          options = fields(options, "ingest");
        } catch (e) {
          return Promise.reject(e);
        }
        const unknown = Object.keys(options).find((key) => !INGEST_OPTIONS.has(key));
        if (unknown !== undefined) problem = `ingest: unknown option \`${unknown}\` (allowed: ${[...INGEST_OPTIONS].join(", ")})`;
        else if (options.extract !== undefined && typeof options.extract !== "boolean") problem = "ingest: `extract` must be a boolean";
        else if (options.author !== undefined && typeof options.author !== "boolean") problem = "ingest: `author` must be a boolean";
      }
      if (problem !== null) return Promise.reject(invalid(problem));
      if (options.extract || options.author) {
        const { extract, author, ...rest } = options;
        return this.ingest(session).then(async (ingested) => {
          const out = { ...ingested };
          if (extract) out.extracted = await this.extract(ingested.sessionId, rest);
          if (author) out.authored = await this.author(ingested.sessionId, rest);
          return out;
        });
      }
    }
    return this.#write(
      async () => {
        if (!isPlainObject(session)) throw invalid("ingest: expected a session object");
        session = fields(session, "ingest");
        // Bounds first, before work per turn (copying, guarding, embedding); the core checks again.
        const { ingestBytes, sessionTurns } = this.#limits;
        if (Array.isArray(session.turns) && session.turns.length > sessionTurns) throw invalid(`ingest: a session needs 1..${sessionTurns} turns, got ${session.turns.length}`);
        const text = Array.isArray(session.turns) ? session.turns.reduce((n, t) => n + (typeof t?.content === "string" ? t.content.length : 0), 0) : 0;
        if (text > ingestBytes) throw invalid(`ingest: the session's text is over ${ingestBytes} bytes; split it or drop old turns`);
        let turns = Array.isArray(session.turns) ? session.turns.map((t) => (isPlainObject(t) ? fields(t, "ingest: a turn") : t)) : session.turns;
        if (this.#embedder && Array.isArray(turns) && turns.every(isPlainObject)) {
          // Turns the caller gave no vector get one from the host embedder, in one batch.
          const missing = turns.flatMap((t, i) => (t.embedding === undefined && typeof t.content === "string" && t.content.trim() !== "" ? [i] : []));
          if (missing.length > 0) {
            const texts = missing.map((i) => {
              const content = this.#guarded(turns[i].content, session.allowSecrets);
              return typeof turns[i].speaker === "string" ? `${turns[i].speaker}: ${content}` : content;
            });
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

  /**
   * Sends a session's turns not yet extracted to the LLM, which returns typed memories (third
   * person, kind, importance, tags, eventAt, derivedFrom citing the turns); valid ones are added
   * (history names the promptId) and the turns marked, so a later run sends only new turns. Without
   * an `llm` the report says nothing was extracted. `signal` aborts the calls in flight (rejects with
   * `Aborted`, nothing applied); `maxLlmCalls` bounds the requests of this run. Failed or invalid
   * calls are skipped and reported, never applied in part.
   */
  async extract(sessionId, options = {}) {
    requireString(sessionId, "extract: sessionId");
    if (!isPlainObject(options)) throw invalid("extract: expected an options object");
    for (const key of Object.keys(options)) {
      if (!EXTRACT_OPTIONS.has(key)) throw invalid(`extract: unknown option \`${key}\` (allowed: ${[...EXTRACT_OPTIONS].join(", ")})`);
    }
    const { signal, maxLlmCalls } = fields(options, "extract");
    if (signal !== undefined && signal !== null && !isSignal(signal)) throw invalid("extract: `signal` must be an AbortSignal");
    if (maxLlmCalls !== undefined && (!Number.isInteger(maxLlmCalls) || maxLlmCalls < 0)) throw invalid("extract: `maxLlmCalls` must be a non-negative integer");
    if (signal?.aborted) throw new EngramError("Aborted", "the extraction was aborted before it started");
    if (!this.#llm.llm) return this.#run(async (core) => JSON.parse(core.extractWithoutLlm(sessionId)));
    const planJson = await this.#run(async (core) => core.extractPlan(sessionId, toJson(maxLlmCalls === undefined ? {} : { maxLlmCalls }, "extract")));
    const plan = JSON.parse(planJson);
    // The calls run outside the queue (other calls proceed meanwhile); apply re-checks the session.
    const check = (request, text) => JSON.parse(this.#glue.llmCheck(JSON.stringify(request), text));
    const results = await runCalls(this.#llm.llm, plan.calls.map((c) => c.request), { check, concurrency: this.#llm.concurrency, timeoutMs: this.#llm.timeoutMs, signal: signal ?? undefined });
    return this.#write(
      async () => ({ json: JSON.stringify(results), vectors: await this.#extractedVectors(results) }),
      async (core, { json, vectors }) => JSON.parse(await core.extractApply(planJson, json, vectors)),
    );
  }

  /**
   * With a host embedder, its vectors for the texts the valid replies extracted (`{text: vector}`
   * JSON), so extracted memories are searchable by meaning like added ones; `undefined` otherwise.
   */
  async #extractedVectors(results) {
    if (!this.#embedder) return undefined;
    const texts = new Set();
    for (const r of results) {
      if ((r.outcome !== "ok" && r.outcome !== "retried") || r.replies.length === 0) continue;
      try {
        for (const m of JSON.parse(r.replies.at(-1)).memories ?? []) if (typeof m?.content === "string" && m.content.trim() !== "") texts.add(m.content.trim());
      } catch {
        // the core judges the reply again; an unreadable one extracts nothing
      }
    }
    // The embedder sees each text as the guards will store it; a text they refuse is not embedded
    // (the core refuses that reply too).
    const list = [];
    const guarded = [];
    for (const t of texts) {
      try {
        guarded.push(this.#guarded(t, false));
        list.push(t);
      } catch {
        // refused by the guards
      }
    }
    if (list.length === 0) return undefined;
    const vectors = await embedDocuments(this.#embedder, guarded);
    return JSON.stringify(Object.fromEntries(list.map((t, i) => [t, Array.from(vectors[i])])));
  }

  /**
   * Runs one consolidation epoch and resolves to its report: every action (promote, merge,
   * supersede, evict, distill, keep, reject, distinct, decay) with the memory ids, the reason and,
   * for LLM decisions, the promptId; the LLM usage; what was skipped and why. Decay is per epoch,
   * never per wall-clock. With an `llm` (level auto/on) the judge steps run through it; without,
   * the heuristics run and the rest is skipped. `dryRun` returns the report without changing
   * anything (the LLM calls it would make are listed under `planned`, none is made). `signal`
   * aborts the calls in flight (rejects with `Aborted`, nothing applied). `onProgress` receives
   * `{status: "planned" | "applying" | "done", calls?}`.
   */
  async consolidate(options = {}) {
    const { namespace, onProgress, signal, maxLlmCalls, dryRun, bufferCap } = consolidateOptions(options);
    if (signal?.aborted) throw new EngramError("Aborted", "the consolidation was aborted before it started");
    const coreOptions = { llmLevel: this.#llm.level, hasLlm: this.#llm.llm !== null };
    if (namespace !== undefined) coreOptions.namespace = namespace;
    if (maxLlmCalls !== undefined) coreOptions.maxLlmCalls = maxLlmCalls;
    if (bufferCap !== undefined) coreOptions.bufferCap = bufferCap;
    const json = toJson(coreOptions, "consolidate");
    if (dryRun) return this.#run(async (core) => JSON.parse(core.consolidateDryRun(json)));
    const planJson = await this.#run(async (core) => core.consolidatePlan(json));
    const plan = JSON.parse(planJson);
    onProgress?.({ status: "planned", calls: plan.calls.length });
    let results = [];
    if (plan.calls.length > 0) {
      // The calls run outside the queue (other calls proceed meanwhile); apply re-checks each memory.
      const check = (request, text) => JSON.parse(this.#glue.llmCheck(JSON.stringify(request), text));
      results = await runCalls(this.#llm.llm, plan.calls.map((c) => c.request), { check, concurrency: this.#llm.concurrency, timeoutMs: this.#llm.timeoutMs, signal });
    }
    onProgress?.({ status: "applying" });
    const report = await this.#write(
      async () => JSON.stringify(results),
      async (core, resultsJson) => JSON.parse(await core.consolidateApply(planJson, resultsJson)),
      { ownEpoch: true },
    );
    onProgress?.({ status: "done" });
    return report;
  }

  /** Damaged records the core left out (opened with `onCorruption`), handed to the host once. */
  #reportSkipped(core) {
    if (!this.#onCorruption || !this.#storage) return;
    const skipped = JSON.parse(core.takeSkipped());
    if (skipped.length === 0) return;
    try {
      this.#onCorruption({ skipped });
    } catch (e) {
      console.warn(`engram-wasm: onCorruption threw: ${e?.message ?? e}`);
    }
  }

  /** A failure of background work, handed to `onBackgroundError` (or a warning). */
  #reportBackground(e, what) {
    const error = asEngramError(e);
    try {
      if (this.#onBackgroundError) this.#onBackgroundError(error);
      else console.warn(`engram-wasm: ${what} failed (nothing was lost): ${error.message}`);
    } catch {
      // the host's handler failing must not break anything else
    }
  }

  /**
   * Authors typed, dated memories (shape, thread, value, dependsOn, consequent, area, signature,
   * confidence, eventAt, derivedFrom) from a session's turns not yet authored, and marks the turns.
   * `llmLevel` "off" or "auto" (or no `llm`): the offline rules. "on": the `author@1` prompt through
   * the host LLM; turns whose call failed or was invalid are then authored by the offline rules
   * (`offlineTurns`), turns over `maxLlmCalls` stay pending. An authored retraction removes the
   * thread's values everywhere (see `retract`). `signal` aborts the calls in flight (rejects with
   * `Aborted`, nothing applied).
   */
  async author(sessionId, options = {}) {
    requireString(sessionId, "author: sessionId");
    if (!isPlainObject(options)) throw invalid("author: expected an options object");
    for (const key of Object.keys(options)) {
      if (!AUTHOR_OPTIONS.has(key)) throw invalid(`author: unknown option \`${key}\` (allowed: ${[...AUTHOR_OPTIONS].join(", ")})`);
    }
    const { signal, maxLlmCalls } = fields(options, "author");
    if (signal !== undefined && signal !== null && !isSignal(signal)) throw invalid("author: `signal` must be an AbortSignal");
    if (maxLlmCalls !== undefined && (!Number.isInteger(maxLlmCalls) || maxLlmCalls < 0)) throw invalid("author: `maxLlmCalls` must be a non-negative integer");
    if (signal?.aborted) throw new EngramError("Aborted", "authoring was aborted before it started");
    const offline = (turnIds) =>
      this.#write(
        async () => (turnIds === undefined ? undefined : JSON.stringify(turnIds)),
        async (core, json) => JSON.parse(await core.authorOffline(sessionId, json)),
      );
    if (!this.#llm.llm || this.#llm.level !== "on") return offline(undefined);
    const planJson = await this.#run(async (core) => core.authorPlan(sessionId, toJson(maxLlmCalls === undefined ? {} : { maxLlmCalls }, "author")));
    const plan = JSON.parse(planJson);
    const check = (request, text) => JSON.parse(this.#glue.llmCheck(JSON.stringify(request), text));
    const results = await runCalls(this.#llm.llm, plan.calls.map((c) => c.request), { check, concurrency: this.#llm.concurrency, timeoutMs: this.#llm.timeoutMs, signal: signal ?? undefined });
    const report = await this.#write(
      async () => JSON.stringify(results),
      async (core, json) => JSON.parse(await core.authorApply(planJson, json)),
    );
    const failed = report.skipped.flatMap((s) => s.turns);
    if (failed.length === 0) return report;
    // The fallback: the rules author what the LLM could not.
    const rules = await offline(failed);
    report.pendingTurns = report.pendingTurns.filter((t) => !rules.authoredTurns.includes(t));
    for (const key of ["added", "reinforced", "retracted", "skipped"]) report[key].push(...rules[key]);
    report.offlineTurns.push(...rules.authoredTurns);
    report.authoredTurns.push(...rules.authoredTurns);
    return report;
  }

  /**
   * Retracts a thread (`team/package-manager`): the memories stating its values are deleted, and
   * every other memory and raw turn that repeats a value is redacted in place (`[retracted]`),
   * re-indexed and re-embedded; history keeps the events without the text. `{namespace?}`.
   */
  retract(thread, options) {
    return this.#write(
      async () => [requireString(thread, "retract: thread"), optionsJson(options, "retract")],
      async (core, [t, json]) => JSON.parse(await core.retract(t, json)),
    );
  }

  /** LLM calls applied since this store was opened: counts, tokens (reported or estimated), outcomes. */
  llmUsage() {
    return this.#run(async (core) => JSON.parse(core.llmUsage()));
  }

  /** The turns of a session, in order (NotFound if there is no such session). */
  session(id) {
    return this.#run(async (core) => JSON.parse(core.session(requireString(id, "session: id"))));
  }

  /** Session ids of a namespace. */
  sessions(options) {
    return this.#run(async (core) => JSON.parse(core.sessions(optionsJson(options, "sessions"))));
  }

  /** Lets a quarantined memory or raw turn back into context blocks; resolves to `{id, target, released}`. */
  release(id) {
    return this.#write(
      async () => requireString(id, "release: id"),
      async (core, checked) => JSON.parse(await core.release(checked)),
    );
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

  /**
   * One search read by the shape of its hits: `{route, answers, context}`. Answers carry the
   * derived state of each slot (current, superseded, deleted, cascaded, uncertain) with evidence
   * ids; `context` is a `<memory>` block under `maxTokens` (default 1000). `at`: as of that date.
   */
  recall(query, options) {
    return this.#run(async (core) => JSON.parse(core.recall(requireString(query, "recall: query"), optionsJson(options, "recall"))));
  }

  /** A thread's derived state and its dated values, oldest first (`at`: as of that date). */
  thread(label, options) {
    return this.#run(async (core) => JSON.parse(core.thread(requireString(label, "thread: label"), optionsJson(options, "thread"))));
  }

  /** Every slot of an area, each in its derived state (`at`: as of that date). */
  gather(area, options) {
    return this.#run(async (core) => JSON.parse(core.gather(requireString(area, "gather: area"), optionsJson(options, "gather"))));
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
    return this.#run(async (core) => core.export(exportNamespace(options, "export")));
  }

  /**
   * The same file as `export(options)`, as a ReadableStream of Uint8Array slices (≈ 1 MiB each), so
   * no whole copy of it is ever in memory. The file is the store as of this call: later calls on this
   * store wait until the stream is read to its end or cancelled (breaking out of `for await` cancels).
   */
  exportStream(options) {
    let namespace;
    try {
      namespace = exportNamespace(options, "exportStream");
    } catch (e) {
      return new ReadableStream({ start: (controller) => controller.error(e) });
    }
    return exportStream((work) => this.#run(work), namespace, asEngramError);
  }

  /**
   * Merges an export file into this store by id (records with the same id are replaced), as one
   * write. `source`: the file as a Uint8Array or ArrayBuffer, a Blob, a ReadableStream or an (async)
   * iterable of Uint8Array chunks (a Node file stream); it is read in slices, so the wasm memory holds
   * the decoded records, never the file. A damaged file is `Corrupt`, a file of another embedder
   * `Embedder`; either changes nothing.
   */
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

  /**
   * Writes what is pending, then releases the wasm memory and the storage adapter (the store owns
   * the adapter it was opened with). Later calls reject with `Closed`. Closing twice is harmless.
   */
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

/** The `namespace` of export options (undefined: the whole store); InvalidInput for anything else. */
function exportNamespace(options, what) {
  if (options !== undefined && options !== null && !isPlainObject(options)) throw invalid(`${what}: expected an options object`);
  const { namespace, ...rest } = options ? fields(options, what) : {};
  const unknown = Object.keys(rest);
  if (unknown.length) throw invalid(`${what}: unknown option \`${unknown[0]}\` (allowed: namespace)`);
  if (namespace !== undefined && namespace !== null) requireString(namespace, `${what}: namespace`);
  return namespace ?? undefined;
}

export { EngramError, Embedder };
export { ERROR_CODES } from "./errors.js";
