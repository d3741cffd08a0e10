// The main demo: an assistant's memory across a few conversations, then the searches it would run
// before answering. Uses the local embedding model (models/, fetched by scripts/fetch-models.sh) for
// search by meaning; without it, falls back to keyword-only search and says so.
import { Engram } from "engram-wasm";

let db;
try {
  db = await Engram.open();
  console.log(`embedder: ${(await db.stats()).embedder.slice(0, 40)}…  (hybrid keyword + vector search)\n`);
} catch (e) {
  console.log(`embedder: none (${e.code}: ${e.message.split(".")[0]}) — keyword-only search\n`);
  db = await Engram.open({ embedder: null });
}

const memories = [
  { content: "The user's name is Priya; she works as a data engineer in Lisbon", importance: 0.9 },
  { content: "Priya prefers answers with code examples in Python", importance: 0.7 },
  { content: "Priya is allergic to peanuts", importance: 0.95, tags: ["health"] },
  { content: "To deploy the pipeline: run `make build`, then `make deploy ENV=prod`", kind: "procedural", namespace: "pipeline" },
  { content: "The pipeline reads from Kafka topic orders-v2 and writes to BigQuery", namespace: "pipeline" },
  { content: "Priya adopted a cat named Churro in March", kind: "episodic", eventAt: "2026-03-14" },
  { content: "Priya is training for the Lisbon half marathon in October", kind: "episodic" },
  { content: "Priya prefers answers with code examples in Python." }, // said again: reinforced, not duplicated
];

for (const m of memories) {
  const r = await db.add(m);
  console.log(`${r.deduplicated ? "reinforced" : "stored    "}  [${r.namespace}/${r.kind}] ${r.content}`);
}

// A fact changed: update keeps the id and the history.
const [pipelineFact] = await db.search("kafka topic", { namespace: "pipeline", limit: 1, dryRun: true });
await db.update(pipelineFact.memory.id, { content: "The pipeline reads from Kafka topic orders-v3 and writes to BigQuery" });

const queries = [
  ["is Priya allergic to anything?", "default"],
  ["how do I deploy to production?", "pipeline"],
  ["which kafka topic does the pipeline read?", "pipeline"],
  ["tell me about her cat", "default"],
  ["does she have any pets?", "default"],
];
for (const [q, namespace] of queries) {
  console.log(`\nsearch (${namespace}): ${q}`);
  for (const hit of await db.search(q, { namespace, limit: 3 })) {
    console.log(`  ${hit.score.toFixed(3)}  ${hit.memory.content}`);
  }
}

const history = await db.history(pipelineFact.memory.id);
console.log(`\nhistory of the pipeline fact: ${history.map((h) => h.event).join(" → ")}`);
console.log("stats:", JSON.stringify(await db.stats()));
await db.close();
