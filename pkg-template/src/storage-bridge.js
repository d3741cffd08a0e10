// The storage adapter as the wasm core sees it: every method returns a promise, results are checked
// against the adapter contract, and every failure is an EngramError (`storageError`, the same mapping
// the shipped adapters use: `StorageFull` for quota / disk full, `Storage` otherwise), whose code
// the core keeps.

import { EngramError, asEngramError, invalid } from "./errors.js";
import { storageError } from "./storage/adapter.js";

const METHODS = ["load", "save", "remove", "loadRange", "removeRange"];

function broken(what, detail) {
  return new EngramError("Storage", `${what} broke the storage adapter contract: ${detail}`);
}

function isKey(k) {
  return Array.isArray(k) && k.every((s) => typeof s === "string");
}

/**
 * A genuine Uint8Array (never a Proxy of one: that has no buffer slot). What the core reads from the
 * adapter is checked and rebuilt here, so no adapter code (a getter, a proxy trap) runs inside the
 * core, where a throw would abandon the core's work midway instead of rejecting it.
 */
function isBytes(v) {
  return ArrayBuffer.isView(v) && v instanceof Uint8Array;
}

/** Checks `storage` has the adapter shape and returns the wrapper handed to the core. */
export function checkedAdapter(storage) {
  if (storage === null || typeof storage !== "object") throw invalid("open: `storage` must be a storage adapter object");
  for (const m of METHODS) {
    if (typeof storage[m] !== "function") throw invalid(`open: \`storage\` has no ${m}() method (a storage adapter needs ${METHODS.join(", ")})`);
  }
  const call = async (operation, key, run) => {
    try {
      return await run();
    } catch (e) {
      throw storageError(operation, key, e);
    }
  };
  return {
    load: (key) =>
      call("load", key, async () => {
        const v = await storage.load(key);
        if (v === undefined || v === null) return undefined;
        if (!isBytes(v)) throw broken("load", "expected a Uint8Array or undefined");
        return v;
      }),
    save: (key, data) => call("save", key, async () => void (await storage.save(key, data))),
    remove: (key) => call("remove", key, async () => void (await storage.remove(key))),
    loadRange: (prefix) =>
      call("loadRange", prefix, async () => {
        const out = await storage.loadRange(prefix);
        if (!Array.isArray(out)) throw broken("loadRange", "expected an array of {key, data}");
        return Array.from(out, (entry) => {
          const key = entry?.key;
          const data = entry?.data;
          if (!isKey(key) || !isBytes(data)) throw broken("loadRange", "an entry is not {key: string[], data: Uint8Array}");
          return { key: Array.from(key), data };
        });
      }),
    removeRange: (prefix) => call("removeRange", prefix, async () => void (await storage.removeRange(prefix))),
    // Optional methods are handed on only where the adapter has them: the core falls back without.
    ...(typeof storage.create === "function" && {
      create: (key, data) =>
        call("create", key, async () => {
          const created = await storage.create(key, data);
          if (typeof created !== "boolean") throw broken("create", "expected true (written) or false (the key was taken)");
          return created;
        }),
    }),
    ...(typeof storage.flush === "function" && { flush: () => call("flush", undefined, async () => void (await storage.flush())) }),
  };
}

/**
 * Runs `fn` under the adapter's writer lock when it has one; `fn`'s own errors pass through as they
 * are. Once `fn` has run to its end, a failure to release the lock does not fail the call: the
 * write is committed, and rejecting would have the caller repeat it. (A lock left behind is the
 * adapter's to recover: NodeFSStorage takes over a lock no live call of its thread holds.)
 */
export async function withLock(storage, fn) {
  if (typeof storage?.lock !== "function") return fn();
  let finished = false;
  let failed = false;
  let error;
  let result;
  try {
    await storage.lock(async (hold) => {
      try {
        result = await fn(hold);
      } catch (e) {
        failed = true;
        error = e;
      }
      finished = true;
    });
  } catch (e) {
    if (!finished) throw storageError("lock", undefined, e);
  }
  if (failed) throw error;
  return result;
}

/** The adapter's own durability barrier (`flush()`), when it has one; its failure is `Storage`. */
export async function flushAdapter(storage) {
  if (typeof storage?.flush !== "function") return;
  try {
    await storage.flush();
  } catch (e) {
    throw asEngramError(e, "Storage");
  }
}
