// Engram's own sentence embedder (all-MiniLM-L6-v2 int8, run by tract inside the wasm module).
// Also usable on its own, and in LangChain's shape (`embedDocuments`, `embedQuery`).
import { EngramError, asEngramError, invalid } from "./errors.js";
import { isPlainObject } from "./wire.js";
import { loadCore, readSource } from "./core.js";
import { faultError, faultsOf } from "./faults.js";

const TOKEN = Symbol("Embedder.load");

export function checkAborted(signal) {
  if (signal?.aborted) throw new EngramError("Aborted", "aborted by the caller's signal");
}

export class Embedder {
  #handle;
  /** The wasm instance's fault state: a stopped instance is never called into again. */
  #faults;

  constructor(token, handle, faults) {
    if (token !== TOKEN) throw new TypeError("use `await Embedder.load({model, tokenizer})`");
    this.#handle = handle;
    this.#faults = faults;
  }

  /**
   * Loads the model. `model` and `tokenizer` are bytes, a file path (Node) or a URL (fetched, and
   * cached by the browser's Cache API so later loads work offline). `onProgress` receives
   * `{status: "initiate" | "progress" | "done" | "ready", file, loaded, total, progress}`.
   * `precision`: "int8" (default: integer products, fastest, least memory) or "f32" (float products,
   * the exported model's arithmetic).
   */
  static async load(options) {
    if (!isPlainObject(options)) throw invalid("Embedder.load: expected {model, tokenizer, precision?, onProgress?, signal?}");
    const { model, tokenizer, precision, onProgress, signal, ...rest } = options;
    const unknown = Object.keys(rest);
    if (unknown.length) throw invalid(`Embedder.load: unknown option \`${unknown[0]}\``);
    if (model === undefined || tokenizer === undefined) throw invalid("Embedder.load: `model` and `tokenizer` are required");
    if (onProgress !== undefined && typeof onProgress !== "function") throw invalid("Embedder.load: `onProgress` must be a function");
    if (precision !== undefined && precision !== "int8" && precision !== "f32") {
      throw invalid('Embedder.load: `precision` must be "int8" or "f32"');
    }
    const progress = (event) => {
      try {
        onProgress?.({ task: "load-embedder", ...event });
      } catch {
        // A throwing progress callback must not break the load.
      }
    };
    checkAborted(signal);
    const [modelBytes, tokenizerBytes] = await Promise.all([
      readSource(model, { name: "model.onnx", progress, signal }),
      readSource(tokenizer, { name: "tokenizer.json", progress, signal }),
    ]);
    checkAborted(signal);
    let handle;
    let faults;
    try {
      const glue = await loadCore();
      faults = faultsOf(glue);
      if (faults.message !== null) throw faultError(faults);
      handle = new glue.LocalEmbedder(modelBytes, tokenizerBytes, precision);
    } catch (e) {
      throw asEngramError(e, "Embedder");
    }
    progress({ status: "ready", file: "model.onnx" });
    return new Embedder(TOKEN, handle, faults);
  }

  /** Model name and sha256 of its weights; stores record it. */
  get id() {
    return this.#live().id;
  }

  get dims() {
    return this.#live().dims;
  }

  #live() {
    if (!this.#handle) throw new EngramError("Closed", "this Embedder has been disposed");
    if (this.#faults.message !== null) throw faultError(this.#faults);
    return this.#handle;
  }

  /** One unit-length Float32Array per text. Empty or whitespace-only texts are InvalidInput. */
  async embed(texts) {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) throw invalid("embed: expected an array of strings");
    const handle = this.#live();
    let flat;
    try {
      flat = handle.embed(texts);
    } catch (e) {
      throw asEngramError(e, "Embedder");
    }
    const dims = handle.dims;
    return texts.map((_, i) => flat.slice(i * dims, (i + 1) * dims));
  }

  /** Word-piece ids per text (with [CLS] and [SEP], truncated at 256 as the model sees them). */
  async tokenize(texts) {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) throw invalid("tokenize: expected an array of strings");
    try {
      return this.#live().tokenize(texts);
    } catch (e) {
      throw asEngramError(e, "Embedder");
    }
  }

  /** LangChain shape. */
  async embedDocuments(texts) {
    return (await this.embed(texts)).map((v) => Array.from(v));
  }

  async embedQuery(text) {
    return Array.from((await this.embed([text]))[0]);
  }

  /** Releases the model's memory (stores using it keep their own reference). */
  dispose() {
    if (this.#faults.message === null) this.#handle?.free();
    this.#handle = undefined;
  }

  /** @internal The wasm handle, for stores that embed inside the core. */
  static handleOf(embedder) {
    return embedder instanceof Embedder ? embedder.#live() : null;
  }
}
