// MemoryStorage: a StorageAdapter (see adapter.js) over a Map, for tests and for stores that need
// the persistence path without a backend. Nothing survives the process.

import { checkKey, checkLockFn, compareKeys, copyData, hasPrefix, Mutex } from "./adapter.js";

export class MemoryStorage {
  /** JSON of the key array (collision-free for arrays of strings) → {key, data}. */
  #records = new Map();
  #mutex = new Mutex();

  async load(key) {
    key = checkKey(key, "load");
    const found = this.#records.get(JSON.stringify(key));
    return found ? found.data.slice() : undefined;
  }

  async save(key, data) {
    key = checkKey(key, "save");
    const bytes = copyData(data, "save", key);
    this.#records.set(JSON.stringify(key), { key, data: bytes });
  }

  async create(key, data) {
    key = checkKey(key, "create");
    const bytes = copyData(data, "create", key);
    const id = JSON.stringify(key);
    if (this.#records.has(id)) return false;
    this.#records.set(id, { key, data: bytes });
    return true;
  }

  async remove(key) {
    key = checkKey(key, "remove");
    this.#records.delete(JSON.stringify(key));
  }

  async loadRange(prefix) {
    prefix = checkKey(prefix, "loadRange", { prefix: true });
    const out = [];
    for (const { key, data } of this.#records.values()) {
      if (hasPrefix(key, prefix)) out.push({ key: key.slice(), data: data.slice() });
    }
    return out.sort((a, b) => compareKeys(a.key, b.key));
  }

  async removeRange(prefix) {
    prefix = checkKey(prefix, "removeRange", { prefix: true });
    for (const [id, { key }] of this.#records) {
      if (hasPrefix(key, prefix)) this.#records.delete(id);
    }
  }

  /** Nothing to release: the records stay, so a later Engram can open this same instance again. */
  async close() {}

  /** Nothing to make durable. */
  async flush() {}

  /** Exclusive within this instance (the only place its records can be reached from). */
  async lock(fn) {
    checkLockFn(fn);
    return this.#mutex.run(fn);
  }
}
