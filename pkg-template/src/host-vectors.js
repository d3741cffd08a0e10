// What a host embedder is shown, and when: the one place that decides it. A host embedder
// (LangChain's shape `{embedDocuments, embedQuery}`, awaited outside the core) is asked for
// - a memory's vector when an add, an update or an addMany item gives none and has content;
// - a turn's vector when an ingest gives none, embedded as the core indexes it (`speaker: content`),
//   unless the store holds that turn unchanged with its vector (a chat re-ingested whole as it grows
//   has only its new turns embedded);
// - the query's vector on every read that searches: search, recall, recallContext;
// - after a job (extract, author, consolidate) wrote memories of its own text, theirs (`catchUp`).
// It always sees the text as the store's guards keep it, never the caller's, and the core composes
// that text (`embeddingTexts`), so it is the text the local embedder would be given.

import { EngramError } from "./errors.js";
import { isPlainObject, toVector } from "./wire.js";
import { embedDocuments, embedQuery } from "./embedder.js";

/** Memories embedded per `catchUp` write: bounds one write and one host call. */
const CATCH_UP_MAX = 256;
/** Texts per host call when the caller watches the call (progress, abort): its granularity. */
const WATCHED_SLICE = 64;

export class HostVectors {
  #embedder;
  #core;
  #local;

  /**
   * `embedder`: the host embedder, or null; `core()`: the store's current core handle; `local`: the
   * local model (`Embedder`) the core embeds with, or null.
   */
  constructor(embedder, core, local = null) {
    this.#embedder = embedder;
    this.#core = core;
    this.#local = local;
  }

  get active() {
    return this.#embedder !== null;
  }

  /**
   * Who embeds a call's texts here: the host embedder; or, for a watched call on the local model,
   * the same model through its handle, in slices, so the call reports progress and stops between
   * two slices (the core would embed them all in one step); else nobody (the core embeds, or
   * nothing does). The local model's vectors are the ones the core would make from the same text.
   */
  #embedderFor(progress) {
    if (this.#embedder !== null) return this.#embedder;
    if (this.#local !== null && progress?.watched) return { embedDocuments: (texts) => this.#local.embed(texts) };
    return null;
  }

  /**
   * Vectors for `items` (`{content, speaker?, allowSecrets?, vector?}`): an item's own vector when
   * it has one, else the host embedder's (one call for all), else undefined (no embedder, or no
   * content to embed). A text the guards refuse throws their InvalidInput, with `label(i)` in front.
   * A watched call (`progress`, progress.js) is embedded in slices: `embedded(n)` after each (n texts
   * embedded so far), and an abort stops it between two slices.
   */
  /**
   * @param {{content?: unknown, speaker?: string, allowSecrets?: boolean, vector?: Float32Array}[]} items
   * @param {(i: number) => string} [label]
   * @param {{watched: boolean, check: () => void}} [progress]
   * @param {(n: number) => void} [embedded]
   */
  async vectors(items, label = () => "", progress = undefined, embedded = () => {}) {
    const out = items.map((it) => it.vector);
    const embedder = this.#embedderFor(progress);
    if (embedder === null) return out;
    const wanted = [];
    items.forEach((it, i) => {
      if (!it.vector && typeof it.content === "string" && it.content.trim() !== "") wanted.push(i);
    });
    if (wanted.length === 0) return out;
    const texts = this.#texts(wanted.map((i) => items[i]));
    texts.forEach((t, k) => {
      if (typeof t !== "string") throw new EngramError(t.error.code, `${label(wanted[k])}${t.error.message}`);
    });
    const slice = progress?.watched ? WATCHED_SLICE : texts.length;
    const made = [];
    for (let at = 0; at < texts.length; at += slice) {
      progress?.check();
      for (const v of await embedDocuments(embedder, texts.slice(at, at + slice))) made.push(v);
      embedded(made.length);
    }
    wanted.forEach((i, k) => {
      out[i] = made[k];
    });
    return out;
  }

  /** One memory's vector (`add`, `update`): its own, or the host embedder's, or undefined. */
  async vector(content, allowSecrets, given) {
    return (await this.vectors([{ content, allowSecrets: allowSecrets === true, vector: given }]))[0];
  }

  /**
   * The sessions with a vector on every turn the caller left without one (copies; the caller's
   * objects are not changed). Sessions or turns of the wrong shape are passed on for the core to
   * refuse with its own message. `label(si)` names session si in a refusal. `progress` and
   * `embedded` as for `vectors`.
   */
  /**
   * @param {any[]} sessions
   * @param {(si: number) => string} [label]
   * @param {{watched: boolean, check: () => void}} [progress]
   * @param {(n: number) => void} [embedded]
   */
  async sessions(sessions, label = () => "", progress = undefined, embedded = () => {}) {
    if (this.#embedderFor(progress) === null) return sessions;
    const items = [];
    const where = [];
    sessions.forEach((s, si) => {
      if (!Array.isArray(s?.turns) || !s.turns.every(isPlainObject)) return;
      const kept = this.#unchanged(s);
      s.turns.forEach((t, ti) => {
        if (kept.has(ti) || t.embedding !== undefined || typeof t.content !== "string" || t.content.trim() === "") return;
        items.push({ content: t.content, speaker: typeof t.speaker === "string" ? t.speaker : undefined, allowSecrets: s.allowSecrets === true });
        where.push([si, ti]);
      });
    });
    if (items.length === 0) return sessions;
    const made = await this.vectors(items, (k) => label(where[k][0]), progress, embedded);
    const out = sessions.map((s) => (Array.isArray(s?.turns) ? { ...s, turns: s.turns.slice() } : s));
    where.forEach(([si, ti], k) => {
      out[si].turns[ti] = { ...out[si].turns[ti], embedding: Array.from(made[k]) };
    });
    return out;
  }

  /** A read's query vector: the caller's (`given`), or the host embedder's for `query`. */
  async query(query, given, what) {
    if (given !== undefined && given !== null) return toVector(given, `${what}: embedding`);
    if (!this.active || typeof query !== "string" || query.trim() === "") return undefined;
    return embedQuery(this.#embedder, query);
  }

  /**
   * After a job wrote memories of its own text (extraction, authoring, consolidation): the host
   * embedder's vectors for memories stored without one, installed as one write through `write`.
   * Resolves to how many were installed (0 without a host embedder).
   */
  async catchUp(write) {
    if (!this.active) return 0;
    const list = JSON.parse(this.#core().vectorless(CATCH_UP_MAX));
    if (list.length === 0) return 0;
    // A stored memory's text is already as the guards keep it: the text the core itself embeds.
    const made = await embedDocuments(
      this.#embedder,
      list.map((m) => m.text),
    );
    return write(JSON.stringify(list), made);
  }

  /**
   * Indices of the session's turns the store holds unchanged with a vector (the core compares them
   * as its ingest would, guards applied). Empty for a session the core cannot read: the ingest
   * then reports why.
   */
  #unchanged(session) {
    let json;
    try {
      json = JSON.stringify({ ...session, turns: session.turns.map(({ embedding: _, ...turn }) => turn) });
    } catch {
      return new Set();
    }
    return new Set(JSON.parse(this.#core().unchangedTurns(json)));
  }

  /** What the core would embed for each item: a string, or `{error}` where the guards refuse it. */
  #texts(items) {
    const json = JSON.stringify(
      items.map(({ content, speaker, allowSecrets }) => ({ content, ...(speaker === undefined ? {} : { speaker }), allowSecrets: allowSecrets === true })),
    );
    return JSON.parse(this.#core().embeddingTexts(json));
  }
}
