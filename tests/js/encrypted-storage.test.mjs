// Encryption at rest through the package: what reaches the wrapped adapter (no plaintext, no
// plaintext key names, a fresh nonce per record), records bound to their key, the wrong key as a
// typed Corrupt error (also from Engram.open), deriveKey and encryptBytes / decryptBytes, and the
// no-loss scenarios of no-silent-loss.test.mjs / persistence.test.mjs over encrypted adapters.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { documentedOutput, readmeSnippet, rejectsWith, runInProject } from "./helpers.mjs";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { Engram, EngramError, IndexedDBStorage, MemoryStorage, decryptBytes, deriveKey, encryptBytes, encrypted } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

const utf8 = new TextEncoder();
const randomKey = () => crypto.getRandomValues(new Uint8Array(32));
const SALT = new Uint8Array(16).fill(3);

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-encrypted-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** True when `needle` occurs in `hay` as bytes. */
function contains(hay, needle) {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

async function corrupt(promise, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof EngramError, `an EngramError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, "Corrupt", `Corrupt, got ${e.code}: ${e.message}`);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test("the wrapped adapter sees neither the data nor the key names, and every save gets a fresh nonce", async () => {
  const inner = new MemoryStorage();
  const s = encrypted(inner, randomKey());
  const secret = utf8.encode("the vault code is 4711");
  await s.save(["engram", "chunk", "00000000000000000001"], secret);
  await s.save(["engram", "chunk", "00000000000000000002"], secret);
  const stored = await inner.loadRange([]);
  for (const { key, data } of stored) {
    assert.ok(!contains(data, secret) && !contains(data, utf8.encode('engram"')) && !contains(data, utf8.encode("chunk")), `plaintext in ${key}`);
    assert.ok(
      key.every((segment) => !["engram", "chunk"].includes(segment) && !segment.includes("0000000")),
      `a plaintext name in ${JSON.stringify(key)}`,
    );
  }
  const chunks = stored.filter((r) => r.key.length === 4);
  assert.equal(chunks.length, 2);
  assert.deepEqual(chunks[0].key.slice(0, 3), chunks[1].key.slice(0, 3), "a shared prefix stays shared");
  assert.notDeepEqual(Array.from(chunks[0].data.subarray(0, 13)), Array.from(chunks[1].data.subarray(0, 13)), "different nonces");
  await s.save(["engram", "chunk", "00000000000000000001"], secret);
  const changed = [];
  for (const { key, data } of chunks) if (Array.from(await inner.load(key)).join() !== Array.from(data).join()) changed.push(key);
  assert.equal(changed.length, 1, "re-saving the same bytes encrypts afresh (and touches only its own record)");
  assert.deepEqual(Array.from(await s.load(["engram", "chunk", "00000000000000000001"])), Array.from(secret));
});

test("a record moved to another key, or changed by one bit, is Corrupt rather than data", async () => {
  const inner = new MemoryStorage();
  const s = encrypted(inner, randomKey());
  await s.save(["a"], utf8.encode("first"));
  await s.save(["b"], utf8.encode("second"));
  const [r0, r1] = (await inner.loadRange([])).filter((r) => r.key.length === 2);
  /** Loads both records: the one whose stored bytes were replaced must be Corrupt, the other intact. */
  const exactlyOneCorrupt = async () => {
    const out = await Promise.allSettled([s.load(["a"]), s.load(["b"])]);
    const failed = out.filter((r) => r.status === "rejected");
    assert.equal(failed.length, 1, JSON.stringify(out.map((r) => r.status)));
    assert.equal(failed[0].reason.code, "Corrupt");
    assert.match(failed[0].reason.message, /key may be wrong, or the data was damaged or moved/);
    const kept = out.find((r) => r.status === "fulfilled").value;
    assert.ok(["first", "second"].includes(new TextDecoder().decode(kept)));
  };
  await inner.save(r1.key, r0.data); // r0's record copied into r1's place
  await exactlyOneCorrupt();
  await corrupt(s.loadRange([]), /cannot be decrypted/);
  await inner.save(r1.key, r1.data);
  const flipped = r0.data.slice();
  flipped[flipped.length - 1] ^= 1;
  await inner.save(r0.key, flipped);
  await exactlyOneCorrupt();
  await inner.save(r0.key, r0.data);
  assert.deepEqual(
    (await s.loadRange([])).map((r) => new TextDecoder().decode(r.data)),
    ["first", "second"],
    "restored, both read again",
  );
});

test("a record copied in from another store under the same key and name is Corrupt, never shown as this store's", async () => {
  // Two stores, one host key: the names and the sealing key are the same, only the store ids differ.
  const key = randomKey();
  const [innerA, innerB] = [new MemoryStorage(), new MemoryStorage()];
  const a = await Engram.open({ embedder: null, storage: encrypted(innerA, key), idSeed: 1 });
  const b = await Engram.open({ embedder: null, storage: encrypted(innerB, key), idSeed: 2 });
  for (let i = 0; i < 12; i++) {
    await a.add({ content: `store A's memory ${i}` });
    await b.add({ content: `store B's memory ${i}` });
  }
  await a.close();
  await b.close();
  const recordsA = await innerA.loadRange([]);
  const recordsB = await innerB.loadRange([]);
  const dataNames = (rs) => rs.filter((r) => r.key[0] === "engram-encrypted").map((r) => JSON.stringify(r.key));
  const shared = dataNames(recordsB).filter((n) => dataNames(recordsA).includes(n));
  assert.ok(shared.length >= 12, `same names in both stores: ${shared.length}`);
  let refused = 0;
  for (const name of shared) {
    // One substitution at a time, A restored in between.
    const fromB = recordsB.find((r) => JSON.stringify(r.key) === name);
    const own = recordsA.find((r) => JSON.stringify(r.key) === name);
    await innerA.save(fromB.key, fromB.data);
    const opened = await Engram.open({ embedder: null, storage: encrypted(innerA, key) }).then(
      async (db) => {
        const contents = (await db.getAll({ limit: 100 })).map((m) => m.content);
        await db.close();
        return contents;
      },
      (e) => e,
    );
    if (opened instanceof Error) {
      assert.equal(opened.code, "Corrupt", opened.message);
      refused += 1;
    } else {
      assert.ok(!opened.some((c) => c.startsWith("store B's")), `B's memories shown as A's after copying ${name}`);
      assert.equal(opened.length, 12, `A changed after copying ${name}: ${opened.length}`);
    }
    await innerA.save(own.key, own.data);
  }
  assert.ok(refused >= 12, `every copied record that is read was refused (${refused}/${shared.length})`);
});

test("a record swapped with another, moved, replayed in place or dropped: Corrupt, or the store as it was", async () => {
  const key = randomKey();
  const inner = new MemoryStorage();
  const db = await Engram.open({ embedder: null, storage: encrypted(inner, key) });
  for (let i = 0; i < 6; i++) await db.add({ content: `memory ${i}` });
  await db.close();
  const records = (await inner.loadRange([])).filter((r) => r.key[0] === "engram-encrypted");
  const reopen = () =>
    Engram.open({ embedder: null, storage: encrypted(inner, key) }).then(
      async (s) => {
        const n = (await s.getAll({ limit: 100 })).length;
        await s.close();
        return n;
      },
      (e) => e.code,
    );
  const restore = async () => {
    for (const r of records) await inner.save(r.key, r.data);
  };
  // Swap two records' bytes.
  const [x, y] = records.slice(-2);
  await inner.save(x.key, y.data);
  await inner.save(y.key, x.data);
  assert.equal(await reopen(), "Corrupt");
  await restore();
  // One record's bytes under a key that had none.
  const moved = [...x.key.slice(0, -1), "0".repeat(32)];
  await inner.save(moved, x.data);
  assert.equal(await reopen(), "Corrupt");
  await inner.remove(moved);
  // A record replayed in its own place (its bytes as written before): the store as it was.
  await inner.save(x.key, x.data);
  assert.equal(await reopen(), 6);
});

test("another key: every call on the adapter and Engram.open reject with Corrupt; nothing is written", async (t) => {
  const dir = tempDir(t);
  const key = await deriveKey("right horse battery staple", SALT, { iterations: 100_000 });
  const db = await Engram.open({ embedder: null, storage: encrypted(new NodeFSStorage(dir), key) });
  await db.add({ content: "Mira's locker code is 2291" });
  await db.close();
  const filesBefore = filesUnder(dir).sort();

  const wrongKey = await deriveKey("wrong horse battery staple", SALT, { iterations: 100_000 });
  await corrupt(Engram.open({ embedder: null, storage: encrypted(new NodeFSStorage(dir), wrongKey) }), /another key/);
  const wrong = encrypted(new NodeFSStorage(dir), randomKey());
  await corrupt(wrong.load(["engram", "head"]), /another key/);
  await corrupt(wrong.loadRange([]), /another key/);
  await corrupt(wrong.save(["x"], new Uint8Array(1)), /another key/);
  await corrupt(wrong.create(["x"], new Uint8Array(1)), /another key/);
  await corrupt(wrong.remove(["x"]), /another key/);
  await corrupt(wrong.removeRange([]), /another key/);
  assert.deepEqual(filesUnder(dir).sort(), filesBefore, "the wrong key changed nothing");

  const reopened = await Engram.open({ embedder: null, storage: encrypted(new NodeFSStorage(dir), await deriveKey("right horse battery staple", SALT, { iterations: 100_000 })) });
  assert.equal((await reopened.search("locker code"))[0]?.memory?.content, "Mira's locker code is 2291");
  await reopened.close();
  for (const file of filesUnder(dir)) assert.ok(!contains(readFileSync(file), utf8.encode("locker")), `plaintext in ${file}`);
});

test("an unencrypted store opened through encrypted() is refused with Corrupt, not shown as empty", async () => {
  const inner = new MemoryStorage();
  const plain = await Engram.open({ embedder: null, storage: inner });
  await plain.add({ content: "kept in the clear" });
  await corrupt(Engram.open({ embedder: null, storage: encrypted(inner, randomKey()) }), /not written through encrypted/);
  assert.equal((await Engram.open({ embedder: null, storage: inner }).then((db) => db.stats())).memories, 1);
});

test("two keys racing to make one new store: exactly one wins, the other gets Corrupt", async () => {
  const inner = new MemoryStorage();
  const [x, y] = [encrypted(inner, randomKey()), encrypted(inner, randomKey())];
  const results = await Promise.allSettled([x.create(["k"], new Uint8Array([1])), y.create(["k2"], new Uint8Array([2]))]);
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1, JSON.stringify(results.map((r) => r.status)));
  assert.equal(results.find((r) => r.status === "rejected").reason.code, "Corrupt");
});

test("a store made by another writer between the key-check read and the look for other records is read, not refused", async () => {
  const key = randomKey();
  const inner = new MemoryStorage();
  let racing = true;
  const late = {
    ...Object.fromEntries(["save", "remove", "loadRange", "removeRange"].map((m) => [m, inner[m].bind(inner)])),
    // The first load of the check finds nothing; the other writer makes the store right after it.
    load: async (k) => {
      if (!racing) return inner.load(k);
      racing = false;
      const seen = await inner.load(k);
      const other = encrypted(inner, key);
      await other.save(["engram", "head"], new Uint8Array([1]));
      return seen;
    },
  };
  const s = encrypted(late, key);
  assert.deepEqual(Array.from(await s.load(["engram", "head"])), [1]);
});

test("argument checks: InvalidInput for a bad adapter, key, passphrase, salt or option", async () => {
  const inner = new MemoryStorage();
  const invalid = (fn) => assert.throws(fn, (e) => e instanceof EngramError && e.code === "InvalidInput");
  invalid(() => encrypted(null, randomKey()));
  invalid(() => encrypted({ load() {} }, randomKey()));
  invalid(() => encrypted(inner, new Uint8Array(31)));
  invalid(() => encrypted(inner, "a passphrase is not a key"));
  const aes = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt"]);
  invalid(() => encrypted(inner, aes));
  encrypted(inner, randomKey().buffer); // an ArrayBuffer of 32 bytes is a key too
  await rejectsWith(deriveKey("", SALT), "InvalidInput");
  await rejectsWith(deriveKey("pass", new Uint8Array(8)), "InvalidInput");
  await rejectsWith(deriveKey("pass", SALT, { iterations: 1000 }), "InvalidInput");
  await rejectsWith(deriveKey("pass", SALT, { rounds: 100_000 }), "InvalidInput");
  await rejectsWith(encryptBytes(randomKey(), "text"), "InvalidInput");
  await rejectsWith(decryptBytes(new Uint8Array(3), new Uint8Array(40)), "InvalidInput");
});

test("the wrapper has exactly the optional methods (and the channel) of the adapter it wraps; lock passes through", async () => {
  const inner = new MemoryStorage();
  const full = encrypted(inner, randomKey());
  for (const m of ["create", "lock", "flush", "close"]) assert.equal(typeof full[m], "function", m);
  const { create, lock, flush, close, ...bare } = Object.fromEntries(
    ["load", "save", "remove", "loadRange", "removeRange", "create", "lock", "flush", "close"].map((m) => [m, inner[m].bind(inner)]),
  );
  const minimal = encrypted(bare, randomKey());
  for (const m of ["create", "lock", "flush", "close"]) assert.equal(minimal[m], undefined, m);
  assert.equal(full.channel, undefined);
  const database = new IndexedDBStorage("encrypted-channel", { indexedDB: new IDBFactory(), IDBKeyRange });
  assert.equal(encrypted(database, randomKey()).channel, database.channel, "tabs still hear each other's commits");
  assert.equal(await full.lock(async () => 42), 42);
  await rejectsWith(full.lock("not a function"), "InvalidInput");
  assert.ok(create && lock && flush && close);
});

test("deriveKey: the same passphrase and salt give the same key; NFC and NFD spellings are one passphrase", async () => {
  const data = utf8.encode("export bytes");
  const sealed = await encryptBytes(await deriveKey("crème brûlée", SALT, { iterations: 100_000 }), data);
  assert.deepEqual(Array.from(await decryptBytes(await deriveKey("cre\u0300me bru\u0302le\u0301e", SALT, { iterations: 100_000 }), sealed)), Array.from(data));
  await corrupt(decryptBytes(await deriveKey("crème brûlée", new Uint8Array(16).fill(4), { iterations: 100_000 }), sealed), /key may be wrong/);
  await corrupt(decryptBytes(await deriveKey("crème brûlée", SALT, { iterations: 100_001 }), sealed));
});

test("an export encrypted with encryptBytes imports after decryptBytes; tampering or another key is Corrupt", async () => {
  const key = randomKey();
  const db = await Engram.open({ embedder: null });
  await db.add({ content: "Oskar's flight lands at 18:40" });
  const plain = await db.export();
  const sealed = await encryptBytes(key, plain);
  assert.ok(!contains(sealed, utf8.encode("Oskar")));
  assert.equal(sealed.length, plain.length + 29, "version, nonce and tag");
  const copy = await Engram.open({ embedder: null });
  assert.equal((await copy.import(await decryptBytes(key, sealed))).added, 1);
  assert.equal((await copy.search("when does the flight land"))[0]?.memory?.content, "Oskar's flight lands at 18:40");
  await corrupt(decryptBytes(randomKey(), sealed));
  const tampered = sealed.slice();
  tampered[20] ^= 0x80;
  await corrupt(decryptBytes(key, tampered));
  await corrupt(decryptBytes(key, sealed.subarray(0, 10)), /too short/);
});

// --- the no-loss scenarios, encrypted ------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Like no-silent-loss.test.mjs's `wrapped`: writes delayed a little, `lock` as given or none. */
function jittered(inner, { lock } = {}) {
  const jitter = () => sleep(Math.random() * 3);
  const adapter = {
    load: (k) => inner.load(k),
    save: async (k, d) => (await jitter(), inner.save(k, d)),
    create: async (k, d) => (await jitter(), inner.create(k, d)),
    remove: (k) => inner.remove(k),
    loadRange: (p) => inner.loadRange(p),
    removeRange: (p) => inner.removeRange(p),
    flush: () => inner.flush(),
  };
  if (lock) adapter.lock = lock;
  return adapter;
}

async function addNotes(db, who, n) {
  for (let i = 0; i < n; i++) await db.add({ content: `note ${i} from ${who}` });
}

async function assertAll(db, writers, n) {
  const all = await db.getAll({ limit: 1000 });
  const missing = writers.flatMap((who) => Array.from({ length: n }, (_, i) => `note ${i} from ${who}`)).filter((c) => !all.some((m) => m.content === c));
  assert.deepEqual(missing, [], `${missing.length} acknowledged adds lost`);
  assert.equal(all.length, writers.length * n, "none twice");
}

test("encrypted, without a lock: concurrent writers lose nothing (create on the hashed key keeps them apart)", async () => {
  const key = randomKey();
  const shared = new MemoryStorage();
  const open = () => Engram.open({ embedder: null, storage: encrypted(jittered(shared), key), compactAfter: 4 });
  const [a, b, c] = [await open(), await open(), await open()];
  await Promise.all([addNotes(a, "a", 30), addNotes(b, "b", 30), addNotes(c, "c", 30)]);
  await assertAll(await Engram.open({ embedder: null, storage: encrypted(shared, key) }), ["a", "b", "c"], 30);
});

test("encrypted NodeFS, a lock that excludes nothing: writers lose nothing across compactions", async (t) => {
  const dir = tempDir(t);
  const key = randomKey();
  const open = () =>
    Engram.open({ embedder: null, storage: encrypted(jittered(new NodeFSStorage(dir, { durability: "relaxed" }), { lock: async (fn) => fn() }), key), compactAfter: 5 });
  const [a, b] = [await open(), await open()];
  await Promise.all([addNotes(a, "a", 40), addNotes(b, "b", 40)]);
  await Promise.all([a.close(), b.close()]);
  const db = await Engram.open({ embedder: null, storage: encrypted(new NodeFSStorage(dir), key) });
  await assertAll(db, ["a", "b"], 40);
  await db.close();
});

test("encrypted, a write that landed but whose save threw resolves, once", async () => {
  const key = randomKey();
  const inner = new MemoryStorage();
  let throwAfterNextWrite = false;
  const landThenThrow = (method) => async (k, d) => {
    const out = await inner[method](k, d);
    if (throwAfterNextWrite && k.length === 4) {
      // a chunk: DATA + three hashed segments
      throwAfterNextWrite = false;
      throw new Error("the acknowledgement was lost (injected)");
    }
    return out;
  };
  const storage = encrypted({ ...jittered(inner), save: landThenThrow("save"), create: landThenThrow("create"), lock: (fn) => inner.lock(fn) }, key);
  const db = await Engram.open({ embedder: null, storage });
  await db.add({ content: "first" });
  throwAfterNextWrite = true;
  assert.equal((await db.add({ content: "landed anyway" })).deduplicated, false);
  const reopened = await Engram.open({ embedder: null, storage: encrypted(inner, key) });
  assert.deepEqual((await reopened.getAll()).map((m) => m.content).sort(), ["first", "landed anyway"]);
});

test("encrypted NodeFS: two processes adding to one directory at once lose nothing", async (t) => {
  const dir = tempDir(t);
  const key = randomKey();
  const writer = `import { Engram, encrypted } from "engram-wasm"; import { NodeFSStorage } from "engram-wasm/node-fs";
    const [dir, who, hexKey] = process.argv.slice(1);
    const key = Uint8Array.from(hexKey.match(/../g), (h) => parseInt(h, 16));
    const db = await Engram.open({ embedder: null, storage: encrypted(new NodeFSStorage(dir, { durability: "relaxed" }), key), compactAfter: 7 });
    for (let i = 0; i < 60; i++) await db.add({ content: \`note \${i} from \${who}\` });
    await db.close();`;
  const hexKey = Array.from(key, (b) => b.toString(16).padStart(2, "0")).join("");
  const child = (who) =>
    new Promise((resolve, reject) => {
      const p = spawn(process.execPath, ["--input-type=module", "-e", writer, "--", dir, who, hexKey], { stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      p.stderr.on("data", (d) => (err += d));
      p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${err}`))));
    });
  await Promise.all([child("a"), child("b")]);
  const db = await Engram.open({ embedder: null, storage: encrypted(new NodeFSStorage(dir), key) });
  await assertAll(db, ["a", "b"], 60);
  await db.close();
});

test("the README's encryption example prints what it claims", async () => {
  const code = readmeSnippet("<!-- example: encryption, executed by tests/js/encrypted-storage.test.mjs -->");
  const expected = documentedOutput(code);
  assert.deepEqual(expected, ["Corrupt", "1"]);
  assert.deepEqual(await runInProject(code), expected);
});
