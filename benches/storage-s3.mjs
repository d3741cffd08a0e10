// engram-wasm/s3 against NodeFSStorage (strict), in the same run: persisted adds/s (awaited one by
// one, and 32 in flight), S3 requests per add (by kind), and the open of the store written (p50 of
// a few opens in this process, after a warm-up). Then the open of a store of --memories memories
// (written with addMany in batches of --batch, one change record each), as written (every record
// read, one GET each) and after compact() (one snapshot), p50 of --opens after a warm-up open.
// The S3 server is moto's (an emulator, in Python, on loopback: tests/js/s3-server.mjs), so its
// numbers are the adapter's request pattern plus moto's own cost per request, not a cloud bucket's
// latency. For each --latency value above 0 the same is measured through a delaying proxy
// (benches/latency-proxy.mjs, the adapter's endpoint: that many ms more per round trip), each
// ratio against loopback of the same run; loopback is compared with NodeFSStorage.
//
//   node benches/storage-s3.mjs [--adds 100] [--burst 32] [--bursts 6] [--opens 5] [--latency 0|MS[,MS…]]
//                               [--memories 10000] [--batch 100]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { s3 } from "engram-wasm/s3";
import { createBucket, startS3Server } from "../tests/js/s3-server.mjs";
import { startLatencyProxy } from "./latency-proxy.mjs";

const args = process.argv.slice(2);
const arg = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const opt = (name, dflt) => Number(arg(name) ?? dflt);
const ADDS = opt("--adds", 100);
const BURST = opt("--burst", 32);
const BURSTS = opt("--bursts", 6);
const OPENS = opt("--opens", 5);
const LATENCIES = (arg("--latency") ?? "0")
  .split(",")
  .map(Number)
  .filter((ms) => ms > 0);
const MEMORIES = opt("--memories", 10000);
const BATCH = opt("--batch", 100);

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
const per = (counts, n) =>
  counts
    ? Object.entries(counts)
        .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
        .join(", ")
    : "—";

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
  const { ms: open, requests: openRequests } = await timeOpens(name, makeStorage, counter, total);
  console.log(`${name}:`);
  console.log(`  adds awaited one by one: ${awaited.toFixed(1)} adds/s; requests per add: ${per(perAdd, ADDS)}`);
  console.log(`  adds ${BURST} in flight: ${inFlight.toFixed(1)} adds/s; requests per add: ${per(perBurstAdd, BURST * BURSTS)}`);
  console.log(`  open of the ${total}-memory store, p50 of ${OPENS}: ${open.toFixed(1)} ms; requests: ${openRequests ? JSON.stringify(openRequests) : "—"}`);
  return { awaited, inFlight, open };
}

/**
 * p50 ms of Engram.open on a new adapter (after a warm-up open) and the requests of one open; each
 * open must find `expected` memories.
 */
async function timeOpens(name, makeStorage, counter, expected) {
  const opens = [];
  let requests = null;
  for (let i = 0; i <= OPENS; i++) {
    const c0 = counter?.snapshot();
    const t = performance.now();
    const db = await Engram.open({ embedder: null, storage: makeStorage() });
    const ms = performance.now() - t;
    if (i > 0) opens.push(ms); // the first open warms up
    if (counter) requests = diff(c0, counter.snapshot());
    const { memories } = await db.stats();
    if (memories !== expected) throw new Error(`${name}: ${memories} memories after open, expected ${expected}`);
    await db.close();
  }
  return { ms: median(opens), requests };
}

/** Writes MEMORIES memories in addMany batches of BATCH; seconds taken. */
async function writeLarge(storage) {
  const db = await Engram.open({ embedder: null, storage });
  const t0 = performance.now();
  for (let i = 0; i < MEMORIES; i += BATCH) await db.addMany(Array.from({ length: Math.min(BATCH, MEMORIES - i) }, (_, j) => ({ content: sentence(i + j) })));
  const seconds = (performance.now() - t0) / 1000;
  await db.close();
  return seconds;
}

async function compactStore(storage) {
  const db = await Engram.open({ embedder: null, storage });
  await db.compact();
  await db.close();
}

const server = await startS3Server();
const dir = mkdtempSync(join(tmpdir(), "engram-bench-s3-"));
const proxies = [];
try {
  await createBucket(server, "engram-bench");
  const counter = countingFetch();
  const routes = [{ name: "loopback", ms: 0, endpoint: server.endpoint }];
  for (const ms of LATENCIES) {
    const url = new URL(server.endpoint);
    const proxy = await startLatencyProxy({ host: url.hostname, port: Number(url.port), latencyMs: ms });
    proxies.push(proxy);
    routes.push({ name: `+${ms} ms`, ms, endpoint: `http://127.0.0.1:${proxy.port}`, proxy });
  }
  const options = (route, prefix) => ({ endpoint: route.endpoint, bucket: "engram-bench", prefix, credentials: server.credentials, fetch: counter.f });
  console.log(`storage-s3: ${ADDS} adds awaited, ${BURSTS} bursts of ${BURST}, ${OPENS} opens; S3 = moto_server (emulator) on ${routes.map((r) => r.name).join(", ")}`);
  // Warm-up: moto's first requests of each kind (and the wasm compile) are nobody's cost.
  const warm = await Engram.open({ embedder: null, storage: s3(options(routes[0], "warmup/")) });
  for (let i = 0; i < 10; i++) await warm.add({ content: sentence(i) });
  await Promise.all(Array.from({ length: BURST }, (_, j) => warm.add({ content: sentence(10 + j) })));
  await warm.close();
  await (await Engram.open({ embedder: null, storage: s3(options(routes[0], "warmup/")) })).close();
  const results = [];
  for (const [i, route] of routes.entries()) results.push(await measure(`s3 (moto) ${route.name}`, () => s3(options(route, `bench-${i}/`)), counter));
  const fsResult = await measure("NodeFSStorage strict", () => new NodeFSStorage(join(dir, "store")), null);
  const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
  const [s] = results;
  console.log(`ratio s3 ÷ NodeFS: awaited ${ratio(s.awaited, fsResult.awaited)}, ${BURST} in flight ${ratio(s.inFlight, fsResult.inFlight)}, open ${ratio(s.open, fsResult.open)}`);
  for (const [i, route] of routes.entries()) {
    if (i === 0) continue;
    const r = results[i];
    const aim = s.inFlight / r.inFlight <= 3 ? "within 3× (aim met)" : "more than 3× slower (aim missed)";
    console.log(
      `ratio s3 ${route.name} ÷ loopback: awaited ${ratio(r.awaited, s.awaited)}, ${BURST} in flight ${ratio(r.inFlight, s.inFlight)} (${aim}), open ${ratio(r.open, s.open)}`,
    );
  }

  // --- Open of a large store (written over loopback, opened over every route) --------------------
  console.log();
  const records = Math.ceil(MEMORIES / BATCH);
  const s3Write = await writeLarge(s3(options(routes[0], "big/")));
  const fsWrite = await writeLarge(new NodeFSStorage(join(dir, "big")));
  console.log(`open of ${MEMORIES} memories (written in ${records} records: s3 ${s3Write.toFixed(1)} s, NodeFS ${fsWrite.toFixed(1)} s), p50 of ${OPENS}:`);
  const written = routes.map(() => null);
  for (const [i, route] of routes.entries()) written[i] = await timeOpens(route.name, () => s3(options(route, "big/")), counter, MEMORIES);
  const fsWritten = await timeOpens("NodeFS", () => new NodeFSStorage(join(dir, "big")), null, MEMORIES);
  await compactStore(s3(options(routes[0], "big/")));
  await compactStore(new NodeFSStorage(join(dir, "big")));
  const compacted = routes.map(() => null);
  for (const [i, route] of routes.entries()) compacted[i] = await timeOpens(route.name, () => s3(options(route, "big/")), counter, MEMORIES);
  const fsCompacted = await timeOpens("NodeFS", () => new NodeFSStorage(join(dir, "big")), null, MEMORIES);
  for (const [i, route] of routes.entries()) {
    console.log(
      `  s3 (moto) ${route.name}: as written ${written[i].ms.toFixed(1)} ms (requests ${JSON.stringify(written[i].requests)}); after compact() ${compacted[i].ms.toFixed(1)} ms (requests ${JSON.stringify(compacted[i].requests)})`,
    );
  }
  console.log(`  NodeFSStorage strict: as written ${fsWritten.ms.toFixed(1)} ms; after compact() ${fsCompacted.ms.toFixed(1)} ms`);
  console.log(`ratio s3 ÷ NodeFS, open of ${MEMORIES}: as written ${ratio(written[0].ms, fsWritten.ms)}, after compact ${ratio(compacted[0].ms, fsCompacted.ms)}`);
  for (const [i, route] of routes.entries()) {
    if (i === 0) continue;
    console.log(
      `ratio s3 ${route.name} ÷ loopback, open of ${MEMORIES}: as written ${ratio(written[i].ms, written[0].ms)}, after compact ${ratio(compacted[i].ms, compacted[0].ms)}`,
    );
  }
  for (const route of routes.slice(1)) {
    const st = await route.proxy.stats();
    console.log(`proxy ${route.name}: ${st.chunks} chunks held, mean ${st.meanHoldMs.toFixed(2)} ms each way (max ${st.maxHoldMs.toFixed(1)})`);
  }
} finally {
  for (const proxy of proxies) await proxy.stop();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
