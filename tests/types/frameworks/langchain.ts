// engram-wasm/langchain as a LangChain.js host uses it: the classes are the host's own base classes.
import { Engram } from "engram-wasm";
import { EngramChatMessageHistory, EngramRetriever, type EngramDocumentMetadata } from "engram-wasm/langchain";
import { BaseRetriever } from "@langchain/core/retrievers";
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { HumanMessage } from "@langchain/core/messages";
import type { DocumentInterface } from "@langchain/core/documents";

export async function useLangChain(): Promise<string> {
  const memory = await Engram.open({ embedder: null, includeDefault: false });
  const retriever: BaseRetriever<EngramDocumentMetadata> = new EngramRetriever({ memory, namespace: "user:42", limit: 3, scope: "all", memoryTags: ["t"], tags: ["trace"] });
  const docs: DocumentInterface<EngramDocumentMetadata>[] = await retriever.invoke("tea");
  const history: BaseListChatMessageHistory = new EngramChatMessageHistory({ memory, sessionId: "s", namespace: "user:42", author: false });
  await history.addMessage(new HumanMessage("hi"));
  // @ts-expect-error: `sessionId` is required
  new EngramChatMessageHistory({ memory });
  return docs.map((d) => `${d.metadata.type}:${d.metadata.id}:${d.pageContent}`).join("\n");
}
