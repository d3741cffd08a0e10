// The shipped storage adapters (MemoryStorage, IndexedDBStorage, NodeFSStorage) against one
// conformance suite, plus what is particular to each: file layout, crash leftovers and the
// cross-process lock of NodeFSStorage, connection handling of IndexedDBStorage (on fake-indexeddb).
// Imports the sources directly: pkg/ need not be built.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Worker, threadId } from "node:worker_threads";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { EngramError } from "../../pkg-template/src/errors.js";
import { Mutex, isStorageFull, storageError } from "../../pkg-template/src/storage/adapter.js";
import { MemoryStorage } from "../../pkg-template/src/storage/memory.js";
import { IndexedDBStorage } from "../../pkg-template/src/storage/indexeddb.js";
import { NodeFSStorage, decodeSegment, encodeSegment } from "../../pkg-template/src/storage/node-fs.js";
import { encrypted } from "../../pkg-template/src/storage/encrypted.js";
import { TRICKY_KEYS, adapterConformance } from "../../pkg-template/src/storage/conformance.js";
import { deriveKey } from "../../pkg-template/src/encryption.js";

const nodeFsUrl = new URL("../../pkg-template/src/storage/node-fs.js", import.meta.url).href;
const run = promisify(execFile);
const bytes = (...b) => Uint8Array.from(b);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const scratch = mkdtempSync(join(tmpdir(), "engram-storage-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
const freshDir = () => join(scratch, `s${++counter}`);

async function rejectsWith(promise, code) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof EngramError, `an EngramError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, code, `code ${code}, got ${e.code}: ${e.message}`);
    assert.equal(e.name, code);
    return true;
  });
}

/** A plain Uint8Array holding `expected` (not a Buffer, not a view of something larger). */
function assertBytes(actual, expected, message) {
  assert.ok(actual instanceof Uint8Array, message ?? "a Uint8Array");
  assert.equal(Object.getPrototypeOf(actual), Uint8Array.prototype, "a plain Uint8Array");
  assert.deepEqual(Array.from(actual), Array.from(expected), message);
}

const keysOf = (records) => records.map((r) => r.key);
const passphraseKey = await deriveKey("conformance passphrase", new Uint8Array(16).fill(7), { iterations: 100_000 });

const adapters = [
  { name: "MemoryStorage", make: () => new MemoryStorage() },
  { name: "NodeFSStorage strict", make: () => new NodeFSStorage(freshDir()) },
  { name: "NodeFSStorage relaxed", make: () => new NodeFSStorage(freshDir(), { durability: "relaxed" }) },
  { name: "IndexedDBStorage relaxed (fake-indexeddb)", make: () => new IndexedDBStorage(`db${++counter}`, { indexedDB: new IDBFactory(), IDBKeyRange }) },
  { name: "IndexedDBStorage strict (fake-indexeddb)", make: () => new IndexedDBStorage(`db${++counter}`, { durability: "strict", indexedDB: new IDBFactory(), IDBKeyRange }) },
  // The same contract through encryption at rest (raw key bytes and a passphrase-derived key).
  { name: "encrypted(MemoryStorage)", make: () => encrypted(new MemoryStorage(), crypto.getRandomValues(new Uint8Array(32))) },
  { name: "encrypted(NodeFSStorage strict)", make: () => encrypted(new NodeFSStorage(freshDir()), passphraseKey) },
  {
    name: "encrypted(IndexedDBStorage) (fake-indexeddb)",
    make: () => encrypted(new IndexedDBStorage(`db${++counter}`, { indexedDB: new IDBFactory(), IDBKeyRange }), passphraseKey),
  },
];

// The suite shipped as engram-wasm/adapter-tests (storage/conformance.js); every shipped adapter has
// the optional methods, so none of its checks may be skipped.
for (const { name, make } of adapters) {
  describe(`${name}: conformance`, () => {
    for (const { name: check, run } of adapterConformance) {
      test(check, async () => assert.notEqual(await run(make), "skipped", "a shipped adapter has create, lock and flush"));
    }
  });
}

describe("error mapping", () => {
  test("ENOSPC / EDQUOT / QuotaExceededError → StorageFull; other failures → Storage; key and cause kept", () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    const e = storageError("save", ["doc", "x"], enospc);
    assert.ok(e instanceof EngramError);
    assert.equal(e.code, "StorageFull");
    assert.equal(e.name, "StorageFull");
    assert.equal(e.cause, enospc);
    assert.match(e.message, /save \["doc","x"\]/);
    assert.match(e.message, /no space left/);
    assert.equal(storageError("save", ["k"], Object.assign(new Error("quota"), { code: "EDQUOT" })).code, "StorageFull");
    const quota = new DOMException("The quota has been exceeded.", "QuotaExceededError");
    const q = storageError("save", ["k"], quota);
    assert.equal(q.code, "StorageFull");
    assert.match(q.message, /QuotaExceededError/);
    assert.equal(q.cause, quota);
    const denied = Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
    assert.equal(storageError("load", ["k"], denied).code, "Storage");
    assert.equal(storageError("flush", undefined, "weird").code, "Storage");
    assert.ok(isStorageFull({ code: "ENOSPC" }) && !isStorageFull({ code: "EIO" }) && !isStorageFull(null));
    const already = new EngramError("Corrupt", "x");
    assert.equal(storageError("load", ["k"], already), already);
  });

  test("Mutex: runs in call order, one at a time, and survives rejections", async () => {
    const m = new Mutex();
    const seen = [];
    const p1 = m.run(async () => {
      await sleep(10);
      seen.push(1);
    });
    const p2 = m.run(async () => {
      seen.push(2);
      throw new Error("x");
    });
    const p3 = m.run(() => {
      seen.push(3);
      return 3;
    });
    await p1;
    await assert.rejects(p2);
    assert.equal(await p3, 3);
    assert.deepEqual(seen, [1, 2, 3]);
    assert.ok(m.idle);
  });
});

describe("NodeFSStorage", () => {
  test("segment escaping is injective, canonical and file-name safe", () => {
    const samples = [...TRICKY_KEYS.flat(), "a", "Z", "-_", "com1", "LPT9", "conin$", "a.b", "🎉", "\uffff", "ÿ", "Ā"];
    const names = new Set();
    for (const s of samples) {
      const n = encodeSegment(s);
      assert.match(n, /^[a-z0-9_%\-uA-F]+$/);
      assert.ok(!n.startsWith("."), n);
      assert.doesNotMatch(n, /^(con|prn|aux|nul|com\d|lpt\d)$/i);
      assert.equal(decodeSegment(n), s);
      names.add(n.toLowerCase()); // distinct even on a case-insensitive file system
    }
    assert.equal(names.size, new Set(samples).size);
    assert.equal(encodeSegment(".."), "%2E%2E");
    assert.equal(encodeSegment("A/b"), "%41%2Fb");
    assert.equal(encodeSegment("con"), "%63on");
    assert.equal(encodeSegment("é€"), "%E9%u20AC");
    for (const bad of ["%61", "A", "%2e", ".x", "con", "%4", "%u41", "a.rec", "", "%zz"]) assert.equal(decodeSegment(bad), null, bad);
  });

  test("layout: segments are directories, the last one a .rec file; nothing escapes the directory", async () => {
    const parent = freshDir();
    const dir = join(parent, "store");
    const s = new NodeFSStorage(dir);
    await s.save(["doc", "snap"], bytes(1));
    await s.save(["doc"], bytes(2));
    assert.ok(existsSync(join(dir, "doc", "snap.rec")));
    assert.ok(existsSync(join(dir, "doc.rec")));
    for (const k of TRICKY_KEYS) await s.save(k, bytes(0));
    assert.deepEqual(readdirSync(parent), ["store"]);
    assert.equal(s.dir, dir);
  });

  test("a segment too long for a file name is InvalidInput", async () => {
    const s = new NodeFSStorage(freshDir());
    await rejectsWith(s.save(["x".repeat(201)], bytes(1)), "InvalidInput");
    await rejectsWith(s.load(["日".repeat(40)]), "InvalidInput");
    await s.save(["x".repeat(200)], bytes(1));
  });

  test("constructor checks its arguments; a file: URL works", async () => {
    assert.throws(
      () => new NodeFSStorage(""),
      (e) => e.code === "InvalidInput",
    );
    assert.throws(
      () => new NodeFSStorage(freshDir(), { durability: "fast" }),
      (e) => e.code === "InvalidInput",
    );
    assert.throws(
      () => new NodeFSStorage(freshDir(), { lockTimeoutMs: -1 }),
      (e) => e.code === "InvalidInput",
    );
    assert.throws(
      () => new NodeFSStorage(freshDir(), { durabilty: "strict" }),
      (e) => e.code === "InvalidInput",
    );
    const dir = freshDir();
    const s = new NodeFSStorage(pathToFileURL(dir));
    await s.save(["k"], bytes(5));
    assertBytes(await new NodeFSStorage(dir).load(["k"]), [5]);
    assert.equal(s.durability, "strict");
    assert.equal(new NodeFSStorage(dir, { durability: "relaxed" }).durability, "relaxed");
  });

  test("data persists across instances (a reopened store)", async () => {
    const dir = freshDir();
    const a = new NodeFSStorage(dir, { durability: "relaxed" });
    await a.save(["x", "y"], bytes(1, 2));
    await a.flush();
    const b = new NodeFSStorage(dir);
    assertBytes(await b.load(["x", "y"]), [1, 2]);
    assert.deepEqual(keysOf(await b.loadRange([])), [["x", "y"]]);
  });

  test("crash leftovers (temp files), the lock and foreign files are never records and survive removeRange([])", async () => {
    const dir = freshDir();
    const s = new NodeFSStorage(dir);
    await s.save(["doc", "a"], bytes(1));
    // What a crash between writing the temp file and the rename leaves behind:
    writeFileSync(join(dir, "doc", `.a.rec.tmp-12345-deadbeef0000`), "torn");
    writeFileSync(join(dir, "doc", `.b.rec.tmp-12345-deadbeef0001`), "never renamed");
    writeFileSync(join(dir, `.doc.rec.tmp-1-00`), "x");
    mkdirSync(join(dir, ".lock.stale-1-00"));
    writeFileSync(join(dir, "README.txt"), "not ours");
    writeFileSync(join(dir, "doc", "Upper.rec"), "not canonical");
    mkdirSync(join(dir, "Foreign"));
    writeFileSync(join(dir, "Foreign", "x.rec"), "inside a non-canonical directory");
    assert.deepEqual(keysOf(await s.loadRange([])), [["doc", "a"]]);
    assert.deepEqual(keysOf(await s.loadRange(["doc"])), [["doc", "a"]]);
    assert.equal(await s.load(["doc", "b"]), undefined);
    assertBytes(await s.load(["doc", "a"]), [1]);
    await s.save(["doc", "b"], bytes(2)); // a leftover temp file does not get in the way
    assertBytes(await s.load(["doc", "b"]), [2]);
    await s.lock(async () => {
      await s.removeRange([]);
      assert.ok(existsSync(join(dir, ".lock")), "removeRange([]) keeps the lock");
    });
    assert.deepEqual(await s.loadRange([]), []);
    assert.ok(existsSync(join(dir, "README.txt")));
    assert.ok(existsSync(join(dir, "Foreign", "x.rec")));
  });

  test("I/O failures reject with Storage naming the operation and key, with the cause", async () => {
    const file = join(freshDir() + "-file");
    writeFileSync(file, "a file where the store's directory should be");
    const s = new NodeFSStorage(file);
    await assert.rejects(s.save(["k"], bytes(1)), (e) => {
      assert.ok(e instanceof EngramError);
      assert.equal(e.code, "Storage");
      assert.match(e.message, /save \["k"\]/);
      assert.ok(e.cause && typeof e.cause.code === "string", "the fs error as cause");
      return true;
    });
    assert.equal(await s.load(["k"]), undefined); // nothing can be there
    assert.deepEqual(await s.loadRange([]), []);
  });

  test("two instances on one directory in one process serialize their locks", async () => {
    const dir = freshDir();
    const a = new NodeFSStorage(dir);
    const b = new NodeFSStorage(join(dir, ".", "..", `s${counter}`)); // same directory, spelled differently
    let inside = 0;
    let max = 0;
    const body = async () => {
      inside++;
      max = Math.max(max, inside);
      await sleep(5);
      inside--;
    };
    await Promise.all([a.lock(body), b.lock(body), a.lock(body), b.lock(body)]);
    assert.equal(max, 1);
    assert.ok(!existsSync(join(dir, ".lock")), "released");
  });

  test("lock across processes: child processes incrementing one counter lose no update", async () => {
    const dir = freshDir();
    const marker = join(scratch, `inside-${counter}`);
    const child = `
      const { NodeFSStorage } = await import(process.env.NODEFS_URL);
      const { open, unlink } = await import("node:fs/promises");
      const s = new NodeFSStorage(process.env.DIR, { durability: process.env.DURABILITY, lockTimeoutMs: 60000 });
      for (let i = 0; i < Number(process.env.N); i++) {
        await s.lock(async () => {
          await (await open(process.env.MARKER, "wx")).close(); // EEXIST if two holders overlap
          const v = await s.load(["counter"]);
          const n = v ? Number(new TextDecoder().decode(v)) : 0;
          await new Promise((r) => setTimeout(r, Math.random() * 2));
          await s.save(["counter"], new TextEncoder().encode(String(n + 1)));
          await unlink(process.env.MARKER);
        });
      }`;
    const N = 25;
    const children = ["strict", "relaxed", "strict"].map((durability) =>
      run(process.execPath, ["--input-type=module", "-e", child], {
        env: { ...process.env, NODEFS_URL: nodeFsUrl, DIR: dir, MARKER: marker, DURABILITY: durability, N: String(N) },
      }),
    );
    await Promise.all(children);
    const s = new NodeFSStorage(dir);
    assert.equal(new TextDecoder().decode(await s.load(["counter"])), String(3 * N));
    assert.ok(!existsSync(join(dir, ".lock")));
  });

  test("create across processes: of children creating the same keys at once, exactly one wins each", async () => {
    const dir = freshDir();
    const child = `
      const { NodeFSStorage } = await import(process.env.NODEFS_URL);
      const s = new NodeFSStorage(process.env.DIR, { durability: process.env.DURABILITY });
      const won = [];
      for (let i = 0; i < 40; i++) if (await s.create(["k", String(i)], new TextEncoder().encode(process.env.WHO))) won.push(i);
      console.log(JSON.stringify(won));`;
    const who = ["a", "b", "c"];
    const outs = await Promise.all(
      who.map((w, n) =>
        run(process.execPath, ["--input-type=module", "-e", child], {
          env: { ...process.env, NODEFS_URL: nodeFsUrl, DIR: dir, WHO: w, DURABILITY: n === 1 ? "relaxed" : "strict" },
        }),
      ),
    );
    const won = outs.map((o) => JSON.parse(o.stdout));
    const s = new NodeFSStorage(dir);
    for (let i = 0; i < 40; i++) {
      const winners = who.filter((_, n) => won[n].includes(i));
      assert.equal(winners.length, 1, `key ${i}: winners ${winners}`);
      assert.equal(new TextDecoder().decode(await s.load(["k", String(i)])), winners[0]);
    }
    assert.deepEqual(
      readdirSync(join(dir, "k")).filter((n) => n.startsWith(".")),
      [],
      "no temp files left",
    );
  });

  test("lock across worker threads: threads of one process incrementing one counter lose no update", async () => {
    const dir = freshDir();
    const source = `
      const { parentPort, workerData } = require("node:worker_threads");
      import(workerData.url).then(async ({ NodeFSStorage }) => {
        const s = new NodeFSStorage(workerData.dir, { lockTimeoutMs: 60000 });
        for (let i = 0; i < workerData.n; i++) {
          await s.lock(async () => {
            const v = await s.load(["counter"]);
            const n = v ? Number(new TextDecoder().decode(v)) : 0;
            await new Promise((r) => setTimeout(r, Math.random() * 2));
            await s.save(["counter"], new TextEncoder().encode(String(n + 1)));
          });
        }
        parentPort.postMessage("done");
      });`;
    const N = 25;
    const workers = [0, 1, 2].map(
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker(source, { eval: true, workerData: { url: nodeFsUrl, dir, n: N } });
          w.once("message", resolve);
          w.once("error", reject);
        }),
    );
    await Promise.all(workers);
    const s = new NodeFSStorage(dir);
    assert.equal(new TextDecoder().decode(await s.load(["counter"])), String(3 * N));
    assert.ok(!existsSync(join(dir, ".lock")));
  });

  test("a slow holder in another process (holding longer than an owner-less lock may live) is waited for, never taken over", async () => {
    const dir = freshDir();
    const marker = join(scratch, `slow-${counter}`);
    const child = `
      const { NodeFSStorage } = await import(process.env.NODEFS_URL);
      const { open, unlink } = await import("node:fs/promises");
      const s = new NodeFSStorage(process.env.DIR);
      await s.lock(async () => {
        await (await open(process.env.MARKER, "wx")).close();
        console.log("holding");
        await new Promise((r) => setTimeout(r, 2500));
        await unlink(process.env.MARKER);
      });`;
    const holder = spawn(process.execPath, ["--input-type=module", "-e", child], {
      env: { ...process.env, NODEFS_URL: nodeFsUrl, DIR: dir, MARKER: marker },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => holder.on("exit", resolve));
    await new Promise((resolve) => holder.stdout.on("data", (d) => String(d).includes("holding") && resolve()));
    const s = new NodeFSStorage(dir, { lockTimeoutMs: 30_000 });
    const overlapped = await s.lock(async () => existsSync(marker));
    assert.equal(overlapped, false, "the lock was taken while the slow holder still held it");
    assert.equal(await exited, 0);
  });

  const writeLock = (dir, owner) => {
    mkdirSync(join(dir, ".lock"), { recursive: true });
    writeFileSync(join(dir, ".lock", "owner"), JSON.stringify({ hostname: hostname(), nonce: "0123456789abcdef", acquiredAt: Date.now(), ...owner }));
  };

  test("a lock left by a dead process is taken over", async () => {
    const dir = freshDir();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid; // exited and reaped
    writeLock(dir, { pid: dead });
    const s = new NodeFSStorage(dir, { lockTimeoutMs: 5000 });
    const t0 = Date.now();
    assert.equal(await s.lock(async () => "got it"), "got it");
    assert.ok(Date.now() - t0 < 2000, "without waiting for the timeout");
    assert.ok(!existsSync(join(dir, ".lock")));
    assert.deepEqual(readdirSync(dir), [], "the stale lock is gone, not set aside");
  });

  test("a lock of this process that no live call holds (a failed release) is taken over", async () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.pid });
    assert.equal(await new NodeFSStorage(dir, { lockTimeoutMs: 5000 }).lock(async () => 1), 1);
  });

  test("a lock of another thread of this process is waited for, never taken over", async () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.pid, threadId: threadId + 1 });
    await rejectsWith(
      new NodeFSStorage(dir, { lockTimeoutMs: 150 }).lock(async () => 1),
      "Storage",
    );
    assert.ok(existsSync(join(dir, ".lock", "owner")), "left alone");
  });

  test("a lock from another PID namespace (a container sharing the volume and host name) is not judged by its pid", async () => {
    const dir = freshDir();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid; // no such process here; maybe alive there
    writeLock(dir, { pid: dead, pidNamespace: "pid:[1]" });
    await rejectsWith(
      new NodeFSStorage(dir, { lockTimeoutMs: 150 }).lock(async () => 1),
      "Storage",
    );
    assert.ok(existsSync(join(dir, ".lock", "owner")), "left alone");
  });

  test("a held lock is one file that names its owner from the moment it exists", async () => {
    const dir = freshDir();
    const s = new NodeFSStorage(dir);
    const owner = await s.lock(async () => JSON.parse(readFileSync(join(dir, ".lock"), "utf8")));
    assert.equal(owner.pid, process.pid);
    assert.equal(owner.threadId, threadId);
    assert.equal(owner.hostname, hostname());
    assert.equal(typeof owner.nonce, "string");
    assert.deepEqual(readdirSync(dir), [], "released, nothing left beside it");
  });

  test("a lock taken before the machine booted is taken over even if its pid is alive now", async () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.ppid, acquiredAt: 0 });
    assert.equal(await new NodeFSStorage(dir, { lockTimeoutMs: 5000 }).lock(async () => 1), 1);
  });

  test("a lock directory whose holder died before writing its owner is taken over once it is old", async () => {
    const dir = freshDir();
    mkdirSync(join(dir, ".lock"), { recursive: true });
    await rejectsWith(
      new NodeFSStorage(dir, { lockTimeoutMs: 100 }).lock(async () => 1),
      "Storage",
    ); // young: wait
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, ".lock"), old, old);
    assert.equal(await new NodeFSStorage(dir, { lockTimeoutMs: 5000 }).lock(async () => 1), 1);
  });

  test("a lock held by a live process (or another host) is waited for, then rejected with Storage naming the holder", async () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.ppid });
    const s = new NodeFSStorage(dir, { lockTimeoutMs: 150 });
    let ran = false;
    const t0 = Date.now();
    await assert.rejects(
      s.lock(async () => {
        ran = true;
      }),
      (e) => {
        assert.ok(e instanceof EngramError);
        assert.equal(e.code, "Storage");
        assert.match(e.message, new RegExp(`pid ${process.ppid} on host `));
        assert.match(e.message, /\.lock/);
        return true;
      },
    );
    assert.ok(!ran);
    assert.ok(Date.now() - t0 >= 140);
    assert.ok(existsSync(join(dir, ".lock", "owner")), "left alone");

    const other = freshDir();
    writeLock(other, { pid: 1, hostname: `not-${hostname()}` });
    await rejectsWith(
      new NodeFSStorage(other, { lockTimeoutMs: 50 }).lock(async () => 1),
      "Storage",
    );
  });

  test("a lock released while waiting is acquired", async () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.ppid });
    setTimeout(() => rmSync(join(dir, ".lock"), { recursive: true, force: true }), 100);
    assert.equal(await new NodeFSStorage(dir, { lockTimeoutMs: 5000 }).lock(async () => "free"), "free");
  });

  test("relaxed flush copes with records removed since they were written", async () => {
    const dir = freshDir();
    const s = new NodeFSStorage(dir, { durability: "relaxed" });
    await s.save(["a", "b", "c"], bytes(1));
    await s.save(["x"], bytes(2));
    await s.removeRange(["a"]);
    await s.flush();
    assert.deepEqual(keysOf(await s.loadRange([])), [["x"]]);
  });
});

/** An IDBFactory that records the options of every transaction and can make writes fail. */
function spyFactory() {
  const real = new IDBFactory();
  const spy = { transactions: [], failWith: null };
  spy.factory = {
    open(...args) {
      const request = real.open(...args);
      request.addEventListener("success", () => {
        const db = request.result;
        const transaction = db.transaction.bind(db);
        db.transaction = (stores, mode, options) => {
          spy.transactions.push({ mode, options });
          const tx = transaction(stores, mode, options);
          if (spy.failWith && mode === "readwrite") {
            const error = spy.failWith;
            Object.defineProperty(tx, "error", { get: () => error });
            queueMicrotask(() => tx.abort());
          }
          return tx;
        };
      });
      return request;
    },
    deleteDatabase: (...args) => real.deleteDatabase(...args),
  };
  spy.real = real;
  return spy;
}

describe("IndexedDBStorage", () => {
  test("write transactions carry the durability; flush commits with durability strict", async () => {
    const spy = spyFactory();
    const s = new IndexedDBStorage("d", { indexedDB: spy.factory, IDBKeyRange });
    await s.save(["a"], bytes(1));
    await s.load(["a"]);
    await s.flush();
    assert.deepEqual(
      spy.transactions.map((t) => [t.mode, t.options?.durability]),
      [
        ["readwrite", "relaxed"],
        ["readonly", undefined],
        ["readwrite", "strict"],
      ],
    );
    assert.deepEqual(keysOf(await s.loadRange([])), [["a"]], "flush's marker is no record");
    await s.removeRange([]);
    await s.flush();
    assert.deepEqual(await s.loadRange([]), []);
    const strict = new IndexedDBStorage("d2", { durability: "strict", indexedDB: spy.factory, IDBKeyRange });
    await strict.save(["a"], bytes(1));
    assert.equal(spy.transactions.at(-1).options.durability, "strict");
    assert.equal(strict.durability, "strict");
    assert.equal(strict.dbName, "d2");
    await s.close();
    await strict.close();
  });

  test("a QuotaExceededError abort rejects with StorageFull; other aborts with Storage", async () => {
    const spy = spyFactory();
    const s = new IndexedDBStorage("q", { indexedDB: spy.factory, IDBKeyRange });
    await s.save(["ok"], bytes(1));
    spy.failWith = new DOMException("The quota has been exceeded.", "QuotaExceededError");
    await assert.rejects(s.save(["big"], bytes(1, 2, 3)), (e) => {
      assert.ok(e instanceof EngramError);
      assert.equal(e.code, "StorageFull");
      assert.match(e.message, /save \["big"\]/);
      assert.equal(e.cause, spy.failWith);
      return true;
    });
    spy.failWith = new DOMException("disk I/O", "UnknownError");
    await rejectsWith(s.remove(["ok"]), "Storage");
    spy.failWith = null;
    assert.deepEqual(keysOf(await s.loadRange([])), [["ok"]], "the aborted writes left nothing");
    await s.close();
  });

  test("versionchange closes the connection so another tab's upgrade is not blocked; the next call fails clearly", async () => {
    const factory = new IDBFactory();
    const s = new IndexedDBStorage("v", { indexedDB: factory, IDBKeyRange });
    await s.save(["a"], bytes(1));
    let blocked = false;
    const upgraded = await new Promise((resolve, reject) => {
      const request = factory.open("v", 2);
      request.onblocked = () => {
        blocked = true;
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    assert.ok(!blocked, "the upgrade was not blocked");
    assert.equal(upgraded.version, 2);
    upgraded.close();
    await assert.rejects(s.load(["a"]), (e) => e instanceof EngramError && e.code === "Storage" && /VersionError/.test(e.message));
  });

  test("deleting the database from elsewhere is not blocked either, and the store reopens empty", async () => {
    const factory = new IDBFactory();
    const s = new IndexedDBStorage("del", { indexedDB: factory, IDBKeyRange });
    await s.save(["a"], bytes(1));
    await new Promise((resolve, reject) => {
      const request = factory.deleteDatabase("del");
      request.onsuccess = resolve;
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error("blocked"));
    });
    assert.equal(await s.load(["a"]), undefined);
    await s.save(["b"], bytes(2));
    assert.deepEqual(keysOf(await s.loadRange([])), [["b"]]);
    await s.close();
  });

  test("a database that is not Engram's, or no IndexedDB at all, rejects with Storage", async () => {
    const factory = new IDBFactory();
    await new Promise((resolve, reject) => {
      const request = factory.open("foreign", 1);
      request.onupgradeneeded = () => request.result.createObjectStore("other");
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    const s = new IndexedDBStorage("foreign", { indexedDB: factory, IDBKeyRange });
    await assert.rejects(s.load(["a"]), (e) => e.code === "Storage" && /no "records" object store/.test(e.message));
    if (globalThis.indexedDB === undefined) {
      await assert.rejects(new IndexedDBStorage("x").load(["a"]), (e) => e.code === "Storage" && /not available/.test(e.message));
    }
  });

  test("constructor checks its arguments", () => {
    for (const [name, options] of [
      ["", {}],
      [1, {}],
      ["x", { durability: "eventual" }],
      ["x", { indexedDB: {} }],
      ["x", { durabilty: "strict" }],
      ["x", null],
    ]) {
      assert.throws(
        () => new IndexedDBStorage(name, options),
        (e) => e instanceof EngramError && e.code === "InvalidInput",
        JSON.stringify([name, options]),
      );
    }
    assert.equal(new IndexedDBStorage().dbName, "engram");
    assert.equal(new IndexedDBStorage().durability, "relaxed");
  });

  test("two instances on one database name serialize their locks without Web Locks", async () => {
    if (globalThis.navigator?.locks) return; // then the Web Locks path below is the real one
    const factory = new IDBFactory();
    const a = new IndexedDBStorage("l", { indexedDB: factory, IDBKeyRange });
    const b = new IndexedDBStorage("l", { indexedDB: factory, IDBKeyRange });
    let inside = 0;
    let max = 0;
    const body = async () => {
      inside++;
      max = Math.max(max, inside);
      await sleep(5);
      inside--;
    };
    await Promise.all([a.lock(body), b.lock(body), a.lock(body)]);
    assert.equal(max, 1);
  });

  test("with Web Locks, lock is an exclusive request on engram:<dbName>", async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    const calls = [];
    let refuse = false;
    const locks = {
      async request(name, options, callback) {
        calls.push({ name, mode: options.mode });
        if (refuse) throw new DOMException("no locks here", "SecurityError");
        return callback({ name, mode: options.mode });
      },
    };
    Object.defineProperty(globalThis, "navigator", { value: { locks }, configurable: true, writable: true });
    try {
      const s = new IndexedDBStorage("web", { indexedDB: new IDBFactory(), IDBKeyRange });
      assert.equal(await s.lock(async () => 42), 42);
      assert.deepEqual(calls, [{ name: "engram:web", mode: "exclusive" }]);
      const boom = new Error("boom");
      await assert.rejects(
        s.lock(async () => {
          throw boom;
        }),
        (e) => e === boom,
      );
      refuse = true;
      await rejectsWith(
        s.lock(async () => 1),
        "Storage",
      );
    } finally {
      if (saved) Object.defineProperty(globalThis, "navigator", saved);
      else delete globalThis.navigator;
    }
  });
});

test("EngramError is one class across bundles: errors.js reuses the registered class", async () => {
  // A second copy of errors.js (as a separate bundle would carry) must hand out the same class.
  const copy = await import(`../../pkg-template/src/errors.js?copy=${Date.now()}`);
  assert.equal(copy.EngramError, EngramError);
  assert.ok(new copy.EngramError("Storage", "x") instanceof EngramError);
});
