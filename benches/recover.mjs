// Recovery after an internal fault (Node, NodeFSStorage, keyword-only; with --model also the local
// embedder): the time from a trap to the first call after it resolving — a new wasm instance (the
// glue evaluated again), the store reopened from storage, the local model loaded again — against the
// peer measured in the same run: closing the store and opening it again in the same process (what a
// host would do by hand), and, with --model, loading the model again by hand.
//
//   node benches/recover.mjs [--sizes 1000,10000] [--runs 5] [--model models]
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Embedder, Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { percentile } from "./corpus.mjs";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const sizes = opt("--sizes", "1000,10000").split(",").map(Number);
const runs = Number(opt("--runs", "5"));
const modelDir = args.includes("--model") ? resolve(opt("--model", "models")) : null;
// The trap is announced by the core and also surfaces as an uncaught error where it ran.
process.on("uncaughtException", (e) => {
  if (!(e instanceof WebAssembly.RuntimeError)) throw e;
});
const gluePath = join(repo, "pkg", "dist", "wasm-node", "engram.js");
// A throwaway require each time: a kept one would hold every stopped instance as its child module.
const trapNextStorageResult = () => createRequire(import.meta.url)(gluePath).panicOnNextStorageResultForTests();
const ms = (t0) => performance.now() - t0;
const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

const rows = [];
for (const n of sizes) {
  const dir = mkdtempSync(join(tmpdir(), "engram-recover-bench-"));
  const open = () => Engram.open({ embedder: null, storage: new NodeFSStorage(dir, { durability: "relaxed" }), autoReindex: false });
  let db = await open();
  const batch = Array.from({ length: n }, (_, i) => ({ role: "user", content: `turn ${i} about topic ${i % 97} and item ${(i * 7919) % 1000}` }));
  await db.ingest({ id: "bench", turns: batch });
  for (let i = 0; i < 200; i++) await db.add({ content: `memory ${i} on subject ${i % 13}` });
  await db.compact();
  const recovery = [];
  const reopen = [];
  for (let r = 0; r < runs; r++) {
    trapNextStorageResult();
    await db.add({ content: `faulted ${r}` }).catch(() => {});
    let t0 = performance.now();
    await db.stats(); // new instance + reopen from storage + the call
    recovery.push(ms(t0));
    t0 = performance.now();
    await db.close();
    db = await open();
    await db.stats();
    reopen.push(ms(t0));
  }
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  rows.push({ what: `store of ${n} turns + 200 memories`, recovery: median(recovery), peer: median(reopen), peerName: "close + open again" });
}

if (modelDir) {
  const sources = { model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json") };
  const embedder = await Embedder.load(sources);
  const recovery = [];
  const reload = [];
  for (let r = 0; r < runs; r++) {
    const dir = mkdtempSync(join(tmpdir(), "engram-recover-bench-"));
    const db = await Engram.open({ embedder, storage: new NodeFSStorage(dir, { durability: "relaxed" }), autoReindex: false });
    await db.add({ content: "the model is loaded" });
    trapNextStorageResult();
    await db.add({ content: "faulted" }).catch(() => {});
    let t0 = performance.now();
    await db.stats(); // new instance + the model loaded again + reopen
    recovery.push(ms(t0));
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    t0 = performance.now();
    (await Embedder.load(sources)).dispose();
    reload.push(ms(t0));
  }
  rows.push({ what: "store with the local embedder (MiniLM int8)", recovery: median(recovery), peer: median(reload), peerName: "Embedder.load by hand" });
}

console.log("| store | first call after a trap (median ms) | peer (median ms) | ratio |");
console.log("| --- | ---: | --- | ---: |");
for (const r of rows) console.log(`| ${r.what} | ${r.recovery.toFixed(1)} | ${r.peerName}: ${r.peer.toFixed(1)} | ${(r.recovery / r.peer).toFixed(2)} |`);
