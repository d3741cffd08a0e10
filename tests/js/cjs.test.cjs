// The package through CommonJS `require` by name.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { Engram, EngramError } = require("engram-wasm");

test("require() gives a working Engram", async () => {
  const db = await Engram.open({ embedder: null });
  const m = await db.add({ content: "CommonJS callers get the same engine", tags: ["cjs"] });
  const hits = await db.search("commonjs engine");
  assert.equal(hits[0].memory.id, m.id);
  await assert.rejects(db.add({ content: "" }), (e) => e instanceof EngramError && e.code === "InvalidInput");
});
