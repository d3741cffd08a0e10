// PostgresStorage (engram-wasm/postgres) against NodeFSStorage on the same machine, through the
// public API with embedder null (storage, not embedding, is measured):
//   - adds/s, each add awaited before the next (one writer's latency), and with 32 adds in flight
//     (group commit: they share records, locks and round trips), and the statements each add sends;
//   - open of the store those adds wrote (a new adapter and Engram.open, median of --opens);
//   - open of a store of --memories memories (written with addMany in batches of --batch, one
//     change record each), as written (every record read and replayed) and after compact() (one
//     snapshot), median of --opens after a warm-up open.
// Postgres is measured on loopback and, for each --latency value above 0, through a delaying proxy
// (benches/latency-proxy.mjs: that many ms more per round trip), each ratio against loopback of the
// same run; loopback is compared with NodeFSStorage.
// Without --connection-string it starts its own PostgreSQL server (tests/js/pg-server.mjs: fsync
// off, so the numbers are round trips and server work, not the disk's flush; NodeFSStorage is
// measured "strict" and "relaxed" for the same reason).
// Statements are counted by a pg.Client subclass in the pg.Pool the adapter is given (built with
// the options the adapter uses for a pool of its own, one pool per adapter as it would make).
//
//   node benches/storage-remote.mjs [--adds 300] [--in-flight 32] [--opens 5] [--latency 0|MS[,MS…]]
//                                   [--memories 10000] [--batch 100] [--connection-string URL]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { postgres } from "engram-wasm/postgres";
import { startPostgres } from "../tests/js/pg-server.mjs";
import { startLatencyProxy } from "./latency-proxy.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const ADDS = Number(opt("--adds", "300"));
const IN_FLIGHT = Number(opt("--in-flight", "32"));
const OPENS = Number(opt("--opens", "5"));
const LATENCIES = opt("--latency", "0")
  .split(",")
  .map(Number)
  .filter((ms) => ms > 0);
const MEMORIES = Number(opt("--memories", "10000"));
const BATCH = Number(opt("--batch", "100"));

const server = opt("--connection-string", null) ? null : await startPostgres();
const connectionString = opt("--connection-string", null) ?? server.connectionString;
const scratch = mkdtempSync(join(tmpdir(), "engram-bench-remote-"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const run = Date.now().toString(36);
const content = (i) => `memory ${i}: the deploy window moved to ${i % 24}:00`;

// --- Statements, counted by kind ------------------------------------------------------------------

const KINDS = [
  ["lock", /pg_advisory_lock\(/],
  ["unlock", /pg_advisory_unlock\(/],
  ["loadRange", /^SELECT key, data/],
  ["load", /^SELECT data/],
  ["create", /DO NOTHING$/],
  ["save", /DO UPDATE/],
  ["remove", /^DELETE/],
  ["flush", /txid_current/],
];
const counts = {};
const countAll = () => Object.values(counts).reduce((a, b) => a + b, 0);
const snapshot = () => ({ ...counts, total: countAll() });
const diff = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] ?? 0)]));
/** Counts per operation as "kind n.nn, …" (total first). */
const per = (d, n) =>
  Object.entries(d)
    .filter(([, v]) => v > 0)
    .sort(([a], [b]) => (a === "total" ? -1 : b === "total" ? 1 : a.localeCompare(b)))
    .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
    .join(", ");

class CountingClient extends pg.Client {
  query(config, ...rest) {
    const text = typeof config === "string" ? config : config?.text;
    if (typeof text === "string") {
      const kind = KINDS.find(([, re]) => re.test(text))?.[0] ?? "setup";
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return super.query(config, ...rest);
  }
}

/** Where the server is: loopback, or a proxy adding `ms` per round trip. */
const routes = [{ name: "loopback", ms: 0, connectionString }];
const proxies = [];
for (const ms of LATENCIES) {
  const url = new URL(connectionString);
  const proxy = await startLatencyProxy({ host: url.hostname, port: Number(url.port || 5432), latencyMs: ms });
  proxies.push(proxy);
  url.hostname = "127.0.0.1";
  url.port = String(proxy.port);
  routes.push({ name: `+${ms} ms`, ms, connectionString: url.toString(), proxy });
}

/** A backend: make(store) → {storage, end()} (end after the Engram holding it is closed). */
const pgBackend = (route) => ({
  name: `PostgresStorage ${route.name}`,
  route,
  counted: true,
  make(store) {
    const pool = new pg.Pool({ connectionString: route.connectionString, connectionTimeoutMillis: 10_000, keepAlive: true, Client: CountingClient });
    pool.on("error", () => {});
    return { storage: postgres({ pool, store: `bench-${run}-${store}` }), end: () => pool.end() };
  },
});
const fsBackend = (name, options) => ({
  name,
  make: (store) => ({ storage: new NodeFSStorage(join(scratch, `${name.replace(/\W/g, "-")}-${store}`), options), end: async () => {} }),
});
const strict = fsBackend("NodeFSStorage strict");
const relaxed = fsBackend("NodeFSStorage relaxed", { durability: "relaxed" });

async function openWith(backend, store) {
  const { storage, end } = backend.make(store);
  const db = await Engram.open({ embedder: null, storage });
  return {
    db,
    async close() {
      await db.close();
      await end();
    },
  };
}

/** Adds/s of `n` adds, `inFlight` at a time (1: each awaited), and statements per add. */
async function addRate(backend, store, from, n, inFlight) {
  const { db, close } = await openWith(backend, store);
  const before = snapshot();
  const started = performance.now();
  for (let i = 0; i < n; i += inFlight) {
    await Promise.all(Array.from({ length: Math.min(inFlight, n - i) }, (_, j) => db.add({ content: content(from + i + j) })));
  }
  const seconds = (performance.now() - started) / 1000;
  const statements = diff(before, snapshot());
  await close();
  return { rate: n / seconds, statements };
}

/** Median ms of opening `store` (a new adapter each time, after `warmups` unclocked opens) and the statements of one open. */
async function openTime(backend, store, { warmups = 0, expect } = {}) {
  const times = [];
  let statements;
  for (let i = 0; i < warmups + OPENS; i++) {
    const before = snapshot();
    const started = performance.now();
    const { db, close } = await openWith(backend, store);
    const ms = performance.now() - started;
    statements = diff(before, snapshot());
    if (i >= warmups) times.push(ms);
    if (expect !== undefined) {
      const { memories } = await db.stats();
      if (memories !== expect) throw new Error(`${backend.name}: ${memories} memories after open, expected ${expect}`);
    }
    await close();
  }
  return { ms: median(times), statements };
}

const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

try {
  // Warm-up: the wasm module's first compile, and the server's first statements, are nobody's cost.
  const pgs = routes.map(pgBackend);
  await addRate(relaxed, "warmup", 0, 50, 1);
  await addRate(pgs[0], "warmup", 0, 50, 1);
  await addRate(pgs[0], "warmup", 50, 4 * IN_FLIGHT, IN_FLIGHT);
  console.log(`storage-remote: PostgreSQL ${server ? "started by the bench (fsync off)" : "at --connection-string"}; routes: ${routes.map((r) => r.name).join(", ")}`);

  // --- Adds ---------------------------------------------------------------------------------------
  console.log();
  console.log(
    `| storage | adds/s, 1 awaited (${ADDS}) | adds/s, ${IN_FLIGHT} in flight (${ADDS * 4}) | statements per add, awaited | per add, ${IN_FLIGHT} in flight | open of ${ADDS * 5} memories, ms (median of ${OPENS}) |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  const adds = new Map();
  for (const backend of [...pgs, strict, relaxed]) {
    const one = await addRate(backend, "seq", 0, ADDS, 1);
    const many = await addRate(backend, "seq", ADDS, ADDS * 4, IN_FLIGHT);
    const open = await openTime(backend, "seq");
    adds.set(backend, { one: one.rate, many: many.rate, open: open.ms });
    const stmts = (s, n) => (backend.counted ? per(s, n) : "—");
    console.log(
      `| ${backend.name} | ${one.rate.toFixed(0)} | ${many.rate.toFixed(0)} | ${stmts(one.statements, ADDS)} | ${stmts(many.statements, ADDS * 4)} | ${open.ms.toFixed(1)} |`,
    );
  }
  const base = adds.get(pgs[0]);
  const fs = adds.get(strict);
  console.log(
    `ratio Postgres loopback ÷ NodeFS strict: awaited ${ratio(base.one, fs.one)}, ${IN_FLIGHT} in flight ${ratio(base.many, fs.many)}, open ${ratio(base.open, fs.open)}`,
  );
  for (const backend of pgs.slice(1)) {
    const r = adds.get(backend);
    const aim = base.many / r.many <= 3 ? "within 3× (aim met)" : "more than 3× slower (aim missed)";
    console.log(
      `ratio Postgres ${backend.route.name} ÷ loopback: awaited ${ratio(r.one, base.one)}, ${IN_FLIGHT} in flight ${ratio(r.many, base.many)} (${aim}), open ${ratio(r.open, base.open)}`,
    );
    // Every acknowledged add waited for at least one round trip through the proxy, so by Little's
    // law no store does more than `in flight ÷ round trip` adds/s on this link, however fast its
    // loopback is: the fraction of that bound reached says what the latency left on the table.
    const { meanHoldMs } = await backend.route.proxy.stats();
    const roundTripMs = 2 * meanHoldMs;
    const bound = (inFlight) => (inFlight * 1000) / roundTripMs;
    console.log(
      `bound on ${backend.route.name} (the proxy's measured round trip, ${roundTripMs.toFixed(2)} ms): awaited ${bound(1).toFixed(0)} adds/s, reached ${ratio(r.one, bound(1))}; ${IN_FLIGHT} in flight ${bound(IN_FLIGHT).toFixed(0)} adds/s, reached ${ratio(r.many, bound(IN_FLIGHT))}; 3× of loopback would need ${ratio(base.many / 3, bound(IN_FLIGHT))} of it`,
    );
  }

  // --- Open of a large store --------------------------------------------------------------------
  console.log();
  const records = Math.ceil(MEMORIES / BATCH);
  console.log(`| storage | open of ${MEMORIES} memories as written (${records} records), ms | after compact(), ms | statements per open, as written / compacted |`);
  console.log("| --- | --- | --- | --- |");
  const big = new Map();
  for (const writer of [pgs[0], strict]) {
    const { db, close } = await openWith(writer, "big");
    const started = performance.now();
    for (let i = 0; i < MEMORIES; i += BATCH) {
      await db.addMany(Array.from({ length: Math.min(BATCH, MEMORIES - i) }, (_, j) => ({ content: content(i + j) })));
    }
    const writeSeconds = (performance.now() - started) / 1000;
    await close();
    const readers = writer === strict ? [strict] : pgs;
    const asWritten = [];
    for (const reader of readers) asWritten.push(await openTime(reader, "big", { warmups: 1, expect: MEMORIES }));
    const compacting = await openWith(writer, "big");
    await compacting.db.compact();
    await compacting.close();
    for (const [i, reader] of readers.entries()) {
      const compacted = await openTime(reader, "big", { warmups: 1, expect: MEMORIES });
      big.set(reader, { written: asWritten[i].ms, compacted: compacted.ms });
      const stmts = reader.counted ? `${per(asWritten[i].statements, 1)} / ${per(compacted.statements, 1)}` : "—";
      console.log(`| ${reader.name} | ${asWritten[i].ms.toFixed(1)} | ${compacted.ms.toFixed(1)} | ${stmts} |`);
    }
    console.error(`(${writer.name}: ${MEMORIES} memories written in ${writeSeconds.toFixed(1)} s)`);
  }
  const bigBase = big.get(pgs[0]);
  const bigFs = big.get(strict);
  console.log(`ratio Postgres loopback ÷ NodeFS strict: open as written ${ratio(bigBase.written, bigFs.written)}, after compact ${ratio(bigBase.compacted, bigFs.compacted)}`);
  for (const backend of pgs.slice(1)) {
    const r = big.get(backend);
    console.log(`ratio Postgres ${backend.route.name} ÷ loopback: open as written ${ratio(r.written, bigBase.written)}, after compact ${ratio(r.compacted, bigBase.compacted)}`);
  }
  for (const route of routes.slice(1)) {
    const s = await route.proxy.stats();
    console.log(`proxy ${route.name}: ${s.chunks} chunks held, mean ${s.meanHoldMs.toFixed(2)} ms each way (max ${s.maxHoldMs.toFixed(1)})`);
  }
} finally {
  for (const proxy of proxies) await proxy.stop();
  rmSync(scratch, { recursive: true, force: true });
  await server?.stop();
}
