// No acknowledged write is lost, through the package: writers whose lock does not exclude each other
// (worker threads, a lock that fails, an adapter without one, IndexedDB without Web Locks), storage
// that vanishes under a live store, saves and lock releases that fail after the write landed, and
// compaction (durable before it removes anything; a failing one reported once).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { pkgDir, rejectsWith } from "./helpers.mjs";
import { Engram, MemoryStorage } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-no-loss-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every `note <i> from <who>` for i < n is in the store, once. */
async function assertAll(db, writers, n) {
  const all = await db.getAll({ limit: 1000 });
  const contents = new Set(all.map((m) => m.content));
  assert.equal(all.length, contents.size, "no memory twice");
  const missing = writers.flatMap((who) => Array.from({ length: n }, (_, i) => `note ${i} from ${who}`)).filter((c) => !contents.has(c));
  assert.deepEqual(missing, [], `${missing.length} acknowledged adds lost`);
  assert.equal(all.length, writers.length * n);
}

/** Adds `note 0..n-1 from who`, each awaited, as a writer does. */
async function addNotes(db, who, n) {
  for (let i = 0; i < n; i++) await db.add({ content: `note ${i} from ${who}` });
}

/**
 * The adapter `inner` seen through another object: `lock` as given (or none), every write delayed
 * by a little, so two writers' commits interleave.
 */
function wrapped(inner, { lock } = {}) {
  const jitter = () => sleep(Math.random() * 3);
  const adapter = {
    load: (k) => inner.load(k),
    save: async (k, d) => {
      await jitter();
      return inner.save(k, d);
    },
    create: async (k, d) => {
      await jitter();
      return inner.create(k, d);
    },
    remove: (k) => inner.remove(k),
    loadRange: (p) => inner.loadRange(p),
    removeRange: (p) => inner.removeRange(p),
    flush: () => inner.flush(),
  };
  if (lock) adapter.lock = lock;
  return adapter;
}

test("a worker thread and the main thread adding 500 each to one directory lose nothing", async (t) => {
  const dir = tempDir(t);
  const source = `
    const { parentPort, workerData } = require("node:worker_threads");
    (async () => {
      const { Engram } = await import(workerData.main);
      const { NodeFSStorage } = await import(workerData.nodeFs);
      const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(workerData.dir, { durability: "relaxed" }), compactAfter: 64 });
      for (let i = 0; i < 500; i++) await db.add({ content: "note " + i + " from worker" });
      await db.close();
      parentPort.postMessage("done");
    })().catch((e) => parentPort.postMessage("failed: " + e.stack));`;
  const url = (f) => pathToFileURL(join(pkgDir, "dist", f)).href;
  const worker = new Promise((resolve, reject) => {
    const w = new Worker(source, { eval: true, workerData: { dir, main: url("engram.node.mjs"), nodeFs: url("engram.node-fs.mjs") } });
    w.once("message", resolve);
    w.once("error", reject);
  });
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), compactAfter: 64 });
  await addNotes(db, "main", 500);
  assert.equal(await worker, "done");
  await db.close();
  const reopened = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const all = await reopened.getAll({ limit: 1000 });
  assert.equal(all.length, 1000, "every acknowledged add from both threads");
  for (const who of ["main", "worker"]) {
    for (let i = 0; i < 500; i++)
      assert.ok(
        all.some((m) => m.content === `note ${i} from ${who}`),
        `note ${i} from ${who}`,
      );
  }
  await reopened.close();
});

test("writers whose lock excludes nothing (a stolen lock, a slow holder) lose nothing", async (t) => {
  const dir = tempDir(t);
  const noExclusion = async (fn) => fn();
  const open = () => Engram.open({ embedder: null, storage: wrapped(new NodeFSStorage(dir, { durability: "relaxed" }), { lock: noExclusion }), compactAfter: 5 });
  const [a, b] = [await open(), await open()];
  await Promise.all([addNotes(a, "a", 60), addNotes(b, "b", 60)]);
  await Promise.all([a.close(), b.close()]);
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  await assertAll(db, ["a", "b"], 60);
  await db.close();
});

test("an adapter without lock: concurrent writers lose nothing (its create keeps them apart)", async () => {
  const shared = new MemoryStorage();
  const open = () => Engram.open({ embedder: null, storage: wrapped(shared), compactAfter: 4 });
  const [a, b, c] = [await open(), await open(), await open()];
  await Promise.all([addNotes(a, "a", 40), addNotes(b, "b", 40), addNotes(c, "c", 40)]);
  const db = await Engram.open({ embedder: null, storage: shared });
  await assertAll(db, ["a", "b", "c"], 40);
});

test("an adapter with lock but without create still works: the core looks, then saves, under the lock", async () => {
  const shared = new MemoryStorage();
  const open = () => {
    const { create, ...withoutCreate } = wrapped(shared, { lock: (fn) => shared.lock(fn) });
    assert.equal(typeof create, "function");
    return Engram.open({ embedder: null, storage: withoutCreate, compactAfter: 4 });
  };
  const [a, b] = [await open(), await open()];
  await Promise.all([addNotes(a, "a", 40), addNotes(b, "b", 40)]);
  const db = await Engram.open({ embedder: null, storage: shared });
  await assertAll(db, ["a", "b"], 40);
});

test("IndexedDB without Web Locks: two tabs (two copies of the adapter module) lose nothing", async () => {
  const factory = new IDBFactory();
  const tab = async (name) => {
    // Each tab has its own module instance, so its in-process fallback lock is its own.
    const { IndexedDBStorage } = await import(new URL(`../../pkg-template/src/storage/indexeddb.js?tab=${name}`, import.meta.url).href);
    return Engram.open({ embedder: null, storage: new IndexedDBStorage("shared", { indexedDB: factory, IDBKeyRange }), compactAfter: 6 });
  };
  assert.equal(globalThis.navigator?.locks, undefined, "no Web Locks in Node");
  const [a, b] = [await tab("a"), await tab("b")];
  await Promise.all([addNotes(a, "a", 50), addNotes(b, "b", 50)]);
  await Promise.all([a.close(), b.close()]);
  const reader = await tab("reader");
  await assertAll(reader, ["a", "b"], 50);
  await reader.close();
});

test("a directory removed under a live store fails the next write with Storage, and nothing unreadable is acknowledged", async (t) => {
  const dir = tempDir(t);
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  await addNotes(db, "before", 3);
  rmSync(dir, { recursive: true, force: true });
  await rejectsWith(db.add({ content: "into a removed directory" }), "Storage");
  await rejectsWith(db.add({ content: "and again" }), "Storage");
  await db.close().catch(() => {});
  const reopened = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) }); // not Corrupt
  assert.equal((await reopened.stats()).memories, 0);
  await reopened.close();
});

test("an IndexedDB database deleted under a live store fails the next write with Storage", async () => {
  const factory = new IDBFactory();
  const { IndexedDBStorage } = await import("../../pkg-template/src/storage/indexeddb.js");
  const storage = () => new IndexedDBStorage("evicted", { indexedDB: factory, IDBKeyRange });
  const db = await Engram.open({ embedder: null, storage: storage() });
  await addNotes(db, "before", 3);
  await new Promise((resolve, reject) => {
    const request = factory.deleteDatabase("evicted");
    request.onsuccess = resolve;
    request.onerror = () => reject(request.error);
  });
  await rejectsWith(db.add({ content: "into a deleted database" }), "Storage");
  await db.close().catch(() => {});
  const reopened = await Engram.open({ embedder: null, storage: storage() }); // not Corrupt
  assert.equal((await reopened.stats()).memories, 0);
  await reopened.close();
});

test("a write that landed but whose save threw resolves, once", async () => {
  const inner = new MemoryStorage();
  let throwAfterNextWrite = false;
  const landThenThrow = (method) => async (k, d) => {
    const out = await inner[method](k, d);
    if (throwAfterNextWrite && k[1] === "chunk") {
      throwAfterNextWrite = false;
      throw new Error("the acknowledgement was lost (injected)");
    }
    return out;
  };
  const storage = { ...wrapped(inner), save: landThenThrow("save"), create: landThenThrow("create"), lock: (fn) => inner.lock(fn) };
  const db = await Engram.open({ embedder: null, storage });
  await db.add({ content: "first" });
  throwAfterNextWrite = true;
  const added = await db.add({ content: "landed anyway" });
  assert.equal(added.deduplicated, false);
  const reopened = await Engram.open({ embedder: null, storage: inner });
  assert.deepEqual((await reopened.getAll()).map((m) => m.content).sort(), ["first", "landed anyway"]);
});

test("a lock release that fails after a durable commit does not fail the add (no retry, no duplicate)", async () => {
  const inner = new MemoryStorage();
  let failRelease = false;
  const storage = {
    ...wrapped(inner),
    lock: async (fn) => {
      const out = await inner.lock(fn);
      if (failRelease) {
        failRelease = false;
        throw new Error("unlock failed (injected)");
      }
      return out;
    },
  };
  const db = await Engram.open({ embedder: null, storage });
  failRelease = true;
  const added = await db.add({ content: "committed before the release failed" });
  assert.equal(added.content, "committed before the release failed");
  assert.equal(added.repetitionCount, 0);
  const reopened = await Engram.open({ embedder: null, storage: inner });
  const all = await reopened.getAll();
  assert.equal(all.length, 1);
  assert.equal(all[0].repetitionCount, 0);
});

test("compaction makes its snapshot durable (adapter flush) before it removes anything", async () => {
  const inner = new MemoryStorage();
  const log = [];
  const storage = {
    ...wrapped(inner),
    save: async (k, d) => {
      log.push(`save ${k[1]}`);
      return inner.save(k, d);
    },
    remove: async (k) => {
      log.push(`remove ${k[1]}`);
      return inner.remove(k);
    },
    flush: async () => {
      log.push("flush");
      return inner.flush();
    },
  };
  const db = await Engram.open({ embedder: null, storage, compactAfter: 2 });
  for (let i = 0; i < 12; i++) await db.add({ content: `note ${i}` });
  await db.compact();
  assert.ok(log.includes("save snapshot") && log.includes("remove chunk"), log.join(", "));
  let durable = true;
  for (const entry of log) {
    if (entry === "save snapshot") durable = false;
    if (entry === "flush") durable = true;
    assert.ok(!entry.startsWith("remove") || durable, `a removal before the snapshot was flushed: ${log.join(", ")}`);
  }
});

test("a compaction that keeps failing is reported once and not retried on every write", async () => {
  const inner = new MemoryStorage();
  let snapshotSaves = 0;
  const storage = {
    ...wrapped(inner),
    save: async (k, d) => {
      if (k[1] === "snapshot") {
        snapshotSaves++;
        throw new Error("no room for a snapshot (injected)");
      }
      return inner.save(k, d);
    },
  };
  const reported = [];
  const db = await Engram.open({ embedder: null, storage, compactAfter: 2, onBackgroundError: (e) => reported.push(e) });
  await addNotes(db, "a", 60);
  assert.equal(reported.length, 1, "reported once");
  assert.equal(reported[0].code, "Storage");
  assert.ok(snapshotSaves <= 6, `backed off: ${snapshotSaves} snapshot saves in 60 writes`);
  const reopened = await Engram.open({ embedder: null, storage: inner });
  await assertAll(reopened, ["a"], 60);
});

test("records that are not genuine bytes (a Proxy of a Uint8Array) fail the call with Storage instead of hanging it", { timeout: 20_000 }, async () => {
  const inner = new MemoryStorage();
  const db = await Engram.open({ embedder: null, storage: inner });
  await db.add({ content: "stored" });
  const storage = {
    ...wrapped(inner),
    loadRange: async (prefix) => (await inner.loadRange(prefix)).map(({ key, data }) => ({ key, data: new Proxy(data, {}) })),
  };
  await rejectsWith(Engram.open({ embedder: null, storage }), "Storage");
});
