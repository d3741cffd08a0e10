// Export files in slices: exportStream gives the bytes export() gives, in many slices, as one
// consistent state; import reads a file from every kind of source the same way, and a damaged or
// wrong-typed source changes nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rejectsWith } from "./helpers.mjs";
import { Engram, EngramError, MemoryStorage } from "engram-wasm";

/** A deterministic unit vector of 384 dims: each memory ≈ 2 KB in the file, so 700 pass 1 MiB. */
function unit(i) {
  const v = new Float32Array(384);
  for (let d = 0; d < v.length; d++) v[d] = Math.sin(i * 7.1 + d * 0.37);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

async function filled(n, storage) {
  const db = await Engram.open({ embedder: null, ...(storage && { storage }) });
  for (let i = 0; i < n; i++)
    await db.add({ content: `note ${i}: the parcel for flat ${i % 37} arrives on day ${i}`, namespace: i % 4 === 0 ? "work" : "home", embedding: unit(i) });
  return db;
}

async function collect(stream) {
  const parts = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

async function contents(db) {
  const all = [];
  for (let page; (page = await db.getAll({ limit: 1000, offset: all.length })).length;) all.push(...page);
  return all.map((m) => `${m.id} ${m.namespace} ${m.content}`).sort();
}

test("exportStream: the bytes of export(), in slices, for the store and for one namespace", async () => {
  const db = await filled(900, new MemoryStorage());
  for (const options of [undefined, { namespace: "work" }]) {
    const whole = await db.export(options);
    const parts = await collect(db.exportStream(options));
    assert.ok(parts.every((p) => p instanceof Uint8Array));
    if (!options) assert.ok(parts.length >= 2, `a ${whole.length}-byte file came in ${parts.length} slice(s)`);
    assert.deepEqual(concat(parts), whole);
  }
  await db.close();
});

test("exportStream is one state: a write made while it is read waits for its end; cancel lets go", async () => {
  const db = await filled(900);
  const stream = db.exportStream();
  const reader = stream.getReader();
  const first = await reader.read();
  let added = false;
  const write = db.add({ content: "written during the export" }).then(() => (added = true));
  const rest = [first.value];
  for (let r; !(r = await reader.read()).done;) rest.push(r.value);
  const file = concat(rest);
  await write;
  assert.ok(added);
  const copy = await Engram.open({ embedder: null });
  assert.equal((await copy.import(file)).added, 900, "the file holds the store as of the call");

  const cancelled = db.exportStream().getReader();
  await cancelled.read();
  await cancelled.cancel();
  await db.add({ content: "after a cancelled export" }); // would hang if the queue were still held
  assert.equal((await db.stats()).memories, 902);
  await copy.close();
  await db.close();
});

test("import reads a Uint8Array, an ArrayBuffer, a Blob, a ReadableStream, an async iterable and a file stream alike", async (t) => {
  const src = await filled(800);
  const file = await src.export();
  const want = await contents(src);
  const dir = mkdtempSync(join(tmpdir(), "engram-stream-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "store.engram");
  writeFileSync(path, file);
  async function* oddSlices() {
    for (let at = 0, n = 1; at < file.length; at += n, n = (n * 7 + 3) % 9000) yield file.subarray(at, at + n);
  }
  const sources = {
    bytes: () => file,
    arrayBuffer: () => file.slice().buffer,
    blob: () => new Blob([file]),
    readableStream: () => src.exportStream(),
    asyncIterable: () => oddSlices(),
    nodeFileStream: () => createReadStream(path, { highWaterMark: 50_000 }),
  };
  for (const [name, source] of Object.entries(sources)) {
    const db = await Engram.open({ embedder: null, storage: new MemoryStorage() });
    const merged = await db.import(source());
    assert.equal(merged.added, 800, name);
    assert.deepEqual(await contents(db), want, name);
    await db.close();
  }
  await src.close();
});

test("import from a stream: damage anywhere is Corrupt and changes nothing; the source is not read past a defect", async () => {
  const src = await filled(50);
  const file = await src.export();
  const db = await Engram.open({ embedder: null, storage: new MemoryStorage() });
  await db.add({ content: "already here" });
  for (const at of [0, 30, file.length >> 1, file.length - 2]) {
    const bad = file.slice();
    bad[at] ^= 0x21;
    await rejectsWith(db.import(new Blob([bad]).stream()), "Corrupt", EngramError);
  }
  await rejectsWith(db.import([file.subarray(0, file.length - 1)]), "Corrupt", EngramError);
  assert.equal((await db.stats()).memories, 1);

  let pulls = 0;
  let cancelled = false;
  const endless = new ReadableStream({
    pull(controller) {
      pulls++;
      controller.enqueue(new Uint8Array(4096).fill(0x5a)); // no Engram header: a defect in the first slice
    },
    cancel() {
      cancelled = true;
    },
  });
  await rejectsWith(db.import(endless), "Corrupt", EngramError);
  assert.ok(cancelled && pulls <= 2, `read ${pulls} chunk(s) of a source already known to be damaged`);
  await db.close();
  await src.close();
});

test("import and exportStream reject what they cannot read with InvalidInput", async () => {
  const db = await Engram.open({ embedder: null });
  await rejectsWith(db.import("RU5HUgEAAwA="), "InvalidInput", EngramError);
  await rejectsWith(db.import([new Uint8Array(4), "text"]), "InvalidInput", EngramError);
  await rejectsWith(db.import(42), "InvalidInput", EngramError);
  await rejectsWith(db.import(null), "InvalidInput", EngramError);
  await rejectsWith(collect(db.exportStream({ namespaces: "x" })), "InvalidInput", EngramError);
  await rejectsWith(collect(db.exportStream({ namespace: "" })), "InvalidInput", EngramError);
  assert.equal((await db.stats()).memories, 0);
  await db.close();
});
