// Local sentence embedding in Node: Engram's embedder (tract compiled to wasm32, through engram-wasm)
// against onnxruntime-node, onnxruntime-web's wasm backend (single-threaded) and transformers.js, on
// the same model file (models/model.onnx, all-MiniLM-L6-v2 int8) and the same inputs, in the same run.
// Each library runs in its own child process so load time and memory numbers are clean.
//
//   bash scripts/fetch-models.sh && node pkg-template/build.mjs && bash scripts/link-pkg.sh
//   ONNXRUNTIME_NODE_INSTALL=skip npm ci --prefix benches   # the peers, kept out of the test install
//   node benches/embed.mjs [--models DIR] [--iters 30] [--warmup 5] [--batch-iters 10]
//                          [--rounds 1] [--libs engram,ort-node,ort-node-mt,ort-web,transformers]
//
// Every timed call goes from text to unit vectors: tokenization, the model run, masked mean pooling
// and L2 normalization. Peers tokenize with @huggingface/tokenizers on the same tokenizer.json and pad
// a batch to its longest text, as Engram does (Engram also groups a batch by length, 16 rows at most).
// Inputs: one sentence of exactly 8 / 16 / 32 / 64 / 128 word pieces (counting [CLS] and [SEP]), and
// a batch of 32 distinct sentences of 10 to 28 word pieces.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { percentile } from "./corpus.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), "..");

const SIZES = [8, 16, 32, 64, 128];
const BATCH = 32;
const DIMS = 384;
const LIBS = {
  engram: "tract-wasm (engram-wasm)",
  "ort-node": "onnxruntime-node, 1 thread",
  "ort-node-mt": "onnxruntime-node, default threads",
  "ort-web": "onnxruntime-web wasm, 1 thread",
  transformers: "transformers.js (Node: onnxruntime-node)",
};

// Original text for the inputs: ordinary English so the word pieces look like an agent's notes.
const TEXT = `An agent that remembers well keeps a small set of facts close at hand and lets the rest fade
slowly. When a user mentions that they moved to a new city, changed jobs, or started learning the piano,
the agent writes it down with the date and the conversation it came from. Later, when the same person
asks for a restaurant near home or advice about practice routines, the agent searches its notes, weighs
recent entries above old ones, and answers with the details that still hold. Good memory is not a
transcript of everything that was said; it is a habit of noticing what matters, checking it against
what was known before, and correcting old beliefs when new evidence arrives. The hard part is deciding
what to forget. A meeting that moved from Tuesday to Thursday should replace the earlier plan, while a
favourite book mentioned once a year ago may still be worth keeping. Each note carries its source, its
time, and a short summary, so that the agent can explain why it believes something and drop it quickly
when the user says it is wrong.`;

// ---------------------------------------------------------------------------------------------------
// Shared by parent and workers: tokenizer, tensors, pooling.

async function loadTokenizer(tokenizerPath) {
  const { Tokenizer } = await import("@huggingface/tokenizers");
  return new Tokenizer(JSON.parse(fs.readFileSync(tokenizerPath, "utf8")), {});
}

/** Words of TEXT from `offset` (cyclic), skipping any that would overshoot, until exactly `n` pieces. */
function sentenceOf(tok, n, offset) {
  const words = TEXT.split(/\s+/);
  const count = (ws) => tok.encode(ws.join(" ")).ids.length;
  let cur = [];
  for (let j = 0; j < words.length * 2 && count(cur) < n; j++) {
    const cand = [...cur, words[(offset + j) % words.length]];
    if (count(cand) <= n) cur = cand;
  }
  const text = cur.join(" ");
  if (count(cur) !== n) throw new Error(`could not build a ${n}-piece sentence (got ${count(cur)})`);
  return text;
}

function buildInputs(tok) {
  const single = SIZES.map((n) => ({ n, text: sentenceOf(tok, n, 0) }));
  const batch = Array.from({ length: BATCH }, (_, i) => sentenceOf(tok, 10 + ((i * 7) % 19), ((i * 5) % 40) + i));
  if (new Set(batch).size !== BATCH) throw new Error("batch sentences are not distinct");
  return { single, batch, batchPieces: batch.map((t) => tok.encode(t).ids.length) };
}

/** Padded int64 tensors (as BigInt64Array) for `texts`, right-padded to the longest. */
function encodeBatch(tok, texts) {
  const encs = texts.map((t) => tok.encode(t).ids);
  const seq = Math.max(...encs.map((e) => e.length));
  const ids = new BigInt64Array(texts.length * seq);
  const mask = new BigInt64Array(texts.length * seq);
  encs.forEach((e, r) =>
    e.forEach((id, t) => {
      ids[r * seq + t] = BigInt(id);
      mask[r * seq + t] = 1n;
    }),
  );
  return { ids, mask, types: new BigInt64Array(texts.length * seq), rows: texts.length, seq };
}

/** Mean of the unmasked token states, then unit length; one Float32Array per row. */
function meanPoolNormalize(hidden, mask, rows, seq, dims) {
  const out = [];
  for (let r = 0; r < rows; r++) {
    const v = new Float32Array(dims);
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (mask[r * seq + t] === 0n) continue;
      count++;
      const base = (r * seq + t) * dims;
      for (let d = 0; d < dims; d++) v[d] += hidden[base + d];
    }
    const c = Math.max(count, 1e-9);
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      v[d] /= c;
      norm += v[d] * v[d];
    }
    norm = Math.max(Math.sqrt(norm), 1e-12);
    for (let d = 0; d < dims; d++) v[d] /= norm;
    out.push(v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Worker: one library, one process.

/** Records which .wasm files the process reads (onnxruntime-web picks one of several at run time). */
function watchWasmReads() {
  const seen = new Set();
  const wrap = (obj, name) => {
    const f = obj[name];
    obj[name] = function (p, ...rest) {
      const s = String(p?.href ?? p);
      if (s.endsWith(".wasm")) seen.add(s.startsWith("file:") ? fileURLToPath(s) : s);
      return f.call(this, p, ...rest);
    };
  };
  wrap(fs, "readFileSync");
  wrap(fs, "readFile");
  wrap(fs.promises, "readFile");
  if (globalThis.fetch) wrap(globalThis, "fetch");
  return seen;
}

async function setup(lib, modelPath, tokenizerPath) {
  const info = {};
  if (lib === "engram") {
    const t0 = performance.now();
    const { Embedder, Engram } = await import("engram-wasm");
    if (typeof Embedder?.load !== "function") throw new Error("engram-wasm has no Embedder.load (pkg/ predates the local embedder binding)");
    const t1 = performance.now();
    const e = await Embedder.load({ model: modelPath, tokenizer: tokenizerPath });
    const t2 = performance.now();
    if (e.dims !== DIMS) throw new Error(`Embedder.dims is ${e.dims}, expected ${DIMS}`);
    info.id = e.id;
    // Engram's own word-piece counts for the same inputs, to check they match the peers' tokenizer.
    if (typeof e.tokenize === "function") {
      info.pieces = async (texts) => (await e.tokenize(texts)).map((ids) => ids.length);
    }
    info.wasmFile = path.join(root, "pkg", "dist", "wasm-web", "engram_bg.wasm");
    // The embedder's own memory report if it has one, else the module's linear memory via a store.
    const wasmMemory = async () => {
      for (const k of ["wasmMemoryBytes", "memoryBytes"]) if (typeof e[k] === "number") return e[k];
      if (typeof e.stats === "function") {
        const s = await e.stats();
        if (typeof s?.wasmMemoryBytes === "number") return s.wasmMemoryBytes;
      }
      const db = await Engram.open({ embedder: null });
      const b = (await db.stats()).wasmMemoryBytes;
      await db.close?.();
      return b;
    };
    return { importMs: t1 - t0, loadMs: t2 - t1, embed: (texts) => e.embed(texts), wasmMemory, info };
  }
  if (lib === "ort-node" || lib === "ort-node-mt" || lib === "ort-web") {
    const seen = lib === "ort-web" ? watchWasmReads() : null;
    const tok = await loadTokenizer(tokenizerPath);
    const t0 = performance.now();
    const ort = (await import(lib === "ort-web" ? "onnxruntime-web" : "onnxruntime-node")).default;
    const t1 = performance.now();
    let options;
    if (lib === "ort-web") {
      ort.env.wasm.numThreads = 1;
      options = { executionProviders: ["wasm"] };
    } else if (lib === "ort-node") {
      options = { executionProviders: ["cpu"], intraOpNumThreads: 1, interOpNumThreads: 1 };
    } else {
      options = { executionProviders: ["cpu"] };
    }
    const session = await ort.InferenceSession.create(modelPath, options);
    const t2 = performance.now();
    const embed = async (texts) => {
      const b = encodeBatch(tok, texts);
      const shape = [b.rows, b.seq];
      const out = await session.run({
        input_ids: new ort.Tensor("int64", b.ids, shape),
        attention_mask: new ort.Tensor("int64", b.mask, shape),
        token_type_ids: new ort.Tensor("int64", b.types, shape),
      });
      const h = out.last_hidden_state;
      const vectors = meanPoolNormalize(h.data, b.mask, b.rows, b.seq, h.dims[2]);
      for (const t of Object.values(out)) t.dispose?.();
      return vectors;
    };
    info.ortVersion = ort.env.versions?.[lib === "ort-web" ? "web" : "node"] ?? null;
    return { importMs: t1 - t0, loadMs: t2 - t1, embed, info, wasmSeen: seen };
  }
  if (lib === "transformers") {
    // transformers.js wants a Hugging Face style folder; build one around the same two files.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "engram-embed-bench-"));
    process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    const m = path.join(dir, "all-MiniLM-L6-v2");
    fs.mkdirSync(path.join(m, "onnx"), { recursive: true });
    fs.symlinkSync(modelPath, path.join(m, "onnx", "model.onnx"));
    fs.symlinkSync(tokenizerPath, path.join(m, "tokenizer.json"));
    const config = {
      model_type: "bert",
      architectures: ["BertModel"],
      hidden_size: DIMS,
      num_attention_heads: 12,
      num_hidden_layers: 6,
      intermediate_size: 1536,
      max_position_embeddings: 512,
      vocab_size: 30522,
      type_vocab_size: 2,
    };
    fs.writeFileSync(path.join(m, "config.json"), JSON.stringify(config));
    const tokConfig = {
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: 512,
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      mask_token: "[MASK]",
    };
    fs.writeFileSync(path.join(m, "tokenizer_config.json"), JSON.stringify(tokConfig));
    const t0 = performance.now();
    const tf = await import("@huggingface/transformers");
    const t1 = performance.now();
    tf.env.allowRemoteModels = false;
    tf.env.allowLocalModels = true;
    tf.env.localModelPath = dir + path.sep;
    const extractor = await tf.pipeline("feature-extraction", "all-MiniLM-L6-v2", { dtype: "fp32", device: "cpu" });
    const t2 = performance.now();
    const embed = async (texts) => {
      const out = await extractor(texts, { pooling: "mean", normalize: true });
      const vectors = texts.map((_, r) => out.data.slice(r * DIMS, (r + 1) * DIMS));
      out.dispose?.();
      return vectors;
    };
    info.version = tf.env.version;
    return { importMs: t1 - t0, loadMs: t2 - t1, embed, info };
  }
  throw new Error(`unknown library ${lib}`);
}

async function time(embed, texts, warmup, iters) {
  const s0 = performance.now();
  await embed(texts);
  const firstMs = performance.now() - s0;
  for (let i = 1; i < warmup; i++) await embed(texts);
  const times = [];
  for (let i = 0; i < iters; i++) {
    const s = performance.now();
    const v = await embed(texts);
    times.push(performance.now() - s);
    if (v.length !== texts.length) throw new Error(`got ${v.length} vectors for ${texts.length} texts`);
  }
  times.sort((a, b) => a - b);
  return { firstMs, p50: percentile(times, 50), p95: percentile(times, 95), n: times.length };
}

async function worker(lib, inputsPath, modelPath, tokenizerPath, warmup, iters, batchIters) {
  const inputs = JSON.parse(fs.readFileSync(inputsPath, "utf8"));
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const lib0 = await setup(lib, modelPath, tokenizerPath);
  const rssLoaded = process.memoryUsage().rss;
  const timings = {};
  for (const { n, text } of inputs.single) timings[n] = await time(lib0.embed, [text], warmup, iters);
  timings.batch = await time(lib0.embed, inputs.batch, Math.min(warmup, 2), batchIters);
  // Vectors for the correctness check: each single sentence alone, and the batch as one call.
  const singles = [];
  for (const { text } of inputs.single) singles.push(Array.from((await lib0.embed([text]))[0]));
  const batched = (await lib0.embed(inputs.batch)).map((v) => Array.from(v));
  const wasmFiles = lib0.wasmSeen ? [...lib0.wasmSeen] : lib0.info.wasmFile ? [lib0.info.wasmFile] : [];
  const wasmMemoryBytes = lib0.wasmMemory ? await lib0.wasmMemory() : null;
  if (lib0.info.pieces) {
    lib0.info.pieces = {
      single: await lib0.info.pieces(inputs.single.map((x) => x.text)),
      batch: await lib0.info.pieces(inputs.batch),
    };
  }
  return {
    lib,
    importMs: lib0.importMs,
    loadMs: lib0.loadMs,
    timings,
    info: lib0.info,
    wasmFiles,
    wasmMemoryBytes,
    rssBaseline: rss0,
    rssLoaded,
    rssPeak: process.resourceUsage().maxRSS * 1024,
    singles,
    batched,
  };
}

// ---------------------------------------------------------------------------------------------------
// Parent.

function fileSize(p) {
  const raw = fs.readFileSync(p);
  return { path: path.relative(root, p), raw: raw.length, gzip: gzipSync(raw, { level: 9 }).length };
}

function cosine(a, b) {
  let d = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return d / Math.sqrt(na * nb);
}

if (args[0] === "--worker") {
  const [, lib, inputsPath, modelPath, tokenizerPath, warmup, iters, batchIters] = args;
  const r = await worker(lib, inputsPath, modelPath, tokenizerPath, Number(warmup), Number(iters), Number(batchIters));
  // Written synchronously: stdout to a pipe is asynchronous, and the exit below would cut it.
  fs.writeSync(1, JSON.stringify(r) + "\n");
  process.exit(0); // onnxruntime may keep worker threads alive
} else {
  const models = path.resolve(opt("--models", path.join(root, "models")));
  const modelPath = path.join(models, "model.onnx");
  const tokenizerPath = path.join(models, "tokenizer.json");
  if (!fs.existsSync(modelPath) || !fs.existsSync(tokenizerPath)) {
    throw new Error(`model files not found in ${models} (run bash scripts/fetch-models.sh)`);
  }
  const iters = opt("--iters", "30");
  const warmup = opt("--warmup", "5");
  const batchIters = opt("--batch-iters", "10");
  const libs = opt("--libs", Object.keys(LIBS).join(",")).split(",");

  const tok = await loadTokenizer(tokenizerPath);
  const inputs = buildInputs(tok);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "engram-embed-inputs-"));
  const inputsPath = path.join(tmp, "inputs.json");
  fs.writeFileSync(inputsPath, JSON.stringify(inputs));

  // Libraries take turns, round after round, so a burst of load on a shared machine hits them alike;
  // each library keeps its best round per input (and its fastest load).
  const rounds = Number(opt("--rounds", "1"));
  const runs = {};
  const failed = [];
  for (let round = 0; round < rounds; round++) {
    for (const lib of libs) {
      if (!LIBS[lib]) throw new Error(`unknown library ${lib} (known: ${Object.keys(LIBS).join(", ")})`);
      if (failed.some((x) => x.lib === lib)) continue;
      process.stderr.write(`embed bench: round ${round + 1}/${rounds}, ${lib}…\n`);
      try {
        const out = execFileSync(process.execPath, ["--expose-gc", self, "--worker", lib, inputsPath, modelPath, tokenizerPath, warmup, iters, batchIters], {
          encoding: "utf8",
          maxBuffer: 1 << 26,
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, ORT_LOG_LEVEL: "error" },
        });
        (runs[lib] ??= []).push(JSON.parse(out.trim().split("\n").at(-1)));
      } catch (e) {
        const lines = String(e.stderr || e.message || e)
          .trim()
          .split("\n");
        const msg = lines.find((l) => /^\s*\w*Error\b/.test(l)) ?? lines.find((l) => /error/i.test(l)) ?? lines[0];
        failed.push({ lib, reason: msg.trim() });
      }
    }
  }
  // The peers' share of the timed calls spent in the JS tokenizer (Engram tokenizes inside the wasm).
  const tokTimes = {};
  for (const [k, texts] of [
    ["128", [inputs.single.at(-1).text]],
    ["batch", inputs.batch],
  ]) {
    const ts = [];
    for (let i = 0; i < 30; i++) {
      const s = performance.now();
      encodeBatch(tok, texts);
      ts.push(performance.now() - s);
    }
    tokTimes[k] = percentile(
      ts.sort((a, b) => a - b),
      50,
    );
  }
  const rows = libs
    .filter((lib) => runs[lib])
    .map((lib) => {
      const [first, ...rest] = runs[lib];
      const best = { ...first, timings: { ...first.timings } };
      for (const r of rest) {
        best.importMs = Math.min(best.importMs, r.importMs);
        best.loadMs = Math.min(best.loadMs, r.loadMs);
        for (const k of Object.keys(best.timings)) {
          const a = best.timings[k],
            b = r.timings[k];
          best.timings[k] = { ...a, p50: Math.min(a.p50, b.p50), p95: Math.min(a.p95, b.p95), firstMs: Math.min(a.firstMs, b.firstMs) };
        }
      }
      return best;
    });
  fs.rmSync(tmp, { recursive: true, force: true });

  const f = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x) ? "–" : x.toFixed(d));
  const mib = (x) => (x === null || x === undefined ? "–" : (x / 1048576).toFixed(1));
  const modelSize = fs.statSync(modelPath).size;
  const pieces = inputs.batchPieces;
  console.log(`node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}; model ${path.relative(root, modelPath)} (${mib(modelSize)} MiB)`);
  console.log(
    `${rounds} round(s), best round per library and input; ${warmup} warm-up + ${iters} timed calls per single sentence; ${Math.min(Number(warmup), 2)} + ${batchIters} for the batch of ${BATCH} (${Math.min(...pieces)}–${Math.max(...pieces)} pieces each, ${pieces.reduce((a, b) => a + b, 0)} in all)`,
  );
  console.log("times are text → unit vectors (tokenize, run, mean-pool, normalize), in ms");
  console.log(
    `of which the peers' JS tokenizer (@huggingface/tokenizers, p50): ${tokTimes["128"].toFixed(2)} ms for 1 × 128 pieces, ${tokTimes.batch.toFixed(2)} ms for the batch\n`,
  );

  const cols = ["input"];
  for (const r of rows) cols.push(`${LIBS[r.lib]} p50 / p95`);
  console.log(`| ${cols.join(" | ")} |`);
  console.log(`| --- | ${rows.map(() => "---:").join(" | ")} |`);
  const keys = [...SIZES.map(String), "batch"];
  const label = (k) => (k === "batch" ? `batch of ${BATCH}` : `1 × ${k} pieces`);
  for (const k of keys) console.log(`| ${label(k)} | ${rows.map((r) => `${f(r.timings[k].p50)} / ${f(r.timings[k].p95)}`).join(" | ")} |`);

  const eng = rows.find((r) => r.lib === "engram");
  if (eng) {
    const peers = rows.filter((r) => r.lib !== "engram");
    if (peers.length) {
      console.log(`\nratio tract-wasm / peer (above 1: Engram slower), p50 and p95\n`);
      console.log(`| input | ${peers.map((p) => `÷ ${p.lib} p50 / p95`).join(" | ")} |`);
      console.log(`| --- | ${peers.map(() => "---:").join(" | ")} |`);
      for (const k of keys) {
        console.log(`| ${label(k)} | ${peers.map((p) => `${f(eng.timings[k].p50 / p.timings[k].p50)}× / ${f(eng.timings[k].p95 / p.timings[k].p95)}×`).join(" | ")} |`);
      }
    }
  }

  console.log(
    `\n| library | import (ms) | load model (ms) | first call, 8 pieces (ms) | runtime file | raw (KiB) | gzip -9 (KiB) | RSS baseline → loaded → peak (MiB) | peak − baseline (MiB) | wasm linear memory (MiB) |`,
  );
  console.log(`| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |`);
  for (const r of rows) {
    let files = r.wasmFiles.filter((p) => fs.existsSync(p)).map(fileSize);
    if (r.lib.startsWith("ort-node") || r.lib === "transformers") {
      // Native runtime: the shared library and the N-API binding it loads (no wasm).
      const dir = path.join(root, "node_modules", "onnxruntime-node", "bin", "napi-v6", process.platform, process.arch);
      const found = fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => path.join(dir, n)) : [];
      files = found.filter((p) => fs.statSync(p).isFile()).map(fileSize);
    }
    const name = files.map((x) => x.path.replace(/^node_modules\//, "")).join(" + ") || "–";
    const raw = files.reduce((a, x) => a + x.raw, 0);
    const gz = files.reduce((a, x) => a + x.gzip, 0);
    console.log(
      `| ${LIBS[r.lib]} | ${f(r.importMs, 0)} | ${f(r.loadMs, 0)} | ${f(r.timings[8].firstMs, 1)} | ${name} | ${files.length ? f(raw / 1024, 0) : "–"} | ${files.length ? f(gz / 1024, 0) : "–"} | ${mib(r.rssBaseline)} → ${mib(r.rssLoaded)} → ${mib(r.rssPeak)} | ${mib(r.rssPeak - r.rssBaseline)} | ${mib(r.wasmMemoryBytes)} |`,
    );
  }

  // transformers.js in a browser runs its own onnxruntime-web build: its web bundle points onnxruntime
  // at the ".asyncify" variant of the wasm (from a CDN by default; the same file ships in the package).
  const tfDir = path.join(root, "node_modules", "@huggingface", "transformers");
  const tfWeb = path.join(tfDir, "dist", "transformers.web.js");
  if (fs.existsSync(tfWeb)) {
    const suffix = /wasmPathSuffix = "([^"]*)"/.exec(fs.readFileSync(tfWeb, "utf8"))?.[1];
    for (const n of suffix === undefined ? [] : [`ort-wasm-simd-threaded${suffix}.wasm`]) {
      const p = [path.join(tfDir, "node_modules", "onnxruntime-web", "dist", n), path.join(root, "node_modules", "onnxruntime-web", "dist", n)].find((x) => fs.existsSync(x));
      if (p) {
        const s = fileSize(p);
        console.log(`transformers.js in a browser loads ${s.path.replace(/^node_modules\//, "")}: ${f(s.raw / 1024, 0)} KiB raw, ${f(s.gzip / 1024, 0)} KiB gzip -9`);
      }
    }
  }

  // Correctness: every peer's vectors against Engram's (or against onnxruntime-node when Engram failed).
  const ref = eng ?? rows.find((r) => r.lib === "ort-node") ?? rows[0];
  if (ref) {
    console.log(`\ncosine to ${ref.lib} for the same text (single sentences 8…128 pieces; batch: each of the ${BATCH} rows of one call)\n`);
    console.log(`| library | ${SIZES.map((n) => `${n}`).join(" | ")} | batch min | batch mean |`);
    console.log(`| --- | ${SIZES.map(() => "---:").join(" | ")} | ---: | ---: |`);
    let ok = true;
    for (const r of rows.filter((x) => x !== ref)) {
      const cs = r.singles.map((v, i) => cosine(v, ref.singles[i]));
      const cb = r.batched.map((v, i) => cosine(v, ref.batched[i]));
      const min = Math.min(...cb);
      if (Math.min(...cs, min) < 0.999) ok = false;
      console.log(`| ${r.lib} | ${cs.map((c) => f(c, 6)).join(" | ")} | ${f(min, 6)} | ${f(cb.reduce((a, b) => a + b, 0) / cb.length, 6)} |`);
    }
    console.log(ok ? "\nall cosines ≥ 0.999" : "\nWARNING: some cosine below 0.999");
  }
  if (eng?.info?.id) console.log(`engram embedder id: ${eng.info.id}`);
  if (eng?.info?.pieces) {
    const same = JSON.stringify(eng.info.pieces.single) === JSON.stringify(SIZES) && JSON.stringify(eng.info.pieces.batch) === JSON.stringify(pieces);
    console.log(
      same
        ? "engram's tokenizer gives the same word-piece counts as the peers' for every input"
        : `WARNING: engram's word-piece counts differ: single ${eng.info.pieces.single}, batch ${eng.info.pieces.batch} (peers: ${SIZES}, ${pieces})`,
    );
  }
  for (const r of rows) if (r.info?.ortVersion || r.info?.version) console.log(`${r.lib}: version ${r.info.ortVersion ?? r.info.version}`);
  for (const x of failed) console.log(`SKIPPED ${x.lib}: ${x.reason}`);
}
