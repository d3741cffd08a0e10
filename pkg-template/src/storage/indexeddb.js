// IndexedDBStorage: a StorageAdapter (see adapter.js) over one IndexedDB object store, for browsers
// (pages, workers, Electron renderers) and anything else with an IDBFactory (fake-indexeddb in Node).
//
// Records live in one object store under IndexedDB array keys (the key array itself), so a key
// prefix is one key range: arrays sort after strings, hence every key that starts with `prefix`
// lies in [prefix, [...prefix, []]] and nothing else does (["ab"] sorts after ["a", []]).

import { EngramError, invalid } from "../errors.js";
import { checkKey, checkLockFn, copyData, describeKey, runExclusive, storageError } from "./adapter.js";

const STORE = "records";
const VERSION = 1;
// flush()'s marker: a string key, so it never falls in an array-key range and no caller key (an
// array) can name it.
const FLUSH_KEY = "engram:flush-barrier";
const DURABILITIES = new Set(["relaxed", "strict"]);
const OPTIONS = new Set(["durability", "indexedDB", "IDBKeyRange"]);
const BLOCKED_TIMEOUT_MS = 10_000;

/** Stores without Web Locks serialize `lock` in-process, per database name. */
const fallbackLocks = new Map();

function isBytes(v) {
  return ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === "[object Uint8Array]";
}

function toBytes(value, key) {
  if (value === undefined) return undefined;
  if (isBytes(value)) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw new EngramError("Corrupt", `storage: the record at ${describeKey(key)} is not bytes (${value?.constructor?.name ?? typeof value})`);
}

const isStringArray = (k) => Array.isArray(k) && k.every((s) => typeof s === "string");

export class IndexedDBStorage {
  #name;
  #durability;
  #factory;
  #keyRange;
  /** Promise of the open IDBDatabase, or null until the next call opens it. */
  #connecting = null;
  #db = null;

  /**
   * @param {string} [dbName] the IndexedDB database ("engram"); one Engram store per database.
   * @param {{durability?: "relaxed" | "strict", indexedDB?: IDBFactory, IDBKeyRange?: typeof globalThis.IDBKeyRange}} [options]
   *   `durability` of write transactions ("relaxed": acknowledged once the browser has the write,
   *   which survives a tab or browser crash but maybe not a power loss; "strict": once it is on
   *   disk). `indexedDB` / `IDBKeyRange` default to the globals (pass both for e.g. fake-indexeddb).
   */
  constructor(dbName = "engram", options = {}) {
    if (typeof dbName !== "string" || dbName === "") throw invalid("IndexedDBStorage: dbName must be a non-empty string");
    if (options === null || typeof options !== "object") throw invalid("IndexedDBStorage: expected an options object");
    for (const k of Object.keys(options)) {
      if (!OPTIONS.has(k)) throw invalid(`IndexedDBStorage: unknown option \`${k}\` (allowed: ${[...OPTIONS].join(", ")})`);
    }
    const { durability = "relaxed", indexedDB, IDBKeyRange } = options;
    if (!DURABILITIES.has(durability)) throw invalid(`IndexedDBStorage: durability must be "relaxed" or "strict", got ${JSON.stringify(durability)}`);
    if (indexedDB !== undefined && typeof indexedDB?.open !== "function") throw invalid("IndexedDBStorage: `indexedDB` must be an IDBFactory");
    if (IDBKeyRange !== undefined && typeof IDBKeyRange?.bound !== "function") throw invalid("IndexedDBStorage: `IDBKeyRange` must be the IDBKeyRange class");
    this.#name = dbName;
    this.#durability = durability;
    this.#factory = indexedDB;
    this.#keyRange = IDBKeyRange;
  }

  get dbName() {
    return this.#name;
  }

  get durability() {
    return this.#durability;
  }

  /**
   * Name shared by every tab, frame and worker of this origin that opens this database: Engram
   * broadcasts its commits on it, so other contexts re-read only after someone wrote.
   */
  get channel() {
    return `idb:${this.#name}`;
  }

  async load(key) {
    key = checkKey(key, "load");
    return this.#transact("readonly", "load", key, (store) => {
      const request = store.get(key);
      return () => toBytes(request.result, key);
    });
  }

  async save(key, data) {
    key = checkKey(key, "save");
    const bytes = copyData(data, "save", key); // now, before any await: the caller may reuse `data`
    await this.#transact("readwrite", "save", key, (store) => {
      store.put(bytes, key);
    });
  }

  async create(key, data) {
    key = checkKey(key, "create");
    const bytes = copyData(data, "create", key);
    // The look and the write in one readwrite transaction: no other write to the store can come
    // between them (from this tab or any other).
    return this.#transact("readwrite", "create", key, (store) => {
      let created = false;
      const existing = store.count(key);
      existing.onsuccess = () => {
        if (existing.result === 0) {
          store.put(bytes, key);
          created = true;
        }
      };
      return () => created;
    });
  }

  async remove(key) {
    key = checkKey(key, "remove");
    await this.#transact("readwrite", "remove", key, (store) => {
      store.delete(key);
    });
  }

  async loadRange(prefix) {
    prefix = checkKey(prefix, "loadRange", { prefix: true });
    const range = this.#range(prefix, "loadRange");
    return this.#transact("readonly", "loadRange", prefix, (store) => {
      // Same range, same transaction: the two lists line up index by index.
      const keys = store.getAllKeys(range);
      const values = store.getAll(range);
      return () => {
        const out = [];
        keys.result.forEach((k, i) => {
          if (isStringArray(k)) out.push({ key: k, data: toBytes(values.result[i], k) });
        });
        return out;
      };
    });
  }

  async removeRange(prefix) {
    prefix = checkKey(prefix, "removeRange", { prefix: true });
    const range = this.#range(prefix, "removeRange");
    await this.#transact("readwrite", "removeRange", prefix, (store) => {
      store.delete(range);
    });
  }

  /**
   * Resolves once every write acknowledged before the call is on disk. It commits one tiny write
   * (a constant marker under a string key no caller can use) with durability "strict".
   *
   * Why that is a barrier: a browser commits an origin's IndexedDB transactions in order into one
   * log (Chromium: the origin's LevelDB write-ahead log, one ordered stream of write batches; Firefox
   * and Safari: a SQLite WAL). A "relaxed" commit is appended to the log without an fsync; a
   * "strict" commit fsyncs the log before completing, and an fsync of an append-only log makes
   * everything appended before it durable too, i.e. every earlier relaxed commit. The marker write
   * is there because a transaction with no writes may complete without touching the log at all.
   */
  async flush() {
    await this.#transact(
      "readwrite",
      "flush",
      undefined,
      (store) => {
        store.put(0, FLUSH_KEY);
      },
      "strict",
    );
  }

  /**
   * Runs `fn` holding the Web Lock "engram:<dbName>" (exclusive across every tab and worker of the
   * origin); without Web Locks, an in-process mutex per database name.
   */
  async lock(fn) {
    checkLockFn(fn);
    const locks = globalThis.navigator?.locks;
    if (!locks || typeof locks.request !== "function") return runExclusive(fallbackLocks, this.#name, fn);
    let started = false;
    try {
      return await locks.request(`engram:${this.#name}`, { mode: "exclusive" }, () => {
        started = true;
        return fn();
      });
    } catch (e) {
      if (started) throw e; // fn's own failure, as it is
      throw storageError(`lock (Web Lock "engram:${this.#name}")`, undefined, e);
    }
  }

  /** Closes the connection (after its running transactions); a later call opens it again. */
  async close() {
    const connecting = this.#connecting;
    this.#connecting = null;
    this.#db = null;
    if (!connecting) return;
    try {
      (await connecting).close();
    } catch {
      // never opened: nothing to close
    }
  }

  #range(prefix, operation) {
    const KeyRange = this.#keyRange ?? globalThis.IDBKeyRange;
    if (typeof KeyRange?.bound !== "function") {
      throw new EngramError("Storage", `storage: ${operation}: no IDBKeyRange here; pass \`IDBKeyRange\` with \`indexedDB\``);
    }
    // Arrays sort after strings: [...prefix, []] is above every key that extends prefix.
    return KeyRange.bound(prefix, [...prefix, []]);
  }

  #connection() {
    if (!this.#connecting) {
      const connecting = this.#open();
      this.#connecting = connecting;
      connecting.then(
        (db) => {
          if (this.#connecting === connecting) this.#db = db;
        },
        () => {
          if (this.#connecting === connecting) this.#connecting = null;
        },
      );
    }
    return this.#connecting;
  }

  /** Drops `db` as the current connection (it closed or must close); the next call reopens. */
  #forget(db) {
    if (this.#db === db) {
      this.#db = null;
      this.#connecting = null;
    }
  }

  #open() {
    const name = this.#name;
    const what = `open database "${name}"`;
    return new Promise((resolve, reject) => {
      const factory = this.#factory ?? globalThis.indexedDB;
      if (typeof factory?.open !== "function") {
        reject(new EngramError("Storage", `storage: ${what} failed: IndexedDB is not available here`));
        return;
      }
      let request;
      try {
        request = factory.open(name, VERSION);
      } catch (e) {
        reject(storageError(what, undefined, e));
        return;
      }
      let settled = false;
      let timer;
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE);
      };
      // Another connection holds an older version open and has not closed on `versionchange`. The
      // open goes on by itself once it closes; give up after a while rather than hang.
      request.onblocked = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          reject(new EngramError("Storage", `storage: ${what} failed: blocked for ${BLOCKED_TIMEOUT_MS / 1000} s by another open connection (another tab?) that does not close`));
        }, BLOCKED_TIMEOUT_MS);
      };
      request.onsuccess = () => {
        clearTimeout(timer);
        const db = request.result;
        if (settled) {
          db.close(); // we gave up waiting: nobody will use it
          return;
        }
        settled = true;
        if (!db.objectStoreNames.contains(STORE)) {
          db.close();
          reject(new EngramError("Storage", `storage: ${what} failed: it has no "${STORE}" object store (not an Engram database)`));
          return;
        }
        // Another tab (a newer Engram) wants to upgrade or delete the database: close so it can,
        // instead of blocking it. Our next call reopens (and fails clearly if the version moved on).
        db.onversionchange = () => {
          db.close();
          this.#forget(db);
        };
        // Closed by the browser (storage cleared, disk error): reopen on the next call.
        db.onclose = () => this.#forget(db);
        resolve(db);
      };
      request.onerror = (event) => {
        clearTimeout(timer);
        event?.preventDefault?.();
        if (settled) return;
        settled = true;
        reject(storageError(what, undefined, request.error));
      };
    });
  }

  /**
   * Runs `body(store)` in one transaction and resolves when the transaction completes (for writes,
   * when the write is committed), to `body`'s returned getter's value; rejects on abort or error.
   */
  async #transact(mode, operation, key, body, durability = this.#durability) {
    for (let attempt = 0; ; attempt++) {
      const db = await this.#connection();
      let tx;
      try {
        tx = this.#transaction(db, mode, durability);
      } catch (e) {
        // The connection closed between open and now (close(), versionchange): reopen once.
        if (e?.name === "InvalidStateError" && attempt === 0) {
          this.#forget(db);
          continue;
        }
        throw storageError(operation, key, e);
      }
      return new Promise((resolve, reject) => {
        let firstError = null;
        tx.onerror = (event) => {
          firstError ??= event?.target?.error ?? null;
        };
        tx.onabort = () => reject(storageError(operation, key, tx.error ?? firstError ?? new Error("transaction aborted")));
        let result;
        try {
          result = body(tx.objectStore(STORE));
        } catch (e) {
          try {
            tx.abort();
          } catch {
            // already finished
          }
          reject(storageError(operation, key, e));
          return;
        }
        tx.oncomplete = () => {
          try {
            resolve(typeof result === "function" ? result() : undefined);
          } catch (e) {
            reject(e);
          }
        };
      });
    }
  }

  #transaction(db, mode, durability) {
    if (mode !== "readwrite") return db.transaction(STORE, mode);
    try {
      return db.transaction(STORE, mode, { durability });
    } catch (e) {
      // An implementation that rejects the options dictionary: the default durability, then.
      if (e instanceof TypeError) return db.transaction(STORE, mode);
      throw e;
    }
  }
}
