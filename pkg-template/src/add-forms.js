// The forms `add` takes, as mem0's `add` does: a memory object; a string (the content) with the
// other fields as options; or an array of chat messages `[{role, content}]`, kept as a session
// (then extracted where the store has an llm).

import { invalid } from "./errors.js";
import { fields, isPlainObject } from "./wire.js";
import { is, readOptions } from "./options.js";
import { SESSION_JOB_OPTIONS } from "./jobs.js";

const MESSAGES_OPTIONS = Object.freeze({ sessionId: is.passed, namespace: is.passed, date: is.passed, extract: is.boolean, ...SESSION_JOB_OPTIONS });

/** A session id for `add(messages)` without one: random, also where `crypto.randomUUID` is missing (non-secure pages). */
function newSessionId() {
  const uuid = globalThis.crypto?.randomUUID?.();
  return `chat-${uuid ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`}`;
}

/**
 * What `add(input, options)` asks for: `{memory}` (an object as a single add takes it), or
 * `{session, ingestOptions}` for chat messages. `hasLlm`: extraction is the default for messages.
 */
export function addForm(input, options, hasLlm) {
  if (typeof input === "string") {
    if (options !== undefined && options !== null && !isPlainObject(options))
      throw invalid('add: expected the other fields as an options object, like add(text, {kind: "semantic"})');
    if (options && "content" in options) throw invalid("add: the content is the string; `options` cannot carry `content` too");
    return { memory: { ...(options && fields(options, "add")), content: input } };
  }
  if (!Array.isArray(input)) {
    if (options !== undefined) throw invalid("add: a memory object takes no second argument; put the fields in the object");
    return { memory: input };
  }
  const { sessionId, namespace, date, extract, ...rest } = readOptions(options, "add (messages)", MESSAGES_OPTIONS);
  if (input.length === 0) throw invalid("add: expected at least one message {role, content}");
  const session = { id: sessionId ?? newSessionId(), turns: input };
  if (namespace !== undefined) session.namespace = namespace;
  if (date !== undefined) session.date = date;
  // Extraction by default where there is an llm; asked for without one, the report says nothing was extracted.
  return { session, ingestOptions: (extract ?? hasLlm) ? { ...rest, extract: true } : undefined };
}
