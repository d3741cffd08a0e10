// The Engram methods a proxy forwards as they are (arguments in, result out): the worker answers
// them and the worker client exposes them, from this one list. A new plain method is added here;
// `open` is not in it: both ends handle it specially (model loading). Options holding functions or
// signals cannot cross to a worker: for the calls of WATCHED_METHODS, the client keeps `signal` and
// `onProgress` and the worker relays them as messages (abort in, progress events out).
export const FORWARDED_METHODS = Object.freeze([
  "add",
  "addMany",
  "get",
  "getAll",
  "update",
  "delete",
  "deleteAll",
  "history",
  "search",
  "ingest",
  "ingestMany",
  "session",
  "sessions",
  "deleteSession",
  "release",
  "recallContext",
  "recall",
  "thread",
  "gather",
  "resume",
  "stats",
  "vectorIndexStats",
  "reset",
  "flush",
  "compact",
  "refresh",
  "export",
  "import",
  "close",
  "retract",
  "author",
  "extract",
  "consolidate",
  "llmUsage",
  "reindex",
]);

/** The calls taking `{signal, onProgress}`, each with the index of its options argument. */
export const WATCHED_METHODS = Object.freeze({ import: 1, addMany: 1, ingestMany: 1, ingest: 1, compact: 0, reindex: 0, author: 1, extract: 1, consolidate: 0 });
