// Typed errors: every rejection from Engram is an EngramError whose `name` and `code` are one of the
// stable codes of `ERROR_CODES`, whether it was raised in the wasm core or by the facade's own checks.

// The codes are the Rust `ErrorCode` variants (src/error.rs). pkg-template/build.mjs writes them
// into error-codes.js from that source before bundling, rather than the facade asking the wasm
// module at load: `ERROR_CODES` is then there synchronously on import, also in browsers, where the
// module loads only with `initWasm()` or the first `Engram.open()`.
import { ERROR_CODES } from "./error-codes.js";

export { ERROR_CODES };
const KNOWN = new Set(ERROR_CODES);

// One class per JS realm, whichever bundle defines it first: the package's entries (main, node-fs)
// each bundle this file, and `instanceof EngramError` must hold for errors from any of them.
const REGISTERED = Symbol.for("engram.EngramError");

export const EngramError = (globalThis[REGISTERED] ??= class EngramError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = code;
    this.code = code;
  }
});

/** The abort reason handed to a host callback's signal (an LLM call): what `fetch` rejects with. */
export function abortError(message = "the operation was aborted") {
  if (typeof DOMException === "function") return new DOMException(message, "AbortError");
  return Object.assign(new Error(message), { name: "AbortError" });
}

export function isAbortError(e) {
  return e?.name === "AbortError";
}

export function closedError() {
  return new EngramError("Closed", "this Engram has been closed");
}

export function invalid(message) {
  return new EngramError("InvalidInput", message);
}

/** Converts anything thrown by the core or a host callback into an EngramError. */
export function asEngramError(e, fallbackCode = "Internal") {
  if (e instanceof EngramError) return e;
  if (e && typeof e === "object" && typeof e.code === "string" && KNOWN.has(e.code)) {
    return new EngramError(e.code, String(e.message));
  }
  const message = e instanceof Error ? e.message : String(e);
  return new EngramError(fallbackCode, message, { cause: e });
}

/**
 * Makes every method of `cls` (and the static `open`) reject instead of throwing, with a typed
 * error. Arguments are the caller's: a getter or Proxy trap that throws while the facade reads one
 * is the caller's InvalidInput. Errors of the work itself are typed already on the store's queue
 * (Internal for a fault); an AbortError that got this far is the one shape of an abort, `Aborted`.
 */
export function rejectingTyped(cls, statics = ["open"]) {
  const typed = (e) => (isAbortError(e) ? new EngramError("Aborted", String(e.message), { cause: e }) : asEngramError(e, "InvalidInput"));
  for (const [target, name] of [...statics.map((n) => [cls, n]), ...Object.getOwnPropertyNames(cls.prototype).map((n) => [cls.prototype, n])]) {
    const method = Object.getOwnPropertyDescriptor(target, name).value;
    if (name === "constructor" || typeof method !== "function") continue; // methods only, never a getter
    Object.defineProperty(target, name, {
      value: {
        [name](...args) {
          try {
            const out = method.apply(this, args);
            return out instanceof Promise ? out.catch((e) => Promise.reject(typed(e))) : out;
          } catch (e) {
            return Promise.reject(typed(e));
          }
        },
      }[name],
      writable: true,
      configurable: true,
    });
  }
}

/**
 * A write's `prepare` step, run: it reads the caller's arguments (and awaits a host embedder, whose
 * failures are typed already), so an untyped throw there came from reading an argument (a revoked
 * Proxy, say): the caller's InvalidInput. A trap stays what it is.
 */
export async function prepared(prepare) {
  try {
    return await prepare();
  } catch (e) {
    if (e instanceof EngramError || e instanceof WebAssembly.RuntimeError) throw e;
    throw asEngramError(e, "InvalidInput");
  }
}
