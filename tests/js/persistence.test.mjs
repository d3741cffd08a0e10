// Persistence through the package: the filesystem adapter across process restarts and concurrent
// processes, MemoryStorage shared by two stores, injected adapter faults, embedder identity, and
// export / import.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rejectsWith } from "./helpers.mjs";
import { Engram, EngramError, MemoryStorage } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-persist-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs a snippet in a fresh Node process (ESM, the package importable by name); resolves to its stdout. */
function child(source, args = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--input-type=module", "-e", source, "--", ...args], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

const HEADER = `import { Engram } from "engram-wasm"; import { NodeFSStorage } from "engram-wasm/node-fs"; const [dir, who, n] = process.argv.slice(1);`;

test("a store written by one process is there, searchable, in the next", async (t) => {
  const dir = tempDir(t);
  await child(
    `${HEADER}
    const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
    await db.add({ content: "Ada's cello lesson moved to Thursdays", tags: ["music"] });
    await db.ingest({ id: "s1", date: "2026-05-01", turns: [{ role: "user", content: "I adopted a grey cat named Pixel" }] });
    await db.close();`,
    [dir],
  );
  const out = await child(
    `${HEADER}
    const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
    const hits = await db.search("when is the cello lesson", { scope: "all" });
    const raw = await db.search("cat name", { scope: "raw" });
    console.log(JSON.stringify({ memories: (await db.stats()).memories, first: hits[0]?.memory?.content, raw: raw[0]?.raw?.content }));
    await db.close();`,
    [dir],
  );
  const seen = JSON.parse(out);
  assert.equal(seen.memories, 1);
  assert.equal(seen.first, "Ada's cello lesson moved to Thursdays");
  assert.equal(seen.raw, "I adopted a grey cat named Pixel");
});

test("two processes adding to one directory at the same time lose nothing", async (t) => {
  const dir = tempDir(t);
  const writer = `${HEADER}
    const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir, { durability: "relaxed" }), compactAfter: 7 });
    for (let i = 0; i < Number(n); i++) await db.add({ content: \`note \${i} from writer \${who}\` });
    await db.close();`;
  const n = 100;
  await Promise.all([child(writer, [dir, "a", String(n)]), child(writer, [dir, "b", String(n)])]);
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const all = await db.getAll({ limit: 1000 });
  assert.equal(all.length, 2 * n, "every acknowledged add from both processes");
  for (const who of ["a", "b"]) {
    for (let i = 0; i < n; i++)
      assert.ok(
        all.some((m) => m.content === `note ${i} from writer ${who}`),
        `note ${i} from ${who}`,
      );
  }
  await db.close();
});

test("two stores on one MemoryStorage see each other's writes", async () => {
  const storage = new MemoryStorage();
  const a = await Engram.open({ embedder: null, storage });
  const b = await Engram.open({ embedder: null, storage });
  const x = await a.add({ content: "written through a" });
  const y = await b.add({ content: "written through b" });
  assert.notEqual(x.id, y.id);
  assert.equal((await a.get(y.id))?.content, "written through b");
  await b.delete(x.id);
  assert.equal(await a.get(x.id), null);
  assert.equal((await a.stats()).memories, 1);
  await a.close();
  await b.close();
});

/** MemoryStorage whose n-th save rejects with `error` (then works again). */
function faulty(failAt, error) {
  const inner = new MemoryStorage();
  let saves = 0;
  return {
    inner,
    load: (k) => inner.load(k),
    save: (k, d) => (++saves === failAt ? Promise.reject(error) : inner.save(k, d)),
    remove: (k) => inner.remove(k),
    loadRange: (p) => inner.loadRange(p),
    removeRange: (p) => inner.removeRange(p),
  };
}

test("a rejected write rejects the call with a typed error and leaves the store as it was", async () => {
  for (const [error, code] of [
    [Object.assign(new Error("disk quota"), { name: "QuotaExceededError" }), "StorageFull"],
    [Object.assign(new Error("no space left"), { code: "ENOSPC" }), "StorageFull"],
    [new Error("I/O error"), "Storage"],
  ]) {
    const storage = faulty(3, error);
    const db = await Engram.open({ embedder: null, storage });
    await db.add({ content: "first memory" });
    await db.add({ content: "second memory" });
    const before = await db.getAll();
    await rejectsWith(db.add({ content: "third memory" }), code, EngramError);
    const after = await db.getAll();
    assert.deepEqual(after.map((m) => m.content).sort(), before.map((m) => m.content).sort());
    await db.add({ content: "third memory" });
    await db.close();
    const reopened = await Engram.open({ embedder: null, storage: storage.inner });
    assert.deepEqual((await reopened.getAll()).map((m) => m.content).sort(), ["first memory", "second memory", "third memory"]);
    await reopened.close();
  }
});

test("an adapter breaking its contract is a Storage error, not a crash", async () => {
  const inner = new MemoryStorage();
  const liar = { ...Object.fromEntries(["load", "save", "remove", "removeRange"].map((m) => [m, (...a) => inner[m](...a)])), loadRange: async () => [{ key: "nope", data: 3 }] };
  await rejectsWith(Engram.open({ embedder: null, storage: liar }), "Storage", EngramError);
  await rejectsWith(Engram.open({ embedder: null, storage: { load() {} } }), "InvalidInput", EngramError);
});

test("a store remembers its host embedder and refuses another one", async () => {
  const storage = new MemoryStorage();
  const embedder = (id) => ({ id, dims: 3, embedDocuments: async (ts) => ts.map((t) => [1, t.length % 5, 0.5]), embedQuery: async (t) => [1, t.length % 5, 0.5] });
  const db = await Engram.open({ embedder: embedder("model-a"), storage });
  await db.add({ content: "vectors from model a" });
  await db.close();
  await rejectsWith(Engram.open({ embedder: embedder("model-b"), storage }), "Embedder", EngramError);
  const same = await Engram.open({ embedder: embedder("model-a"), storage });
  assert.equal((await same.stats()).vectors, 1);
  await same.close();
  // Keyword-only opening is fine: it makes no vectors.
  const plain = await Engram.open({ embedder: null, storage });
  assert.equal((await plain.search("model")).length, 1);
  await plain.close();
});

test("export and import: a namespace moves between stores; damage is Corrupt and changes nothing", async () => {
  const a = await Engram.open({ embedder: null, storage: new MemoryStorage() });
  await a.add({ content: "work fact one", namespace: "work" });
  await a.add({ content: "home fact", namespace: "home" });
  const file = await a.export({ namespace: "work" });
  assert.ok(file instanceof Uint8Array && file.length > 20);
  const b = await Engram.open({ embedder: null });
  const merged = await b.import(file);
  assert.equal(merged.added, 1);
  assert.equal((await b.import(file)).replaced, 1, "importing again replaces by id");
  const bad = file.slice();
  bad[bad.length >> 1] ^= 0x40;
  await rejectsWith(b.import(bad), "Corrupt", EngramError);
  await rejectsWith(b.import(file.subarray(0, file.length - 1)), "Corrupt", EngramError);
  assert.equal((await b.stats()).memories, 1);
  await a.close();
  await b.close();
});

test("flush persists search touches; close writes them too; the directory holds few files", async (t) => {
  const dir = tempDir(t);
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const m = await db.add({ content: "the spare key is under the blue flowerpot" });
  await db.search("where is the spare key");
  const touched = (await db.get(m.id)).accessCount;
  assert.ok(touched > 0);
  await db.flush();
  await db.close();
  const again = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  assert.equal((await again.get(m.id)).accessCount, touched);
  await again.close();
  const files = [];
  const walk = (d) => readdirSync(d).forEach((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : files.push(f)));
  walk(dir);
  assert.ok(files.length <= 4, `records on disk: ${files.join(", ")}`);
});
