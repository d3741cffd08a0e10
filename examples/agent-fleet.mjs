// Recipe, a Node agent fleet on PostgreSQL: one store per user in one database, shared by every
// process on every machine. A process opens a user's store when a request for that user arrives,
// keeps it open while requests keep coming, and closes it after `idleMs` without one, or sooner
// when more than `max` are open (the least recently used idle one first). Requests for one user
// made together share one opening; a request that arrives while that user's store is closing waits
// for the close, then opens it again. Other processes may hold the same user's store open at the
// same time: writers take turns on the database (see README, "Many machines").
import { Engram } from "engram-wasm";
import { postgres } from "engram-wasm/postgres";

/**
 * `pool`: a `pg.Pool` (or pass your own `open(userId)` resolving to an Engram).
 * Resolves `withStore(userId, fn)` to `fn(store)`'s result; `closeAll()` when the process ends.
 */
export function storeFleet({ pool, idleMs = 60_000, max = 100, open } = {}) {
  const openStore = open ?? ((userId) => Engram.open({ embedder: null, storage: postgres({ pool, store: `user:${userId}` }) }));
  /** userId → {store: Promise<Engram>, active, timer}; Map order is least recently used first. */
  const stores = new Map();
  /** userId → the promise of a close in progress. */
  const closing = new Map();
  /** Every request in progress (closeAll lets them finish). */
  const inFlight = new Set();
  let ended = false;

  function close(userId) {
    const entry = stores.get(userId);
    if (!entry || entry.active > 0) return;
    stores.delete(userId);
    clearTimeout(entry.timer);
    const done = entry.store
      .then((store) => store.close())
      .catch(() => {}) // an opening that failed has nothing to close; a failed close loses nothing acknowledged
      .finally(() => closing.get(userId) === done && closing.delete(userId));
    closing.set(userId, done);
  }

  function evictIdle() {
    for (const [userId, entry] of stores) {
      if (stores.size <= max) return;
      if (entry.active === 0) close(userId);
    }
  }

  async function use(userId, fn) {
    let entry = stores.get(userId);
    if (entry) {
      stores.delete(userId); // set again below: now the most recently used
    } else {
      const previous = closing.get(userId) ?? Promise.resolve();
      entry = { store: previous.then(() => openStore(userId)), active: 0, timer: null };
      const opened = entry;
      // A failed opening is forgotten, so the next request tries again.
      opened.store.catch(() => stores.get(userId) === opened && stores.delete(userId));
    }
    stores.set(userId, entry);
    entry.active++;
    clearTimeout(entry.timer);
    try {
      return await fn(await entry.store);
    } finally {
      entry.active--;
      if (entry.active === 0 && stores.get(userId) === entry) {
        entry.timer = setTimeout(() => close(userId), idleMs);
        entry.timer.unref?.();
      }
      evictIdle();
    }
  }

  return {
    /** Runs `fn(store)` on `userId`'s store, opening it if this process has not. */
    withStore(userId, fn) {
      if (ended) return Promise.reject(new Error("storeFleet: closeAll() was called"));
      if (typeof userId !== "string" || !userId) return Promise.reject(new TypeError("storeFleet: userId must be a non-empty string"));
      const request = use(userId, fn);
      const settled = request.then(
        () => {},
        () => {},
      );
      inFlight.add(settled);
      settled.then(() => inFlight.delete(settled));
      return request;
    },
    /** Lets the requests in progress finish, then closes every store (flushing what they wrote). */
    async closeAll() {
      ended = true;
      await Promise.all(inFlight);
      for (const userId of [...stores.keys()]) close(userId);
      await Promise.all(closing.values());
    },
    /** How many users' stores are open (or opening) in this process. */
    get size() {
      return stores.size;
    },
  };
}
