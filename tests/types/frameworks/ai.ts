// engram-wasm/ai as an AI SDK host uses it: the middleware is the SDK's own middleware type.
import { Engram } from "engram-wasm";
import { engramMiddleware, type EngramMiddlewareOptions } from "engram-wasm/ai";
import { wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from "ai";
import type { LanguageModelV4 } from "@ai-sdk/provider";

export async function useAiSdk(model: LanguageModelV4): Promise<LanguageModel> {
  const memory = await Engram.open({ embedder: null });
  const options: EngramMiddlewareOptions = { memory, sessionId: "chat-1", namespace: "user:42", maxTokens: 600 };
  const middleware: LanguageModelMiddleware = engramMiddleware(options);
  // @ts-expect-error: `memory` is required
  engramMiddleware({ sessionId: "chat-1" });
  return wrapLanguageModel({ model, middleware });
}
