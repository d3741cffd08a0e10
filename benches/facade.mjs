// The JS facade's own cost, before and after a change to it, in one process: this checkout's
// facade and the facade of `--against REV` (bundled here from that revision's pkg-template/src)
// drive the same wasm core (this checkout's pkg/dist/wasm-node), rounds alternating, so machine
// noise hits both alike. Measured per round: N awaited `add`s, N `add`s in flight together (group
// commit), N `search`es, once keyword-only and once with a host embedder (a deterministic JS
// double, cheap, so the facade's share shows). Prints the median per operation and the ratio
// this / against.
//
//   node benches/facade.mjs --against 4f842c1 [--n 2000] [--rounds 9] [--only "host embedder"]
//
// Only calls whose wasm signatures both facades share are timed (add, addGroup, search). A facade
// from before `embeddingTexts` asked the core for `guardText`; for it the glue gets that call
// back, made of `embeddingTexts` (the same one JSON round trip per text).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, cpSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import { build as esbuild } from "esbuild";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const AGAINST = opt("--against", null);
const N = Number(opt("--n", "2000"));
const ROUNDS = Number(opt("--rounds", "9"));
const ONLY = opt("--only", null); // "keyword-only" or "host embedder"
if (!AGAINST) throw new Error("usage: node benches/facade.mjs --against REV [--n 2000] [--rounds 5]");

/** That revision's facade, bundled next to this checkout's wasm glue (so it loads the same core). */
async function bundleAgainst(rev) {
  const src = mkdtempSync(join(repo, "target", "facade-"));
  execFileSync("sh", ["-c", `git -C "${repo}" archive ${rev} pkg-template/src | tar -x -C "${src}"`]);
  // Generated at build time, not in git: this checkout's codes (the same ErrorCode list).
  cpSync(join(repo, "pkg-template", "src", "error-codes.js"), join(src, "pkg-template", "src", "error-codes.js"));
  const outfile = join(repo, "pkg", "dist", `engram.node.against-${rev}.mjs`);
  await esbuild({
    bundle: true,
    external: ["./wasm-node/*", "./wasm-web/*"],
    logLevel: "warning",
    target: "es2022",
    entryPoints: [join(src, "pkg-template", "src", "entry-node.js")],
    outfile,
    format: "esm",
    platform: "node",
  });
  rmSync(src, { recursive: true, force: true });
  return outfile;
}

const DIMS = 64;
/** A deterministic host embedder double: a hashed bag of words, normalized. */
const hostEmbedder = {
  embed(text) {
    const v = new Float32Array(DIMS);
    for (const w of text.toLowerCase().split(/\W+/)) {
      let h = 2166136261;
      for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
      v[(h >>> 0) % DIMS] += 1;
    }
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  },
  async embedDocuments(texts) {
    return texts.map((t) => this.embed(t));
  },
  async embedQuery(text) {
    return this.embed(text);
  },
};

const WORDS = "tea coffee garden bike train office sister report budget river museum recipe guitar invoice meeting travel".split(" ");
const text = (i) => `note ${i}: ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7) % WORDS.length]} on day ${i % 31}`;

async function round(Engram, embedder) {
  const db = await Engram.open({ embedder });
  let t = performance.now();
  for (let i = 0; i < N; i++) await db.add({ content: text(i) });
  const addAwaited = (performance.now() - t) / N;
  t = performance.now();
  await Promise.all(Array.from({ length: N }, (_, i) => db.add({ content: text(N + i) })));
  const addGrouped = (performance.now() - t) / N;
  t = performance.now();
  for (let i = 0; i < N; i++) await db.search(`${WORDS[i % WORDS.length]} day ${i % 31}`, { limit: 10 });
  const search = (performance.now() - t) / N;
  await db.close();
  return { addAwaited, addGrouped, search };
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

const glue = createRequire(import.meta.url)(join(repo, "pkg", "dist", "wasm-node", "engram.js"));
if (!glue.EngramCore.prototype.guardText) {
  glue.EngramCore.prototype.guardText = function guardText(content, allowSecrets) {
    const [t] = JSON.parse(this.embeddingTexts(JSON.stringify([{ content, allowSecrets }])));
    if (typeof t !== "string") throw Object.assign(new Error(t.error.message), { code: t.error.code });
    return JSON.stringify({ text: t });
  };
}
const ours = (await import(pathToFileURL(join(repo, "pkg", "dist", "engram.node.mjs")).href)).Engram;
const againstFile = await bundleAgainst(AGAINST);
const theirs = (await import(pathToFileURL(againstFile).href)).Engram;
try {
  for (const [label, embedder] of [
    ["keyword-only", null],
    ["host embedder", hostEmbedder],
  ].filter(([l]) => !ONLY || l === ONLY)) {
    const runs = { this: [], against: [] };
    await round(ours, embedder); // warm-up: wasm tiers, JIT
    await round(theirs, embedder);
    for (let r = 0; r < ROUNDS; r++) {
      // Which facade goes first alternates, so a drift within a round favours neither.
      if (r % 2 === 0) runs.this.push(await round(ours, embedder));
      runs.against.push(await round(theirs, embedder));
      if (r % 2 === 1) runs.this.push(await round(ours, embedder));
    }
    console.log(`\n${label}: N = ${N}, ${ROUNDS} rounds, median µs per operation`);
    console.log("| operation | this | " + AGAINST + " | ratio |\n| --- | ---: | ---: | ---: |");
    for (const k of ["addAwaited", "addGrouped", "search"]) {
      const a = median(runs.this.map((x) => x[k])) * 1000;
      const b = median(runs.against.map((x) => x[k])) * 1000;
      console.log(`| ${k} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(2)} |`);
    }
  }
} finally {
  rmSync(againstFile, { force: true });
}
