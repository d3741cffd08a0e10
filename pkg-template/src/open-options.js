// `Engram.open`'s options, read and checked in one place: what the core is opened with (as JSON),
// what stays in JS (the embedder, storage, callbacks, the LLM settings) and what is checked by the
// core (guards, vector index tuning, compaction).

import { invalid } from "./errors.js";
import { is, readOptions } from "./options.js";
import { toJson, isPlainObject } from "./wire.js";
import { resolveEmbedder } from "./embedder.js";
import { defaultEmbedder, vectorBuilder } from "./core.js";
import { checkedAdapter } from "./storage-bridge.js";
import { Embedder } from "./local-embedder.js";
import { DEFAULT_LLM_CONCURRENCY, DEFAULT_LLM_TIMEOUT_MS, LLM_LEVELS } from "./llm.js";
import { autoConsolidateOptions } from "./consolidate.js";
import { WATCH_OPTIONS } from "./progress.js";

const OPEN_OPTIONS = Object.freeze({
  embedder: is.passed,
  idSeed: is.passed,
  storage: is.passed,
  reembed: is.boolean,
  compactAfter: is.passed,
  vectorIndex: is.passed,
  autoReindex: is.boolean,
  onBackgroundError: is.callback,
  llm: is.passed,
  llmLevel: is.passed,
  llmConcurrency: is.passed,
  llmTimeoutMs: is.passed,
  autoConsolidate: is.passed,
  guards: is.passed,
  includeDefault: is.boolean,
  onCorruption: is.callback,
  ...WATCH_OPTIONS,
});

/** `{llm, level, concurrency, timeoutMs}` from open's options; no `llm` means level "off". */
function llmSettings(options) {
  const { llm = null, llmLevel, llmConcurrency = DEFAULT_LLM_CONCURRENCY, llmTimeoutMs = DEFAULT_LLM_TIMEOUT_MS } = options;
  if (llm !== null && typeof llm !== "function")
    throw invalid("open: `llm` must be a function (request, {signal}) => Promise<string | {text, usage}>, e.g. openAICompatible({...})");
  if (llmLevel !== undefined && !LLM_LEVELS.has(llmLevel)) throw invalid(`open: \`llmLevel\` must be one of ${[...LLM_LEVELS].join(", ")}`);
  if (llm === null && llmLevel !== undefined && llmLevel !== "off") throw invalid(`open: \`llmLevel: "${llmLevel}"\` needs an \`llm\``);
  if (!Number.isInteger(llmConcurrency) || llmConcurrency < 1 || llmConcurrency > 64) throw invalid("open: `llmConcurrency` must be an integer in 1..64");
  if (!Number.isInteger(llmTimeoutMs) || llmTimeoutMs < 1) throw invalid("open: `llmTimeoutMs` must be a positive integer (milliseconds)");
  const level = llm === null ? "off" : (llmLevel ?? "auto");
  return { llm: level === "off" ? null : llm, level, concurrency: llmConcurrency, timeoutMs: llmTimeoutMs };
}

/**
 * Everything `open` needs from its options: `reopen` (`{coreJson, storeJson, storage, adapter,
 * local}`, what opening does, kept to do it again after an internal fault), the host `embedder`
 * (null for the local one or none), `llm` settings, `watch` (`{signal, onProgress}` of the open itself) and `background` (builds, consolidation and
 * the callbacks of work done out of band).
 */
export async function openSettings(given) {
  const options = readOptions(given, "open", OPEN_OPTIONS);
  const llm = llmSettings(options);
  const autoConsolidate = autoConsolidateOptions(options.autoConsolidate);
  const storage = options.storage ?? null;
  const adapter = storage === null ? null : checkedAdapter(storage);
  const coreOptions = {};
  if (options.idSeed !== undefined) coreOptions.idSeed = options.idSeed;
  if (options.includeDefault !== undefined) coreOptions.includeDefault = options.includeDefault;
  let workerUrl;
  if (options.vectorIndex !== undefined) {
    if (!isPlainObject(options.vectorIndex)) throw invalid("open: `vectorIndex` must be an object like {graphMin: 20000}");
    const { workerUrl: url, ...tuning } = options.vectorIndex; // the rest is checked by the core
    if (url !== undefined && typeof url !== "string" && !(url instanceof URL)) throw invalid("open: `vectorIndex.workerUrl` must be a string or a URL");
    workerUrl = url;
    coreOptions.vectorIndex = tuning;
  }
  if (options.guards !== undefined && options.guards !== null) {
    if (!isPlainObject(options.guards)) throw invalid('open: `guards` must be an object like {secrets: "redact", injection: "flag"}');
    coreOptions.guards = options.guards; // the policies are checked by the core
  }
  const chosen = options.embedder === undefined ? await defaultEmbedder() : options.embedder;
  const local = chosen instanceof Embedder ? chosen : null;
  const embedder = local ? null : resolveEmbedder(chosen);
  // A host embedder that names itself gets the same protection as the local one.
  if (embedder && typeof embedder.id === "string" && Number.isInteger(embedder.dims)) coreOptions.embedder = { id: embedder.id, dims: embedder.dims };
  const storeOptions = {};
  if (options.reembed !== undefined) storeOptions.reembed = options.reembed;
  if (options.compactAfter !== undefined) storeOptions.compactAfter = options.compactAfter;
  if (typeof options.onCorruption === "function") storeOptions.skipDamaged = true;
  return {
    reopen: { coreJson: toJson(coreOptions, "open"), storeJson: toJson(storeOptions, "open"), storage, adapter, local },
    embedder,
    llm,
    watch: { signal: options.signal, onProgress: options.onProgress },
    background: {
      // Automatic builds only where they can run off this thread.
      auto: options.autoReindex ?? vectorBuilder() !== null,
      onBackgroundError: options.onBackgroundError ?? null,
      onCorruption: options.onCorruption ?? null,
      workerUrl,
      autoConsolidate,
    },
  };
}
