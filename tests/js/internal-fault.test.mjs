// Traps (internal faults: a Rust panic aborts the wasm instance) in the middle of a write and of a
// read, in a child process: the call in flight rejects with Internal, the lock is released, and the
// next call on any store with storage goes on on a new instance, reopened from storage, with every
// acknowledged write there. The trap itself also surfaces to the host as an uncaught error where the
// core's task queue ran it, which the child records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pkgDir, repo } from "./helpers.mjs";

const modelDir = process.env.ENGRAM_MODEL_DIR ?? join(repo, "models");
const haveModel = existsSync(join(modelDir, "model.onnx")) && existsSync(join(modelDir, "tokenizer.json"));

/** Runs `body` (an async module body with `pkgDir`, `dir`, `modelDir`, `trapNextStorageResult()`, `outcome(p)` and `escaped` in scope) in a child; returns what it prints. */
async function child(body) {
  const dir = mkdtempSync(join(tmpdir(), "engram-fault-"));
  const scenario = `
    import { createRequire } from "node:module";
    import { join } from "node:path";
    import { Embedder, Engram, MemoryStorage } from "engram-wasm";
    import { NodeFSStorage } from "engram-wasm/node-fs";
    const [pkgDir, dir, modelDir] = process.argv.slice(1);
    const escaped = [];
    process.on("uncaughtException", (e) => escaped.push(e?.constructor?.name));
    process.on("unhandledRejection", (e) => escaped.push(e?.constructor?.name));
    // The package's Node glue as the module cache holds it now: the instance the package is running
    // (after a fault, its replacement).
    const require = createRequire(import.meta.url);
    const trapNextStorageResult = () => require(join(pkgDir, "dist", "wasm-node", "engram.js")).panicOnNextStorageResultForTests();
    const outcome = (p) => p.then(() => "resolved", (e) => e.code ?? e?.constructor?.name);
    ${body}
    await new Promise((r) => setTimeout(r, 50));
    out.escaped = escaped;
    console.log(JSON.stringify(out));`;
  try {
    const stdout = await new Promise((resolve, reject) => {
      const p = spawn(process.execPath, ["--input-type=module", "-e", scenario, "--", pkgDir, dir, haveModel ? modelDir : ""], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      p.stdout.on("data", (d) => (out += d));
      p.stderr.on("data", (d) => (err += d));
      p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
    });
    return JSON.parse(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const onlyTrapsEscaped = (out) =>
  assert.ok(
    out.escaped.every((name) => name === "RuntimeError"),
    `only the trap itself escaped: ${out.escaped}`,
  );

test("a trap during a write rejects it with Internal, releases the lock; the next calls run on a new instance", { timeout: 60_000 }, async () => {
  const out = await child(`
    const a = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), autoReindex: false });
    const b = await Engram.open({ embedder: null, storage: new MemoryStorage(), autoReindex: false });
    const inMemory = await Engram.open({ embedder: null, autoReindex: false });
    await a.add({ content: "written before the fault" });
    await b.add({ content: "another store on the same instance" });
    await inMemory.add({ content: "kept only in the instance" });
    const embedder = modelDir ? await Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json") }) : null;
    const before = embedder ? Array.from((await embedder.embed(["after the fault"]))[0]) : null;
    trapNextStorageResult();
    const out = { faulted: await outcome(a.add({ content: "written when the fault hit" })) };
    // The lock is free: another writer (an adapter alone, as in another process) gets it at once.
    out.lock = await new NodeFSStorage(dir, { lockTimeoutMs: 2000 }).lock(async () => "free").catch((e) => e.message);
    out.laterRead = await a.search("written before the fault").then((hits) => hits.map((h) => h.memory.content), (e) => e.code);
    out.laterWrite = await outcome(a.add({ content: "written after the fault" }));
    out.otherStoreRead = await b.getAll().then((all) => all.map((m) => m.content), (e) => e.code);
    out.otherStoreWrite = await outcome(b.add({ content: "after the fault" }));
    out.inMemory = await outcome(inMemory.stats());
    out.inMemoryAgain = await outcome(inMemory.add({ content: "still lost" }));
    out.inMemoryClose = await outcome(inMemory.close());
    const c = await Engram.open({ embedder: null, autoReindex: false });
    out.openAnother = await outcome(c.add({ content: "a new in-memory store works" }));
    if (embedder) {
      const after = Array.from((await embedder.embed(["after the fault"]))[0]);
      out.embedSame = after.length === before.length && after.every((x, i) => x === before[i]);
      const withModel = await Engram.open({ embedder, storage: new NodeFSStorage(dir + "-model"), autoReindex: false });
      await withModel.add({ content: "the tea is green" });
      trapNextStorageResult();
      out.modelFaulted = await outcome(withModel.add({ content: "the coffee is black" }));
      const hits = await withModel.search(null, { embedding: (await embedder.embed(["green tea"]))[0], limit: 1 });
      out.modelSearch = hits.map((h) => h.memory.content);
      await withModel.close();
    }
    await a.close();
    const reopened = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), autoReindex: false });
    out.reopened = (await reopened.getAll()).map((m) => m.content).sort();
    await reopened.close();
  `);
  assert.equal(out.faulted, "Internal", "the call in flight settles, rejected");
  assert.equal(out.lock, "free", "the storage lock was released");
  assert.deepEqual(out.laterRead, ["written before the fault"], "the next call reopens the store on a new instance");
  assert.equal(out.laterWrite, "resolved");
  assert.deepEqual(out.otherStoreRead, ["another store on the same instance"], "another store on the instance comes back too");
  assert.equal(out.otherStoreWrite, "resolved");
  assert.equal(out.inMemory, "Internal", "a store without storage was lost with its instance");
  assert.equal(out.inMemoryAgain, "Internal");
  assert.equal(out.inMemoryClose, "resolved");
  assert.equal(out.openAnother, "resolved", "new stores open on the new instance");
  if (haveModel) {
    assert.equal(out.embedSame, true, "the local embedder is loaded again and gives the same vectors");
    assert.equal(out.modelFaulted, "Internal");
    assert.deepEqual(out.modelSearch, ["the tea is green"], "a store with the local embedder comes back with it");
  }
  // The write the fault interrupted had landed in storage or not; nothing acknowledged is missing.
  const acknowledged = ["written after the fault", "written before the fault"];
  assert.ok(
    JSON.stringify(out.reopened) === JSON.stringify(acknowledged) || JSON.stringify(out.reopened) === JSON.stringify([...acknowledged, "written when the fault hit"].sort()),
    `reopened: ${out.reopened}`,
  );
  onlyTrapsEscaped(out);
});

test("traps in the middle of a run of writes on two stores lose no acknowledged write", { timeout: 60_000 }, async () => {
  const out = await child(`
    const stores = [
      { engram: await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), autoReindex: false, compactAfter: 4 }), acked: [], failed: [] },
      { engram: await Engram.open({ embedder: null, storage: new MemoryStorage(), autoReindex: false }), acked: [], failed: [] },
    ];
    const other = { id: "s", turns: [] };
    for (let i = 0; i < 40; i++) {
      const s = stores[i % 2];
      if (i % 7 === 3) trapNextStorageResult();
      const content = "memory number " + i;
      try {
        const m = await s.engram.add({ content, namespace: "n" + (i % 3) });
        s.acked.push(m.id);
      } catch (e) {
        s.failed.push(e.code);
      }
      if (i % 5 === 4) await s.engram.update(s.acked.at(-1), { importance: 0.25 }).then(() => s.acked.push("update"), (e) => s.failed.push(e.code));
    }
    const out = { failed: stores.map((s) => s.failed), missing: [] };
    for (const s of stores) {
      const ids = new Set();
      for (const ns of ["n0", "n1", "n2"]) for (const m of await s.engram.getAll({ namespace: ns, limit: 1000 })) ids.add(m.id);
      out.missing.push(s.acked.filter((id) => id !== "update" && !ids.has(id)));
    }
    // And after a real reopen from disk.
    await stores[0].engram.close();
    const again = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), autoReindex: false });
    const onDisk = new Set();
    for (const ns of ["n0", "n1", "n2"]) for (const m of await again.getAll({ namespace: ns, limit: 1000 })) onDisk.add(m.id);
    out.missingOnDisk = stores[0].acked.filter((id) => id !== "update" && !onDisk.has(id));
    await again.close();
  `);
  const failures = out.failed.flat();
  assert.ok(failures.length >= 5, `the traps hit writes: ${failures}`);
  assert.ok(
    failures.every((code) => code === "Internal"),
    `every failed call is Internal: ${failures}`,
  );
  assert.deepEqual(out.missing, [[], []], "every acknowledged memory is there after recovery");
  assert.deepEqual(out.missingOnDisk, []);
  onlyTrapsEscaped(out);
});

test("a trap during a read rejects it with Internal; the next read works and sees everything", { timeout: 60_000 }, async () => {
  const out = await child(`
    const a = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), autoReindex: false });
    for (let i = 0; i < 5; i++) await a.add({ content: "fact " + i + " about reading" });
    // With a lock and no BroadcastChannel, a read first catches up with other writers through storage.
    trapNextStorageResult();
    const out = { faulted: await outcome(a.search("reading")) };
    out.read = (await a.search("reading", { limit: 10 })).length;
    out.stats = (await a.stats()).memories;
    await a.close();
  `);
  assert.equal(out.faulted, "Internal");
  assert.equal(out.read, 5);
  assert.equal(out.stats, 5);
  onlyTrapsEscaped(out);
});
