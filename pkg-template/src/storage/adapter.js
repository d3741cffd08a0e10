// What the shipped storage adapters share: key validation, the error mapping, and a small
// in-process async mutex. The contract itself is written once, as `StorageAdapter` in index.d.ts,
// and checked by the conformance suite (conformance.js, shipped as engram-wasm/adapter-tests).

import { EngramError, invalid } from "../errors.js";

/** The key as it appears in messages. */
export function describeKey(key) {
  try {
    return JSON.stringify(key);
  } catch {
    return String(key);
  }
}

/**
 * Checks a key (or with `prefix`, a key prefix, which may be `[]`) and returns a copy of it, so a
 * caller mutating its array afterwards changes nothing. Throws InvalidInput.
 */
export function checkKey(key, what, { prefix = false } = {}) {
  if (!Array.isArray(key)) throw invalid(`${what}: the ${prefix ? "prefix" : "key"} must be an array of strings, got ${typeof key}`);
  if (!prefix && key.length === 0) throw invalid(`${what}: the key must have at least one segment`);
  const copy = new Array(key.length);
  for (let i = 0; i < key.length; i++) {
    const segment = key[i];
    if (typeof segment !== "string" || segment === "") {
      throw invalid(`${what}: key segment ${i} must be a non-empty string, got ${segment === "" ? "an empty string" : typeof segment} in ${describeKey(key)}`);
    }
    copy[i] = segment;
  }
  return copy;
}

/** Checks the data of a save and returns a private copy of it (tight: its own ArrayBuffer). */
export function copyData(data, what, key) {
  // By tag rather than instanceof, so a Uint8Array from another realm (vm context, iframe) passes.
  if (!ArrayBuffer.isView(data) || Object.prototype.toString.call(data) !== "[object Uint8Array]") {
    throw invalid(`${what} ${describeKey(key)}: data must be a Uint8Array, got ${data === null ? "null" : (data?.constructor?.name ?? typeof data)}`);
  }
  return new Uint8Array(/** @type {Uint8Array} */ (data)); // copies; also turns a Buffer or a view of a larger buffer into a plain array
}

/** True when `key` starts with `prefix`, segment by segment. */
export function hasPrefix(key, prefix) {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

/** IndexedDB's order for arrays of strings: segment by segment by UTF-16 code units, shorter first. */
export function compareKeys(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

const FULL_CODES = new Set(["ENOSPC", "EDQUOT", "StorageFull"]);

/**
 * True for "no room left": IndexedDB's QuotaExceededError, Node's ENOSPC / EDQUOT, or a host
 * adapter's rejection that already carries Engram's `StorageFull` code.
 */
export function isStorageFull(error) {
  if (!error || typeof error !== "object") return false;
  if (error.name === "QuotaExceededError") return true;
  return typeof error.code === "string" && FULL_CODES.has(error.code);
}

/**
 * The EngramError for a failed storage operation, used by the shipped adapters and by the facade's
 * wrapper around any adapter (storage-bridge.js): StorageFull for quota / disk full, Storage
 * otherwise; the message says which operation on which key failed, `cause` is the original error.
 * An EngramError passes through unchanged.
 */
export function storageError(operation, key, cause) {
  if (cause instanceof EngramError) return cause;
  const code = isStorageFull(cause) ? "StorageFull" : "Storage";
  const reason =
    cause instanceof Error || (cause && typeof cause === "object" && "message" in cause)
      ? `${cause.name && cause.name !== "Error" ? `${cause.name}: ` : ""}${cause.message}`
      : String(cause);
  const what = key === undefined ? operation : `${operation} ${describeKey(key)}`;
  return new EngramError(code, `storage: ${what} failed: ${reason}`, { cause });
}

/** Checks `lock`'s argument. */
export function checkLockFn(fn) {
  if (typeof fn !== "function") throw invalid(`lock: expected a function, got ${typeof fn}`);
}

/**
 * An in-process async mutex: `run(fn)` calls `fn` once every earlier `run` has settled and resolves
 * or rejects as `fn` does. Not reentrant.
 */
export class Mutex {
  #tail = Promise.resolve();
  #pending = 0;

  /** True when nothing holds or waits for this mutex. */
  get idle() {
    return this.#pending === 0;
  }

  run(fn) {
    this.#pending++;
    const result = this.#tail.then(() => fn());
    this.#tail = result.then(
      () => {
        this.#pending--;
      },
      () => {
        this.#pending--;
      },
    );
    return result;
  }
}

/**
 * Runs `fn` under the mutex named `name` in `registry` (a Map), so separate adapter instances on
 * one store serialize too; the entry is dropped once nothing uses it.
 */
export function runExclusive(registry, name, fn) {
  let mutex = registry.get(name);
  if (!mutex) registry.set(name, (mutex = new Mutex()));
  const result = mutex.run(fn);
  const cleanup = () => {
    if (mutex.idle && registry.get(name) === mutex) registry.delete(name);
  };
  // Runs after the mutex's own bookkeeping, which `run` attached to `result` first.
  result.then(cleanup, cleanup);
  return result;
}
