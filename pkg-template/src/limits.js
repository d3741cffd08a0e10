// Generated from the Rust limits by `ENGRAM_WRITE_GENERATED=1 cargo test --lib generated` (src/api/generated.rs); do not edit.
/** @type {Readonly<import("../index.js").Limits>} */
export const LIMITS = Object.freeze({
  "contentChars": 8192,
  "tags": 20,
  "tagChars": 32,
  "sourceChars": 64,
  "namespaceChars": 256,
  "metadataBytes": 16384,
  "embeddingDims": 16384,
  "searchLimit": 1000,
  "contextTokens": 200000,
  "turnChars": 65536,
  "sessionIdChars": 128,
  "sessionTurns": 10000,
  "roleChars": 32,
  "speakerChars": 64,
  "turnIdChars": 128,
  "ingestBytes": 33554432,
  "importBytes": 536870912,
  "batchItems": 10000,
  "labelChars": 96,
  "labelSegments": 4,
  "areas": 3,
  "valueChars": 1000,
  "signatureChars": 4000
});

/** Option keys other memory libraries scope by, answered with Engram's form (`{ namespace }`). */
export const SCOPE_KEYS = Object.freeze(["userId","user_id","agentId","agent_id","runId","run_id"]);
