// Compiled by `tsc -p tests/types` (scripts/test.sh), never run: the package's published types used
// the way a host uses the API, through the package's own exports (pkg/ linked as engram-wasm).
import {
  Engram,
  EngramError,
  ERROR_CODES,
  MemoryStorage,
  openAICompatible,
  openInWorker,
  type ConsolidateReport,
  type Progress,
  type ExtractReport,
  type AuthorReport,
  type Retracted,
  type Llm,
  type LlmUsage,
  type AddResult,
  type IngestResult,
  type ErrorCode,
  type HostEmbedder,
  type MemoryHit,
  type Released,
  type SearchHit,
  type StorageAdapter,
  type StorageKey,
  type StorageRecord,
  type GatherResult,
  type MemoryItem,
  type MemoryShape,
  type RecallResult,
  type SlotAnswer,
  type SlotState,
  type ThreadResult,
} from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

/** A host embedder in LangChain's shape: a stand-in that hashes characters into 8 dimensions. */
const embedder: HostEmbedder = {
  id: "char-hash-8",
  dims: 8,
  embedDocuments: async (texts) => texts.map(vectorOf),
  embedQuery: (text) => vectorOf(text),
};

function vectorOf(text: string): number[] {
  const v = new Array<number>(8).fill(0);
  for (let i = 0; i < text.length; i++) v[i % 8] += text.charCodeAt(i);
  return v;
}

/** A host storage adapter that rejects with Engram's own typed error when it is full. */
class QuotaStorage implements StorageAdapter {
  #inner = new MemoryStorage();
  #bytes = 0;
  constructor(private readonly quota: number) {}
  load(key: StorageKey): Promise<Uint8Array | undefined> {
    return this.#inner.load(key);
  }
  async save(key: StorageKey, data: Uint8Array): Promise<void> {
    if (this.#bytes + data.length > this.quota) throw new EngramError("StorageFull", `quota of ${this.quota} bytes reached`);
    this.#bytes += data.length;
    await this.#inner.save(key, data);
  }
  /** Commits go through it (nothing overwritten even without a lock); counted like a save. */
  async create(key: StorageKey, data: Uint8Array): Promise<boolean> {
    if (this.#bytes + data.length > this.quota) throw new EngramError("StorageFull", `quota of ${this.quota} bytes reached`);
    const created = await this.#inner.create(key, data);
    if (created) this.#bytes += data.length;
    return created;
  }
  remove(key: StorageKey): Promise<void> {
    return this.#inner.remove(key);
  }
  loadRange(prefix: StorageKey): Promise<StorageRecord[]> {
    return this.#inner.loadRange(prefix);
  }
  removeRange(prefix: StorageKey): Promise<void> {
    return this.#inner.removeRange(prefix);
  }
}

export async function host(): Promise<void> {
  const db = await Engram.open({ embedder, storage: new QuotaStorage(1 << 20), idSeed: 7 });
  const added: AddResult = await db.add({ content: "prefers green tea", kind: "semantic", tags: ["drinks"], eventAt: new Date() });
  const wasKnown: boolean = added.deduplicated;
  // mem0-style forms: a string (other fields as options) and chat messages (kept as a session).
  const fromText: AddResult = await db.add("prefers oolong too", { kind: "semantic", importance: 0.7 });
  const fromChat: IngestResult & { extracted?: ExtractReport } = await db.add([{ role: "user", content: "I moved to Lyon" }], { sessionId: "c1", extract: false });
  console.log(fromText.id, fromChat.sessionId, fromChat.extracted?.added.length);
  const hits: SearchHit[] = await db.search("what does the user drink?", { limit: 5, explain: true });
  for (const hit of hits) {
    const text: string = hit.type === "memory" ? hit.memory.content : hit.raw.content;
    console.log(text, hit.score, wasKnown);
  }
  const memoriesOnly: MemoryHit[] = await db.search(null, { scope: "memories", embedding: vectorOf("tea") });
  console.log(memoriesOnly.length);
  await db.ingest({ id: "s1", date: Date.now(), turns: [{ role: "user", content: "I moved to Lyon" }] });
  const context = await db.recallContext("where does the user live?", { maxTokens: 200 });
  console.log(context);
  await db.close();

  const onDisk = await Engram.open({ embedder: null, storage: new NodeFSStorage("./engram-data", { durability: "relaxed" }) });
  try {
    await onDisk.update("no-such-id", { content: "x" });
  } catch (e) {
    if (e instanceof EngramError) {
      const code: ErrorCode = e.code;
      if (code === "NotFound") console.log(e.message);
    }
  } finally {
    await onDisk.close();
  }
}

const codes: readonly ErrorCode[] = ERROR_CODES;
const typed = new EngramError("InvalidInput", "bad input", { cause: new Error("why") });
const bare = new EngramError("Internal");
export const checked: [readonly ErrorCode[], Error, ErrorCode] = [codes, typed, bare.name];

// @ts-expect-error: only the stable codes are error codes.
new EngramError("NoSuchCode", "x");

// The host LLM: the helper and the plain-function form; extraction's report and usage.
export async function hostLlm(): Promise<[ExtractReport, LlmUsage, number]> {
  const local: Llm = openAICompatible({ fetch, baseURL: "http://localhost:11434/v1", model: "llama3.1", structured: "json_object" });
  const plain: Llm = async (request, { signal }) => {
    signal.throwIfAborted();
    return { text: JSON.stringify({ memories: [] }), usage: { inputTokens: request.system.length } };
  };
  const memory = await Engram.open({ llm: Math.random() < 0.5 ? local : plain, llmLevel: "auto", llmConcurrency: 2 });
  const both = await memory.ingest({ id: "s", turns: [{ role: "user", content: "hi" }] }, { extract: true });
  const report: ExtractReport = await memory.extract(both.sessionId, { maxLlmCalls: 1, signal: AbortSignal.timeout(1000) });
  const skippedOutcome: string | null = report.skipped[0]?.outcome ?? null;
  return [both.extracted, await memory.llmUsage(), skippedOutcome === null ? 0 : report.calls.length];
}

/** Evolving memory: typed fields on add and update, the derived reads and their states. */
export async function hostEvolving(db: Engram): Promise<[RecallResult, SlotState | undefined, string | null]> {
  const lead = await db.add({ content: "Seokjin Kang leads the team", shape: "evolving_attribute", thread: "team/team-lead", value: "Seokjin Kang", area: ["team"] });
  await db.add({ content: "Reviews go to Seoyun Choi", thread: "team/reviewer", value: "Seoyun Choi", dependsOn: { thread: "team/team-lead" }, confidence: 0.8 });
  const patched: MemoryItem = await db.update(lead.id, { pin: "pinned", consequent: null, dependsOn: null });
  const shape: MemoryShape | undefined = patched.shape;
  void shape;
  const r = await db.recall("who reviews our code?", { maxTokens: 600, at: new Date() });
  const first: SlotAnswer | undefined = r.answers[0];
  const route: "exact" | "gather" | "trail" | "search" = r.route;
  void route;
  const t: ThreadResult = await db.thread("team/reviewer", { at: "2024-01-01T00:00:00Z" });
  const g: GatherResult = await db.gather("team");
  void g;
  return [r, first?.state, t.state?.because?.now ?? null];
}

// Authoring: typed memories from a session, and retraction of a thread.
export async function authoring(memory: Engram): Promise<[AuthorReport, Retracted, string | undefined]> {
  const both = await memory.ingest({ id: "s2", turns: [{ role: "user", content: "My gym is FitHub." }] }, { author: true });
  const again: AuthorReport = await memory.author(both.sessionId, { maxLlmCalls: 1 });
  const turns = await memory.session("s2");
  const done: Retracted = await memory.retract("gym", { namespace: "default" });
  return [both.authored ?? again, done, turns[0]?.authoredBy];
}

// Guards: per-store policies, allowSecrets per call, flags and quarantine on records, release, redact on recall.
export async function guards(): Promise<[boolean, string[], boolean]> {
  const memory = await Engram.open({ embedder: null, guards: { secrets: "reject", injection: "quarantine" } });
  const kept = await memory.add({ content: "token ghp_x", allowSecrets: true });
  await memory.update(kept.id, { content: "token ghp_y", allowSecrets: true });
  await memory.ingest({ id: "s", turns: [{ role: "user", content: "hi" }], allowSecrets: false });
  const released: Released = await memory.release(kept.id);
  const context = await memory.recallContext("token", { redact: true });
  // @ts-expect-error: "drop" is not a SecretPolicy
  await Engram.open({ guards: { secrets: "drop" } });
  return [released.released, kept.flags ?? [], (kept.quarantined ?? false) || context.ids.length > 0];
}

// A worker store with the page's LLM (relayed), authoring and consolidation through the worker.
export async function workerLlm(): Promise<[AuthorReport, ConsolidateReport, LlmUsage]> {
  const llm = openAICompatible({ fetch, baseURL: "http://localhost:11434/v1", model: "llama3.1" });
  const db = await openInWorker({ indexedDB: "demo", llm, llmLevel: "on", llmTimeoutMs: 30_000 });
  await db.ingest({ id: "s", turns: [{ role: "user", content: "My gym is FitHub." }] }, { author: true });
  return [await db.author("s"), await db.consolidate({ dryRun: true }), await db.llmUsage()];
}

// What an epoch compared, and whose links it refined.
export async function epochCounts(db: Engram): Promise<[number, number]> {
  const report: ConsolidateReport = await db.consolidate({ namespace: "work" });
  return [report.found.scanned, report.relinked];
}

// Export files in slices: exportStream is a stream of byte slices; import takes any byte source.
export async function streamedCopy(from: Engram, to: Engram, file: Blob): Promise<number> {
  const stream: ReadableStream<Uint8Array> = from.exportStream({ namespace: "work" });
  const copied = await to.import(stream);
  const again = await to.import(file);
  await to.import(await from.export());
  // @ts-expect-error: an export file is bytes, not text
  await to.import("not bytes");
  return copied.added + again.replaced;
}

// One abort and one progress shape for every long call, in a page and through a worker.
export async function watched(db: Engram, file: Uint8Array): Promise<number> {
  const controller = new AbortController();
  const bar = (e: Progress): void => console.log(e.phase, `${e.done}/${e.total}`);
  const watch = { signal: controller.signal, onProgress: bar };
  const worker = await openInWorker({ indexedDB: "demo" });
  await worker.addMany(["a", "b"], watch);
  await db.ingestMany([{ id: "s", turns: [{ role: "user", content: "hi" }] }], watch);
  await db.compact(watch);
  await db.extract("s", watch);
  await db.author("s", watch);
  await db.consolidate({ ...watch, onProgress: (e) => bar(e) });
  await db.reindex({
    signal: controller.signal,
    onProgress: (e) => console.log(e.phase, e.done, e.total, e.phase === "build" ? e.points : e.phase === "install" ? e.result : null),
  });
  // @ts-expect-error: one progress shape; `status` was removed before the first release
  await db.reindex({ onProgress: (e) => console.log(e.status) });
  const reopened = await Engram.open({ reembed: true, ...watch });
  // @ts-expect-error: progress is a callback
  await db.compact({ onProgress: "50%" });
  // Aborting the opening ends the worker.
  const inWorker = await openInWorker({ indexedDB: "demo", signal: controller.signal });
  await inWorker.close();
  // @ts-expect-error: a signal, not a flag
  await openInWorker({ indexedDB: "demo", signal: true });
  const { added } = await db.import(file, watch);
  await reopened.close();
  return added;
}
