// Group commit: adds in flight together are one record and one fsync; each resolves only once that
// record is durable; a failed write rejects every add of the group and leaves none of them; calls
// keep their order; two processes writing bursts on one directory lose nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rejectsWith } from "./helpers.mjs";
import { Engram, EngramError } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-group-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** NodeFSStorage that counts record writes and can make the next `create` throw `error`. */
function counted(dir) {
  const inner = new NodeFSStorage(dir);
  const state = { creates: 0, saves: 0, failNext: null };
  const adapter = {
    state,
    load: (k) => inner.load(k),
    loadRange: (p) => inner.loadRange(p),
    save: (k, d) => (state.saves++, inner.save(k, d)),
    create: async (k, d) => {
      if (state.failNext) {
        const e = state.failNext;
        state.failNext = null;
        throw e;
      }
      state.creates++;
      return inner.create(k, d);
    },
    remove: (k) => inner.remove(k),
    removeRange: (p) => inner.removeRange(p),
    flush: () => inner.flush(),
    lock: (fn) => inner.lock(fn),
    close: () => inner.close(),
  };
  return adapter;
}

const note = (tag, i) => `${tag} note ${i}: the courier comes to gate ${i % 9}`;

async function allContents(db) {
  const all = [];
  for (let page; (page = await db.getAll({ limit: 1000, offset: all.length })).length;) all.push(...page);
  return all.map((m) => m.content);
}

test("a burst of concurrent adds is one record; every acknowledged add survives reopen", async (t) => {
  const dir = tempDir(t);
  const storage = counted(dir);
  const db = await Engram.open({ embedder: null, storage });
  const before = storage.state.creates;
  const added = await Promise.all(Array.from({ length: 120 }, (_, i) => db.add({ content: note("burst", i) })));
  assert.ok(storage.state.creates - before <= 2, `${storage.state.creates - before} records for 120 concurrent adds`);
  assert.equal(new Set(added.map((m) => m.id)).size, 120);
  await db.close();
  const reopened = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const contents = await allContents(reopened);
  for (let i = 0; i < 120; i++) assert.ok(contents.includes(note("burst", i)), `add ${i} survives`);
  assert.equal(contents.length, 120);
  await reopened.close();
});

test("sequential awaited adds are one record each, as before", async (t) => {
  const storage = counted(tempDir(t));
  const db = await Engram.open({ embedder: null, storage });
  const before = storage.state.creates;
  for (let i = 0; i < 5; i++) await db.add({ content: note("one by one", i) });
  assert.equal(storage.state.creates - before, 5);
  await db.close();
});

test("a refused add fails alone; a failed write rejects every add of its group and none of them stays", async (t) => {
  const dir = tempDir(t);
  const storage = counted(dir);
  const db = await Engram.open({ embedder: null, storage });
  await db.add({ content: "kept from before" });
  const mixed = await Promise.allSettled([db.add({ content: "fine one" }), db.add({ content: "   " }), db.add({ content: "fine two" })]);
  assert.deepEqual(
    mixed.map((r) => r.status),
    ["fulfilled", "rejected", "fulfilled"],
  );
  assert.equal(mixed[1].reason.code, "InvalidInput");

  for (const [error, code] of [
    [Object.assign(new Error("no space left"), { code: "ENOSPC" }), "StorageFull"],
    [new Error("I/O error"), "Storage"],
  ]) {
    storage.state.failNext = error;
    const group = Array.from({ length: 30 }, (_, i) => db.add({ content: note("doomed", i) }));
    for (const p of group) await rejectsWith(p, code, EngramError);
    assert.equal((await db.stats()).memories, 3, "none of the failed group is visible");
    assert.deepEqual(await db.search("doomed courier"), []);
  }
  await db.close();
  const reopened = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  assert.deepEqual((await allContents(reopened)).sort(), ["fine one", "fine two", "kept from before"]);
  const again = await Promise.all(Array.from({ length: 30 }, (_, i) => reopened.add({ content: note("doomed", i) })));
  assert.equal(again.length, 30);
  assert.equal((await reopened.stats()).memories, 33);
  await reopened.close();
});

test("calls keep their order: an add called after a search is not seen by it", async () => {
  const db = await Engram.open({ embedder: null });
  const first = db.add({ content: "alpha parcel" });
  const search = db.search("zebra parcel");
  const second = db.add({ content: "zebra parcel" });
  assert.ok(!(await search).some((h) => h.memory.content === "zebra parcel"));
  await Promise.all([first, second]);
  assert.equal((await db.search("zebra"))[0].memory.content, "zebra parcel");
  await db.close();
});

/** Runs a snippet in a fresh Node process (ESM, the package importable by name). */
function child(source, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--input-type=module", "-e", source, "--", ...args], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("exit", (c) => (c === 0 ? resolve(out) : reject(new Error(`child exited ${c}: ${err}`))));
  });
}

test("two processes writing bursts on one directory lose nothing", async (t) => {
  const dir = tempDir(t);
  const writer = `import { Engram } from "engram-wasm"; import { NodeFSStorage } from "engram-wasm/node-fs";
    const [dir, who] = process.argv.slice(1);
    const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), compactAfter: 5 });
    const ids = [];
    for (let b = 0; b < 8; b++) {
      const burst = await Promise.all(Array.from({ length: 25 }, (_, i) => db.add({ content: \`\${who} burst \${b} note \${i}\` })));
      ids.push(...burst.map((m) => m.id));
    }
    await db.close();
    process.stdout.write(JSON.stringify(ids));`;
  const outs = await Promise.all([child(writer, [dir, "a"]), child(writer, [dir, "b"])]);
  const acknowledged = outs.flatMap((o) => JSON.parse(o));
  assert.equal(acknowledged.length, 400);
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  for (const id of acknowledged) assert.ok(await db.get(id), `acknowledged ${id} is stored`);
  assert.equal((await db.stats()).memories, 400);
  await db.close();
  assert.ok(!readdirSync(dir).includes(".lock"), "no lock left behind");
});
