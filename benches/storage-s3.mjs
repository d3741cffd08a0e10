// engram-wasm/s3 against NodeFSStorage (strict), in the same run: persisted adds/s (awaited one by
// one, and 32 in flight), S3 requests per add (by kind), and the open of the store written (p50 of
// a few opens in this process, after a warm-up). The S3 server is moto's (an emulator, in Python,
// on loopback: tests/js/s3-server.mjs), so its numbers are the adapter's request pattern plus moto's
// own cost per request, not a cloud bucket's latency.
//
//   node benches/storage-s3.mjs [--adds 100] [--burst 32] [--bursts 6] [--opens 5]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { s3 } from "engram-wasm/s3";
import { createBucket, startS3Server } from "../tests/js/s3-server.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const ADDS = opt("--adds", 100);
const BURST = opt("--burst", 32);
const BURSTS = opt("--bursts", 6);
const OPENS = opt("--opens", 5);

const TOPICS = [
  "the cello lesson",
  "the spare key",
  "Ana's allergy",
  "the release build",
  "the team standup",
  "the cat's vet visit",
  "the flight to Lisbon",
  "the quarterly report",
];
const sentence = (i) => `${TOPICS[i % TOPICS.length]} moved to slot ${i} (note ${i}, ${(i * 7919) % 1000} points)`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A fetch counting requests by kind. */
function countingFetch() {
  const counts = { GET: 0, PUT: 0, DELETE: 0, LIST: 0 };
  const f = (url, init) => {
    counts[String(url).includes("list-type=2") ? "LIST" : init.method]++;
    return fetch(url, init);
  };
  const total = () => counts.GET + counts.PUT + counts.DELETE + counts.LIST;
  const snapshot = () => ({ ...counts, total: total() });
  return { f, snapshot };
}

const diff = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - a[k]]));

async function measure(name, makeStorage, counter) {
  await (await Engram.open({ embedder: null })).close(); // the wasm module is compiled before any clock
  const db = await Engram.open({ embedder: null, storage: makeStorage() });
  let before = counter?.snapshot();
  let t0 = performance.now();
  for (let i = 0; i < ADDS; i++) await db.add({ content: sentence(i) });
  const awaited = ADDS / ((performance.now() - t0) / 1000);
  const perAdd = counter ? diff(before, counter.snapshot()) : null;
  before = counter?.snapshot();
  t0 = performance.now();
  for (let b = 0; b < BURSTS; b++) await Promise.all(Array.from({ length: BURST }, (_, j) => db.add({ content: sentence(ADDS + b * BURST + j) })));
  const inFlight = (BURST * BURSTS) / ((performance.now() - t0) / 1000);
  const perBurstAdd = counter ? diff(before, counter.snapshot()) : null;
  await db.close();
  const total = ADDS + BURST * BURSTS;
  const opens = [];
  let openRequests = null;
  for (let i = 0; i <= OPENS; i++) {
    const c0 = counter?.snapshot();
    const t = performance.now();
    const again = await Engram.open({ embedder: null, storage: makeStorage() });
    const ms = performance.now() - t;
    if (i > 0) opens.push(ms); // the first open warms up
    if (counter) openRequests = diff(c0, counter.snapshot());
    const n = (await again.getAll({ limit: 1000 })).length;
    if (n !== total) throw new Error(`${name}: ${n} memories after reopen, expected ${total}`);
    await again.close();
  }
  const per = (counts, n) =>
    counts
      ? Object.entries(counts)
          .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
          .join(", ")
      : "—";
  console.log(`${name}:`);
  console.log(`  adds awaited one by one: ${awaited.toFixed(1)} adds/s; requests per add: ${per(perAdd, ADDS)}`);
  console.log(`  adds ${BURST} in flight: ${inFlight.toFixed(1)} adds/s; requests per add: ${per(perBurstAdd, BURST * BURSTS)}`);
  console.log(`  open of the ${total}-memory store, p50 of ${OPENS}: ${median(opens).toFixed(1)} ms; requests: ${openRequests ? JSON.stringify(openRequests) : "—"}`);
  return { awaited, inFlight, open: median(opens) };
}

const server = await startS3Server();
const dir = mkdtempSync(join(tmpdir(), "engram-bench-s3-"));
try {
  await createBucket(server, "engram-bench");
  const counter = countingFetch();
  const options = { endpoint: server.endpoint, bucket: "engram-bench", prefix: "bench/", credentials: server.credentials, fetch: counter.f };
  console.log(`storage-s3: ${ADDS} adds awaited, ${BURSTS} bursts of ${BURST}, ${OPENS} opens; S3 = moto_server (emulator) on loopback`);
  const s = await measure("s3 (moto)", () => s3(options), counter);
  const fsResult = await measure("NodeFSStorage strict", () => new NodeFSStorage(join(dir, "store")), null);
  const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
  console.log(`ratio s3 ÷ NodeFS: awaited ${ratio(s.awaited, fsResult.awaited)}, ${BURST} in flight ${ratio(s.inFlight, fsResult.inFlight)}, open ${ratio(s.open, fsResult.open)}`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
