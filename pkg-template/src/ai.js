// engram-wasm/ai: Engram as a Vercel AI SDK language-model middleware (`wrapLanguageModel`). Before
// each call the newest user message is recalled against memory and the `<memory>` block (derived
// states included, stored text as delimited data) goes in as a system message; after it, with a
// `sessionId`, the exchange is kept as turns of that session and authored into memories. A plain
// object of the middleware's shape: the SDK itself is the host's, nothing is imported from it.

import { is, readOptions } from "./options.js";
import { HOST_SESSION_OPTIONS, hostSession, memoryOf } from "./host-session.js";

const OPTIONS = Object.freeze({ ...HOST_SESSION_OPTIONS, includeDefault: is.boolean, maxTokens: is.count });

/** The text of a prompt message's parts (the SDK's prompt: system content is a string, others parts). */
function textOf(message) {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return "";
  return message.content
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

/** The newest user message's text, or "" when the prompt has none. */
function lastUserText(prompt) {
  for (let i = prompt.length - 1; i >= 0; i--) if (prompt[i]?.role === "user") return textOf(prompt[i]);
  return "";
}

/**
 * The user message this call answers: the prompt's last message when it is the user's. A later step
 * of a tool loop ends with tool results instead, and its user message was kept by the first step.
 */
function newUserText(prompt) {
  const last = prompt[prompt.length - 1];
  return last?.role === "user" ? textOf(last) : "";
}

/**
 * `{memory, namespace?, includeDefault?, maxTokens?, sessionId?, author?}` → a middleware for
 * `wrapLanguageModel({model, middleware})`. `maxTokens` bounds the memory block (default 800);
 * `author: false` keeps the exchange verbatim without authoring memories from it.
 */
export function engramMiddleware(options) {
  const { memory, namespace, includeDefault, maxTokens = 800, sessionId, author } = readOptions(options, "engramMiddleware", OPTIONS, "{memory}");
  memoryOf(memory, "engramMiddleware", ["recall"]);
  const scope = { ...(namespace === undefined ? {} : { namespace }), ...(includeDefault === undefined ? {} : { includeDefault }) };
  // Without a sessionId, recall only: nothing is kept.
  const session = sessionId === undefined ? null : hostSession(memory, { sessionId, namespace, author }, "engramMiddleware");
  const keep = (user, reply) => session.append([user && { role: "user", content: user }, reply && { role: "assistant", content: reply }].filter(Boolean));

  return {
    async transformParams({ params }) {
      const query = lastUserText(params.prompt ?? []);
      if (query.trim() === "") return params;
      const { context } = await memory.recall(query, { ...scope, maxTokens });
      if (context.ids.length === 0) return params;
      const prompt = [...params.prompt];
      // After the caller's own system messages: the instructions stay first, the memory block is data.
      let at = 0;
      while (at < prompt.length && prompt[at].role === "system") at++;
      prompt.splice(at, 0, { role: "system", content: context.text });
      return { ...params, prompt };
    },

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      if (session !== null) {
        const reply = (result.content ?? [])
          .filter((part) => part.type === "text")
          .map((part) => part.text)
          .join("");
        await keep(newUserText(params.prompt ?? []), reply);
      }
      return result;
    },

    async wrapStream({ doStream, params }) {
      const result = await doStream();
      if (session === null) return result;
      let reply = "";
      const user = newUserText(params.prompt ?? []);
      const stream = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === "text-delta" && typeof part.delta === "string") reply += part.delta;
            controller.enqueue(part);
          },
          // The stream ends once the exchange is kept (or its failure is the stream's error).
          flush: () => keep(user, reply),
        }),
      );
      return { ...result, stream };
    },
  };
}
