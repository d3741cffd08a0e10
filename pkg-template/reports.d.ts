// Generated from the Rust types by `ENGRAM_WRITE_GENERATED=1 cargo test --lib generated` (src/api/generated.rs);
// do not edit. `cargo test` fails when this file and the types disagree. index.d.ts re-exports these.
import type { JsonObject, MemoryContext } from "./index.js";

/**
 * What went wrong, as a stable machine-readable code.
 */
export type ErrorCode = "InvalidInput" | "NotFound" | "Storage" | "StorageFull" | "Corrupt" | "Embedder" | "Llm" | "Aborted" | "Closed" | "Internal";

/**
 * The bounds of what Engram accepts (characters are Unicode scalar values; bytes are UTF-8).
 */
export type Limits = {
  /**
   * A memory's `content`, in characters.
   */
  contentChars: number;
  /**
   * Tags on one memory (or in one filter, where a memory must carry all of them).
   */
  tags: number;
  tagChars: number;
  sourceChars: number;
  /**
   * A namespace id: any text but control characters, not blank, without surrounding spaces.
   */
  namespaceChars: number;
  /**
   * A memory's `metadata`, as JSON.
   */
  metadataBytes: number;
  embeddingDims: number;
  /**
   * Hits of one `search`.
   */
  searchLimit: number;
  /**
   * `maxTokens` of a context block.
   */
  contextTokens: number;
  /**
   * One verbatim turn's content, in characters.
   */
  turnChars: number;
  sessionIdChars: number;
  sessionTurns: number;
  roleChars: number;
  speakerChars: number;
  turnIdChars: number;
  /**
   * The text of one `ingest` call (turns, speakers, roles, ids).
   */
  ingestBytes: number;
  /**
   * One `import` file.
   */
  importBytes: number;
  /**
   * Items of one `addMany`, sessions of one `ingestMany`.
   */
  batchItems: number;
  /**
   * A thread or area label, normalized.
   */
  labelChars: number;
  labelSegments: number;
  /**
   * Areas of one memory.
   */
  areas: number;
  /**
   * An evolving `value` or `consequent`.
   */
  valueChars: number;
  /**
   * A verbatim phrase kept for exact recall.
   */
  signatureChars: number;
};

/**
 * What sort of knowledge a memory holds. Decides decay speed and ranking bias.
 */
export type MemoryKind = "semantic" | "episodic" | "procedural";

/**
 * Where a memory sits in its lifecycle. Every API write lands in `Buffer`; only consolidation moves
 * memories up, so a caller cannot write straight into long-term memory.
 */
export type MemoryLayer = "buffer" | "working" | "core";

/**
 * What shape of fact a memory holds.
 */
export type MemoryShape = "stable_fact" | "evolving_attribute" | "contingent_value" | "conditional_value" | "retraction" | "event";

/**
 * How a memory is held: `pinned` never decays and is lifted to core by consolidation; `deprecated`
 * is kept for history but ranks last.
 */
export type MemoryPin = "pinned" | "active" | "deprecated";

/**
 * The thread a value was set by, and the upstream value it was stated under.
 */
export type DependsOn = {
  thread: string;
  value?: string;
};

/**
 * What consolidation remembers of a memory between epochs. Epochs are counted per namespace.
 */
export type MemoryLifecycle = {
  /**
   * The namespace epoch at which the memory entered its current layer.
   */
  layerEpoch?: number;
  /**
   * The namespace epoch at which `importance` was last set: decay since then is derived on read
   * (`lifecycle::current_importance`), so an epoch writes nothing per memory.
   */
  decayEpoch?: number;
  /**
   * Consolidation has compared it with the namespace for near-duplicates (done once per memory;
   * later memories are compared with it when they are checked).
   */
  mergeChecked?: boolean;
  /**
   * Memories reconcile judged to be different facts (each pair is judged once).
   */
  keptApart?: Array<string>;
  /**
   * Buffer triage decided it once (promote or keep): it is not offered again.
   */
  triaged?: boolean;
  /**
   * Times the core gate rejected it (escalating cooldowns; the third is final).
   */
  gateRejections?: number;
  /**
   * The gate may see it again from this namespace epoch on.
   */
  gateRetryEpoch?: number;
};

/**
 * One memory. Persisted with serde; every field added later is `#[serde(default)]` so older records
 * keep loading (the typed evolving-memory fields — shape, thread, dependsOn, … — arrive that way).
 */
export type MemoryItem = {
  id: string;
  namespace: string;
  content: string;
  kind: MemoryKind;
  layer: MemoryLayer;
  importance: number;
  tags: Array<string>;
  source: string | null;
  metadata: JsonObject;
  createdAt: string;
  modifiedAt: string;
  lastAccessed: string;
  accessCount: number;
  repetitionCount: number;
  /**
   * When the remembered thing happened, if known (drives recency); otherwise `created_at`.
   */
  eventAt: string | null;
  /**
   * Raw entries (verbatim conversation turns) this memory was authored from.
   */
  derivedFrom?: Array<string>;
  /**
   * Ids of the memories this one was closest to when it was written (cosine ≥ 0.5, at most 3):
   * found by a bounded search on add (its namespace or the default one), refined by the first
   * consolidation epoch that scans it (from its namespace's memories written before it).
   */
  links?: Array<string>;
  shape?: MemoryShape;
  /**
   * The slot an evolving value lives on, e.g. `team/package-manager` (normalized label).
   */
  thread?: string;
  /**
   * The slot's value as stated.
   */
  value?: string;
  /**
   * The value on the same thread this one corrects: stated by mistake, never held.
   */
  corrects?: string;
  dependsOn?: DependsOn;
  /**
   * The value this one becomes if its upstream changes (conditional values).
   */
  consequent?: string;
  /**
   * 1–3 normalized labels for gathering everything of an area.
   */
  area?: Array<string>;
  /**
   * A verbatim phrase indexed for exact recall.
   */
  signature?: string;
  pin?: MemoryPin;
  /**
   * How sure the author (LLM or offline rules) was, 0–1; `null` for memories written by the agent.
   */
  confidence?: number;
  /**
   * Memory ids this one summarizes or absorbed (distillation); their "distilled" state is derived.
   */
  cites?: Array<string>;
  /**
   * Consolidation bookkeeping (epochs in layer, triage and gate decisions).
   */
  lifecycle?: MemoryLifecycle;
  /**
   * What the guards found in the content: `secret:<kind>` (kept secrets), `injection:<kind>`.
   */
  flags?: Array<string>;
  /**
   * Kept out of context blocks until released (`guards.injection: "quarantine"`).
   */
  quarantined?: boolean;
};

/**
 * One turn of an ingested session.
 */
export type RawEntry = {
  /**
   * `<session id>#<turn index>`: stable, so re-ingesting a session addresses the same entries.
   */
  id: string;
  namespace: string;
  sessionId: string;
  turnIndex: number;
  /**
   * `user`, `assistant`, `system`, `tool`, or a host-defined role.
   */
  role: string;
  speaker: string | null;
  /**
   * The caller's own id for this turn, if it has one.
   */
  turnId: string | null;
  content: string;
  /**
   * When the session happened, if the caller said; recency counts from it.
   */
  date: string | null;
  createdAt: string;
  /**
   * The promptId of the extraction that read this turn (absent: not extracted yet). A changed
   * turn is a new entry, so it is extracted again.
   */
  extractedBy?: string;
  /**
   * The author that read this turn (`author-rules@1` for the offline rules, `author@3` for the
   * LLM prompt); absent: not authored yet.
   */
  authoredBy?: string;
  /**
   * What the guards found in the content (see `Memory::flags`).
   */
  flags?: Array<string>;
  /**
   * Kept out of context blocks and extraction until released.
   */
  quarantined?: boolean;
};

export type HistoryEventKind = "ADD" | "UPDATE" | "DELETE" | "REINFORCE" | "PROMOTE" | "DEMOTE" | "DECAY" | "MERGE" | "SUPERSEDE" | "EVICT" | "EXTRACT";

export type HistoryEvent = {
  memoryId: string;
  event: HistoryEventKind;
  at: string;
  /**
   * Content after the event (absent for DELETE).
   */
  content: string | null;
  /**
   * Content before the event, when it changed or was removed.
   */
  previousContent: string | null;
  /**
   * The versioned prompt behind an LLM-made change (`extract@1`); absent for the caller's own.
   */
  promptId?: string;
  /**
   * The other memory of a merge or supersession.
   */
  related?: string;
  /**
   * Why the lifecycle did it (consolidation events), in words.
   */
  reason?: string;
};

/**
 * How a call ended.
 */
export type LlmOutcome = "ok" | "retried" | "invalid" | "error" | "timeout" | "aborted";

/**
 * Which feature a call serves; closed, so usage can be summed per purpose.
 */
export type LlmPurpose = "extract" | "author" | "triage" | "gate" | "merge" | "reconcile" | "distill" | "expand" | "topic";

/**
 * One call (its retry included) as logged.
 */
export type LlmCallRecord = {
  purpose: LlmPurpose;
  promptId: string;
  outcome: LlmOutcome;
  /**
   * Requests sent: 1, or 2 with the retry.
   */
  attempts: number;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * Whether any of the token counts is an estimate.
   */
  estimated: boolean;
};

/**
 * Calls summed (since the store was opened).
 */
export type LlmUsage = {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  /**
   * Calls whose token counts include an estimate.
   */
  estimatedCalls: number;
  /**
   * Calls by outcome (`ok`, `retried`, `invalid`, `error`, `timeout`, `aborted`).
   */
  byOutcome: Partial<Record<LlmOutcome, number>>;
  /**
   * Calls by purpose.
   */
  byPurpose: Partial<Record<LlmPurpose, number>>;
};

/**
 * A step that changed nothing, and why.
 */
export type SkippedTurns = {
  /**
   * The turns it covered (they stay pending).
   */
  turns: Array<string>;
  /**
   * The call's outcome, when a call was made.
   */
  outcome: LlmOutcome | null;
  reason: string;
};

/**
 * What an extraction run did.
 */
export type ExtractReport = {
  sessionId: string;
  promptId: string;
  /**
   * Ids of the memories stored.
   */
  added: Array<string>;
  /**
   * Ids of existing memories the extraction repeated (reinforced, not stored twice).
   */
  reinforced: Array<string>;
  /**
   * Turns now marked as extracted.
   */
  extractedTurns: Array<string>;
  skipped: Array<SkippedTurns>;
  /**
   * Turns not yet extracted after this run (skipped ones and those over the call budget).
   */
  pendingTurns: Array<string>;
  calls: Array<LlmCallRecord>;
  usage: LlmUsage;
};

/**
 * What one retraction removed.
 */
export type Retracted = {
  namespace: string;
  thread: string;
  /**
   * Memories that stated the thread's values, deleted.
   */
  deleted: Array<string>;
  /**
   * Other memories whose text repeated a value, redacted.
   */
  redactedMemories: Array<string>;
  /**
   * Raw turns whose text stated a value, redacted in place.
   */
  redactedTurns: Array<string>;
  /**
   * Values too short to scrub from other text safely (their memories were still deleted).
   */
  unscrubbed: number;
};

/**
 * What an authoring run did.
 */
export type AuthorReport = {
  sessionId: string;
  /**
   * `author-rules@1` (offline) or `author@3` (LLM).
   */
  author: string;
  /**
   * Ids of the memories stored.
   */
  added: Array<string>;
  /**
   * Ids of existing memories the run repeated (reinforced, not stored twice).
   */
  reinforced: Array<string>;
  retracted: Array<Retracted>;
  /**
   * Turns now marked as authored.
   */
  authoredTurns: Array<string>;
  /**
   * Of those, the turns the offline rules authored as the fallback of failed LLM calls.
   */
  offlineTurns: Array<string>;
  skipped: Array<SkippedTurns>;
  /**
   * Turns not yet authored after this run.
   */
  pendingTurns: Array<string>;
  calls: Array<LlmCallRecord>;
  usage: LlmUsage;
};

/**
 * How much consolidation asks the host LLM: `off` never, `auto` where the heuristics are not
 * confident, `on` for every step that has a prompt.
 */
export type LlmLevel = "off" | "auto" | "on";

export type ConsolidateActionKind = "promote" | "merge" | "supersede" | "evict" | "distill" | "keep" | "reject" | "distinct" | "decay";

export type ConsolidateAction = {
  action: ConsolidateActionKind;
  namespace: string;
  ids: Array<string>;
  reason: string;
  /**
   * The prompt behind an LLM decision.
   */
  promptId?: string;
  /**
   * Promotions: the layer reached.
   */
  layer?: MemoryLayer;
};

/**
 * A step that changed nothing, and why.
 */
export type ConsolidateSkipped = {
  /**
   * `triage`, `gate`, `merge`, `reconcile` or `distill`.
   */
  step: "triage" | "gate" | "merge" | "reconcile" | "distill";
  namespace: string;
  ids: Array<string>;
  outcome?: LlmOutcome;
  reason: string;
};

/**
 * Counts of what an epoch found to judge (a design with one call per candidate would make this many).
 */
export type ConsolidateFound = {
  /**
   * Memories compared with their namespace this epoch.
   */
  scanned: number;
  /**
   * Near-duplicate pairs (merge band), of which `sameFact` the heuristic merges itself.
   */
  mergePairs: number;
  sameFact: number;
  /**
   * Same-topic pairs (reconcile band) with the time gap of an update.
   */
  reconcilePairs: number;
  gateCandidates: number;
  triageCandidates: number;
  distillGroups: number;
};

export type ConsolidatePlannedCall = {
  step: string;
  namespace: string;
  promptId: string;
  ids: Array<string>;
};

export type ConsolidateReport = {
  dryRun: boolean;
  llmLevel: LlmLevel;
  /**
   * Each namespace's epoch after the run (before it, when dry).
   */
  epochs: { [key in string]: number };
  actions: Array<ConsolidateAction>;
  skipped: Array<ConsolidateSkipped>;
  /**
   * LLM calls the run made (a dry run makes none: `planned` lists them).
   */
  calls: Array<LlmCallRecord>;
  usage: LlmUsage;
  /**
   * What the epoch found to judge, before batch sizes and `maxLlmCalls` bounded the calls.
   */
  found: ConsolidateFound;
  /**
   * Scanned memories whose links the epoch's full vector search improved (see `Memory::links`).
   */
  relinked: number;
  /**
   * Dry runs: the LLM calls a run would make, by step and namespace.
   */
  planned?: Array<ConsolidatePlannedCall>;
};

/**
 * What `ingest` did. Re-ingesting a session is idempotent per turn index: unchanged turns are left
 * alone, changed ones replaced, new ones added.
 */
export type IngestResult = {
  sessionId: string;
  added: number;
  replaced: number;
  unchanged: number;
  /**
   * Raw entry ids, in turn order.
   */
  entryIds: Array<string>;
};

/**
 * What `delete_session` removed.
 */
export type DeletedSession = {
  entries: number;
  /**
   * Memories derived only from this session, deleted with it.
   */
  memories: number;
};

/**
 * What `release` did.
 */
export type Released = {
  id: string;
  /**
   * `memory` or `raw`.
   */
  target: "memory" | "raw";
  /**
   * Whether it was quarantined (`false`: it already was not, and nothing changed).
   */
  released: boolean;
};

/**
 * The parts of a hit's score, returned with `explain`.
 */
export type ScoreBreakdown = {
  /**
   * Fused relevance to the query, 0..1.
   */
  relevance: number;
  /**
   * BM25 relevance (1 ≈ every query term present), if the keyword index matched.
   */
  keyword?: number;
  /**
   * Cosine similarity, if a vector matched.
   */
  vector?: number;
  importance: number;
  reinforcement: number;
  kindBias: number;
  layerBias: number;
  /**
   * 1 for an event now, halving every 7 days.
   */
  recency: number;
  /**
   * How well the event date falls in the time the query names (0..1), if it names one.
   */
  timeMatch?: number;
  /**
   * For a verbatim turn: the weight of its speaker's role (the relevance above includes it).
   */
  roleWeight?: number;
  /**
   * importance + reinforcement + kind bias + layer bias.
   */
  weight: number;
  score: number;
};

/**
 * What a slot's value is, derived from its thread's dated trail.
 */
export type SlotState = "current" | "superseded" | "deleted" | "cascaded" | "uncertain";

/**
 * The change on an upstream thread that undermined a dependent value.
 */
export type SlotChange = {
  /**
   * The upstream thread (`dependsOn.thread`).
   */
  thread: string;
  /**
   * The upstream value the dependent was stated under, when known and not withdrawn.
   */
  was: string | null;
  /**
   * The upstream's value now; `null` when it is itself uncertain.
   */
  now: string | null;
  /**
   * The upstream's own state (a two-hop cascade reads `cascaded` or `uncertain` here).
   */
  upstreamState: SlotState;
  changedAt: string;
  /**
   * The memory that stated the change.
   */
  evidence: string;
};

/**
 * What replaced a superseded value.
 */
export type SlotReplacement = {
  id: string;
  value: string;
  at: string;
};

/**
 * One value on a slot and its derived state. `value` is `null` exactly when the state is
 * `deleted` (withheld) or `uncertain` (no value can be vouched for; `previous` names the old one).
 */
export type SlotAnswer = {
  /**
   * The slot's thread; `null` for a memory on no thread (its own slot).
   */
  thread: string | null;
  state: SlotState;
  value: string | null;
  /**
   * Cascaded / uncertain: the value that held before the upstream changed.
   */
  previous: string | null;
  /**
   * When the value was stated (current, superseded, cascaded, uncertain) or withdrawn (deleted).
   */
  since: string | null;
  replacedBy: SlotReplacement | null;
  because: SlotChange | null;
  /**
   * Cascaded: the stated consequent that applies. Current: the consequent that would apply if
   * the upstream changed.
   */
  consequent: string | null;
  /**
   * Ids of the memories (and raw turns) this answer rests on.
   */
  evidence: Array<string>;
  /**
   * The source memory's text (withheld for deleted values).
   */
  content: string | null;
};

export type RecallRoute = "exact" | "gather" | "trail" | "search";

/**
 * What `recall` returns.
 */
export type RecallResult = {
  route: RecallRoute;
  /**
   * Best first; the first is the slot the query is most likely about.
   */
  answers: Array<SlotAnswer>;
  context: MemoryContext;
};

/**
 * A thread as `thread(label)` returns it.
 */
export type ThreadResult = {
  thread: string;
  /**
   * The slot now; `null` when nothing (dated at or before `at`) is on the thread.
   */
  state: SlotAnswer | null;
  /**
   * Oldest first; withdrawn values appear once as `deleted`, the values withheld.
   */
  values: Array<SlotAnswer>;
};

/**
 * An area as `gather(area)` returns it: one answer per slot, oldest first.
 */
export type GatherResult = {
  area: string;
  answers: Array<SlotAnswer>;
};
