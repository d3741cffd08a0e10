// Types of engram-wasm/ai: Engram as a Vercel AI SDK language-model middleware.
// `ai` is an optional peer dependency; only its types are named here.
import type { LanguageModelMiddleware } from "ai";
import type { Engram, EngramWorker } from "./index.js";

export interface EngramMiddlewareOptions {
  memory: Engram | EngramWorker;
  namespace?: string;
  /** Whether the shared "default" namespace is recalled too (default: as the store was opened). */
  includeDefault?: boolean;
  /** The memory block's budget in tokens (default 800). */
  maxTokens?: number;
  /** Keep each exchange as turns of this Engram session (left out: recall only, nothing kept). */
  sessionId?: string;
  /** Author typed memories from the kept turns (default true). */
  author?: boolean;
}

/**
 * A middleware for `wrapLanguageModel({model, middleware})`: the newest user message is recalled and
 * the `<memory>` block (derived states included) goes in as a system message after the caller's own;
 * with `sessionId`, the exchange is kept and authored once the reply (or the stream) ends.
 */
export declare function engramMiddleware(options: EngramMiddlewareOptions): LanguageModelMiddleware;
