// A flipped byte in the newest record of a NodeFS store: the acknowledged memory it holds is never
// dropped without a word. Opening refuses with Corrupt; with `onCorruption` the store opens without
// the record and names it; the next write takes its place. A record cut short (a crash mid-write)
// is still left out silently, as documented.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, EngramError } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

/** The newest chunk file of a store directory (chunk files are named by their sequence number). */
function newestChunk(dir) {
  const chunks = join(dir, "engram", "chunk");
  const names = readdirSync(chunks).filter((n) => n.endsWith(".rec"));
  const seq = (n) => Number(n.replace(/\.rec$/, ""));
  names.sort((a, b) => seq(a) - seq(b));
  return { path: join(chunks, names.at(-1)), seq: seq(names.at(-1)) };
}

async function storeWith(n) {
  const dir = mkdtempSync(join(tmpdir(), "engram-damaged-"));
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  for (let i = 0; i < n; i++) await db.add({ content: `acknowledged memory number ${i}` });
  await db.close();
  return dir;
}

test("a flipped byte in the newest chunk refuses to open, or opens with onCorruption naming it", async () => {
  const dir = await storeWith(35);
  try {
    const { path, seq } = newestChunk(dir);
    assert.ok(Number.isInteger(seq) && seq > 0, `chunk files are named by sequence: ${path}`);
    const bytes = readFileSync(path);
    bytes[bytes.length >> 1] ^= 0x01;
    writeFileSync(path, bytes);

    await assert.rejects(Engram.open({ embedder: null, storage: new NodeFSStorage(dir) }), (e) => {
      assert.ok(e instanceof EngramError);
      assert.equal(e.code, "Corrupt");
      assert.match(e.message, new RegExp(`chunk ${seq} \\(${bytes.length} bytes\\)`));
      assert.match(e.message, /onCorruption/);
      return true;
    });

    const reports = [];
    const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), onCorruption: (r) => reports.push(r) });
    assert.equal((await db.getAll({ limit: 100 })).length, 34);
    assert.equal(reports.length, 1);
    assert.equal(reports[0].skipped.length, 1);
    const [skipped] = reports[0].skipped;
    assert.equal(skipped.seq, seq);
    assert.equal(skipped.bytes, bytes.length);
    assert.deepEqual(skipped.key.slice(0, 2), ["engram", "chunk"]);
    assert.match(skipped.reason, /fails its checksum/);
    await db.add({ content: "written after the damage" });
    await db.close();
    assert.equal(reports.length, 1, "reported once");

    const again = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
    assert.equal((await again.getAll({ limit: 100 })).length, 35, "the next write took the damaged record's place");
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a newest chunk cut short (a crash mid-write) is left out silently", async () => {
  const dir = await storeWith(5);
  try {
    const { path } = newestChunk(dir);
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 7));
    const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
    assert.equal((await db.getAll()).length, 4);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("onCorruption must be a function", async () => {
  await assert.rejects(Engram.open({ embedder: null, onCorruption: "log" }), (e) => e.code === "InvalidInput" && /onCorruption/.test(e.message));
});
