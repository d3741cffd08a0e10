// Where the wasm glue and the environment's helpers come from: each entry (Node, browser) registers
// its own at import time, so the shared facade code never names `fs` or `fetch` itself.
import { EngramError } from "./errors.js";

/**
 * @type {{
 *   loadCore: () => Promise<any>, freshCore: () => Promise<any>,
 *   readSource: (source: unknown, options?: unknown) => Promise<Uint8Array>,
 *   defaultEmbedder: () => Promise<unknown>, vectorBuilder: ((options?: {background?: boolean, url?: string | URL}) => {build: (input: Uint8Array) => Promise<Uint8Array>, terminate: () => void}) | null,
 * }}
 */
const registry = {
  loadCore: () => Promise.reject(new EngramError("Internal", "engram-wasm: no wasm loader registered for this environment")),
  freshCore: () => Promise.reject(new EngramError("Internal", "engram-wasm: this environment cannot start a new wasm instance")),
  readSource: () => Promise.reject(new EngramError("InvalidInput", "engram-wasm: this environment cannot read model sources")),
  defaultEmbedder: async () => null,
  vectorBuilder: null,
};

/** Called by each entry: `{loadCore, freshCore, readSource, defaultEmbedder, vectorBuilder}` (all optional). */
export function registerEnvironment(parts) {
  Object.assign(registry, parts);
}

export const loadCore = () => registry.loadCore();
/** A new glue module evaluation with its own wasm instance, to replace one stopped by a fault (instance.js). */
export const freshCore = () => registry.freshCore();
/** Bytes of a model source (bytes, a path, a URL) with transformers.js-style progress events. */
export const readSource = (source, options) => registry.readSource(source, options);
/** The environment's default embedder for `Engram.open()` without an `embedder` option. */
export const defaultEmbedder = () => registry.defaultEmbedder();
/** A factory of vector graph build workers, `({background, url}) → {build(bytes) → Promise<bytes>,
 *  terminate()}`, or `null` when the environment has none (builds then run in-process). */
export const vectorBuilder = () => registry.vectorBuilder;
