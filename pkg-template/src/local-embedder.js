// Engram's own sentence embedder (all-MiniLM-L6-v2 int8, run by tract inside the wasm module).
// Also usable on its own, and in LangChain's shape (`embedDocuments`, `embedQuery`).
import { EngramError, asEngramError, invalid } from "./errors.js";
import { isPlainObject } from "./wire.js";
import { readSource } from "./core.js";
import { faultsOf } from "./faults.js";
import { forgetHandle, liveCore } from "./instance.js";

const TOKEN = Symbol("Embedder.load");

export function checkAborted(signal) {
  if (signal?.aborted) throw new EngramError("Aborted", "aborted by the caller's signal");
}

export class Embedder {
  #handle;
  /** The glue (wasm instance) the handle lives on, and its fault state: a stopped instance is never called into again. */
  #glue;
  #faults;
  /** Where the model came from, to load it again on a new instance after an internal fault. */
  #sources;
  /** The reload in progress after a fault (shared by the stores using this embedder). */
  #reloading = null;
  #id;
  #dims;

  constructor(token, handle, glue, sources) {
    if (token !== TOKEN) throw new TypeError("use `await Embedder.load({model, tokenizer})`");
    this.#sources = sources;
    this.#attach(handle, glue);
  }

  #attach(handle, glue) {
    this.#handle = handle;
    this.#glue = glue;
    this.#faults = faultsOf(glue);
    this.#id = handle.id;
    this.#dims = handle.dims;
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
    const { glue, handle } = await instantiate(modelBytes, tokenizerBytes, precision);
    progress({ status: "ready", file: "model.onnx" });
    return new Embedder(TOKEN, handle, glue, { model, tokenizer, precision });
  }

  /** Model name and sha256 of its weights; stores record it. */
  get id() {
    this.#open();
    return this.#id;
  }

  get dims() {
    this.#open();
    return this.#dims;
  }

  #open() {
    if (!this.#handle) throw new EngramError("Closed", "this Embedder has been disposed");
  }

  /**
   * The handle on a running instance: after an internal fault stopped the one it lived on, the
   * model is loaded again (from its sources) on the live instance; the stores using it then embed there.
   */
  async #live() {
    this.#open();
    while (this.#faults.message !== null) {
      this.#reloading ??= this.#reload().finally(() => {
        this.#reloading = null;
      });
      await this.#reloading;
      this.#open();
    }
    return this.#handle;
  }

  async #reload() {
    const stopped = this.#handle;
    const { model, tokenizer, precision } = this.#sources;
    const quiet = { progress: () => {}, signal: undefined };
    const [modelBytes, tokenizerBytes] = await Promise.all([readSource(model, { name: "model.onnx", ...quiet }), readSource(tokenizer, { name: "tokenizer.json", ...quiet })]);
    const { glue, handle } = await instantiate(modelBytes, tokenizerBytes, precision);
    if (!this.#handle) {
      handle.free(); // disposed meanwhile
      return;
    }
    forgetHandle(stopped);
    this.#attach(handle, glue);
  }

  /** One unit-length Float32Array per text. Empty or whitespace-only texts are InvalidInput. */
  async embed(texts) {
    if (!isStringArray(texts)) throw invalid("embed: expected an array of strings");
    const handle = await this.#live();
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
    if (!isStringArray(texts)) throw invalid("tokenize: expected an array of strings");
    const handle = await this.#live();
    try {
      return handle.tokenize(texts);
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
    else forgetHandle(this.#handle);
    this.#handle = undefined;
  }

  /**
   * @internal The wasm handle on `glue`'s instance, for stores that embed inside the core (a handle
   * is only valid on the instance that made it). Null for anything but an Embedder.
   */
  static async handleOn(embedder, glue) {
    if (!(embedder instanceof Embedder)) return null;
    const handle = await embedder.#live();
    if (embedder.#glue !== glue) throw new EngramError("Internal", "the embedder lives on another wasm instance than the store");
    return handle;
  }
}

/** Whether `texts` is an array of strings; false where asking throws (a revoked Proxy, a throwing getter). */
function isStringArray(texts) {
  try {
    return Array.isArray(texts) && texts.every((t) => typeof t === "string");
  } catch {
    return false;
  }
}

/** A LocalEmbedder on the live instance. */
async function instantiate(modelBytes, tokenizerBytes, precision) {
  try {
    const glue = await liveCore();
    return { glue, handle: new glue.LocalEmbedder(modelBytes, tokenizerBytes, precision) };
  } catch (e) {
    throw asEngramError(e, "Embedder");
  }
}
