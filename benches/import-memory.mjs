// Peak memory of importing an export file, each case in a fresh process: the wasm instance's linear
// memory after the import (it only grows, so this is its high-water mark) and the process's peak
// RSS. Cases: into a store without storage and into a NodeFSStorage store (the import is one chunk
// on disk), from the file's bytes and from a file stream; then the store's own size, measured as a
// fresh process that opens the imported store. `--before DIR` runs the byte cases with another build
// of the package (e.g. a copy of the previous one) in the same run.
//
//   node benches/import-memory.mjs target/bench-data/synthetic-100000.bin [--before /tmp/pkg-before]
import { execFileSync } from "node:child_process";
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);

async function load(pkg) {
  if (pkg === "current") return { ...(await import("engram-wasm")), ...(await import("engram-wasm/node-fs")) };
  return { ...(await import(pathToFileURL(join(pkg, "dist/engram.node.mjs")).href)), ...(await import(pathToFileURL(join(pkg, "dist/engram.node-fs.mjs")).href)) };
}

async function childImport(pkg, file, how, dir) {
  const { Engram, NodeFSStorage } = await load(pkg);
  const storage = dir === "-" ? undefined : new NodeFSStorage(dir, { durability: "relaxed" });
  const db = await Engram.open({ embedder: null, ...(storage && { storage }) });
  const before = (await db.stats()).wasmMemoryBytes;
  const t0 = performance.now();
  const merged = await db.import(how === "stream" ? createReadStream(file, { highWaterMark: 1 << 20 }) : new Uint8Array(readFileSync(file)));
  const ms = performance.now() - t0;
  const after = (await db.stats()).wasmMemoryBytes;
  await db.close();
  return { added: merged.added, ms, wasmBefore: before, wasm: after, maxRss: process.resourceUsage().maxRSS * 1024 };
}

async function childOpen(pkg, dir) {
  const { Engram, NodeFSStorage } = await load(pkg);
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const stats = await db.stats();
  await db.close();
  return { memories: stats.memories, wasm: stats.wasmMemoryBytes, maxRss: process.resourceUsage().maxRSS * 1024 };
}

if (args[0] === "--child") {
  const [, what, ...rest] = args;
  const out = what === "import" ? await childImport(...rest) : await childOpen(...rest);
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const file = resolve(args[0] ?? "");
if (!args[0] || args[0].startsWith("--")) {
  console.error("usage: node benches/import-memory.mjs EXPORT_FILE [--before PKG_DIR]");
  process.exit(2);
}
const before = opt("--before", null);
const child = (...a) =>
  JSON.parse(
    execFileSync(process.execPath, ["--max-old-space-size=8192", fileURLToPath(import.meta.url), "--child", ...a], {
      maxBuffer: 1 << 24,
      stdio: ["ignore", "pipe", "inherit"],
    }).toString(),
  );
const work = mkdtempSync(join(tmpdir(), "engram-import-mem-"));
const mb = (b) => (b / 2 ** 20).toFixed(0);
const rows = [];
const cases = [];
if (before) cases.push(["before", before, "bytes"]);
cases.push(["after", "current", "bytes"], ["after", "current", "stream"]);
let opened = null;
for (const [label, pkg, how] of cases) {
  for (const target of ["memory", "nodefs"]) {
    const dir = target === "memory" ? "-" : join(work, `${label}-${how}`);
    const r = child("import", pkg, file, how, dir);
    rows.push({ label, how, target, ...r });
    if (target === "nodefs" && label === "after" && how === "stream") opened = child("open", "current", dir);
  }
}
rmSync(work, { recursive: true, force: true });
console.log(`import of ${file} (${mb(statSync(file).size)} MB), node ${process.version}`);
console.log("| build | source | store | memories | wasm memory MB | peak RSS MB | import s |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.label} | ${r.how} | ${r.target} | ${r.added} | ${mb(r.wasm)} | ${mb(r.maxRss)} | ${(r.ms / 1000).toFixed(1)} |`);
if (opened) console.log(`| after | open of the imported NodeFS store (fresh process) | nodefs | ${opened.memories} | ${mb(opened.wasm)} | ${mb(opened.maxRss)} | — |`);
