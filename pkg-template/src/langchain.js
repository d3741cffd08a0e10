// engram-wasm/langchain: Engram behind the two LangChain.js interfaces chains already take, a
// retriever and a chat message history. `@langchain/core` is the host's (a peer dependency), so
// these classes are the host's own `BaseRetriever` and `BaseListChatMessageHistory`.

import { BaseRetriever } from "@langchain/core/retrievers";
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { Document } from "@langchain/core/documents";
import { AIMessage, ChatMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { invalid } from "./errors.js";
import { is, readOptions } from "./options.js";
import { HOST_SESSION_OPTIONS, hostSession, memoryOf } from "./host-session.js";

// `tags`, `metadata`, `callbacks` and `verbose` are LangChain's (tracing); `memoryTags` filters
// memories. The search options are checked by the core on the first call, as for `search` itself.
const RETRIEVER_OPTIONS = Object.freeze({
  memory: is.passed,
  namespace: is.string,
  includeDefault: is.boolean,
  limit: is.passed,
  scope: is.passed,
  kinds: is.passed,
  layers: is.passed,
  memoryTags: is.passed,
  callbacks: is.passed,
  tags: is.passed,
  metadata: is.passed,
  verbose: is.boolean,
});

/**
 * Memories (and, with `scope: "all"`, verbatim turns) for a query, as LangChain `Document`s: the
 * text as `pageContent`, the record's id, score and dates in `metadata`. What a later value on a
 * thread superseded, or a retraction withdrew, is not returned (Engram's search leaves it out).
 */
export class EngramRetriever extends BaseRetriever {
  static lc_name() {
    return "EngramRetriever";
  }

  lc_namespace = ["engram", "retrievers"];

  #memory;
  #search;

  constructor(options) {
    const read = readOptions(options, "EngramRetriever", RETRIEVER_OPTIONS, "{memory}");
    const { memory, callbacks, metadata, verbose, tags, memoryTags, ...search } = read;
    super({ callbacks, metadata, verbose, tags });
    this.#memory = memoryOf(memory, "EngramRetriever", ["search"]);
    this.#search = { limit: 5, ...search, ...(memoryTags === undefined ? {} : { tags: memoryTags }) };
  }

  async _getRelevantDocuments(query) {
    const hits = await this.#memory.search(query, this.#search);
    return hits.map((hit) => {
      const record = hit.type === "raw" ? hit.raw : hit.memory;
      const metadata = { type: hit.type, score: hit.score, id: record.id, createdAt: record.createdAt };
      if (hit.type === "raw") Object.assign(metadata, { sessionId: record.sessionId, role: record.role, speaker: record.speaker });
      else Object.assign(metadata, { kind: record.kind, layer: record.layer, tags: record.tags, eventAt: record.eventAt, thread: record.thread, namespace: record.namespace });
      return new Document({ id: record.id, pageContent: record.content, metadata });
    });
  }
}

/** A LangChain message's role as Engram stores turns, and its text (text parts of a multi-part message). */
function turnOf(message, i) {
  const type = typeof message?.getType === "function" ? message.getType() : typeof message?._getType === "function" ? message._getType() : undefined;
  const role = { human: "user", ai: "assistant", system: "system", generic: message?.role, tool: "tool" }[type];
  if (typeof role !== "string" || role === "") throw invalid(`EngramChatMessageHistory: message ${i} is not a LangChain message with a role`);
  const content =
    typeof message.content === "string"
      ? message.content
      : Array.isArray(message.content)
        ? message.content
            .filter((p) => p?.type === "text")
            .map((p) => p.text)
            .join("\n")
        : "";
  return { role, content };
}

function messageOf(entry) {
  switch (entry.role) {
    case "user":
      return new HumanMessage(entry.content);
    case "assistant":
      return new AIMessage(entry.content);
    case "system":
      return new SystemMessage(entry.content);
    default:
      return new ChatMessage(entry.content, entry.role);
  }
}

/**
 * A conversation kept as one Engram session (`sessionId`): every message a verbatim turn, searchable
 * and cited by the memories authored from it. Adding messages re-ingests the session (unchanged
 * turns are left as they are) and, unless `author: false`, authors typed memories from the new
 * turns, so what the conversation established reaches `recall`. `clear()` deletes the session and
 * the memories derived only from it.
 */
export class EngramChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["engram", "chat_history"];

  #session;

  constructor(options) {
    super();
    const read = readOptions(options, "EngramChatMessageHistory", HOST_SESSION_OPTIONS, "{memory, sessionId}");
    this.#session = hostSession(read.memory, read, "EngramChatMessageHistory");
  }

  async getMessages() {
    return (await this.#session.turns()).map(messageOf);
  }

  async addMessage(message) {
    await this.addMessages([message]);
  }

  async addMessages(messages) {
    if (!Array.isArray(messages)) throw invalid("EngramChatMessageHistory: addMessages takes an array of messages");
    await this.#session.append(messages.map(turnOf));
  }

  async clear() {
    await this.#session.clear();
  }
}
