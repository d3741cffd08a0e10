// The local embedder in wasm under Node: token ids equal the reference tokenizer's, vectors are within
// cosine 0.999 of onnxruntime's at both precisions and agree with the native build's (within 1e-5 at
// "f32"; at "int8" see the bound below), and stores use it by default.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rejectsWith, repo } from "./helpers.mjs";
import { Embedder, Engram, EngramError } from "engram-wasm";

const modelDir = process.env.ENGRAM_MODEL_DIR ?? join(repo, "models");
const have = existsSync(join(modelDir, "model.onnx")) && existsSync(join(modelDir, "tokenizer.json"));
const required = Boolean(process.env.ENGRAM_REQUIRE_MODEL);
const skip = !have && !required && "model files absent (bash scripts/fetch-models.sh)";
const fixture = JSON.parse(readFileSync(join(repo, "tests", "fixtures", "embed_reference.json"), "utf8"));
const cases = fixture.cases ?? fixture;

let loaded;
const embedder = async () => (loaded ??= Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json") }));

const cosine = (a, b) => {
  let d = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return d / Math.sqrt(na * nb);
};

function checkAgainstReference(label, vectors, withVectors) {
  let worst = 1;
  withVectors.forEach((c, i) => {
    const cos = cosine(vectors[i], c.vector);
    worst = Math.min(worst, cos);
    assert.ok(cos >= 0.999, `${label}: cosine ${cos} for ${c.note}`);
  });
  console.log(`wasm ${label}: min cosine to reference over ${withVectors.length} inputs ${worst.toFixed(7)}`);
}

// At "f32" both builds run the same float graph and differ only in how tract's kernels round (≤ 1e-5).
// At "int8" each activation row is rounded to a 16-bit grid before every linear layer; a last-digit
// difference from the float parts (attention, normalization, which round differently per platform) can
// move a value across a grid boundary, so elements may differ by a few 1e-4 while the vectors stay
// within cosine 0.99999 of each other. Larger differences would mean the integer sums differ.
const PARITY = { f32: { maxDiff: 1e-5, minCos: 0.9999999 }, int8: { maxDiff: 1e-3, minCos: 0.99999 } };

function compareWithNative(label, vectors, withVectors) {
  const dir = process.env.ENGRAM_NATIVE_VECTORS_DIR;
  const file = dir && join(dir, `${label}.json`);
  if (!file || !existsSync(file)) {
    assert.ok(!required, `ENGRAM_REQUIRE_MODEL is set but the native vectors (ENGRAM_NATIVE_VECTORS_DIR/${label}.json) are missing`);
    return;
  }
  const native = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(native.length, withVectors.length);
  let maxDiff = 0;
  let minCos = 1;
  native.forEach((n, i) => {
    assert.equal(n.text, withVectors[i].text);
    for (let j = 0; j < 384; j++) maxDiff = Math.max(maxDiff, Math.abs(n.vector[j] - vectors[i][j]));
    minCos = Math.min(minCos, cosine(n.vector, vectors[i]));
  });
  console.log(`wasm vs native, ${label}: max |difference| ${maxDiff.toExponential(2)}, min cosine ${minCos.toFixed(9)}`);
  assert.ok(maxDiff <= PARITY[label].maxDiff, `${label}: native and wasm differ by ${maxDiff}`);
  assert.ok(minCos >= PARITY[label].minCos, `${label}: native and wasm vectors have cosine ${minCos}`);
}

test("token ids and vectors match the reference; native and wasm agree", { skip }, async () => {
  const events = [];
  const e = await Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json"), onProgress: (p) => events.push(p.status) });
  assert.deepEqual([...new Set(events)], ["initiate", "done", "ready"]);
  assert.match(e.id, /^all-MiniLM-L6-v2-int8@8199be6f[0-9a-f]{56}$/);
  assert.equal(e.dims, 384);
  const ids = await e.tokenize(cases.map((c) => c.text));
  cases.forEach((c, i) => assert.deepEqual(Array.from(ids[i]), c.ids, `token ids of ${c.note}`));
  const withVectors = cases.filter((c) => c.vector);
  assert.ok(withVectors.length >= 50);
  const vectors = await e.embed(withVectors.map((c) => c.text));
  checkAgainstReference("int8", vectors, withVectors);
  compareWithNative("int8", vectors, withVectors);
  const empty = cases.find((c) => !c.vector);
  await rejectsWith(e.embed([empty.text]), "InvalidInput", EngramError);
  await rejectsWith(e.embed("not an array"), "InvalidInput", EngramError);
  e.dispose();
  await rejectsWith(e.embed(["x"]), "Closed", EngramError);
});

test('precision "f32" runs the float graph: same id, matches the reference and the native build within 1e-5', { skip }, async () => {
  const e = await Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json"), precision: "f32" });
  const fast = await embedder();
  assert.equal(e.id, fast.id, "both precisions share the identity");
  const withVectors = cases.filter((c) => c.vector);
  const vectors = await e.embed(withVectors.map((c) => c.text));
  checkAgainstReference("f32", vectors, withVectors);
  compareWithNative("f32", vectors, withVectors);
  e.dispose();
  await rejectsWith(Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json"), precision: "int4" }), "InvalidInput", EngramError);
});

test("Engram.open() uses the local model by default; stores record it", { skip }, async () => {
  const db = await Engram.open();
  await db.add({ content: "My daughter plays the violin in the school orchestra" });
  await db.add({ content: "The quarterly tax filing is due in April" });
  const hits = await db.search("does my kid do music?", { explain: true });
  assert.equal(hits[0].memory.content, "My daughter plays the violin in the school orchestra");
  assert.ok(hits[0].explain.vector > 0, "found by meaning: no query word is in the memory");
  const stats = await db.stats();
  assert.match(stats.embedder, /^all-MiniLM-L6-v2-int8@/);
  assert.equal(stats.vectorDims, 384);
  // A store opened with the shared Embedder object embeds inside the core too.
  const shared = await Engram.open({ embedder: await embedder() });
  await shared.ingest({ id: "s", turns: [{ role: "user", content: "I adopted a kitten named Mochi" }] });
  assert.equal((await shared.search("new pet cat", { scope: "raw" }))[0].raw.id, "s#0");
  await rejectsWith(shared.add({ content: "x", embedding: [1, 0, 0] }), "InvalidInput", EngramError);
});

test("a missing default model is a clear Embedder error", async () => {
  const saved = process.env.ENGRAM_MODEL_DIR;
  process.env.ENGRAM_MODEL_DIR = join(repo, "no-such-model-dir");
  try {
    await assert.rejects(Engram.open(), (e) => e instanceof EngramError && e.code === "Embedder" && /fetch-models\.sh/.test(e.message) && /embedder: null/.test(e.message));
  } finally {
    if (saved === undefined) delete process.env.ENGRAM_MODEL_DIR;
    else process.env.ENGRAM_MODEL_DIR = saved;
  }
  await rejectsWith(Embedder.load({ model: new Uint8Array([1, 2, 3]), tokenizer: new Uint8Array([4]) }), "InvalidInput", EngramError);
  await rejectsWith(Embedder.load({ model: "/nope/model.onnx", tokenizer: "/nope/tokenizer.json" }), "Embedder", EngramError);
  const ac = new AbortController();
  ac.abort();
  await rejectsWith(Embedder.load({ model: "/x", tokenizer: "/y", signal: ac.signal }), "Aborted", EngramError);
});

// A minimal ONNX ModelProto, encoded by hand (protobuf: field number << 3 | wire type).
function onnxModel(ops) {
  const varint = (n) => {
    const out = [];
    do {
      out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>>= 7;
    } while (n);
    return out;
  };
  const bytes = (field, data) => [...varint((field << 3) | 2), ...varint(data.length), ...data];
  const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
  const num = (field, n) => [...varint(field << 3), ...varint(n)];
  const nodes = ops.flatMap((op, i) =>
    bytes(1, [...str(1, i ? `t${i - 1}` : "input_ids"), ...str(2, i === ops.length - 1 ? "last_hidden_state" : `t${i}`), ...str(3, `n${i}`), ...str(4, op)]),
  );
  return new Uint8Array([...num(1, 8), ...bytes(7, nodes), ...bytes(8, [...str(1, ""), ...num(2, 17)])]);
}

test("the wasm build names an ONNX operator it does not carry (its op set is trimmed to sentence encoders)", { skip }, async () => {
  const tokenizer = join(modelDir, "tokenizer.json");
  await assert.rejects(Embedder.load({ model: onnxModel(["Identity", "Conv"]), tokenizer }), (e) => {
    assert.ok(e instanceof EngramError);
    assert.equal(e.code, "Embedder");
    assert.match(e.message, /ONNX operator `Conv` \(node `n1`\)/);
    return true;
  });
  // An operator of the encoder set gets past that check (and fails later for this toy graph's shape).
  await assert.rejects(Embedder.load({ model: onnxModel(["Identity", "Erf"]), tokenizer }), (e) => e instanceof EngramError && !/ONNX operator `/.test(e.message));
});
