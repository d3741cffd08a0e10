// The Engram class: the async, typed API over the wasm core. Every call runs in order on one queue,
// so a slow host embedder can never interleave two writes, and every failure surfaces as an
// EngramError with a stable code.

import { EngramError, asEngramError, invalid } from "./errors.js";
import { isPlainObject, optionsJson, requireString, splitEmbedding, toJson, toVector } from "./wire.js";
import { embedDocument, embedDocuments, embedQuery, resolveEmbedder } from "./embedder.js";
import { defaultEmbedder, loadCore } from "./core.js";
import { Embedder } from "./local-embedder.js";

const OPEN = Symbol("Engram.open");
const OPEN_OPTIONS = new Set(["embedder", "idSeed"]);

export class Engram {
  #core;
  #embedder;
  #queue = Promise.resolve();
  #closed = false;
  #trapped = null;

  constructor(token, core, embedder) {
    if (token !== OPEN) throw new TypeError("use `await Engram.open(options)` to create an Engram");
    this.#core = core;
    this.#embedder = embedder;
  }

  /**
   * Opens a store; it lives in memory. `embedder`: an `Embedder` (Engram's local model, run inside
   * the core), a host embedder `{embedDocuments, embedQuery}`, or `null` for keyword-only search.
   * Left out: in Node the local model from `ENGRAM_MODEL_DIR` or `./models`; in browsers keyword-only.
   */
  static async open(options = {}) {
    if (!isPlainObject(options)) throw invalid("open: expected an options object");
    for (const key of Object.keys(options)) {
      if (!OPEN_OPTIONS.has(key)) throw invalid(`open: unknown option \`${key}\` (allowed: ${[...OPEN_OPTIONS].join(", ")})`);
    }
    const chosen = options.embedder === undefined ? await defaultEmbedder() : options.embedder;
    const local = chosen instanceof Embedder ? Embedder.handleOf(chosen) : null;
    const embedder = local ? null : resolveEmbedder(chosen);
    let glue;
    try {
      glue = await loadCore();
    } catch (e) {
      throw asEngramError(e);
    }
    const coreOptions = options.idSeed === undefined ? undefined : toJson({ idSeed: options.idSeed }, "open");
    let core;
    try {
      core = new glue.EngramCore(coreOptions);
      if (local) core.setEmbedder(local);
    } catch (e) {
      core?.free();
      throw asEngramError(e);
    }
    return new Engram(OPEN, core, embedder);
  }

  #run(work) {
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

  /** Stores a memory (in the buffer layer) or reinforces an identical one; see `deduplicated`. */
  add(input) {
    return this.#run(async (core) => {
      const { json, vector } = splitEmbedding(input, "add");
      let v = vector;
      if (!v && this.#embedder && typeof input.content === "string" && input.content.trim() !== "") {
        v = await embedDocument(this.#embedder, input.content);
      }
      return JSON.parse(core.add(json, v));
    });
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
    return this.#run(async (core) => {
      requireString(id, "update: id");
      const { json, vector } = splitEmbedding(patch, "update");
      let v = vector;
      if (!v && this.#embedder && typeof patch.content === "string" && patch.content.trim() !== "") {
        v = await embedDocument(this.#embedder, patch.content);
      }
      return JSON.parse(core.update(id, json, v));
    });
  }

  /** Deletes one memory; rejects with NotFound if there is none with this id. */
  delete(id) {
    return this.#run(async (core) => {
      core.delete(requireString(id, "delete: id"));
    });
  }

  /** Deletes every memory of a namespace (`default` when omitted); resolves to how many. */
  deleteAll(options) {
    return this.#run(async (core) => core.deleteAll(optionsJson(options, "deleteAll")));
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
    return this.#run(async (core) => {
      if (!isPlainObject(session)) throw invalid("ingest: expected a session object");
      let turns = session.turns;
      if (this.#embedder && Array.isArray(turns) && turns.every((t) => isPlainObject(t) && typeof t.content === "string" && t.embedding === undefined)) {
        const texts = turns.map((t) => (typeof t.speaker === "string" ? `${t.speaker}: ${t.content}` : t.content));
        const vectors = await embedDocuments(this.#embedder, texts);
        turns = turns.map((t, i) => ({ ...t, embedding: Array.from(vectors[i]) }));
      }
      return JSON.parse(core.ingest(toJson({ ...session, turns }, "ingest")));
    });
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
    return this.#run(async (core) => JSON.parse(core.deleteSession(requireString(id, "deleteSession: id"))));
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

  /** Forgets everything in this store. */
  reset() {
    return this.#run(async (core) => {
      core.reset();
    });
  }

  /** Releases the wasm memory; later calls reject with `Closed`. Closing twice is harmless. */
  close() {
    const done = this.#queue.then(() => {
      if (this.#closed) return;
      this.#closed = true;
      this.#core.free();
    });
    this.#queue = done.catch(() => {});
    return done;
  }
}

export { EngramError, Embedder };
export { ERROR_CODES } from "./errors.js";
