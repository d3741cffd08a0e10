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

test("require(): reindex finds its build worker next to the CommonJS bundle", async () => {
  const db = await Engram.open({ embedder: null, vectorIndex: { graphMin: 50, alwaysGraph: true }, autoReindex: false });
  let s = 7;
  const rand = () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
  for (let i = 0; i < 80; i++) await db.add({ content: `vector ${i}`, embedding: Float32Array.from({ length: 16 }, rand) });
  const { steps, stats } = await db.reindex();
  assert.deepEqual(
    steps.map((x) => [x.result, x.points]),
    [["segment", 80]],
  );
  assert.equal(stats.memories.segments, 1);
  await db.close();
});
