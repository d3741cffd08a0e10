// Group commit of `add`: an add joins the group of adds queued just before it (no other call in
// between, so calls still run in their order), and the group is one storage write — one record,
// one fsync, one lock — when its turn on the queue comes. Each add resolves once that write is
// durable (its own refusal, e.g. InvalidInput, rejects it alone); a failed write rejects every add
// of the group.

import { EngramError, asEngramError } from "./errors.js";
import { packVectors, splitEmbedding } from "./wire.js";

/** Adds per group: bounds one record's size and how long the first add of a group waits. */
const GROUP_MAX = 256;

export class GroupCommit {
  #open = null;
  #enqueue;
  #commit;
  #vectors;

  /** `enqueue(work)` puts work on the store's queue; `commit(core, fn)` runs `fn` under the storage lock; `vectors`: HostVectors. */
  constructor({ enqueue, commit, vectors }) {
    this.#enqueue = enqueue;
    this.#commit = commit;
    this.#vectors = vectors;
  }

  /** Another call was queued (or the store closed): the next add starts a new group. */
  seal() {
    this.#open = null;
  }

  /** Queues one add (an object as `add` takes it); resolves to its result. */
  add(input) {
    let group = this.#open;
    if (group === null || group.settled || group.items.length >= GROUP_MAX) {
      group = { items: [], settled: false };
      const items = group.items;
      this.#enqueue((core) => this.#run(core, group)).catch((e) => {
        // A group refused before it started (Closed) takes no more adds: a later add that joined
        // it would wait for a commit that never comes.
        group.settled = true;
        if (this.#open === group) this.#open = null;
        for (const item of items) item.reject(e);
      });
      // After enqueue, which seals the group open before it.
      this.#open = group;
    }
    return new Promise((resolve, reject) => group.items.push({ input, resolve, reject }));
  }

  /** A group (inside the queue): each add prepared (its vector made), then all committed as one write. */
  async #run(core, group) {
    if (this.#open === group) this.#open = null; // started: later adds start a new group
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
}
