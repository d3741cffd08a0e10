// Types of engram-wasm/langchain: Engram as a LangChain.js retriever and chat message history.
// `@langchain/core` is a peer dependency: these extend the host's own classes.
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseMessage } from "@langchain/core/messages";
import type { Engram, EngramWorker, MemoryKind, MemoryLayer } from "./index.js";

export interface EngramRetrieverOptions extends BaseRetrieverInput {
  memory: Engram | EngramWorker;
  namespace?: string;
  /** Whether the shared "default" namespace is searched too (default: as the store was opened). */
  includeDefault?: boolean;
  /** Documents per query, 1..1000 (default 5). */
  limit?: number;
  /** "memories" (default), "raw" (verbatim turns) or "all". */
  scope?: "memories" | "raw" | "all";
  kinds?: MemoryKind[];
  layers?: MemoryLayer[];
  /** Only memories carrying every one of these tags (`tags` are LangChain's tracing tags). */
  memoryTags?: string[];
}

/** Metadata of a retrieved document: the record's id and score, and where it came from. */
export interface EngramDocumentMetadata {
  type: "memory" | "raw";
  id: string;
  score: number;
  createdAt: string;
  kind?: MemoryKind;
  layer?: MemoryLayer;
  tags?: string[];
  eventAt?: string | null;
  thread?: string | null;
  namespace?: string;
  sessionId?: string;
  role?: string;
  speaker?: string | null;
}

/** Memories (and with `scope`, turns) for a query; superseded and withdrawn values are left out. */
export declare class EngramRetriever extends BaseRetriever<EngramDocumentMetadata> {
  lc_namespace: string[];
  constructor(options: EngramRetrieverOptions);
  _getRelevantDocuments(query: string): Promise<DocumentInterface<EngramDocumentMetadata>[]>;
}

export interface EngramChatMessageHistoryOptions {
  memory: Engram | EngramWorker;
  /** The Engram session the conversation is kept as. */
  sessionId: string;
  namespace?: string;
  /** Author typed memories from new turns as they are added (default true). */
  author?: boolean;
}

/** A conversation kept as one Engram session; `clear()` deletes it and the memories derived only from it. */
export declare class EngramChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace: string[];
  constructor(options: EngramChatMessageHistoryOptions);
  getMessages(): Promise<BaseMessage[]>;
  addMessage(message: BaseMessage): Promise<void>;
  addMessages(messages: BaseMessage[]): Promise<void>;
  clear(): Promise<void>;
}
