// Encryption at rest: what `encrypted(adapter, key)` costs, against the same adapter unencrypted in
// the same run (runs alternate plain / encrypted so machine noise hits both alike):
//   - persisted adds/s (each add acknowledged), NodeFSStorage relaxed and MemoryStorage;
//   - open time of a compacted store of N memories with 384-d vectors (built once by adds into
//     memory, exported, imported into each store), in this process after a warm-up open;
//   - bytes on disk per memory;
//   - deriveKey at the default 600,000 PBKDF2 iterations.
//
//   node benches/encryption.mjs [--memories 10000] [--adds 300] [--rounds 3]
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, MemoryStorage, deriveKey, encrypted } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { percentile, seededUnit } from "./corpus.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const memories = opt("--memories", 10_000);
const adds = opt("--adds", 300);
const rounds = opt("--rounds", 3);
const work = mkdtempSync(join(tmpdir(), "engram-encryption-bench-"));
const key = crypto.getRandomValues(new Uint8Array(32));
let dirs = 0;
const freshDir = () => join(work, `s${++dirs}`);

function diskBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    total += entry.isDirectory() ? diskBytes(p) : statSync(p).size;
  }
  return total;
}

const WORDS = "release build cello lesson flight lands tea coffee garden porto sister cat editor helix locker code vault blue flowerpot thursday".split(" ");
const sentence = (i) => Array.from({ length: 8 + (i % 17) }, (_, j) => WORDS[(i * 7 + j * 13) % WORDS.length]).join(" ") + ` #${i}`;

async function addRate(storage) {
  const db = await Engram.open({ embedder: null, storage });
  const times = [];
  const t0 = performance.now();
  for (let i = 0; i < adds; i++) {
    const s = performance.now();
    await db.add({ content: sentence(i), embedding: seededUnit(i + 1) });
    times.push(performance.now() - s);
  }
  const ms = performance.now() - t0;
  await db.close();
  times.sort((a, b) => a - b);
  return { perSec: adds / (ms / 1000), p50: percentile(times, 50) };
}

async function openMs(storage) {
  const t0 = performance.now();
  const db = await Engram.open({ embedder: null, storage });
  const ms = performance.now() - t0;
  const n = (await db.stats()).memories;
  await db.close();
  if (n !== memories) throw new Error(`opened ${n} memories, expected ${memories}`);
  return ms;
}

console.log(`encryption bench: node ${process.version}, ${memories} memories, ${adds} adds, ${rounds} rounds`);
const kinds = {
  "NodeFS relaxed": (enc) => (enc ? encrypted(new NodeFSStorage(freshDir(), { durability: "relaxed" }), key) : new NodeFSStorage(freshDir(), { durability: "relaxed" })),
  Memory: (enc) => (enc ? encrypted(new MemoryStorage(), key) : new MemoryStorage()),
};
const addRows = [];
for (const [name, make] of Object.entries(kinds)) {
  const plain = [];
  const enc = [];
  for (let r = 0; r < rounds; r++) {
    plain.push(await addRate(make(false)));
    enc.push(await addRate(make(true)));
  }
  addRows.push({ name, plain, enc });
}

// One store image, imported into a plain and an encrypted NodeFS directory.
const source = await Engram.open({ embedder: null });
for (let i = 0; i < memories; i++) await source.add({ content: sentence(i), embedding: seededUnit(i + 1) });
const image = await source.export();
await source.close();
const stores = {};
for (const enc of [false, true]) {
  const dir = freshDir();
  const storage = () => (enc ? encrypted(new NodeFSStorage(dir), key) : new NodeFSStorage(dir));
  const db = await Engram.open({ embedder: null, storage: storage() });
  await db.import(image);
  await db.compact();
  await db.close();
  stores[enc ? "encrypted" : "plain"] = { storage, bytes: diskBytes(dir) };
}
await openMs(stores.plain.storage()); // warm-up: the first open pays one-off costs
const opens = { plain: [], encrypted: [] };
for (let r = 0; r < rounds; r++) {
  opens.plain.push(await openMs(stores.plain.storage()));
  opens.encrypted.push(await openMs(stores.encrypted.storage()));
}
const t0 = performance.now();
await deriveKey("correct horse battery staple", new Uint8Array(16));
const deriveMs = performance.now() - t0;
rmSync(work, { recursive: true, force: true });

const f = (x, d = 0) => x.toFixed(d);
const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
console.log("\n| adds (acknowledged) | plain adds/s | encrypted adds/s | encrypted ÷ plain | plain p50 ms | encrypted p50 ms |");
console.log("|---|---|---|---|---|---|");
for (const { name, plain, enc } of addRows) {
  const [p, e] = [median(plain.map((x) => x.perSec)), median(enc.map((x) => x.perSec))];
  console.log(`| ${name} | ${f(p)} | ${f(e)} | ${f(e / p, 2)}× | ${f(median(plain.map((x) => x.p50)), 2)} | ${f(median(enc.map((x) => x.p50)), 2)} |`);
}
const [po, eo] = [median(opens.plain), median(opens.encrypted)];
console.log(`\n| open, NodeFS, ${memories} memories (compacted) | plain | encrypted | encrypted ÷ plain |`);
console.log("|---|---|---|---|");
console.log(`| open ms (median of ${rounds}) | ${f(po)} | ${f(eo)} | ${f(eo / po, 2)}× |`);
console.log(`| bytes on disk per memory | ${f(stores.plain.bytes / memories)} | ${f(stores.encrypted.bytes / memories)} | ${f(stores.encrypted.bytes / stores.plain.bytes, 2)}× |`);
console.log(`\nderiveKey (PBKDF2-SHA-256, 600,000 iterations): ${f(deriveMs)} ms`);
