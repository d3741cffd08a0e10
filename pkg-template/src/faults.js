// Internal faults of a wasm instance. A Rust panic aborts the instance (a trap); inside a write's
// future the trap escapes the promise Engram awaits, which would then never settle — holding the
// call queue and the storage lock (a Web Lock blocks every tab) for good. The core calls the
// listener registered here just before it stops: every Engram on that instance then rejects its call
// in flight with `Internal`, and moves to a new instance on its next call (instance.js).
import { EngramError } from "./errors.js";

/** glue (one wasm instance) → its fault state. */
const states = new WeakMap();

/** `{message, fault}` of the instance `glue`: `message` is null until it faults; `fault` rejects then. */
export function faultsOf(glue) {
  let state = states.get(glue);
  if (!state) {
    let reject;
    state = { message: null, fault: new Promise((_, r) => (reject = r)), reject };
    state.fault.catch(() => {}); // observed by the calls that race it
    states.set(glue, state);
    glue.onInternalFault((message) => markFaulted(state, message));
  }
  return state;
}

/** Marks the instance as stopped (also for traps the core could not announce, seen as they surface). */
export function markFaulted(state, message) {
  if (state.message !== null) return;
  state.message = String(message);
  state.reject(faultError(state));
}

export function faultError(state) {
  return new EngramError("Internal", `the wasm instance stopped after an internal fault: ${state.message}`);
}

/** `promise`, or the instance's fault as soon as there is one. */
export function unlessFaulted(state, promise) {
  return Promise.race([promise, state.fault]);
}
