// Internal faults of a wasm instance. A Rust panic aborts the instance (a trap); inside a write's
// future the trap escapes the promise Engram awaits, which would then never settle — holding the
// call queue and the storage lock (a Web Lock blocks every tab) for good. The core calls the
// listener registered here just before it stops: every Engram on that instance then rejects its call
// in flight with `Internal`, and moves to a new instance on its next call (instance.js).
import { EngramError } from "./errors.js";

/** glue (one wasm instance) → its fault state. */
const states = new WeakMap();

/**
 * `{message, waiting}` of the instance `glue`: `message` is null until it faults; `waiting` holds the
 * rejecters of the calls in flight, all rejected then.
 */
export function faultsOf(glue) {
  let state = states.get(glue);
  if (!state) {
    state = { message: null, waiting: new Set() };
    states.set(glue, state);
    glue.onInternalFault((message) => markFaulted(state, message));
  }
  return state;
}

/** Marks the instance as stopped (also for traps the core could not announce, seen as they surface). */
export function markFaulted(state, message) {
  if (state.message !== null) return;
  state.message = String(message);
  const error = faultError(state);
  for (const reject of state.waiting) reject(error);
  state.waiting.clear();
}

export function faultError(state) {
  return new EngramError("Internal", `the wasm instance stopped after an internal fault: ${state.message}`);
}

/**
 * `promise`, or the instance's fault as soon as there is one. Not `Promise.race` with a promise that
 * rejects on a fault: that promise never settles on a healthy instance, and each race would leave a
 * reaction on it for good (a few hundred bytes per call, measured as a steady leak over 10^5 adds).
 */
export function unlessFaulted(state, promise) {
  if (state.message !== null) return Promise.reject(faultError(state));
  return new Promise((resolve, reject) => {
    state.waiting.add(reject);
    Promise.resolve(promise).then(
      (value) => {
        state.waiting.delete(reject);
        resolve(value);
      },
      (error) => {
        state.waiting.delete(reject);
        reject(error);
      },
    );
  });
}
