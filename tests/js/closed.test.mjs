// After close(), every call settles: each rejects with Closed, however many follow and in whatever
// shape (one add, adds queued together, adds one after another, every other method).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, EngramError } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

/** Settles `p` or fails the test after `ms`: a call that never settles is the bug under test. */
function settles(p, what, ms = 5000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function closedRejection(p, what) {
  const outcome = await settles(
    p.then(
      (v) => ({ v }),
      (e) => ({ e }),
    ),
    what,
  );
  assert.ok(outcome.e, `${what} resolved after close: ${JSON.stringify(outcome.v)}`);
  assert.ok(outcome.e instanceof EngramError, `${what}: ${outcome.e}`);
  assert.equal(outcome.e.code, "Closed", `${what}: ${outcome.e.code} ${outcome.e.message}`);
}

async function everyCallAfterCloseRejects(db) {
  await db.add({ content: "kept before closing" });
  await db.close();
  // One after another: the second add used to join the first one's refused group and wait forever.
  for (let i = 0; i < 4; i++) await closedRejection(db.add({ content: `after close ${i}` }), `sequential add ${i}`);
  // Queued together in one tick.
  await Promise.all(Array.from({ length: 5 }, (_, i) => closedRejection(db.add({ content: `burst ${i}` }), `burst add ${i}`)));
  const calls = {
    addMany: () => db.addMany([{ content: "x" }]),
    get: () => db.get("00000000-0000-4000-8000-000000000000"),
    getAll: () => db.getAll(),
    search: () => db.search("kept"),
    recallContext: () => db.recallContext("kept"),
    ingest: () => db.ingest({ id: "s1", turns: [{ role: "user", content: "hello" }] }),
    update: () => db.update("00000000-0000-4000-8000-000000000000", { content: "y" }),
    delete: () => db.delete("00000000-0000-4000-8000-000000000000"),
    stats: () => db.stats(),
    flush: () => db.flush(),
    export: () => db.export(),
  };
  for (const [name, call] of Object.entries(calls)) await closedRejection(call(), name);
  // And an add once more, after all of those.
  await closedRejection(db.add({ content: "last" }), "add after other calls");
  await settles(db.close(), "second close");
}

test("in memory: every call after close() rejects with Closed and none hangs", async () => {
  await everyCallAfterCloseRejects(await Engram.open({ embedder: null }));
});

test("NodeFS: every call after close() rejects with Closed and none hangs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-closed-"));
  try {
    await everyCallAfterCloseRejects(await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) }));
    // What was written before close is there.
    const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
    assert.equal((await db.getAll()).length, 1);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an add queued before close() is written; one queued after it rejects", async () => {
  const db = await Engram.open({ embedder: null });
  const before = db.add({ content: "queued before close" });
  const closing = db.close();
  const after = db.add({ content: "queued after close" });
  assert.equal((await settles(before, "add before close")).deduplicated, false);
  await settles(closing, "close");
  await closedRejection(after, "add after close");
});
