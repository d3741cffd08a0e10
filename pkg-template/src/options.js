// Options as the facade reads them: one helper for every method, so an unknown option, a value of
// the wrong type or a getter that throws is the same InvalidInput everywhere (the JS counterpart of
// the core's `Fields`). Options the core parses itself (search filters, budgets, namespaces) cross
// as JSON and are checked there; the ones read here are those that stay in JS (signals, callbacks)
// or decide what the facade does.

import { invalid } from "./errors.js";
import { fields, isPlainObject } from "./wire.js";
import { SCOPE_KEYS as GENERATED_SCOPE_KEYS } from "./limits.js";

export function isSignal(s) {
  return s !== null && typeof s === "object" && typeof s.aborted === "boolean" && typeof s.addEventListener === "function";
}

const rule = (expected, test) => Object.assign((v) => test(v), { expected });

/** Checks of one option's value; `expected` completes "`key` must be …". */
export const is = Object.freeze({
  boolean: rule("a boolean", (v) => typeof v === "boolean"),
  string: rule("a string", (v) => typeof v === "string"),
  /** A string; null counts as left out. */
  nameOrNull: rule("a string", (v) => v === null || typeof v === "string"),
  /** A callback; null counts as left out. */
  callback: rule("a function", (v) => v === null || typeof v === "function"),
  /** An AbortSignal; null counts as left out. */
  signal: rule("an AbortSignal", (v) => v === null || isSignal(v)),
  count: rule("a non-negative integer", (v) => Number.isInteger(v) && v >= 0),
  intIn: (lo, hi) => rule(`an integer in ${lo}..${hi}`, (v) => Number.isInteger(v) && v >= lo && v <= hi),
  oneOf: (values) => rule(`one of ${[...values].join(", ")}`, (v) => values.has(v)),
  /** Checked by the core (it crosses as JSON) or by the caller of `readOptions`. */
  passed: rule("", () => true),
});

/** Keys other memory libraries scope by (mem0's user, agent and run ids): the core's list. */
const SCOPE_KEYS = new Set(GENERATED_SCOPE_KEYS);

/** For a caller porting code that scopes by `userId` and the like: the Engram form, with its value. */
function scopeHint(key, value) {
  if (!SCOPE_KEYS.has(key)) return "";
  const id = typeof value === "string" || typeof value === "number" ? String(value).slice(0, 40) : "…";
  return `. Engram scopes memories by namespace, any id of yours: { namespace: ${JSON.stringify(id)} }`;
}

/**
 * The caller's `options` (undefined or null: none given) as a plain copy, each field read once,
 * every key one of `spec`'s and every value accepted by its rule (an `undefined` value counts as
 * left out). `what` names the call in errors; `example` shows a valid object.
 */
export function readOptions(options, what, spec, example) {
  if (options === undefined || options === null) return {};
  if (!isPlainObject(options)) throw invalid(`${what}: expected an options object${example ? ` like ${example}` : ""}`);
  const given = fields(options, what);
  for (const [key, value] of Object.entries(given)) {
    const check = spec[key];
    if (check === undefined) throw invalid(`${what}: unknown option \`${key}\` (allowed: ${Object.keys(spec).join(", ")})${"namespace" in spec ? scopeHint(key, value) : ""}`);
    if (value !== undefined && !check(value)) throw invalid(`${what}: \`${key}\` must be ${check.expected}`);
  }
  return given;
}
