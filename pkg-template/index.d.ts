// Types of engram-wasm's public API (Node and browser entries share them). The reports and views the
// core returns are generated from its Rust types into reports.d.ts (see src/api/generated.rs) and
// re-exported here; what is hand-written below is what only JS has: options, callbacks, classes.
import type {
  ErrorCode,
  Limits,
  MemoryKind,
  MemoryLayer,
  MemoryShape,
  MemoryPin,
  DependsOn,
  MemoryItem,
  RawEntry,
  HistoryEvent,
  LlmPurpose,
  LlmUsage,
  ExtractReport,
  Retracted,
  AuthorReport,
  LlmLevel,
  ConsolidateReport,
  IngestResult,
  DeletedSession,
  Released,
  ScoreBreakdown,
  RecallResult,
  ThreadResult,
  GatherResult,
} from "./reports.js";
// Every generated declaration is part of the public types.
export type * from "./reports.js";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A vector as Engram accepts it. Engram normalizes it to unit length. */
export type Vector = Float32Array | Float64Array | number[];

/**
 * The typed fields of evolving facts, writable through `add` and `update`. Labels (`thread`,
 * `area`, `dependsOn.thread`) are stored normalized: lowercase ASCII words joined by `-`, segments
 * by `/` (`"Team/Package Manager"` → `"team/package-manager"`), at most 96 characters and 4
 * segments. Nothing derived (current, superseded, deleted, cascaded, uncertain) is ever stored:
 * `recall`, `thread` and `gather` derive it on read.
 */
export interface EvolvingFields {
  shape?: MemoryShape;
  /** The slot the value lives on, e.g. "team/package-manager". A `retraction` needs one. */
  thread?: string;
  /** The slot's value as stated (1..1000 characters). */
  value?: string;
  /**
   * A value on the same thread that was stated by mistake and this one corrects ("sorry, I
   * misspoke"; 1..1000 characters). When it is the thread's latest value, it leaves the thread's
   * history: it was never held, so it is neither a former value nor current.
   */
  corrects?: string;
  dependsOn?: DependsOn;
  /** The value this one becomes if its upstream changes (1..1000 characters). */
  consequent?: string;
  /** 0..3 labels for gathering. */
  area?: string[];
  /** A verbatim phrase kept for exact recall (1..4000 characters). */
  signature?: string;
  pin?: MemoryPin;
  /** 0..1: how sure the author was. */
  confidence?: number;
}

export interface TurnInput {
  /** "user", "assistant", … (1..32 characters). */
  role: string;
  /** 1..65536 characters. */
  content: string;
  speaker?: string;
  id?: string;
  embedding?: Vector;
}

export interface SessionInput {
  /** 1..128 characters; a session belongs to one namespace. */
  id: string;
  namespace?: string;
  /** When the conversation happened; recency counts from it. */
  date?: string | number | Date;
  /** 1..10000 turns. */
  turns: TurnInput[];
  /** Keep secrets in the turns where the store's guards would redact or reject them. */
  allowSecrets?: boolean;
}

/**
 * `add` returns the stored memory; `deduplicated` is true when identical content about the same fact
 * (thread, value, shape, and `eventAt` when given) already existed and was reinforced.
 */
/** What `onCorruption` is told: each damaged record left out of the store as it opened. */
export interface CorruptionReport {
  skipped: {
    /** The record's storage key. */
    key: string[];
    /** Its sequence number: the changes of one write call. */
    seq: number;
    bytes: number;
    reason: string;
  }[];
}

export interface AddResult extends MemoryItem {
  deduplicated: boolean;
}

/** A memory to add: its own fields and the typed evolving ones. */
export interface AddInput extends EvolvingFields {
  /** 1..8192 characters, not only whitespace. */
  content: string;
  /** Any text of 1..256 characters without control characters or surrounding spaces (`user:42`, `org/team`, an email, a UUID); defaults to "default". */
  namespace?: string;
  kind?: MemoryKind;
  /** 0..1, default 0.5. */
  importance?: number;
  /** At most 20 tags of at most 32 characters. */
  tags?: string[];
  /** At most 64 characters. */
  source?: string;
  /** At most 16 KiB as JSON. */
  metadata?: JsonObject;
  /** A vector for this memory; without it, the store's embedder (if any) makes one. */
  embedding?: Vector;
  /** When the remembered event happened (ISO string, Date, or epoch milliseconds). */
  eventAt?: string | number | Date;
  /** Raw entry ids (from `ingest`) this memory was authored from. */
  derivedFrom?: string[];
  /** Keep secrets in this memory where the store's guards would redact or reject them (they are flagged `secret:<kind>`). */
  allowSecrets?: boolean;
}

/** A chat message for `add(messages)`: a turn of the session it becomes. */
export interface ChatMessage {
  /** "user", "assistant", … (1..32 characters). */
  role: string;
  content: string;
  speaker?: string;
  id?: string;
}

export interface AddMessagesOptions extends ExtractOptions {
  /** The session the messages are (the whole conversation so far, as with `ingest`); default: a new random id per call. */
  sessionId?: string;
  namespace?: string;
  date?: string | number | Date;
  /** Default true where the store has an `llm`; without one the messages are only ingested. */
  extract?: boolean;
}

/** In a patch, null clears an evolving field (`pin: null` resets it to "active"). */
export type EvolvingPatch = { [K in keyof EvolvingFields]?: EvolvingFields[K] | null };

export interface MemoryPatch extends EvolvingPatch {
  content?: string;
  kind?: MemoryKind;
  importance?: number;
  tags?: string[];
  /** null clears it. */
  source?: string | null;
  metadata?: JsonObject;
  embedding?: Vector;
  /** null clears it. */
  eventAt?: string | number | Date | null;
  /** Keep secrets in the new text (see `AddInput.allowSecrets`). */
  allowSecrets?: boolean;
}

export interface PageOptions {
  namespace?: string;
  /** 1..1000, default 100. */
  limit?: number;
  offset?: number;
}

export interface NamespaceOptions {
  namespace?: string;
}

export interface SearchOptions {
  /** Searched together with "default" (unless `includeDefault: false`); defaults to "default". */
  namespace?: string;
  /** Whether the shared "default" namespace is read too (default: as the store was opened; `open({includeDefault})` defaults to true). */
  includeDefault?: boolean;
  /** 1..1000, default 10. */
  limit?: number;
  /** Query vector: hybrid search with a query text, pure vector search with `query = null`. */
  embedding?: Vector;
  kinds?: MemoryKind[];
  layers?: MemoryLayer[];
  /** Only memories carrying all of these tags. */
  tags?: string[];
  /** Include each hit's score breakdown. */
  explain?: boolean;
  /** Do not count this search as an access of the memories returned. */
  dryRun?: boolean;
  /** Authored memories (default), raw turns, or both. */
  scope?: "memories" | "raw" | "all";
  /** Append up to this many neighbouring turns (0..8) on each side of a raw hit. */
  neighbors?: number;
  /** Append memories linked to memory hits. */
  expandLinks?: boolean;
  /** Also return memories superseded on their thread (by a later value or a consolidation update) or withdrawn by a retraction; hidden by default. */
  includeSuperseded?: boolean;
}

interface HitBase {
  /** 0..1, higher is better. */
  score: number;
  explain?: ScoreBreakdown;
  /** Present on expansions: the id of the hit that pulled this one in. */
  expandedFrom?: string;
}

export interface MemoryHit extends HitBase {
  type: "memory";
  memory: MemoryItem;
}

export interface RawHit extends HitBase {
  type: "raw";
  raw: RawEntry;
}

export type SearchHit = MemoryHit | RawHit;

export interface ContextOptions {
  namespace?: string;
  /** Whether the shared "default" namespace is read too (default: as the store was opened; `open({includeDefault})` defaults to true). */
  includeDefault?: boolean;
  /** 1..200000, default 1000. */
  maxTokens?: number;
  /** Withhold the text of flagged entries (the entry stays, with its `flags` attribute). Default false. */
  redact?: boolean;
}

/** What happens to a secret in text being written. Default "redact". */
export type SecretPolicy = "redact" | "reject" | "flag" | "off";
/** What happens to text that tries to act as instructions. Default "flag". */
export type InjectionPolicy = "flag" | "quarantine" | "off";

export interface GuardOptions {
  /**
   * "redact" (default): replaced by `[secret:<kind>]` before anything is stored, indexed or embedded;
   * "reject": the write fails with `InvalidInput`; "flag": kept and named in `flags` (a kept secret reaches a
   * context block only when its slot is what the query asks for; elsewhere the entry is withheld); "off".
   */
  secrets?: SecretPolicy;
  /** "flag" (default): `injection:<kind>` in `flags`; "quarantine": also kept out of context blocks until `release(id)`; "off". */
  injection?: InjectionPolicy;
}

export interface RecallOptions extends ContextOptions {
  /** Recall as of this date: only memories and turns dated at or before it count. */
  at?: string | number | Date;
}

export interface AsOfOptions {
  namespace?: string;
  /** Whether the shared "default" namespace is read too (default: as the store was opened; `open({includeDefault})` defaults to true). */
  includeDefault?: boolean;
  at?: string | number | Date;
}

/** A context block for a prompt. */
export interface MemoryContext {
  /** `<memory>…</memory>` with sections; each entry inside `<entry>`, byte-exact but for a `<` opening a frame tag (`&lt;`). Empty when nothing fits. */
  text: string;
  /** Ids of the memories and raw entries included, in order. */
  ids: string[];
  /** Estimated tokens of `text`; never above `maxTokens`. */
  tokens: number;
  maxTokens: number;
  /** The estimate used: "ceil(ascii_chars / 4) + non_ascii_chars". */
  tokenEstimate: string;
}

export interface EngramStats {
  memories: number;
  namespaces: { [namespace: string]: number };
  byKind: { [kind: string]: number };
  byLayer: { [layer: string]: number };
  vectors: number;
  vectorDims: number | null;
  keywordTerms: number;
  historyEvents: number;
  embedder: string | null;
  sessions: number;
  rawEntries: number;
  rawVectors: number;
  /** Size of the wasm module's linear memory (shared by all stores of one module instance). */
  wasmMemoryBytes: number;
}

/**
 * A host embedder in LangChain's shape, awaited outside the core. `embedDocuments` is asked for
 * memories and turns stored without a vector (a turn as `speaker: content`) and, after `extract`,
 * `author` and `consolidate`, for the memories they wrote; `embedQuery` for the query of `search`,
 * `recall` and `recallContext`. It is always given the text as the store's guards keep it.
 */
export interface HostEmbedder {
  embedDocuments(texts: string[]): Promise<Vector[]> | Vector[];
  embedQuery(text: string): Promise<Vector> | Vector;
  /**
   * Stable name of the model. With `dims`, a persisted store records it and refuses (`Embedder`)
   * to be opened later with another embedder's vectors, as it does for the local `Embedder`.
   */
  readonly id?: string;
  readonly dims?: number;
}

/** Progress of a model load (the transformers.js convention). */
export interface LoadProgress {
  status: "initiate" | "progress" | "done" | "ready";
  task: "load-embedder";
  file: string;
  loaded?: number;
  total?: number;
  /** 0..100 */
  progress?: number;
  /** true when the bytes came from the browser's cache. */
  cached?: boolean;
}

/** A model file: bytes, a path (Node) or a URL (fetched; cached by browsers for offline use). */
export type ModelSource = Uint8Array | ArrayBuffer | ArrayBufferView | string | URL;

export interface EmbedderLoadOptions {
  /**
   * An ONNX sentence encoder with inputs input_ids / attention_mask / token_type_ids and output
   * last_hidden_state. The wasm module carries the ONNX operators of BERT-family encoders only (its
   * size budget); a model using another operator is rejected at load with an `Embedder` error.
   */
  model: ModelSource;
  tokenizer: ModelSource;
  /**
   * How the linear layers compute. "int8" (default): int8 weights times 16-bit activations with exact
   * integer sums — fastest, ~75 MiB of wasm memory after load; vectors within cosine 0.99999 of the
   * float model's. "f32": weights expanded to float at load, the exported model's arithmetic (≈ 2.7×
   * slower in wasm, ~160 MiB). Both give the same `id`; their vectors are interchangeable for search.
   */
  precision?: "int8" | "f32";
  onProgress?: (event: LoadProgress) => void;
  signal?: AbortSignal;
}

/** Engram's local sentence embedder: all-MiniLM-L6-v2 (int8 ONNX) run inside the wasm module. */
export class Embedder implements HostEmbedder {
  private constructor();
  static load(options: EmbedderLoadOptions): Promise<Embedder>;
  /** Model name and sha256 of the weights, e.g. "all-MiniLM-L6-v2-int8@8199be6f…". */
  readonly id: string;
  /** 384 */
  readonly dims: number;
  /** One unit-length vector per text; empty or whitespace-only text is InvalidInput. */
  embed(texts: string[]): Promise<Float32Array[]>;
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
  /** Word-piece ids per text, with [CLS] and [SEP], truncated at 256 as the model sees them. */
  tokenize(texts: string[]): Promise<Uint32Array[]>;
  /** Frees the model; stores that use it keep working. */
  dispose(): void;
}

export interface OpenOptions {
  /**
   * An `Embedder` (runs inside the core), a host embedder, or null for keyword-only search. Left out:
   * in Node the local model from ENGRAM_MODEL_DIR, else the installed package
   * engram-model-minilm-l6-int8, else ./models (rejects with `Embedder` saying how to get it when
   * missing); in browsers keyword-only.
   */
  embedder?: Embedder | HostEmbedder | null;
  /** Seed for reproducible ids (tests). */
  idSeed?: number;
  /**
   * Where the store is kept: `MemoryStorage`, `IndexedDBStorage` (browsers), `NodeFSStorage`
   * (`engram-wasm/node-fs`) or any adapter of that shape. Without it the store lives in memory only.
   * The store owns the adapter: `close()` closes it. See the README for what each adapter's
   * acknowledgement guarantees.
   */
  storage?: StorageAdapter | null;
  /** The stored vectors came from another embedder: re-embed every record instead of refusing to open. */
  reembed?: boolean;
  /**
   * Opening is one unit (phase `open`); a `reembed` adds one unit per record (phase `reembed`,
   * reported after each batch of 32, the event loop getting a turn between batches). Aborted before
   * the write of the new vectors, nothing is written and `open` rejects with `Aborted` (the store
   * still opens with its old embedder); aborted after it, the store is closed again (the re-embed
   * stays written) and `open` rejects with `Aborted`.
   */
  signal?: AbortSignal;
  onProgress?: (event: Progress) => void;
  /** Stored change records between two automatic compactions (default 1024). */
  compactAfter?: number;
  /** Vector index options (see the README's "Vector index"). */
  vectorIndex?: VectorIndexOptions;
  /**
   * Build graph segments in the background after a write once a build is due (one at a time, in the
   * build worker, never on open or inside a query). Default: true where a worker is available (Node,
   * browsers with `Worker`), else false.
   */
  autoReindex?: boolean;
  /**
   * Receives the error of a failed background (automatic) vector index build; automatic builds then
   * pause until a `reindex()` succeeds. Without it the error is logged with `console.warn`.
   */
  onBackgroundError?: (error: EngramError) => void;
  /**
   * A stored record written whole and damaged since (its checksum fails at its full length) may
   * hold acknowledged writes, so by default the store refuses to open (`Corrupt`, naming it). With
   * this handler it opens without the record and reports it here, once; the next write takes its
   * place. A record cut short by a crash mid-write was never acknowledged and is left out silently.
   */
  onCorruption?: (report: CorruptionReport) => void;
  /**
   * The host LLM every LLM-using step calls (Engram opens no connection itself): your own function,
   * or `openAICompatible({...})`. In `openInWorker` the function stays in the page: the worker
   * sends each request back to it and awaits the reply (its signal aborts the page's call).
   */
  llm?: Llm | null;
  /** "off": never call; "auto" (default with an `llm`): only where heuristics are not confident; "on": every step that has one. No `llm` means "off". */
  llmLevel?: LlmLevel;
  /** Calls in flight at once (default 2). */
  llmConcurrency?: number;
  /** Time limit of one call in milliseconds (default 60000), enforced through the call's signal. */
  llmTimeoutMs?: number;
  /**
   * Run consolidation epochs on their own (off by default): after `everyWrites` writes and/or every
   * `everyMs` milliseconds (≥ 1000), one at a time, queued like any write. Failures go to
   * `onBackgroundError`; an epoch's write is all or nothing.
   */
  autoConsolidate?: { everyWrites?: number; everyMs?: number; bufferCap?: number } | null;
  /** Secret and injection guards on every write (see the README's "Guards"). */
  guards?: GuardOptions;
  /**
   * Whether reads in a namespace also see the shared "default" namespace (default true). `false`
   * keeps tenants apart: a search, recall, thread or context block in "user:42" sees only
   * "user:42" unless the call asks with `includeDefault: true`, and new memories link only within
   * their namespace.
   */
  includeDefault?: boolean;
}

export interface VectorIndexOptions {
  /** The vector count from which HNSW graph segments are built (default 20,000; below it an exact int8 scan is as fast). At least 1. */
  graphMin?: number;
  /** Keep a built graph even where its calibration finds an exact scan as cheap (tests, experiments). */
  alwaysGraph?: boolean;
  /**
   * Where the build worker is served, if not next to the package's bundle: `engram-wasm/vector-worker`
   * (dist/engram.vector-worker.mjs) in browsers, dist/engram.vector-worker.node.cjs in Node.
   */
  workerUrl?: string | URL;
}

/** One vector index (memories or raw turns): where its vectors are served from. */
export interface VectorTierStats {
  vectors: number;
  /** Served by graph segments. */
  indexed: number;
  /** Scanned exactly (int8). */
  exact: number;
  /** Graph points whose vector was deleted or replaced since their segment was built. */
  tombstones: number;
  segments: number;
  memoryBytes: number;
}

export interface VectorIndexStats {
  memories: VectorTierStats;
  raw: VectorTierStats;
  /** A build is due (automatic reindex starts one after the next write). */
  needsBuild: boolean;
}

/** What installing one build did; `scan`: the build found a graph does not pay off for those vectors. */
export interface ReindexStep {
  target: "memories" | "raw";
  /** `segment`: installed; `scan`: kept exactly scanned (retried once the exact tier doubled); `stale`: the index changed under the build, nothing installed (the next plan is fresh). */
  result: "segment" | "scan" | "stale";
  /** Points the installed segment serves (0 for `scan` and `stale`). */
  points: number;
  calibration: { points: number; samples: number; efSearch: number; recallMean: number; recallMin: number; distanceEvaluations: number; useGraph: boolean; /** Turned away by its sample's relative contrast without a graph build (recall and evaluations 0). */ trial: boolean; /** Relative contrast of a 2,048-point sample (batches of 4,096 or more; 0 otherwise). */ contrast: number };
}

/** Points are the units: `build` announces a build of `points` more, `install` reports it installed. */
export type ReindexProgress =
  | (Progress & { phase: "build"; target: "memories" | "raw"; points: number })
  | (Progress & { phase: "install" } & ReindexStep)
  | (Progress & { phase: "done" });

export interface ReindexOptions {
  /**
   * `build` before each build and `install` after it (`done` / `total`: points built so far /
   * points planned so far in this reindex: `total` grows with each build planned), then `done`.
   */
  onProgress?: (event: ReindexProgress) => void;
  /**
   * Aborting terminates the build worker at once; nothing more is installed (a build already
   * installed stays: each is its own write); `reindex` rejects with `Aborted`. An in-process build
   * cannot be interrupted: the abort takes effect when it returns.
   */
  signal?: AbortSignal;
  /**
   * Build in a worker (default true). `false`, or where no worker is available, builds in-process:
   * this thread is blocked for the build (about 0.5–3 ms per vector).
   */
  inWorker?: boolean;
}

/** What `reindex` did: one step per build, then the tiers after the last one. */
export interface ReindexResult {
  steps: ReindexStep[];
  stats: VectorIndexStats;
}

/** What `import` merged. */
/** An export file: its bytes, a Blob / File, a stream or an (async) iterable of byte chunks. */
export type ImportSource = Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface ImportResult {
  added: number;
  replaced: number;
  rawEntries: number;
  historyEvents: number;
}

/** Every rejection from Engram. `name` and `code` are the same stable code. */
export class EngramError extends Error {
  /** Host code may raise its own (an embedder or adapter rejecting with a typed error). */
  constructor(code: ErrorCode, message?: string, options?: { cause?: unknown });
  readonly code: ErrorCode;
  readonly name: ErrorCode;
}

export const ERROR_CODES: readonly ErrorCode[];

/** The bounds of what Engram accepts, as the core enforces them: for tool schemas, forms and pre-checks. A fresh copy each call. */
export function limits(): Limits;

/** Browser: load the wasm module now or from a custom source. Node: resolves at once. */
export function initWasm(source?: string | URL | Response | BufferSource | WebAssembly.Module): Promise<unknown>;

export class Engram {
  private constructor();
  static open(options?: OpenOptions): Promise<Engram>;
  add(input: AddInput): Promise<AddResult>;
  /** mem0-style: the string is the content; `options` holds the other fields. */
  add(content: string, options?: Omit<AddInput, "content">): Promise<AddResult>;
  /**
   * mem0-style: chat messages kept as a session (`ingest`), then extracted into typed memories when
   * the store has an `llm` (unless `extract: false`).
   */
  add(messages: ChatMessage[], options?: AddMessagesOptions): Promise<IngestResult & { extracted?: ExtractReport }>;
  /**
   * `add` for every item, as one write (one stored record; all or nothing): a bad item fails the
   * call with `InvalidInput` naming `items[i]`; the host embedder is asked once; duplicates within
   * the batch reinforce the earlier item. One result per item, as `add` returns it. At most 10,000 items.
   */
  addMany(items: Array<AddInput | string>, options?: WatchOptions): Promise<AddResult[]>;
  get(id: string): Promise<MemoryItem | null>;
  getAll(options?: PageOptions): Promise<MemoryItem[]>;
  /** `patch` as a string is the new content (mem0's `update(id, text)`). */
  update(id: string, patch: MemoryPatch | string): Promise<MemoryItem>;
  delete(id: string): Promise<void>;
  /**
   * Empties a namespace (`default` when left out): its memories and its raw sessions, with memories
   * elsewhere derived only from those sessions. Resolves to the number of memories removed.
   */
  deleteAll(options?: NamespaceOptions): Promise<number>;
  history(id: string): Promise<HistoryEvent[]>;
  /** Memories unless `scope` asks for turns: `hits[0].memory` is always there by default. */
  search(query: string | null, options?: SearchOptions & { scope?: "memories" }): Promise<MemoryHit[]>;
  search(query: string | null, options: SearchOptions & { scope: "raw" }): Promise<RawHit[]>;
  search(query: string | null, options?: SearchOptions): Promise<SearchHit[]>;
  /**
   * A `<memory>` block for a prompt about `query`, by section, within `maxTokens`. A memory on a thread
   * appears in the state `recall` derives for it (uncertain, cascaded, superseded), never as the plain
   * fact it was when stated; a value asked to be forgotten appears nowhere.
   */
  recallContext(query: string, options?: ContextOptions): Promise<MemoryContext>;
  resume(options?: ContextOptions): Promise<MemoryContext>;
  /**
   * One search routed by the shape of its hits: derived states and a `<memory>` block. With a query
   * vector (the local model, or the host's embedder), what the budget leaves after the derived
   * entries and the turns matching the query's words goes to the user turns nearest it by meaning,
   * nearest first: a list question's members rarely share its words.
   */
  recall(query: string, options?: RecallOptions): Promise<RecallResult>;
  /** A thread's derived state and dated values. */
  thread(label: string, options?: AsOfOptions): Promise<ThreadResult>;
  /** Every slot of an area in its derived state. */
  gather(area: string, options?: AsOfOptions): Promise<GatherResult>;
  /**
   * `ingest` for every session, as one write (all or nothing; errors name `sessions[i]`). At most
   * 10,000 sessions. Progress counts turns.
   */
  ingestMany(sessions: SessionInput[], options?: WatchOptions): Promise<IngestResult[]>;
  ingest(session: SessionInput): Promise<IngestResult>;
  /** Ingests, then extracts memories from the session's new turns (see `extract`). */
  ingest(session: SessionInput, options: IngestOptions & { extract: true }): Promise<IngestResult & { extracted: ExtractReport }>;
  /** Ingests, then authors typed memories from the session's new turns (see `author`). */
  ingest(session: SessionInput, options: IngestOptions & { author: true }): Promise<IngestResult & { authored: AuthorReport; extracted?: ExtractReport }>;
  ingest(session: SessionInput, options?: IngestOptions): Promise<IngestResult & { extracted?: ExtractReport; authored?: AuthorReport }>;
  /**
   * Authors typed, dated memories (shape, thread, value, dependsOn, consequent, area, signature,
   * confidence, eventAt, derivedFrom) from the session's turns not yet authored, and marks them.
   * `llmLevel` "off" / "auto": the offline rules for explicit English statements; "on": the
   * `author@3` prompt through the host LLM, with the rules as fallback for failed calls. An authored
   * retraction removes the thread's values everywhere (see `retract`).
   */
  author(sessionId: string, options?: AuthorOptions): Promise<AuthorReport>;
  /**
   * Retracts a thread: the memories stating its values are deleted; other memories and raw turns
   * repeating a value are redacted in place (`[retracted]`), re-indexed and re-embedded; history
   * keeps the events without the text. Rejects with `NotFound` when nothing is on the thread.
   */
  retract(thread: string, options?: NamespaceOptions): Promise<Retracted>;
  /**
   * Sends the session's turns not yet extracted to the LLM and adds the typed memories it returns
   * (valid ones only; history names the promptId). Without an `llm`, reports that nothing was
   * extracted. Rejects with `Aborted` (nothing applied) when `signal` aborts.
   */
  extract(sessionId: string, options?: ExtractOptions): Promise<ExtractReport>;
  /**
   * Runs one consolidation epoch (decay by kind, promotions, merge of near-duplicates, reconcile of
   * updates through threads, the core gate, triage, distillation, buffer eviction) and resolves to
   * its report. LLM steps run through the `llm` at `llmLevel`; without one, the heuristics run.
   */
  consolidate(options?: ConsolidateOptions): Promise<ConsolidateReport>;
  /** LLM calls applied since this store was opened, summed. */
  llmUsage(): Promise<LlmUsage>;
  session(id: string): Promise<RawEntry[]>;
  sessions(options?: NamespaceOptions): Promise<string[]>;
  deleteSession(id: string): Promise<DeletedSession>;
  /** Lets a quarantined memory or raw turn back into context blocks (its flags stay). NotFound for an unknown id. */
  release(id: string): Promise<Released>;
  stats(): Promise<EngramStats>;
  /** Tiers of the vector indexes and whether a build is due. */
  vectorIndexStats(): Promise<VectorIndexStats>;
  /**
   * Builds the vector index's graph segments now: each build in a worker (queries keep being
   * answered meanwhile), installed through the write queue and persisted with storage. A running
   * automatic build finishes first. Rejects with `Aborted` when `signal` aborts, `Closed` when the
   * store is closed during it.
   */
  reindex(options?: ReindexOptions): Promise<ReindexResult>;
  reset(): Promise<void>;
  /** Writes what is pending (search touches), then the adapter's strict durability barrier. */
  flush(): Promise<void>;
  /** Rewrites the stored form as one snapshot (also automatic as change records accumulate). One unit of progress. */
  compact(options?: WatchOptions): Promise<void>;
  /** Catches up with writes made by other tabs or processes to the same storage. */
  refresh(): Promise<boolean>;
  /** The whole store, or one namespace, as one portable checksummed file. */
  export(options?: { namespace?: string }): Promise<Uint8Array>;
  /**
   * The same file as `export`, in slices (≈ 1 MiB): never held whole. The file is the store as of
   * this call; later calls on this store wait until the stream is read to its end or cancelled.
   */
  exportStream(options?: { namespace?: string }): ReadableStream<Uint8Array>;
  /**
   * Merges an export file by id, as one write; `Corrupt` / `Embedder` change nothing. The file is
   * read in slices from any `ImportSource` (a Node file stream is an async iterable of chunks).
   * Progress counts bytes (`total` grows as a stream or iterable of unknown length is read); an
   * abort stops the reading between two slices, and nothing is merged.
   */
  import(source: ImportSource, options?: WatchOptions): Promise<ImportResult>;
  /** Writes what is pending, frees the wasm memory and closes the storage adapter. */
  close(): Promise<void>;
}

export interface WorkerOptions extends Omit<OpenOptions, "embedder" | "onProgress" | "signal"> {
  /** URLs of the local model files: the worker loads the Embedder (cached for offline use). */
  model?: string | URL;
  tokenizer?: string | URL;
  /** Load progress of the worker's Embedder. */
  onProgress?: (event: LoadProgress) => void;
  /** Where `engram.worker.mjs` is served, if not next to the package's browser build. */
  workerUrl?: string | URL;
  /** Without model URLs: null for keyword-only (the default in browsers). */
  embedder?: null;
  /** Adapters cannot cross into a worker: name the IndexedDB database the worker's store is kept in. */
  indexedDB?: string;
  /** Keeps the `indexedDB` store encrypted: `encrypted(new IndexedDBStorage(indexedDB), encryptionKey)` in the worker. */
  encryptionKey?: EncryptionKey;
  storage?: never;
  /**
   * Aborts the opening: the worker is ended and the call rejects with `Aborted` (the store keeps
   * every record written whole, as after a crash). It covers only the opening; each later call
   * takes its own.
   */
  signal?: AbortSignal | null;
}

/**
 * An Engram running in a module Web Worker: the same async methods, plus `terminate()`. The
 * `signal` and `onProgress` of a call are kept in the page and relayed (abort and progress messages).
 */
export type EngramWorker = Pick<
  Engram,
  | "add" | "addMany" | "get" | "getAll" | "update" | "delete" | "deleteAll" | "history" | "search" | "ingest" | "ingestMany" | "session" | "sessions"
  | "deleteSession" | "release" | "recallContext" | "recall" | "thread" | "gather" | "resume" | "stats" | "vectorIndexStats" | "reindex" | "reset" | "flush" | "compact" | "refresh"
  | "export" | "import" | "close" | "retract" | "author" | "extract" | "consolidate" | "llmUsage"
> & { terminate(): void };

/** Browsers: open an Engram inside a module Web Worker so embedding never blocks the page. */
export function openInWorker(options?: WorkerOptions): Promise<EngramWorker>;

// Storage adapters

/** A record's key: one or more non-empty strings (any characters). Prefixes may be `[]` (every key). */
export type StorageKey = string[];

export interface StorageRecord {
  key: StorageKey;
  data: Uint8Array;
}

/**
 * Where Engram persists: the automerge-repo storage-adapter shape. This is the contract's one text
 * (the Rust `Storage` trait and the shipped adapters follow it); `engram-wasm/adapter-tests` checks
 * an adapter against it. Every method returns a promise; every rejection is an EngramError:
 * `InvalidInput` (malformed key or data), `StorageFull` (quota or disk full: IndexedDB
 * `QuotaExceededError`, Node `ENOSPC` / `EDQUOT`), `Storage` (any other I/O failure; its message names
 * the operation and the key, `cause` holds the original error).
 */
export interface StorageAdapter {
  /** The bytes saved under `key`, or undefined. */
  load(key: StorageKey): Promise<Uint8Array | undefined>;
  /**
   * Stores a copy of `data` (taken before `save` returns: the caller may reuse its buffer at once)
   * and resolves once the backend acknowledged the write (an IndexedDB transaction `complete`, a
   * renamed file). How durable an acknowledged write is depends on the adapter's durability;
   * `flush()` makes every acknowledged write durable.
   */
  save(key: StorageKey, data: Uint8Array): Promise<void>;
  /**
   * Like `save`, but only where nothing is stored, as one atomic step against every other writer
   * (instances, tabs, threads, processes): `true` when it wrote, `false` when the key was taken
   * (nothing written); a reader never sees a partial record. Engram commits with it, so two writers
   * never overwrite each other's commit even if `lock` fails; without it, Engram looks, then saves
   * (exclusive only under `lock`).
   */
  create?(key: StorageKey, data: Uint8Array): Promise<boolean>;
  /** Resolves also when there was no such key. */
  remove(key: StorageKey): Promise<void>;
  /**
   * Every record whose key starts with `prefix`, segment by segment (`["a"]` matches `["a"]` and
   * `["a", "b"]`, not `["ab"]`), in key order (segment by segment, by UTF-16 code units).
   */
  loadRange(prefix: StorageKey): Promise<StorageRecord[]>;
  /** Deletes every record `loadRange(prefix)` would return. */
  removeRange(prefix: StorageKey): Promise<void>;
  /** Releases what the adapter holds open (a database connection); the adapter stays usable: a later call opens it again. */
  close?(): Promise<void> | void;
  /** Durability barrier: once it resolves, every write acknowledged before the call survives a power loss. */
  flush?(): Promise<void>;
  /**
   * Runs `fn` holding this store's exclusive writer lock (across tabs in browsers, across processes
   * in Node) and resolves to its result; released however `fn` ends. Not reentrant: `lock` from
   * inside `fn` on the same store deadlocks. An adapter whose lock costs round trips may keep it a
   * little after `fn` for the next call, and then tells `fn` so (`LockHold`).
   */
  lock?<T>(fn: (hold?: LockHold) => Promise<T>): Promise<T>;
  /**
   * Set when other contexts of the same origin can share this storage: Engram posts its commits on
   * a BroadcastChannel of this name and others re-read only after one. Without it, an adapter
   * with `lock` is re-read (a few small reads) before every read call.
   */
  readonly channel?: string;
}

/**
 * What `lock` may hand its `fn` when the adapter keeps its lock between calls (PostgresStorage): a
 * writer that remembers the `token` of its last call can tell that nobody else wrote since, and
 * skip re-reading the store. Adapters that release the lock after every call pass nothing.
 */
export interface LockHold {
  /** This call's own token (a fresh object each call). */
  readonly token: object;
  /**
   * The token of the call just before this one when the lock was held all the way from that call to
   * this one and no other call ran under it in between; `null` when the lock was taken anew.
   */
  readonly follows: object | null;
  /**
   * True when this adapter's `create`, while the hold lasts, writes only if the lock is still held
   * at that moment (the database refuses it otherwise), so no writer honouring the lock can have
   * written meanwhile.
   */
  readonly fenced: boolean;
}

/**
 * "relaxed": a write is acknowledged once the browser / OS has it (survives a crash of the page or
 * process, not necessarily a power loss; `flush()` makes it durable). "strict": once it is on disk.
 */
export type StorageDurability = "relaxed" | "strict";

/** Records in a Map: nothing persists past the process. `close()` keeps them, so the instance can be reopened. */
export class MemoryStorage implements StorageAdapter {
  constructor();
  load(key: StorageKey): Promise<Uint8Array | undefined>;
  save(key: StorageKey, data: Uint8Array): Promise<void>;
  create(key: StorageKey, data: Uint8Array): Promise<boolean>;
  remove(key: StorageKey): Promise<void>;
  loadRange(prefix: StorageKey): Promise<StorageRecord[]>;
  removeRange(prefix: StorageKey): Promise<void>;
  close(): Promise<void>;
  flush(): Promise<void>;
  lock<T>(fn: () => Promise<T>): Promise<T>;
}

export interface IndexedDBStorageOptions {
  /** Durability of write transactions; default "relaxed". */
  durability?: StorageDurability;
  /** An IDBFactory other than the global `indexedDB` (e.g. fake-indexeddb's). */
  indexedDB?: { open(name: string, version?: number): unknown };
  /** The IDBKeyRange class that goes with `indexedDB`, if it is not the global one. */
  IDBKeyRange?: { bound(lower: unknown, upper: unknown, lowerOpen?: boolean, upperOpen?: boolean): unknown };
}

/**
 * Records in one IndexedDB object store (database `dbName`, default "engram"), opened on first use.
 * `lock` is the Web Lock "engram:<dbName>" (all tabs and workers of the origin). When another tab
 * upgrades the database this connection closes, so it is never blocked.
 */
export class IndexedDBStorage implements StorageAdapter {
  constructor(dbName?: string, options?: IndexedDBStorageOptions);
  readonly dbName: string;
  readonly durability: StorageDurability;
  /** Broadcast channel name: contexts sharing the database learn of each other's commits on it. */
  readonly channel: string;
  load(key: StorageKey): Promise<Uint8Array | undefined>;
  save(key: StorageKey, data: Uint8Array): Promise<void>;
  create(key: StorageKey, data: Uint8Array): Promise<boolean>;
  remove(key: StorageKey): Promise<void>;
  loadRange(prefix: StorageKey): Promise<StorageRecord[]>;
  removeRange(prefix: StorageKey): Promise<void>;
  close(): Promise<void>;
  flush(): Promise<void>;
  lock<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * A key for encryption at rest: an HKDF `CryptoKey` usable for "deriveKey" (what `deriveKey`
 * returns) or 32 random bytes (`crypto.getRandomValues(new Uint8Array(32))`, kept by the host).
 */
export type EncryptionKey = CryptoKey | Uint8Array | ArrayBuffer;

/**
 * `adapter` with its records (AES-256-GCM, a fresh nonce per record) and key names (HMAC per
 * segment) encrypted; the same contract and the same optional methods as `adapter`. Opening a
 * store with another key rejects with `Corrupt`, as does a record that was damaged or moved.
 */
export function encrypted(adapter: StorageAdapter, key: EncryptionKey): StorageAdapter;

/**
 * A key from a passphrase: PBKDF2-SHA-256 over the passphrase (NFC) and `salt` (at least 16 random
 * bytes the host keeps with the store; not secret). `iterations` defaults to 600,000 (min 100,000).
 */
export function deriveKey(passphrase: string, salt: Uint8Array | ArrayBuffer, options?: { iterations?: number }): Promise<CryptoKey>;

/** `bytes` (e.g. `await db.export()`) encrypted under `key`: 29 bytes longer. */
export function encryptBytes(key: EncryptionKey, bytes: Uint8Array | ArrayBuffer): Promise<Uint8Array>;

/** The bytes `encryptBytes` encrypted; `Corrupt` for another key or damaged bytes. */
export function decryptBytes(key: EncryptionKey, bytes: Uint8Array | ArrayBuffer): Promise<Uint8Array>;

/** One LLM call as the host's function receives it. */
export interface LlmRequest {
  purpose: LlmPurpose;
  /** Versioned, e.g. "extract@1"; changes whenever the prompt text changes. */
  promptId: string;
  /** Instructions. Stored text appears only inside the messages, escaped in `<entry>` data blocks. */
  system: string;
  messages: { role: "user" | "assistant"; content: string }[];
  /** JSON Schema (a draft 2020-12 subset) the reply must satisfy. */
  schema: JsonObject;
  maxOutputTokens: number;
  /** 0 unless a purpose needs otherwise. */
  temperature: number;
}

export type LlmReply = string | { text: string; usage?: { inputTokens?: number; outputTokens?: number } };

/** The host LLM: one request in, the reply's text out. Abort when `signal` aborts. */
export type Llm = (request: LlmRequest, options: { signal: AbortSignal }) => Promise<LlmReply>;

export interface OpenAICompatibleOptions {
  /** The fetch to call through: window.fetch, Node's fetch, Electron's net.fetch, a proxying fetch. */
  fetch: (input: string, init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal }) => Promise<{ ok: boolean; status: number; json(): Promise<unknown>; text(): Promise<string> }>;
  /** e.g. "https://api.openai.com/v1", Ollama "http://localhost:11434/v1", LM Studio "http://localhost:1234/v1", llama.cpp "http://localhost:8080/v1". */
  baseURL: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** "json_schema" (default): `response_format` with the schema, strict; "json_object"; "none": the schema is described in the prompt. */
  structured?: "json_schema" | "json_object" | "none";
}

/**
 * Progress of a call that can run long, in its work units: `done` never decreases and is never above
 * `total`; `total` may grow as the call finds more work; on success the last event has
 * `done === total`. Units by call: `addMany` items; `ingest`, `ingestMany` turns; `import` bytes;
 * `reindex` points; `extract`, `author`, `consolidate` LLM calls plus one for the apply; `open` one,
 * plus a record each when it re-embeds; `compact` one. `phase` names the step: `prepare`, `embed` (a
 * host embedder, or the local model when watched, in slices), `read`, `write`, `compact`, `open`, `reembed`, `build`, `install`,
 * `plan`, `llm`, `apply`, `author`, `done`.
 */
export interface Progress {
  phase: string;
  done: number;
  total: number;
}

/** Progress of `extract`, `author` and `consolidate`: LLM calls answered, then the apply. */
export type JobProgress = Progress;

/**
 * The options every call that can run long takes. An abort rejects with `EngramError` code
 * `Aborted`: already aborted, the call does nothing; aborted during it, the call's write (one, all
 * or nothing) is not made. Calls made of several writes say which stay (`reindex`, `ingest` with
 * jobs, `open`). An abort once the write has begun is too late: the call then resolves.
 */
export interface WatchOptions {
  signal?: AbortSignal;
  onProgress?: (event: Progress) => void;
}

/** An `Llm` that POSTs `{baseURL}/chat/completions` through the host's `fetch`. */
export function openAICompatible(options: OpenAICompatibleOptions): Llm;

export interface ExtractOptions extends WatchOptions {
  /** Aborts the calls in flight; the extraction rejects with `Aborted` and applies nothing. */
  signal?: AbortSignal;
  /** At most this many requests in this run; the other turns stay pending. */
  maxLlmCalls?: number;
}

/**
 * `signal` and `onProgress` cover the whole call: the ingest's turns, then each job's units. The
 * ingest and each job are their own writes: an abort stops at the next one, what is done stays.
 */
export interface IngestOptions extends ExtractOptions {
  /** Extract memories from the session's new turns after ingesting it. */
  extract?: boolean;
  /** Author typed memories from the session's new turns after ingesting it (see `author`). */
  author?: boolean;
}

export interface AuthorOptions extends WatchOptions {
  /** Aborts the LLM calls in flight; authoring rejects with `Aborted` and applies nothing. */
  signal?: AbortSignal;
  /** At most this many LLM requests in this run; the other turns stay pending. */
  maxLlmCalls?: number;
}

export interface ConsolidateOptions {
  /** Only this namespace (default: every namespace). */
  namespace?: string;
  /** LLM calls plus one for the apply, as `JobProgress`. */
  onProgress?: (event: JobProgress) => void;
  /** Aborts the LLM calls in flight; rejects with `Aborted`, nothing applied. */
  signal?: AbortSignal;
  /** At most this many LLM calls in this epoch (the rest is reported as skipped). */
  maxLlmCalls?: number;
  /** Report what the epoch would do without changing anything (no LLM call is made). */
  dryRun?: boolean;
  /** Buffer memories kept per namespace (default 200); the lowest weighted beyond it are evicted. */
  bufferCap?: number;
}
