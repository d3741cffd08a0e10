// Converting caller values to what the wasm core accepts. The core re-validates everything; these
// checks exist because JSON would silently turn NaN into null and drop functions, so bad input is
// caught here with a precise message instead of being reshaped.

import { invalid } from "./errors.js";

export function isPlainObject(v) {
  try {
    if (v === null || typeof v !== "object" || Array.isArray(v) || ArrayBuffer.isView(v)) return false;
    const proto = Object.getPrototypeOf(v);
    return proto === Object.prototype || proto === null;
  } catch {
    return false; // a Proxy whose traps throw is not a plain object
  }
}

/**
 * More entries than any list (or object) in Engram's input may hold: the widest is an embedding of
 * 16,384 dimensions (`EMBEDDING_DIMS_MAX`); batches and sessions stop at 10,000. A larger one is
 * refused here, before it is serialized and copied into wasm; the core checks each list's own
 * limit (20 tags, …) again with a message of its own.
 */
export const ENTRIES_MAX = 16_384;

/** JSON text for `value`; throws InvalidInput for non-finite numbers, bigints, functions, symbols, cycles, huge lists. */
export function toJson(value, what) {
  let text;
  try {
    text = JSON.stringify(value, (key, v) => {
      // The replacer sees a list before its entries: a million of them cost nothing to refuse.
      if (Array.isArray(v) && v.length > ENTRIES_MAX) throw invalid(`${what}: \`${key}\` has ${v.length} entries; no list in Engram's input may hold more than ${ENTRIES_MAX}`);
      if (isPlainObject(v)) {
        let n = 0;
        for (const _ in v) if (++n > ENTRIES_MAX) throw invalid(`${what}: \`${key}\` has more than ${ENTRIES_MAX} keys; no object in Engram's input may hold more`);
      }
      if (typeof v === "number" && !Number.isFinite(v)) throw invalid(`${what}: \`${key}\` must be a finite number, got ${v}`);
      if (typeof v === "bigint") throw invalid(`${what}: \`${key}\` is a bigint; pass a number`);
      if (typeof v === "function" || typeof v === "symbol") throw invalid(`${what}: \`${key}\` is a ${typeof v}; pass data`);
      return v;
    });
  } catch (e) {
    if (e && e.code === "InvalidInput") throw e;
    throw invalid(`${what}: cannot be serialized (${e && e.message})`);
  }
  return text;
}

/** An options object (or undefined) as JSON, or undefined. */
export function optionsJson(options, what) {
  if (options === undefined || options === null) return undefined;
  if (!isPlainObject(options)) throw invalid(`${what}: expected an options object`);
  return toJson(options, what);
}

/** `v instanceof type`, false where asking throws (a Proxy's getPrototypeOf trap). */
export function isInstance(v, type) {
  try {
    return v instanceof type;
  } catch {
    return false;
  }
}

/** A vector from Float32Array, Float64Array or number[]; every entry must be a finite number. */
export function toVector(v, what) {
  try {
    return readVector(v, what);
  } catch (e) {
    if (e?.code === "InvalidInput") throw e;
    throw invalid(`${what}: cannot be read (${e?.message ?? e})`); // a revoked Proxy, a throwing getter
  }
}

function readVector(v, what) {
  if (isInstance(v, Float32Array)) return v;
  if (isInstance(v, Float64Array) || Array.isArray(v)) {
    const out = new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== "number" || !Number.isFinite(x)) throw invalid(`${what}: entry ${i} is not a finite number`);
      out[i] = x;
    }
    return out;
  }
  throw invalid(`${what}: expected a Float32Array or an array of numbers`);
}

export function requireString(v, what) {
  if (typeof v !== "string") throw invalid(`${what}: expected a string, got ${v === null ? "null" : typeof v}`);
  return v;
}

/**
 * A plain copy of a caller's plain object, each field read once: a getter that throws is the
 * caller's `InvalidInput`, not an internal error, and later reads see the same values.
 */
export function fields(value, what) {
  try {
    return { ...value };
  } catch (e) {
    throw invalid(`${what}: reading a field threw (${e?.message ?? e})`);
  }
}

/** Splits `embedding` out of an input object so it crosses as a Float32Array, not JSON. */
export function splitEmbedding(input, what) {
  if (!isPlainObject(input)) throw invalid(`${what}: expected an object`);
  const { embedding, ...rest } = fields(input, what);
  const vector = embedding === undefined || embedding === null ? undefined : toVector(embedding, `${what}: embedding`);
  return { json: toJson(rest, what), vector };
}

/**
 * Vectors of several items for one core call (`addMany`, group commit): `{vectors, dims}`, the
 * vectors end to end in one Float32Array and `dims[i]` item i's length, -1 where it has none.
 */
export function packVectors(list) {
  const dims = Int32Array.from(list, (v) => (v ? v.length : -1));
  const vectors = new Float32Array(dims.reduce((n, d) => n + Math.max(d, 0), 0));
  let at = 0;
  for (const v of list) {
    if (!v) continue;
    vectors.set(v, at);
    at += v.length;
  }
  return { vectors, dims };
}

/** `search(query, options)`'s arguments: `{text, json, embedding}`, the vector apart from the JSON options. */
export function searchArgs(query, options) {
  if (query !== null && query !== undefined) requireString(query, "search: query");
  if (options !== undefined && options !== null && !isPlainObject(options)) throw invalid("search: expected an options object");
  const { embedding, ...rest } = options ? fields(options, "search") : {};
  return { text: query ?? undefined, json: toJson(rest, "search"), embedding };
}
