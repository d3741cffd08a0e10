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

/** The rejection of an aborted operation: a DOMException named "AbortError" where there is one. */
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
