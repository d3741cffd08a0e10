// engram-mcp tool-call round trips: the MCP SDK's Client over stdio to the real server process, on a
// store already holding N memories (default 10,000 distinct lines of LongMemEval conversations).
// Measures `remember` (a new memory each call: strict durability, so each is an fsynced commit) and
// `recall` (the context block for a LongMemEval question), then the same two engine calls made
// in-process on the same store, so the protocol's share is visible.
//
//   node benches/mcp.mjs [--memories 10000] [--calls 200] [--corpus ../shared/bench/longmemeval-s-dev.json.gz] [--embedder]
//
// --embedder uses the local model (ENGRAM_MODEL_DIR or ./models) in the server and for the prefill.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Embedder, Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { loadCorpus, percentile } from "./corpus.mjs";

const repo = resolve(fileURLToPath(import.meta.url), "..", "..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const n = Number(opt("--memories", 10000));
const calls = Number(opt("--calls", 200));
const corpusPath = opt("--corpus", join(repo, "..", "shared", "bench", "longmemeval-s-dev.json.gz"));
const withEmbedder = args.includes("--embedder");
const modelDir = resolve(process.env.ENGRAM_MODEL_DIR ?? join(repo, "models"));

// Spare lines: dedup folds some distinct lines together (case, punctuation), and the prefill stops at n memories.
const { docs, queries } = loadCorpus(corpusPath, Math.ceil(n * 1.05) + 2 * calls + 20);
const dir = mkdtempSync(join(tmpdir(), "engram-mcp-bench-"));

const stats = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(2)} ms, p90 ${percentile(s, 90).toFixed(2)} ms, p99 ${percentile(s, 99).toFixed(2)} ms`;
};

try {
  // Prefill in-process (relaxed writes, one flush at the end): the store the server then opens.
  let t0 = performance.now();
  const embedder = withEmbedder ? await Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json") }) : null;
  const store = await Engram.open({ storage: new NodeFSStorage(dir, { durability: "relaxed" }), embedder, autoReindex: false });
  const batch = 64;
  let stored = 0;
  let next = 0;
  while (stored < n) {
    const texts = docs.slice(next, next + Math.min(batch, n - stored));
    if (texts.length === 0) throw new Error("the corpus ran out of lines");
    next += texts.length;
    const vectors = embedder ? await embedder.embed(texts) : [];
    for (let k = 0; k < texts.length; k++) {
      if (!(await store.add({ content: texts[k], ...(embedder ? { embedding: vectors[k] } : {}) })).deduplicated) stored++;
    }
  }
  const fresh = docs.slice(next); // never stored: each remember adds a memory
  await store.flush();
  await store.close();
  console.log(`prefill: ${n} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s (${withEmbedder ? "local embedder" : "keyword-only"})`);

  // The server, as an MCP client starts it.
  const env = { ...getDefaultEnvironment(), ...(withEmbedder ? { ENGRAM_MODEL_DIR: modelDir } : {}) };
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(repo, "mcp", "bin", "engram-mcp.js"), "--dir", dir], env, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "0" });
  t0 = performance.now();
  await client.connect(transport);
  const first = await client.callTool({ name: "stats", arguments: {} });
  if (first.isError) throw new Error(first.content[0].text);
  console.log(`server: connect + open + first call ${(performance.now() - t0).toFixed(0)} ms; ${first.structuredContent.memories} memories`);

  const timed = async (name, argsOf, count) => {
    const ms = [];
    for (let i = 0; i < count; i++) {
      const a = argsOf(i);
      const s = performance.now();
      const r = await client.callTool({ name, arguments: a });
      ms.push(performance.now() - s);
      if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
    }
    return ms;
  };
  await timed("recall", (i) => ({ query: queries[i % queries.length] }), 10); // warm-up
  await timed("remember", (i) => ({ content: fresh[calls + i] }), 10);
  const remember = await timed("remember", (i) => ({ content: fresh[i] }), calls);
  const recall = await timed("recall", (i) => ({ query: queries[(i + 10) % queries.length] }), calls);
  console.log(`MCP remember: ${stats(remember)}`);
  console.log(`MCP recall:   ${stats(recall)}`);
  await client.close();

  // The same engine calls in-process on the same store (strict durability, as the server).
  const direct = await Engram.open({ storage: new NodeFSStorage(dir), embedder, autoReindex: false });
  const local = { add: [], recall: [] };
  for (let i = 0; i < calls; i++) {
    let s = performance.now();
    await direct.add({ content: `${fresh[i]} (again, in-process ${i})` });
    local.add.push(performance.now() - s);
    s = performance.now();
    await direct.recallContext(queries[(i + 10) % queries.length]);
    local.recall.push(performance.now() - s);
  }
  await direct.close();
  console.log(`in-process add:           ${stats(local.add)}`);
  console.log(`in-process recallContext: ${stats(local.recall)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
