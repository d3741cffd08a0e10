// `openInWorker`: the page's handle on an Engram running in a module Web Worker. Same async methods
// as Engram; arguments and results cross by structured clone.
import { EngramError, invalid } from "./errors.js";
import { FORWARDED_METHODS, WATCHED_METHODS } from "./methods.js";
import { abortedError, WATCH_OPTIONS } from "./progress.js";
import { isPlainObject } from "./wire.js";

/**
 * Starts a worker running Engram. `options`: `model` and `tokenizer` URLs to load the local embedder
 * there (cached for offline use), `onProgress` for its load events, `workerUrl` to override where
 * `engram.worker.mjs` is served from, `onBackgroundError` for failed automatic vector index builds,
 * `llm` (a function, which cannot cross to the worker: each request comes back here to be answered);
 * other options go to `Engram.open`.
 */
/** @param {Record<string, any>} [options] */
export async function openInWorker(options = {}) {
  if (!isPlainObject(options)) throw invalid("openInWorker: expected an options object");
  const { onProgress, workerUrl, onBackgroundError, llm = null, signal, ...rest } = options;
  if (onProgress !== undefined && typeof onProgress !== "function") throw invalid("openInWorker: `onProgress` must be a function");
  if (signal !== undefined && signal !== null && !WATCH_OPTIONS.signal(signal)) throw invalid(`openInWorker: \`signal\` must be ${WATCH_OPTIONS.signal.expected}`);
  if (signal?.aborted) throw abortedError("opening in a worker");
  if (llm !== null && typeof llm !== "function") throw invalid("openInWorker: `llm` must be a function, e.g. openAICompatible({...})");
  if (onBackgroundError !== undefined && onBackgroundError !== null && typeof onBackgroundError !== "function") {
    throw invalid("openInWorker: `onBackgroundError` must be a function");
  }
  for (const key of ["model", "tokenizer"]) if (rest[key] instanceof URL) rest[key] = rest[key].href;
  if (isPlainObject(rest.vectorIndex) && rest.vectorIndex.workerUrl instanceof URL) rest.vectorIndex = { ...rest.vectorIndex, workerUrl: rest.vectorIndex.workerUrl.href };
  const worker = new Worker(workerUrl ?? new URL("./engram.worker.mjs", import.meta.url), { type: "module" });
  const pending = new Map();
  let next = 0;
  const fromWire = (error) => new EngramError(error.code, error.message);
  /** AbortControllers of the relayed LLM calls in flight, by the worker's call id. */
  const llmAborts = new Map();
  const answerLlm = ({ id, request }) => {
    const controller = new AbortController();
    llmAborts.set(id, controller);
    const reply = (message) => {
      llmAborts.delete(id);
      try {
        worker.postMessage({ llmReply: id, ...message });
      } catch (e) {
        worker.postMessage({ llmReply: id, error: `the llm function's reply cannot be sent to the worker: ${e.message}` });
      }
    };
    Promise.resolve()
      .then(() => llm(request, { signal: controller.signal }))
      .then(
        (result) => reply({ result }),
        (e) => reply({ error: String(e?.message ?? e) }),
      );
  };
  worker.onmessage = ({ data }) => {
    if (data.progress) return onProgress?.(data.progress);
    if (data.llmCall) return answerLlm(data.llmCall);
    if (data.llmAbort !== undefined) return llmAborts.get(data.llmAbort)?.abort();
    if (data.backgroundError) {
      const error = fromWire(data.backgroundError);
      if (onBackgroundError) onBackgroundError(error);
      else console.warn(`engram-wasm: a background vector index build failed: ${error.message}`);
      return;
    }
    const call = pending.get(data.id);
    if (!call) return;
    if (data.event) {
      try {
        call.onEvent?.(data.event);
      } catch {
        // a throwing progress callback must not break the call
      }
      return;
    }
    pending.delete(data.id);
    call.done?.();
    if (data.error) call.reject(fromWire(data.error));
    else call.resolve(data.result);
  };
  worker.onerror = (e) => {
    for (const call of pending.values()) {
      call.done?.();
      call.reject(new EngramError("Internal", `worker failed: ${e.message}`));
    }
    pending.clear();
  };
  const call = (method, args, extra = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject, ...extra });
      worker.postMessage({ id, method, args, ...(extra.watch ? { watch: extra.watch } : {}) });
      extra.started?.(id);
    });
  // A signal cannot cross into the worker, and the open there is one wasm call: aborting ends the
  // worker itself. Nothing of the store is lost (every write it made was a whole record or none,
  // as after a crash) and the store's lock dies with the worker.
  let openId;
  const onAbort = () => {
    const opening = pending.get(openId);
    if (!opening) return; // already opened: the signal covered only the opening
    pending.delete(openId);
    worker.terminate();
    opening.reject(abortedError("opening in a worker"));
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await call("open", [rest, { relayLlm: llm !== null }], { started: (id) => (openId = id) });
  } catch (e) {
    if (!signal?.aborted) worker.terminate();
    throw e;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  const client = { terminate: () => worker.terminate() };
  for (const m of FORWARDED_METHODS) client[m] = (...args) => call(m, args);
  // The watched calls: progress events come back under the call's id; the signal is relayed as a message.
  for (const [m, at] of Object.entries(WATCHED_METHODS)) {
    client[m] = async (...args) => {
      const options = args[at];
      if (!isPlainObject(options) || !("signal" in options || "onProgress" in options)) return call(m, args);
      const { signal, onProgress: onEvent, ...forwarded } = options;
      for (const [key, value] of [
        ["signal", signal],
        ["onProgress", onEvent],
      ]) {
        if (value !== undefined && !WATCH_OPTIONS[key](value)) throw invalid(`${m}: \`${key}\` must be ${WATCH_OPTIONS[key].expected}`);
      }
      if (signal?.aborted) throw abortedError(`the ${m}`);
      const sent = args.slice();
      sent[at] = forwarded;
      let onAbort = null;
      return call(m, sent, {
        watch: { signal: Boolean(signal), progress: Boolean(onEvent) },
        onEvent,
        started: (id) => {
          if (!signal) return;
          onAbort = () => worker.postMessage({ abort: id });
          signal.addEventListener("abort", onAbort, { once: true });
        },
        done: () => onAbort && signal.removeEventListener("abort", onAbort),
      });
    };
  }
  const close = client.close;
  client.close = async () => {
    await close();
    worker.terminate();
  };
  return client;
}
