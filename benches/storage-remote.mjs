// PostgresStorage (engram-wasm/postgres) against NodeFSStorage on the same machine, through the
// public API with embedder null (storage, not embedding, is measured):
//   - adds/s, each add awaited before the next (one writer's latency), and with 32 adds in flight
//     (group commit: they share records, locks and round trips);
//   - open of a store holding those memories (a new adapter and Engram.open, median of --opens).
// Without --connection-string it starts its own PostgreSQL server (tests/js/pg-server.mjs: fsync
// off, so the numbers are round trips and server work, not the disk's flush; NodeFSStorage is
// measured "strict" and "relaxed" for the same reason).
//
//   node benches/storage-remote.mjs [--adds 300] [--in-flight 32] [--opens 5] [--connection-string URL]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { postgres } from "engram-wasm/postgres";
import { startPostgres } from "../tests/js/pg-server.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const ADDS = Number(opt("--adds", "300"));
const IN_FLIGHT = Number(opt("--in-flight", "32"));
const OPENS = Number(opt("--opens", "5"));

const server = opt("--connection-string", null) ? null : await startPostgres();
const connectionString = opt("--connection-string", null) ?? server.connectionString;
const scratch = mkdtempSync(join(tmpdir(), "engram-bench-remote-"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const run = Date.now().toString(36);

const backends = [
  { name: "PostgresStorage", make: (id) => postgres({ connectionString, store: `bench-${run}-${id}` }) },
  { name: "NodeFSStorage strict", make: (id) => new NodeFSStorage(join(scratch, `strict-${id}`)) },
  { name: "NodeFSStorage relaxed", make: (id) => new NodeFSStorage(join(scratch, `relaxed-${id}`), { durability: "relaxed" }) },
];

/** Adds/s of `n` adds, `inFlight` at a time (1: each awaited). */
async function addRate(make, id, n, inFlight) {
  const db = await Engram.open({ embedder: null, storage: make(id) });
  const started = performance.now();
  for (let i = 0; i < n; i += inFlight) {
    const batch = Array.from({ length: Math.min(inFlight, n - i) }, (_, j) => db.add({ content: `memory ${i + j}: the deploy window moved to ${(i + j) % 24}:00` }));
    await Promise.all(batch);
  }
  const seconds = (performance.now() - started) / 1000;
  await db.close();
  return n / seconds;
}

/** Median ms of opening store `id` (a new adapter each time) and reading one memory. */
async function openTime(make, id) {
  const times = [];
  for (let i = 0; i < OPENS; i++) {
    const started = performance.now();
    const db = await Engram.open({ embedder: null, storage: make(id) });
    await db.getAll({ limit: 1 });
    times.push(performance.now() - started);
    await db.close();
  }
  return median(times);
}

try {
  // Warm-up: the wasm module's first compile is nobody's cost.
  await addRate(backends[2].make, "warmup", 50, 1);
  console.log(`| storage | adds/s, 1 awaited (${ADDS}) | adds/s, ${IN_FLIGHT} in flight (${ADDS * 4}) | open of ${ADDS * 5} memories, ms (median of ${OPENS}) |`);
  console.log("| --- | --- | --- | --- |");
  for (const { name, make } of backends) {
    const one = await addRate(make, "seq", ADDS, 1);
    const many = await addRate(make, "seq", ADDS * 4, IN_FLIGHT);
    const open = await openTime(make, "seq");
    console.log(`| ${name} | ${one.toFixed(0)} | ${many.toFixed(0)} | ${open.toFixed(1)} |`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await server?.stop();
}
