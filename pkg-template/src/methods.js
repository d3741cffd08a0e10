// The Engram methods a proxy forwards as they are (arguments in, result out): the worker answers
// them and the worker client exposes them, from this one list. A new plain method is added here;
// `open` and `reindex` are not in it, since both ends handle them specially (model loading, progress
// events and abort messages). Options holding functions or signals cannot cross to a worker.
export const FORWARDED_METHODS = Object.freeze([
  "add", "addMany", "get", "getAll", "update", "delete", "deleteAll", "history", "search", "ingest", "ingestMany", "session", "sessions",
  "deleteSession", "release", "recallContext", "recall", "thread", "gather", "resume", "stats", "vectorIndexStats", "reset", "flush", "compact", "refresh", "export", "import", "close", "retract",
  "author", "extract", "consolidate", "llmUsage",
]);
