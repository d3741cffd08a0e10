// Host embedders: anything with LangChain's shape `{embedDocuments(texts), embedQuery(text)}`.
// Engram awaits them outside the core, so a remote or worker-backed embedder never blocks a write
// half-way.

import { EngramError, asEngramError, invalid } from "./errors.js";
import { toVector } from "./wire.js";

export function resolveEmbedder(embedder) {
  if (embedder === undefined || embedder === null) return null;
  if (typeof embedder === "object" && typeof embedder.embedDocuments === "function" && typeof embedder.embedQuery === "function") {
    return embedder;
  }
  throw invalid("open: `embedder` must be null or an object with embedDocuments(texts) and embedQuery(text)");
}

async function guard(call) {
  try {
    return await call();
  } catch (e) {
    throw asEngramError(e, "Embedder");
  }
}

export async function embedDocuments(embedder, texts) {
  const out = await guard(() => embedder.embedDocuments(texts));
  if (!Array.isArray(out) || out.length !== texts.length) throw new EngramError("Embedder", "embedDocuments must return one vector per text");
  try {
    return out.map((v) => toVector(v, "embedDocuments result"));
  } catch (e) {
    throw new EngramError("Embedder", e.message);
  }
}

export async function embedQuery(embedder, text) {
  const out = await guard(() => embedder.embedQuery(text));
  try {
    return toVector(out, "embedQuery result");
  } catch (e) {
    throw new EngramError("Embedder", e.message);
  }
}
