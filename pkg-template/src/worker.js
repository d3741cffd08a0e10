// The Web Worker side of `openInWorker`: one Engram (and its embedder) lives in this worker and
// answers the page's calls by message, so embedding and search never block the page.
import { Embedder, Engram, IndexedDBStorage, encrypted } from "./entry-browser.js";
import { FORWARDED_METHODS, WATCHED_METHODS } from "./methods.js";

let engram = null;
/** AbortControllers of running watched calls, by call id (the page's signal cannot cross). */
const aborts = new Map();

const methods = new Set(FORWARDED_METHODS);

// A trap of the wasm instance also surfaces as an uncaught error in this worker. The Engram has
// already rejected the call in flight with Internal and goes on on a new instance, so it is not the
// worker failing: reported to the page, it would reject every call pending there.
self.addEventListener("error", (event) => {
  if (event.error instanceof WebAssembly.RuntimeError) event.preventDefault();
});

const wireError = (e) => ({ code: typeof e?.code === "string" ? e.code : "Internal", name: String(e?.name ?? "Error"), message: String(e?.message ?? e) });

/** The page's LLM calls in flight, by id: the function stays in the page, requests and replies cross. */
const llmCalls = new Map();
let nextLlmCall = 0;

function relayedLlm(request, { signal }) {
  return new Promise((resolve, reject) => {
    const id = nextLlmCall++;
    const onAbort = () => {
      llmCalls.delete(id);
      self.postMessage({ llmAbort: id });
      reject(signal.reason ?? new Error("the LLM call was aborted"));
    };
    llmCalls.set(id, { resolve, reject, done: () => signal?.removeEventListener("abort", onAbort) });
    signal?.addEventListener("abort", onAbort, { once: true });
    self.postMessage({ llmCall: { id, request } });
  });
}

function settleLlm({ llmReply: id, result, error }) {
  const call = llmCalls.get(id);
  if (!call) return; // aborted meanwhile
  llmCalls.delete(id);
  call.done();
  if (error !== undefined) call.reject(new Error(error));
  else call.resolve(result);
}

async function open({ model, tokenizer, indexedDB, encryptionKey, ...options }, { relayLlm = false } = {}) {
  if (engram) throw Object.assign(new Error("this worker already holds an open Engram"), { code: "InvalidInput" });
  let embedder = options.embedder ?? null;
  if (model !== undefined || tokenizer !== undefined) {
    embedder = await Embedder.load({ model, tokenizer, onProgress: (event) => self.postMessage({ progress: event }) });
  }
  // Adapters cannot be posted to a worker; the page names the database and the worker opens it.
  // A key crosses by structured clone (a CryptoKey too, even a non-extractable one).
  if (encryptionKey !== undefined && indexedDB === undefined) {
    throw Object.assign(new Error("openInWorker: `encryptionKey` encrypts the `indexedDB` store: name the database too"), { code: "InvalidInput" });
  }
  const database = indexedDB === undefined ? undefined : new IndexedDBStorage(indexedDB);
  const storage = encryptionKey === undefined ? database : encrypted(database, encryptionKey);
  const onBackgroundError = (e) => self.postMessage({ backgroundError: wireError(e) });
  const llm = relayLlm ? { llm: relayedLlm } : {};
  engram = await Engram.open({ ...options, ...llm, embedder, onBackgroundError, ...(storage ? { storage } : {}) });
}

/**
 * A watched call (WATCHED_METHODS) whose page side has a signal or a progress callback: its progress
 * events posted under the call's id, its aborts arriving by message.
 */
async function watched(id, method, args, { signal, progress }) {
  const at = WATCHED_METHODS[method];
  const options = { ...args[at] };
  const controller = new AbortController();
  if (signal) {
    aborts.set(id, controller);
    options.signal = controller.signal;
  }
  if (progress) options.onProgress = (event) => self.postMessage({ id, event });
  const given = args.slice();
  given[at] = options;
  try {
    return await engram[method](...given);
  } finally {
    aborts.delete(id);
  }
}

self.onmessage = async ({ data }) => {
  if (data.llmReply !== undefined) return settleLlm(data);
  const { id, method, args, abort, watch } = data;
  if (abort !== undefined) return aborts.get(abort)?.abort();
  try {
    let result;
    if (method === "open") result = await open(args[0] ?? {}, args[1]);
    else if (!engram) throw Object.assign(new Error("open the worker's Engram first"), { code: "Closed" });
    else if (!methods.has(method)) throw Object.assign(new Error(`unknown method ${method}`), { code: "InvalidInput" });
    else if (watch && method in WATCHED_METHODS) result = await watched(id, method, args, watch);
    else result = await engram[method](...args);
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: wireError(e) });
  }
};
