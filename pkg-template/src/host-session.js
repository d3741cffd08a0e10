// What the framework adapters (engram-wasm/langchain, engram-wasm/ai) share: the Engram they are
// given, checked by shape, and a host's conversation kept as one Engram session that grows by
// re-ingesting it with the new turns appended (unchanged turns are left as they are).

import { invalid } from "./errors.js";
import { is } from "./options.js";

/** Options of the chat history and of the middleware alike; `sessionId` must also be non-empty (`hostSession` checks). */
export const HOST_SESSION_OPTIONS = Object.freeze({ memory: is.passed, namespace: is.string, sessionId: is.string, author: is.boolean });

/** The Engram passed in: checked by shape, so a handle from `openInWorker` serves as well. */
export function memoryOf(given, what, methods) {
  if (given === null || typeof given !== "object" || methods.some((m) => typeof given[m] !== "function"))
    throw invalid(`${what}: \`memory\` must be an Engram (from Engram.open or openInWorker)`);
  return given;
}

/**
 * The session `sessionId` of `namespace` (left out: the shared "default") in `memory`: its turns,
 * turns appended to it (authored into memories unless `author` is false), and its removal. Writes
 * run one at a time, so two appends finishing together do not both extend the same old list. `what`
 * names the adapter in errors.
 */
export function hostSession(memory, { sessionId, namespace, author = true }, what) {
  memoryOf(memory, what, ["session", "ingest", "deleteSession"]);
  if (typeof sessionId !== "string" || sessionId === "") throw invalid(`${what}: \`sessionId\` must be a non-empty string`);
  const ownNamespace = namespace ?? "default";

  // The one session read by id, so the work per message does not grow with the store's other
  // sessions. A session of another namespace reads as none, as it would listed within this one.
  async function stored() {
    let entries;
    try {
      entries = await memory.session(sessionId);
    } catch (e) {
      if (e?.code === "NotFound") return null;
      throw e;
    }
    return entries[0]?.namespace === ownNamespace ? entries : null;
  }

  /** The turns kept so far, `[{role, content}]` in order. */
  async function turns() {
    return ((await stored()) ?? []).map(({ role, content }) => ({ role, content }));
  }

  // Writes run one at a time, each reading the turns the one before it left.
  let last = Promise.resolve();
  function inTurn(write) {
    const run = last.then(write);
    last = run.catch(() => {});
    return run;
  }

  /** Appends `added` (`[{role, content}]`; none: nothing is written). */
  function append(added) {
    return inTurn(async () => {
      if (added.length === 0) return;
      const session = { id: sessionId, ...(namespace === undefined ? {} : { namespace }), turns: [...(await turns()), ...added] };
      await memory.ingest(session, author ? { author: true } : undefined);
    });
  }

  /** Deletes the session and the memories derived only from it; nothing to do when none is kept. */
  function clear() {
    return inTurn(async () => {
      if ((await stored()) !== null) await memory.deleteSession(sessionId);
    });
  }

  return { turns, append, clear };
}
