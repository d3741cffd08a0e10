// The JS side of `addMany`, `ingest` and `ingestMany`: each item checked and JSON-encoded as its single call
// does it (an error names the item's index), and one host-embedder call for every item that needs a
// vector (host-vectors.js). The core then checks everything again and writes the whole batch as
// one record. `progress` (progress.js) counts items (addMany) or turns (ingest, ingestMany).

import { EngramError } from "./errors.js";
import { fields, isPlainObject, packVectors, splitEmbedding, toJson } from "./wire.js";

/** `e` (an EngramError) with the item named first; other errors as they are. */
function atItem(what, i, e) {
  if (e instanceof EngramError) return new EngramError(e.code, `${what}[${i}]: ${e.message}`);
  return e;
}

/** An `addMany` item as `add` takes one: an object, or a string for its content. */
function addItem(item, i) {
  if (typeof item === "string") return { content: item };
  if (!isPlainObject(item)) throw new EngramError("InvalidInput", `items[${i}]: expected an object like {content} or a string`);
  return item;
}

/** The batch's size, checked before any work per item (the core checks it again). */
function checkCount(n, what, max) {
  if (n > max) throw new EngramError("InvalidInput", `${what}: ${n} items; the limit is ${max} per call`);
}

/**
 * The arguments of the core's `addMany`, `[json, vectors, dims]`: the items as one JSON array
 * (vectors split out), and their vectors, callers' and the host embedder's alike, packed by `packVectors`.
 */
export async function prepareAddMany(items, { vectors, limits, progress }) {
  if (!Array.isArray(items)) throw new EngramError("InvalidInput", "addMany: expected an array of memories");
  checkCount(items.length, "addMany", limits.batchItems);
  const jsons = new Array(items.length);
  const wanted = new Array(items.length);
  items.forEach((raw, i) => {
    try {
      const item = addItem(raw, i);
      const { json, vector } = splitEmbedding(item, `addMany: items[${i}]`);
      jsons[i] = json;
      wanted[i] = { content: item.content, allowSecrets: item.allowSecrets === true, vector };
    } catch (e) {
      throw e instanceof EngramError && e.message.startsWith("addMany: items[") ? e : atItem("items", i, e);
    }
  });
  progress.report("prepare", 0, items.length);
  progress.check();
  const made = await vectors.vectors(
    wanted,
    (i) => `items[${i}]: `,
    progress,
    (n) => progress.report("embed", n, items.length),
  );
  const { vectors: packed, dims } = packVectors(made);
  return [`[${jsons.join(",")}]`, packed, dims];
}

/**
 * A session's turn count and text size against the store's limits, checked before any work per
 * turn (a huge list must fail in milliseconds). `label` prefixes the error: `ingest`, `sessions[3]`.
 */
function checkSessionBounds(turns, label, { ingestBytes, sessionTurns }) {
  if (!Array.isArray(turns)) return; // the core reports a missing or malformed `turns`
  if (turns.length > sessionTurns) throw new EngramError("InvalidInput", `${label}: a session needs 1..${sessionTurns} turns, got ${turns.length}`);
  const text = turns.reduce((n, t) => n + (typeof t?.content === "string" ? t.content.length : 0), 0);
  if (text > ingestBytes) throw new EngramError("InvalidInput", `${label}: the session's text is over ${ingestBytes} bytes; split it or drop old turns`);
}

/** The turns of `sessions`, the work units of `ingest` and `ingestMany` (a malformed session counts none). */
function turnCount(sessions) {
  return sessions.reduce((n, s) => n + (Array.isArray(s?.turns) ? s.turns.length : 0), 0);
}

/**
 * The arguments of the core's `ingestMany` (`[json]`); turns without a vector get the host embedder's, in
 * one call for all sessions. Each session's turns and text are bounded as `ingest` bounds them.
 */
export async function prepareIngestMany(sessions, { vectors, limits, progress }) {
  if (!Array.isArray(sessions)) throw new EngramError("InvalidInput", "ingestMany: expected an array of sessions");
  checkCount(sessions.length, "ingestMany", limits.batchItems);
  const checked = sessions.map((s, i) => {
    if (!isPlainObject(s)) throw new EngramError("InvalidInput", `sessions[${i}]: expected a session object`);
    checkSessionBounds(s.turns, `sessions[${i}]`, limits);
    return s;
  });
  const turns = turnCount(checked);
  progress.report("prepare", 0, turns);
  progress.check();
  const embedded = (n) => progress.report("embed", n, turns);
  return [toJson(await vectors.sessions(checked, (si) => `sessions[${si}]: `, progress, embedded), "ingestMany")];
}

/**
 * The arguments of the core's `ingest` (`[json]`): each field read once, its turns and text
 * bounded before any work per turn, turns without a vector given the host embedder's.
 */
export async function prepareIngest(session, { vectors, limits, progress }) {
  if (!isPlainObject(session)) throw new EngramError("InvalidInput", "ingest: expected a session object");
  const given = fields(session, "ingest");
  checkSessionBounds(given.turns, "ingest", limits);
  const turns = Array.isArray(given.turns) ? given.turns.map((t) => (isPlainObject(t) ? fields(t, "ingest: a turn") : t)) : given.turns;
  const count = turnCount([{ turns }]);
  progress.report("prepare", 0, count);
  progress.check();
  const [withVectors] = await vectors.sessions([{ ...given, turns }], undefined, progress, (n) => progress.report("embed", n, count));
  return [toJson(withVectors, "ingest")];
}
