// A trap during a vector graph build — in a build worker, or in-process (`inWorker: false`) — rejects
// that reindex with Internal; the store keeps working and the next reindex builds the segment (a new
// worker, or the store reopened on a new instance). Run in a child process: an in-process trap also
// surfaces as an uncaught error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pkgDir } from "./helpers.mjs";

test("a trap in a vector build, in a worker or in-process: Internal for that reindex, the next one builds", { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "engram-vector-fault-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The package's build worker, whose instance first traps at its first build while `armed` exists.
  writeFileSync(
    join(dir, "trapping-worker.cjs"),
    `
    const { existsSync, rmSync } = require("node:fs");
    const glue = require(${JSON.stringify(join(pkgDir, "dist", "wasm-node", "engram.js"))});
    const armed = ${JSON.stringify(join(dir, "armed"))};
    if (existsSync(armed)) {
      rmSync(armed);
      glue.panicOnNextVectorBuildForTests();
    }
    require(${JSON.stringify(join(pkgDir, "dist", "engram.vector-worker.node.cjs"))});
  `,
  );
  writeFileSync(join(dir, "armed"), "");
  const scenario = `
    import { createRequire } from "node:module";
    import { join } from "node:path";
    import { Engram, MemoryStorage } from "engram-wasm";
    const [pkgDir, dir] = process.argv.slice(1);
    const escaped = [];
    process.on("uncaughtException", (e) => escaped.push(e?.constructor?.name));
    const trapNextBuild = () => createRequire(import.meta.url)(join(pkgDir, "dist", "wasm-node", "engram.js")).panicOnNextVectorBuildForTests();
    let s = 7;
    const rand = () => ((s = (s * 48271) % 2147483647) / 2147483647) * 2 - 1;
    const vector = () => Array.from({ length: 32 }, rand);
    const outcome = (p) => p.then((r) => r.steps.map((x) => x.result).join(","), (e) => e.code ?? e?.constructor?.name);
    const out = {};
    const open = (extra) => Engram.open({ embedder: null, storage: new MemoryStorage(), autoReindex: false, vectorIndex: { graphMin: 200, alwaysGraph: true, ...extra } });
    const db = await open({ workerUrl: join(dir, "trapping-worker.cjs") });
    for (let i = 0; i < 300; i++) await db.add({ content: "vector " + i, embedding: vector() });
    out.worker = [await outcome(db.reindex()), (await db.stats()).memories, await outcome(db.reindex())];
    await db.close();
    const local = await open({});
    for (let i = 0; i < 300; i++) await local.add({ content: "vector " + i, embedding: vector() });
    trapNextBuild();
    out.inProcess = [await outcome(local.reindex({ inWorker: false })), (await local.stats()).memories, await outcome(local.reindex({ inWorker: false }))];
    await local.close();
    await new Promise((r) => setTimeout(r, 50));
    out.escaped = escaped;
    console.log(JSON.stringify(out));`;
  const stdout = await new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--input-type=module", "-e", scenario, "--", pkgDir, dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
  const out = JSON.parse(stdout);
  assert.deepEqual(out.worker, ["Internal", 300, "segment"], "the trapped worker's reindex fails; a new worker builds");
  assert.deepEqual(out.inProcess, ["Internal", 300, "segment"], "the store comes back on a new instance and builds there");
  assert.ok(
    out.escaped.every((name) => name === "RuntimeError"),
    `only the trap itself escaped: ${out.escaped}`,
  );
});
