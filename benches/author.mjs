// The offline author in wasm on a 1,000-turn chat (the corpus's first turns, episodes one after
// another in one namespace, each session ingested then authored), against ingest alone in the same
// run; the native counterpart is `benches/author_native.rs`, which also times the local model.
//
//   node benches/author.mjs [--turns 1000] [--reps 3]
import { readFileSync } from "node:fs";
import { Engram } from "engram-wasm";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const TURNS = opt("--turns", 1000);
const REPS = opt("--reps", 3);

function sessions(turns) {
  const out = [];
  let total = 0;
  for (const split of ["dev", "test"]) {
    const episodes = JSON.parse(readFileSync(new URL(`../tests/fixtures/evolving/${split}.json`, import.meta.url), "utf8"));
    for (const ep of episodes) {
      for (const s of ep.sessions) {
        const ts = s.conversation.slice(0, turns - total).map((t) => ({ role: t.role, content: t.content }));
        total += ts.length;
        out.push({ id: `${ep.episode_id}-s${s.idx}`, namespace: "chat", date: s.timestamp.replace(/\//g, "-").replace(" ", "T") + ":00Z", turns: ts });
        if (total >= turns) return out;
      }
    }
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const input = sessions(TURNS);
const n = input.reduce((a, s) => a + s.turns.length, 0);
const ingest = [];
const author = [];
let memories = 0;
for (let rep = 0; rep < REPS; rep++) {
  const memory = await Engram.open({ embedder: null });
  let ti = 0;
  let ta = 0;
  for (const s of input) {
    let t = performance.now();
    await memory.ingest(s);
    ti += performance.now() - t;
    t = performance.now();
    const r = await memory.author(s.id);
    ta += performance.now() - t;
    memories += r.added.length;
  }
  ingest.push(ti);
  author.push(ta);
  await memory.close();
}
const ti = median(ingest);
const ta = median(author);
console.log(`${n} turns in ${input.length} sessions, ${Math.round(memories / REPS)} memories authored per run`);
console.log(`author (wasm): ${ta.toFixed(1)} ms in all, ${((ta * 1000) / n).toFixed(1)} µs per turn (median of ${REPS})`);
console.log(`ingest (keyword-only, same run): ${ti.toFixed(1)} ms; author / ingest = ${(ta / ti).toFixed(2)}`);
