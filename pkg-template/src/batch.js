// The JS side of `addMany` / `ingestMany`: each item checked and JSON-encoded as its single call
// does it (an error names the item's index), and one host-embedder call for every item that needs a
// vector. The core then checks everything again and writes the whole batch as one record.

import { EngramError } from "./errors.js";
import { isPlainObject, packVectors, splitEmbedding, toJson } from "./wire.js";
import { embedDocuments } from "./embedder.js";

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

/**
 * `{json, vectors, dims}` for the core's `addMany`: the items as one JSON array (vectors split out),
 * and their vectors, callers' and the host embedder's alike, packed by `packVectors`.
 * `guarded(text, allowSecrets)` is the text as the store's guards keep it.
 */
export async function prepareAddMany(items, { embedder, guarded, limits }) {
  if (!Array.isArray(items)) throw new EngramError("InvalidInput", "addMany: expected an array of memories");
  checkCount(items.length, "addMany", limits.batchItems);
  const jsons = new Array(items.length);
  const vectors = new Array(items.length);
  const texts = [];
  const missing = [];
  items.forEach((raw, i) => {
    try {
      const item = addItem(raw, i);
      const { json, vector } = splitEmbedding(item, `addMany: items[${i}]`);
      jsons[i] = json;
      vectors[i] = vector;
      if (!vector && embedder && typeof item.content === "string" && item.content.trim() !== "") {
        texts.push(guarded(item.content, item.allowSecrets === true));
        missing.push(i);
      }
    } catch (e) {
      throw e instanceof EngramError && e.message.startsWith("addMany: items[") ? e : atItem("items", i, e);
    }
  });
  if (missing.length > 0) {
    const made = await embedDocuments(embedder, texts);
    missing.forEach((i, k) => {
      vectors[i] = made[k];
    });
  }
  return { json: `[${jsons.join(",")}]`, ...packVectors(vectors) };
}

/** The batch's size, checked before any work per item (the core checks it again). */
function checkCount(n, what, max) {
  if (n > max) throw new EngramError("InvalidInput", `${what}: ${n} items; the limit is ${max} per call`);
}

/**
 * The JSON array for the core's `ingestMany`; turns without a vector get the host embedder's, in
 * one call for all sessions. Each session's turns and text are bounded as `ingest` bounds them.
 */
export async function prepareIngestMany(sessions, { embedder, guarded, limits }) {
  if (!Array.isArray(sessions)) throw new EngramError("InvalidInput", "ingestMany: expected an array of sessions");
  checkCount(sessions.length, "ingestMany", limits.batchItems);
  const maxBytes = limits.ingestBytes;
  const out = sessions.map((s, i) => {
    if (!isPlainObject(s)) throw new EngramError("InvalidInput", `sessions[${i}]: expected a session object`);
    if (Array.isArray(s.turns) && s.turns.length > limits.sessionTurns) throw new EngramError("InvalidInput", `sessions[${i}]: a session needs 1..${limits.sessionTurns} turns, got ${s.turns.length}`);
    const text = Array.isArray(s.turns) ? s.turns.reduce((n, t) => n + (typeof t?.content === "string" ? t.content.length : 0), 0) : 0;
    if (text > maxBytes) throw new EngramError("InvalidInput", `sessions[${i}]: the session's text is over ${maxBytes} bytes; split it or drop old turns`);
    return { ...s, turns: Array.isArray(s.turns) ? s.turns.slice() : s.turns };
  });
  const texts = [];
  const missing = [];
  if (embedder) {
    out.forEach((s, si) => {
      if (!Array.isArray(s.turns) || !s.turns.every(isPlainObject)) return;
      s.turns.forEach((t, ti) => {
        if (t.embedding !== undefined || typeof t.content !== "string" || t.content.trim() === "") return;
        let content;
        try {
          content = guarded(t.content, s.allowSecrets === true);
        } catch (e) {
          throw atItem("sessions", si, e);
        }
        texts.push(typeof t.speaker === "string" ? `${t.speaker}: ${content}` : content);
        missing.push([si, ti]);
      });
    });
  }
  if (missing.length > 0) {
    const made = await embedDocuments(embedder, texts);
    missing.forEach(([si, ti], k) => {
      out[si].turns[ti] = { ...out[si].turns[ti], embedding: Array.from(made[k]) };
    });
  }
  return toJson(out, "ingestMany");
}
