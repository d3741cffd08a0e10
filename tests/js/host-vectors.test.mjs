// A host embedder on every path (host-vectors.js): reads that search (search, recall,
// recallContext) embed the query with it; memories a job writes (the offline author here) get its
// vectors; it is shown the text the core would embed (guarded, a turn as `speaker: content`); and
// a failure to embed what a job wrote is reported without failing the job. The embedder is a
// deterministic topic double (tests only): texts about vehicles share one direction.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram } from "engram-wasm";

const VEHICLE = /(car|automobile|sedan|vehicle|hatchback)/i;
const vec = (t) => (VEHICLE.test(t) ? [1, 0, 0] : /(bank|loan)/i.test(t) ? [0, 1, 0] : [0, 0, 1]);

function topicEmbedder() {
  const seen = { documents: [], queries: [] };
  return {
    seen,
    embedder: {
      async embedDocuments(texts) {
        seen.documents.push(...texts);
        return texts.map(vec);
      },
      async embedQuery(text) {
        seen.queries.push(text);
        return vec(text);
      },
    },
  };
}

test("recall and recallContext find by the host embedder's query vector", async () => {
  const { seen, embedder } = topicEmbedder();
  const db = await Engram.open({ embedder });
  // No word of the question below is in this memory: only its vector can find it.
  await db.add({ content: "Dana bought a red hatchback last spring", kind: "episodic" });
  await db.add({ content: "The bank approved the loan", kind: "episodic" });
  const question = "which vehicle do they drive?";
  const recalled = await db.recall(question);
  assert.match(recalled.context.text, /red hatchback/);
  assert.doesNotMatch(recalled.context.text, /approved the loan/);
  const block = await db.recallContext(question);
  assert.match(block.text, /red hatchback/);
  assert.deepEqual(seen.queries, [question, question]);
  await db.close();
});

test("memories a job writes get the host embedder's vectors", async () => {
  const { seen, embedder } = topicEmbedder();
  const db = await Engram.open({ embedder });
  const out = await db.ingest(
    {
      id: "s1",
      date: "2024-03-01",
      turns: [
        { role: "user", speaker: "Kim", content: "My car is a blue Volvo sedan." },
        { role: "assistant", content: "Noted." },
      ],
    },
    { author: true },
  );
  assert.ok(out.authored.added.length > 0, JSON.stringify(out.authored));
  // The turns were embedded as the core indexes them, the speaker in front.
  assert.ok(seen.documents.includes("Kim: My car is a blue Volvo sedan."), JSON.stringify(seen.documents));
  // Each authored memory was embedded, with the text it was stored under.
  for (const id of out.authored.added) {
    const m = await db.get(id);
    assert.ok(seen.documents.includes(m.content), `${m.content} was not embedded`);
  }
  // A pure vector search reaches an authored memory (it has a vector of its own).
  const hits = await db.search(null, { embedding: [1, 0, 0], scope: "memories", limit: 20 });
  assert.ok(
    hits.some((h) => out.authored.added.includes(h.memory?.id)),
    JSON.stringify(hits.map((h) => h.memory?.content)),
  );
  await db.close();
});

test("the host embedder sees what the guards keep, never the caller's secret", async () => {
  const { seen, embedder } = topicEmbedder();
  const db = await Engram.open({ embedder });
  const key = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";
  await db.add({ content: `my car dealer api key is ${key}` });
  await db.ingest({ id: "s1", turns: [{ role: "user", speaker: "Kim", content: `the vehicle portal token is ${key}` }] });
  await db.addMany([`spare car key code ${key}`]);
  assert.ok(seen.documents.length >= 3);
  for (const text of seen.documents) assert.ok(!text.includes(key), `the embedder saw: ${text}`);
  await db.close();
});

test("a failure to embed what a job wrote is reported; the job's report stands", async () => {
  let failDocuments = false;
  const errors = [];
  const embedder = {
    async embedDocuments(texts) {
      if (failDocuments) throw new Error("embedding service down");
      return texts.map(vec);
    },
    async embedQuery(text) {
      return vec(text);
    },
  };
  const db = await Engram.open({ embedder, onBackgroundError: (e) => errors.push(e) });
  await db.ingest({ id: "s1", date: "2024-03-01", turns: [{ role: "user", content: "My bank is Northfield Credit Union." }] });
  failDocuments = true;
  const report = await db.author("s1");
  assert.ok(report.added.length > 0);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, "Embedder");
  // The memory is kept (keyword search finds it), and the next job embeds it.
  assert.equal((await db.search("Northfield")).length > 0, true);
  failDocuments = false;
  await db.ingest({ id: "s2", date: "2024-03-02", turns: [{ role: "user", content: "My car is a sedan." }] }, { author: true });
  const hits = await db.search(null, { embedding: [0, 1, 0], scope: "memories", limit: 20 });
  assert.ok(
    hits.some((h) => report.added.includes(h.memory?.id)),
    "the memory left without a vector got one at the next job",
  );
  await db.close();
});

test("a chat re-ingested whole as it grows has only its new or changed turns embedded", async () => {
  const { seen, embedder } = topicEmbedder();
  const db = await Engram.open({ embedder });
  const turns = [];
  for (let i = 0; i < 50; i++) {
    turns.push({ role: i % 2 ? "assistant" : "user", content: `turn ${i}: the sedan needs a service` });
    await db.ingest({ id: "chat", date: "2025-01-02", turns: [...turns] });
  }
  assert.equal(seen.documents.length, 50, "each turn once, not 1 + 2 + … + 50");
  // A changed turn is embedded again; the others are not.
  turns[3] = { ...turns[3], content: "turn 3: the bank called about the loan" };
  await db.ingest({ id: "chat", date: "2025-01-02", turns: [...turns] });
  assert.deepEqual(seen.documents.slice(50), ["turn 3: the bank called about the loan"]);
  // Another date changes every turn (recency counts from it): all are embedded again.
  await db.ingest({ id: "chat", date: "2025-02-02", turns: [...turns] });
  assert.equal(seen.documents.length, 51 + 50);
  // The stored vectors are the host's: the changed turn is found by meaning.
  const hits = await db.search(null, { embedding: [0, 1, 0], scope: "raw", limit: 1 });
  assert.equal(hits[0].raw.turnIndex, 3);
  await db.close();
});
