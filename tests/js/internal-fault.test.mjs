// A trap (an internal fault: a Rust panic aborts the wasm instance) in the middle of a write, in a
// child process: the instance stays stopped afterwards, and the trap itself also surfaces to the host
// as an uncaught error where the core's task queue ran it, which the child records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pkgDir, repo } from "./helpers.mjs";

const modelDir = process.env.ENGRAM_MODEL_DIR ?? join(repo, "models");
const haveModel = existsSync(join(modelDir, "model.onnx")) && existsSync(join(modelDir, "tokenizer.json"));

const scenario = `
  import { createRequire } from "node:module";
  import { join } from "node:path";
  import { Embedder, Engram, MemoryStorage } from "engram-wasm";
  import { NodeFSStorage } from "engram-wasm/node-fs";
  const [pkgDir, dir, modelDir] = process.argv.slice(1);
  const escaped = [];
  process.on("uncaughtException", (e) => escaped.push(e?.constructor?.name));
  process.on("unhandledRejection", (e) => escaped.push(e?.constructor?.name));
  // The package's Node glue: the same module, hence the same wasm instance, the package loaded.
  const glue = createRequire(import.meta.url)(join(pkgDir, "dist", "wasm-node", "engram.js"));
  const outcome = (p) => p.then(() => "resolved", (e) => e.code);
  const a = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir), autoReindex: false });
  const b = await Engram.open({ embedder: null, storage: new MemoryStorage(), autoReindex: false });
  await a.add({ content: "written before the fault" });
  await b.add({ content: "another store on the same instance" });
  const embedder = modelDir ? await Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json") }) : null;
  glue.panicOnNextStorageResultForTests();
  const out = {
    faulted: await outcome(a.add({ content: "written when the fault hit" })),
    laterRead: await outcome(a.search("written")),
    otherStoreWrite: await outcome(b.add({ content: "after the fault" })),
    otherStoreRead: await outcome(b.stats()),
    close: await outcome(a.close()),
    openAnother: await outcome(Engram.open({ embedder: null, storage: new MemoryStorage() })),
    embed: embedder ? await outcome(embedder.embed(["after the fault"])) : "no model",
  };
  // The lock is free: another writer (an adapter alone, as in another process) gets it at once.
  out.lock = await new NodeFSStorage(dir, { lockTimeoutMs: 2000 }).lock(async () => "free").catch((e) => e.message);
  await new Promise((r) => setTimeout(r, 50));
  out.escaped = escaped;
  console.log(JSON.stringify(out));`;

test("a trap during a write rejects it with Internal, releases the lock, and stops every store on the instance", { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "engram-fault-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const stdout = await new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--input-type=module", "-e", scenario, "--", pkgDir, dir, haveModel ? modelDir : ""], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
  const out = JSON.parse(stdout);
  assert.equal(out.faulted, "Internal", "the call in flight settles, rejected");
  assert.equal(out.laterRead, "Internal");
  assert.equal(out.otherStoreWrite, "Internal", "every store on the instance is stopped");
  assert.equal(out.otherStoreRead, "Internal");
  assert.equal(out.close, "resolved");
  assert.equal(out.openAnother, "Internal", "no new store on a stopped instance");
  if (haveModel) assert.equal(out.embed, "Internal", "nor an embedding from its model");
  assert.equal(out.lock, "free", "the storage lock was released");
  assert.ok(out.escaped.every((name) => name === "RuntimeError"), `only the trap itself escaped: ${out.escaped}`);
});
