// Consolidation of a large store in Node (wasm): time per epoch with `llmLevel: "off"`, and LLM
// calls per epoch with `on` through a judge that answers instantly (the engine's own overhead),
// against the calls a design with one call per candidate pair or memory would make on the same
// epochs (`report.found`). Memories are synthetic notes with near-duplicates and updates mixed in.
//
//   node benches/consolidate.mjs [--memories 10000] [--epochs 6] [--cap 200]
import { Engram } from "engram-wasm";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const N = opt("--memories", 10_000);
const EPOCHS = opt("--epochs", 6);
const CAP = opt("--cap", 200);

const PEOPLE = ["Sam", "Ada", "Priya", "Tom", "Lena", "Kofi", "Mei", "Omar"];
const THINGS = ["tea", "coffee", "chess", "the violin", "running", "Python", "gardening", "Tokyo", "the lake house", "pottery", "jazz", "sourdough"];
const VERBS = ["likes", "talked about", "plans to try", "is learning", "stopped", "recommended"];

/** A tiny deterministic generator (xorshift). */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

function notes(n) {
  const r = rng(42);
  const out = [];
  for (let i = 0; i < n; i++) {
    const p = PEOPLE[r(PEOPLE.length)];
    const t = THINGS[r(THINGS.length)];
    const v = VERBS[r(VERBS.length)];
    const kind = ["semantic", "episodic", "procedural"][r(3)];
    // One in ten says an earlier note again in other words: a near-duplicate to merge.
    const content = r(10) === 0 && out.length > 0 ? `${out[r(out.length)].content} really` : `${p} ${v} ${t} on day ${r(400)} (note ${i})`;
    out.push({ content, kind, importance: (1 + r(9)) / 10 });
  }
  return out;
}

/** Answers every request at once with a valid decision for each offered id. */
async function instantJudge(request) {
  const items = request.schema.properties.decisions?.items.properties ?? {};
  const ids = (items.id ?? items.pair)?.enum ?? [];
  switch (request.purpose) {
    case "triage":
      return JSON.stringify({ decisions: ids.map((id, i) => ({ id, decision: i % 2 ? "promote" : "keep" })) });
    case "gate":
      return JSON.stringify({ decisions: ids.map((id) => ({ id, decision: "reject", category: "none" })) });
    case "merge":
      return JSON.stringify({ decisions: ids.map((pair) => ({ pair, decision: "distinct" })) });
    case "reconcile":
      return JSON.stringify({ decisions: ids.map((pair) => ({ pair, decision: "keep_both" })) });
    default:
      return JSON.stringify({ content: "A summary.", importance: 0.5 });
  }
}

async function run(level) {
  const memory = await Engram.open({ embedder: null, idSeed: 1, ...(level === "off" ? {} : { llm: instantJudge, llmLevel: level }) });
  const items = notes(N);
  const t0 = performance.now();
  for (const item of items) await memory.add(item);
  const addMs = performance.now() - t0;
  const rows = [];
  for (let e = 0; e < EPOCHS; e++) {
    const s = performance.now();
    const report = await memory.consolidate({ bufferCap: CAP });
    const ms = performance.now() - s;
    const count = (kind) => report.actions.filter((a) => a.action === kind).length;
    const f = report.found;
    // One call per candidate pair, gate candidate and buffer memory to triage, one per distill group.
    const perCandidate = f.mergePairs - (level === "on" ? 0 : f.sameFact) + f.reconcilePairs + f.gateCandidates + f.triageCandidates + f.distillGroups;
    rows.push({
      epoch: e + 1,
      ms,
      calls: report.usage.calls,
      perCandidate,
      memories: (await memory.stats()).memories,
      promoted: count("promote"),
      merged: count("merge"),
      evicted: count("evict"),
      scanned: f.scanned,
    });
  }
  await memory.close();
  return { level, addMs, rows };
}

console.log(`consolidate bench: ${N} memories, ${EPOCHS} epochs, bufferCap ${CAP}`);
for (const level of ["off", "on"]) {
  const { addMs, rows } = await run(level);
  console.log(`\nllmLevel ${level} (adds took ${(addMs / 1000).toFixed(1)} s)`);
  console.log("epoch  ms      calls  one-per-candidate  memories  promoted  merged  evicted  scanned");
  for (const r of rows) {
    console.log(
      `${String(r.epoch).padEnd(6)} ${r.ms.toFixed(0).padStart(6)}  ${String(r.calls).padStart(5)}  ${String(r.perCandidate).padStart(17)}  ${String(r.memories).padStart(8)}  ${String(r.promoted).padStart(8)}  ${String(r.merged).padStart(6)}  ${String(r.evicted).padStart(7)}  ${String(r.scanned).padStart(7)}`,
    );
  }
}
