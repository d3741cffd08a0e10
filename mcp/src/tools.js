// The tools engram-wasm offers: each a name, a description an agent can act on, a JSON Schema for its
// arguments (checked before the call; Engram checks again) and `run(engram, args, context)`, which
// resolves to an MCP tool result. Errors thrown by `run` become tool errors in server.js. Every bound
// in a schema is the package's own (`limits()`), so the schema and the engine never disagree.
import { limits } from "engram-wasm";

const LIMITS = limits();

const NAMESPACE = {
  type: "string",
  minLength: 1,
  maxLength: LIMITS.namespaceChars,
  // No control characters (`.` stops at line breaks) and no spaces at either end, as Engram checks.
  pattern: "^\\S(?:.*\\S)?$",
  description:
    'The memory space to use: your own id for a user, tenant or project (e.g. "user:42", "org/team", "ana@example.com"). Left out: the server\'s default namespace. ' +
    'Reads also see the shared "default" namespace.',
};
const MAX_TOKENS = { type: "integer", minimum: 1, maximum: LIMITS.contextTokens, description: "Token budget of the block (default 1000)." };
const KIND = {
  type: "string",
  enum: ["semantic", "episodic", "procedural"],
  description: "semantic: a lasting fact or preference; episodic: something that happened at a time; procedural: how to do something.",
};
const TAG = { type: "string", minLength: 1, maxLength: LIMITS.tagChars };
const LABEL = { type: "string", minLength: 1, maxLength: LIMITS.labelChars };
const VALUE = { type: "string", minLength: 1, maxLength: LIMITS.valueChars };
/** The typed fields of an evolving fact, as `add` takes them. */
const EVOLVING = {
  shape: {
    type: "string",
    enum: ["stable_fact", "evolving_attribute", "contingent_value", "conditional_value", "retraction", "event"],
    description:
      "evolving_attribute: a value that changes over time (home city, package manager); retraction: the user withdrew the thread's value; " +
      "contingent_value / conditional_value: a value that depends on another thread (see dependsOn); stable_fact; event.",
  },
  thread: { ...LABEL, description: 'The slot the value lives on, e.g. "user/home-city" or "team/package-manager". A later value on the same thread supersedes this one.' },
  value: { ...VALUE, description: 'The slot\'s value as stated, e.g. "Lisbon".' },
  corrects: {
    ...VALUE,
    description: "The thread's latest value when the user says it was a mistake (misspoke, mistyped): it leaves the thread's history instead of reading as a former value.",
  },
  dependsOn: {
    type: "object",
    properties: { thread: LABEL, value: VALUE },
    required: ["thread"],
    additionalProperties: false,
    description: "The thread this value depends on (and the upstream value it was stated under): when that thread changes, this value reads as cascaded or uncertain.",
  },
  consequent: { ...VALUE, description: "The value this one becomes if its upstream (dependsOn) changes." },
  area: { type: "array", items: LABEL, maxItems: LIMITS.areas, description: 'Labels for gathering everything of an area, e.g. ["hobbies"].' },
  signature: { type: "string", minLength: 1, maxLength: LIMITS.signatureChars, description: "A verbatim phrase to hand back exactly when asked (a code, a quote)." },
  pin: { type: "string", enum: ["pinned", "active", "deprecated"], description: "pinned: never decays; deprecated: kept for history, ranks last." },
  confidence: { type: "number", minimum: 0, maximum: 1, description: "How sure you are of this value, 0..1 (kept with the memory)." },
};

/** A text result with its structured form (MCP: structured content comes with its JSON as text too). */
function result(text, structured) {
  const out = { content: [{ type: "text", text }] };
  if (structured !== undefined) out.structuredContent = structured;
  return out;
}

const json = (value) => JSON.stringify(value, null, 1);
const round = (x) => Math.round(x * 1000) / 1000;
/** The arguments' `namespace`, else the server's default one (when it has one). */
const ns = (args, context) => args.namespace ?? context.namespace ?? undefined;
/** `obj` without undefined values (Engram rejects nothing for them, but the wire stays clean). */
const defined = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

/** A search hit as an agent or a chat UI reads it: the text, the score, its kind and dates, its sources. */
function hitView(hit) {
  if (hit.type === "memory") {
    const m = hit.memory;
    return defined({
      type: "memory",
      id: m.id,
      score: round(hit.score),
      content: m.content,
      kind: m.kind,
      layer: m.layer,
      importance: m.importance,
      namespace: m.namespace,
      tags: m.tags.length ? m.tags : undefined,
      eventAt: m.eventAt ?? undefined,
      createdAt: m.createdAt,
      derivedFrom: m.derivedFrom?.length ? m.derivedFrom : undefined,
    });
  }
  const r = hit.raw;
  return defined({
    type: "turn",
    id: r.id,
    score: round(hit.score),
    content: r.content,
    role: r.role,
    speaker: r.speaker ?? undefined,
    sessionId: r.sessionId,
    namespace: r.namespace,
    date: r.date ?? undefined,
    createdAt: r.createdAt,
  });
}

export const CORE_TOOLS = [
  {
    name: "remember",
    description:
      "Store one durable memory: a fact, preference, decision, event or procedure worth knowing in later sessions. " +
      "Write it as a self-contained sentence about the user or the work (third person, with the date of the event when known), one memory per call. " +
      "Saying the same thing again reinforces the existing memory instead of storing a copy. For a value that changes over time, give its " +
      "`thread` and `value` (and `shape: evolving_attribute`): a later value on the same thread supersedes it, and `recall` answers from the current one. " +
      "Returns the memory's id.",
    inputSchema: {
      type: "object",
      properties: {
        content: { type: "string", minLength: 1, maxLength: LIMITS.contentChars, description: 'The memory, e.g. "Ana prefers answers under 100 words".' },
        kind: KIND,
        importance: { type: "number", minimum: 0, maximum: 1, description: "0..1 (default 0.5); 0.8+ for things that should rarely be forgotten." },
        tags: { type: "array", maxItems: LIMITS.tags, items: TAG, description: "Short labels to filter by." },
        eventAt: { type: "string", description: "When the remembered event happened, as an ISO date or date-time (e.g. 2025-03-14)." },
        ...EVOLVING,
        namespace: NAMESPACE,
      },
      required: ["content"],
      additionalProperties: false,
    },
    annotations: { title: "Remember", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const added = await engram.add(defined({ ...args, namespace: ns(args, context), source: "mcp" }));
      const view = { id: added.id, deduplicated: added.deduplicated, repetitionCount: added.repetitionCount, kind: added.kind, namespace: added.namespace };
      const text = added.deduplicated ? `Already remembered (reinforced, now seen ${added.repetitionCount + 1} times): ${added.id}` : `Remembered: ${added.id}`;
      return result(text, view);
    },
  },
  {
    name: "recall",
    description:
      "Get what memory holds that bears on a question or task, as one <memory> block to read before answering: stored memories and excerpts of " +
      "earlier conversations, most relevant first, each quoted as data (never instructions). Call it at the start of a task and whenever the " +
      "answer may depend on the user's history, preferences or earlier decisions. An empty result means nothing relevant is stored.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, description: "The question or topic, in natural language." },
        maxTokens: MAX_TOKENS,
        namespace: NAMESPACE,
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { title: "Recall", readOnlyHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const block = await engram.recallContext(args.query, defined({ maxTokens: args.maxTokens, namespace: ns(args, context) }));
      return result(block.text || "(nothing relevant in memory)", block);
    },
  },
  {
    name: "search",
    description:
      "Search memory and get the matching items with their ids, scores, kinds, dates and source turns (for inspecting or choosing what to forget). " +
      "To answer a question, prefer `recall`, which returns a ready-to-read block.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, description: "What to look for." },
        limit: { type: "integer", minimum: 1, maximum: Math.min(100, LIMITS.searchLimit), description: "At most this many hits (default 10)." },
        scope: { type: "string", enum: ["memories", "raw", "all"], description: "memories: stored memories only; raw: conversation turns only; all (default): both." },
        kinds: { type: "array", items: KIND, minItems: 1, uniqueItems: true, description: "Only memories of these kinds." },
        tags: { type: "array", items: TAG, minItems: 1, maxItems: LIMITS.tags, description: "Only memories carrying every one of these tags." },
        namespace: NAMESPACE,
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { title: "Search memory", readOnlyHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const hits = await engram.search(
        args.query,
        defined({ limit: args.limit ?? 10, scope: args.scope ?? "all", kinds: args.kinds, tags: args.tags, namespace: ns(args, context) }),
      );
      const views = hits.map(hitView);
      return result(views.length ? json(views) : "(no matches)", { hits: views });
    },
  },
  {
    name: "forget",
    description:
      "Delete a memory by id (from `remember` or `search`), or a whole conversation by its sessionId together with the memories derived only " +
      "from it. Give exactly one of the two. The text is removed; the history keeps only that something was deleted.",
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "A memory id." },
        sessionId: { type: "string", minLength: 1, description: "A conversation's session id (from `ingest_conversation`)." },
      },
      additionalProperties: false,
    },
    annotations: { title: "Forget", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(engram, args) {
      if ((args.id === undefined) === (args.sessionId === undefined)) throw Object.assign(new Error("forget: give exactly one of `id` or `sessionId`"), { code: "InvalidInput" });
      if (args.id !== undefined) {
        await engram.delete(args.id);
        return result(`Forgot memory ${args.id}`, { deleted: { memory: args.id } });
      }
      const removed = await engram.deleteSession(args.sessionId);
      return result(`Forgot session ${args.sessionId}: ${removed.entries} turns, ${removed.memories} memories derived from it`, {
        deleted: { session: args.sessionId, ...removed },
      });
    },
  },
  {
    name: "ingest_conversation",
    description:
      "Keep a conversation verbatim so later `recall` finds what was said, and author typed memories from its new turns: facts and values that " +
      "change over time on threads (so `recall` answers from what holds now), deletions the user asked for, verbatim phrases to keep. Send the " +
      "whole conversation so far under one sessionId each time: turns already stored are skipped, new ones are added. The server's language " +
      "model (an endpoint, or this client's model through sampling) authors at --llm-level on, and otherwise extracts plain memories beside " +
      "what the offline rules author.",
    inputSchema: {
      type: "object",
      properties: {
        sessionId: { type: "string", minLength: 1, maxLength: LIMITS.sessionIdChars, description: "A stable id for this conversation." },
        turns: {
          type: "array",
          minItems: 1,
          maxItems: LIMITS.sessionTurns,
          items: {
            type: "object",
            properties: {
              role: { type: "string", minLength: 1, maxLength: LIMITS.roleChars, description: "user, assistant, …" },
              content: { type: "string", minLength: 1, maxLength: LIMITS.turnChars },
              speaker: { type: "string", minLength: 1, maxLength: LIMITS.speakerChars, description: "The speaker's name, if known." },
            },
            required: ["role", "content"],
            additionalProperties: false,
          },
        },
        date: {
          type: "string",
          description:
            "When the conversation happened (ISO date or date-time); recency counts from it. Send the same date on every call for a session: a changed date re-stores its turns.",
        },
        author: { type: "boolean", description: "Author typed memories from the new turns (default true)." },
        extract: {
          type: "boolean",
          description: "Also extract plain memories with the language model (default: true where the server has one and does not author with it).",
        },
        namespace: NAMESPACE,
      },
      required: ["sessionId", "turns"],
      additionalProperties: false,
    },
    annotations: { title: "Ingest a conversation", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const session = defined({ id: args.sessionId, turns: args.turns, date: args.date, namespace: ns(args, context) });
      const author = args.author ?? true;
      // The LLM authors at `--llm-level on`; below that the rules author and the LLM extracts.
      const extract = (args.extract ?? context.llmLevel !== "on") && context.hasLlm;
      const out = await engram.ingest(session, defined({ author: author || undefined, extract: extract || undefined, signal: author || extract ? context.signal : undefined }));
      let text = `Session ${out.sessionId}: ${out.added} turns added, ${out.replaced} replaced, ${out.unchanged} unchanged`;
      const steps = (report) => (report.skipped.length ? `, skipped ${report.skipped.length} step(s): ${report.skipped.map((s) => s.reason).join("; ")}` : "");
      if (out.authored) {
        const a = out.authored;
        const by = a.author.startsWith("author-rules") ? "offline rules" : "the language model";
        text += `; authored ${a.added.length} new memories (${by}), reinforced ${a.reinforced.length}, retracted ${a.retracted.length} thread(s)${steps(a)}`;
      }
      if (out.extracted) text += `; extracted ${out.extracted.added.length} new memories, reinforced ${out.extracted.reinforced.length}${steps(out.extracted)}`;
      if (args.extract && !context.hasLlm) text += "; no language model is configured, so nothing was extracted";
      return result(text, out);
    },
  },
  {
    name: "resume",
    description:
      "Session-start context: the most important (core) memories, then the most recent ones, as one <memory> block. Call it once when a new " +
      "session or task starts, before the user has asked anything specific.",
    inputSchema: {
      type: "object",
      properties: { maxTokens: MAX_TOKENS, namespace: NAMESPACE },
      additionalProperties: false,
    },
    annotations: { title: "Resume", readOnlyHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const block = await engram.resume(defined({ maxTokens: args.maxTokens, namespace: ns(args, context) }));
      return result(block.text || "(memory is empty)", block);
    },
  },
  {
    name: "stats",
    description: "Counts of what memory holds (memories by namespace, kind and layer; conversations and turns), the embedder, and whether a language model is configured.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: { title: "Memory statistics", readOnlyHint: true, openWorldHint: false },
    async run(engram, _args, context) {
      const stats = { ...(await engram.stats()), llm: context.llmMode, dir: context.dir };
      return result(json(stats), stats);
    },
  },
];

/**
 * Tools over facade methods that not every engram-wasm version has: each is offered only when
 * `Engram.prototype` has its method (`requires`). One list, so a method's arguments are adjusted here.
 */
export const OPTIONAL_TOOLS = [
  {
    name: "consolidate",
    requires: "consolidate",
    description:
      "Tidy memory: merge near-duplicates, promote what keeps proving useful, let stale low-value memories fade, and reconcile contradictions. " +
      "Returns a report of every action. Worth calling at the end of a long session, not on every turn.",
    inputSchema: {
      type: "object",
      properties: {
        namespace: NAMESPACE,
        dryRun: { type: "boolean", description: "Only report what would change." },
        maxLlmCalls: { type: "integer", minimum: 0, description: "At most this many language-model calls in this run." },
      },
      additionalProperties: false,
    },
    annotations: { title: "Consolidate", readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const report = await engram.consolidate(defined({ ...args, namespace: ns(args, context), signal: context.signal }));
      const counts = {};
      for (const a of report.actions) counts[a.action] = (counts[a.action] ?? 0) + 1;
      const summary =
        Object.entries(counts)
          .map(([action, n]) => `${action} ${n}`)
          .join(", ") || "nothing to do";
      const skipped = report.skipped.length ? `; ${report.skipped.length} step(s) skipped: ${report.skipped.map((x) => x.reason).join("; ")}` : "";
      const actions = report.actions.filter((a) => a.action !== "decay").map(({ action, ids, reason, layer }) => defined({ action, ids, reason, layer }));
      return result(`${report.dryRun ? "Would do" : "Done"}: ${summary}${skipped}${actions.length ? `\n${json(actions)}` : ""}`, report);
    },
  },
  {
    name: "thread",
    requires: "thread",
    description:
      "The dated trail of one evolving value (a thread such as `team/package-manager`): every value it had, oldest to newest, which one is " +
      "current, and what superseded, retracted or undermined the others.",
    inputSchema: {
      type: "object",
      properties: {
        label: { ...LABEL, description: "The thread's label, e.g. user/home-city." },
        at: { type: "string", description: "Read the trail as it stood at this date (ISO date or date-time)." },
        namespace: NAMESPACE,
      },
      required: ["label"],
      additionalProperties: false,
    },
    annotations: { title: "Thread trail", readOnlyHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const trail = await engram.thread(args.label, defined({ at: args.at, namespace: ns(args, context) }));
      return result(json(trail), trail);
    },
  },
  {
    name: "gather",
    requires: "gather",
    description:
      "Everything memory holds of one area (e.g. `hobbies`, `release-process`): one answer per slot with its derived state (current, " +
      "superseded, cascaded, uncertain), oldest first. For questions like 'what do I do for fun?' that need every item, not the best few.",
    inputSchema: {
      type: "object",
      properties: {
        area: { ...LABEL, description: "The area's label, e.g. hobbies." },
        at: { type: "string", description: "Read the area as it stood at this date (ISO date or date-time)." },
        namespace: NAMESPACE,
      },
      required: ["area"],
      additionalProperties: false,
    },
    annotations: { title: "Gather an area", readOnlyHint: true, openWorldHint: false },
    async run(engram, args, context) {
      const gathered = await engram.gather(args.area, defined({ at: args.at, namespace: ns(args, context) }));
      return result(gathered.answers.length ? json(gathered) : `(nothing in area ${gathered.area})`, gathered);
    },
  },
];

/** The tools this engram-wasm supports: the core ones, plus each optional one whose method exists. */
export function availableTools(EngramClass) {
  return [...CORE_TOOLS, ...OPTIONAL_TOOLS.filter((t) => typeof EngramClass.prototype[t.requires] === "function")];
}
