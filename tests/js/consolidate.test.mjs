// consolidate() in Node: epochs without an LLM (decay by kind, promotion, merge, eviction, history),
// with a scripted judge function (tests only) for the gate and triage, a dry run that changes
// nothing, abort mid-call, automatic epochs after writes, and bad options.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, EngramError, MemoryStorage } from "engram-wasm";
import { rejectsWith } from "./helpers.mjs";

const open = (options = {}) => Engram.open({ embedder: null, idSeed: 5, ...options });

/** The ids a request offers (its schema's enum). */
function offered(request) {
  const items = request.schema.properties.decisions?.items.properties ?? {};
  return (items.id ?? items.pair)?.enum ?? [];
}

test("an epoch without an LLM: decay per epoch, promotion by reinforcement, merge, history", async () => {
  const memory = await open();
  const said = (await memory.add({ content: "Sam's daughter is called Ada", importance: 0.8 })).id;
  await memory.add({ content: "Sam's daughter is called Ada" });
  await memory.add({ content: "Sam's daughter is called Ada" });
  const a = (await memory.add({ content: "Sam likes green tea in the morning", kind: "episodic" })).id;
  const b = (await memory.add({ content: "Sam really likes green tea in the morning", kind: "episodic" })).id;
  const report = await memory.consolidate();
  assert.equal(report.dryRun, false);
  assert.deepEqual(report.epochs, { default: 1 });
  const actions = report.actions.map((x) => [x.action, ...x.ids]);
  assert.deepEqual(
    actions.find((x) => x[0] === "promote"),
    ["promote", said],
  );
  assert.deepEqual(
    actions.find((x) => x[0] === "merge"),
    ["merge", a, b],
  );
  assert.equal((await memory.get(said)).layer, "working");
  assert.equal(await memory.get(b), null);
  assert.ok(Math.abs((await memory.get(a)).importance - 0.5 * 0.98) < 1e-12, "episodic ×0.98 per epoch");
  assert.deepEqual(
    (await memory.history(said)).map((h) => h.event),
    ["ADD", "REINFORCE", "REINFORCE", "PROMOTE"],
  );
  const merged = (await memory.history(b)).at(-1);
  assert.deepEqual([merged.event, merged.related], ["MERGE", a]);
  assert.deepEqual(
    (await memory.history("epoch:default")).map((h) => h.event),
    ["DECAY"],
  );
  assert.equal(report.usage.calls, 0);
  await memory.close();
});

test("a dry run reports the epoch and changes nothing", async () => {
  const memory = await open();
  await memory.add({ content: "Sam likes green tea in the morning" });
  await memory.add({ content: "Sam really likes green tea in the morning" });
  const before = await memory.export();
  const dry = await memory.consolidate({ dryRun: true });
  assert.equal(dry.dryRun, true);
  assert.ok(dry.actions.some((x) => x.action === "merge"));
  assert.deepEqual(await memory.export(), before);
  assert.deepEqual(
    (await memory.consolidate()).actions.map((x) => x.action),
    dry.actions.map((x) => x.action),
  );
  await memory.close();
});

test("a judge function drives triage and the gate; history names the prompt", async () => {
  const seen = [];
  const llm = async (request) => {
    seen.push(request.purpose);
    const ids = offered(request);
    if (request.purpose === "triage") return JSON.stringify({ decisions: ids.map((id) => ({ id, decision: "promote" })) });
    if (request.purpose === "gate") return JSON.stringify({ decisions: ids.map((id) => ({ id, decision: "approve", category: "identity" })) });
    return JSON.stringify({ decisions: [] });
  };
  const memory = await open({ llm, llmLevel: "on" });
  const id = (await memory.add({ content: "Sam is a nurse at the city hospital", importance: 0.9 })).id;
  await memory.consolidate();
  const progress = [];
  const r = await memory.consolidate({ onProgress: (e) => progress.push(e) });
  // Work units: the plan, one per LLM call answered, the apply, done.
  const phases = progress.map((e) => e.phase);
  const llmCalls = phases.filter((p) => p === "llm").length;
  assert.ok(llmCalls >= 1);
  assert.deepEqual(phases, ["plan", ...Array(llmCalls).fill("llm"), "apply", "done"]);
  assert.deepEqual(progress.at(-1), { phase: "done", done: llmCalls + 1, total: llmCalls + 1 });
  assert.equal((await memory.get(id)).layer, "working");
  assert.ok(r.actions.some((x) => x.action === "promote" && x.promptId === "triage@1"));
  for (let i = 0; i < 3; i++) await memory.search("nurse hospital");
  const g = await memory.consolidate();
  assert.ok(
    g.actions.some((x) => x.action === "promote" && x.promptId === "gate@1" && x.layer === "core"),
    JSON.stringify(g.actions),
  );
  assert.equal((await memory.get(id)).layer, "core");
  assert.ok((await memory.history(id)).some((h) => h.event === "PROMOTE" && h.promptId === "gate@1"));
  assert.ok(seen.includes("triage") && seen.includes("gate"));
  assert.ok((await memory.llmUsage()).calls >= 2);
  await memory.close();
});

test("abort mid-call rejects with Aborted and applies nothing; a failing judge fails open", async () => {
  let release;
  const hung = new Promise((r) => (release = r));
  const llm = async (_request, { signal }) => {
    await Promise.race([hung, new Promise((r) => signal.addEventListener("abort", r))]);
    throw new Error("cut");
  };
  const memory = await open({ llm, llmLevel: "on" });
  await memory.add({ content: "Sam is a nurse", importance: 0.9 });
  await memory.consolidate();
  const before = await memory.export();
  const controller = new AbortController();
  const run = memory.consolidate({ signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await rejectsWith(run, "Aborted", EngramError);
  assert.deepEqual(await memory.export(), before, "nothing applied");
  release();
  const failing = await open({
    llm: async () => {
      throw new Error("HTTP 500");
    },
    llmLevel: "on",
  });
  await failing.add({ content: "Sam is a nurse", importance: 0.9 });
  await failing.consolidate();
  const r = await failing.consolidate();
  assert.ok(
    r.skipped.some((s) => s.step === "triage" && s.outcome === "error"),
    JSON.stringify(r.skipped),
  );
  assert.equal(r.epochs.default, 2, "the epoch still ran");
  await memory.close();
  await failing.close();
});

test("autoConsolidate runs epochs after writes; failures reach onBackgroundError", async () => {
  const memory = await open({ autoConsolidate: { everyWrites: 3 } });
  for (let i = 0; i < 7; i++) await memory.add({ content: `note number ${i}` });
  const epochs = async () => (await memory.history("epoch:default").catch(() => [])).length;
  for (let waited = 0; (await epochs()) < 2 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await epochs(), 2, "7 writes at 3 per epoch: two epochs, the epochs' own writes not counted");
  await memory.close();

  // An automatic epoch whose write fails: reported, nothing lost, the next epoch goes through.
  const inner = new MemoryStorage();
  let fail = false;
  const storage = {
    load: (k) => inner.load(k),
    save: (k, d) => inner.save(k, d),
    create: async (k, d) => {
      if (fail) throw new Error("disk full (injected)");
      return inner.create(k, d);
    },
    remove: (k) => inner.remove(k),
    loadRange: (p) => inner.loadRange(p),
    removeRange: (p) => inner.removeRange(p),
  };
  const errors = [];
  const failing = await open({ storage, autoConsolidate: { everyWrites: 2 }, onBackgroundError: (e) => errors.push(e) });
  await failing.add({ content: "first note" });
  await failing.add({ content: "second note" });
  fail = true; // the epoch that write started is queued now: its commit fails
  for (let waited = 0; errors.length === 0 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  fail = false;
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, "Storage");
  assert.equal((await failing.getAll()).length, 2, "nothing lost");
  assert.equal((await failing.history("epoch:default").catch(() => [])).length, 0, "the failed epoch left no trace");
  await failing.close();
  const reopened = await open({ storage: inner });
  assert.equal((await reopened.getAll()).length, 2);
  await reopened.close();
});

test("bad options are InvalidInput", async () => {
  const memory = await open();
  for (const options of [{ dryrun: true }, { maxLlmCalls: -1 }, { bufferCap: 0 }, { namespace: 3 }, { onProgress: "x" }, "x"]) {
    await rejectsWith(memory.consolidate(options), "InvalidInput", EngramError);
  }
  await rejectsWith(memory.consolidate({ namespace: "bad\nnamespace" }), "InvalidInput", EngramError);
  for (const autoConsolidate of [{}, { everyWrites: 0 }, { everyMs: 10 }, { every: 3 }, 5]) {
    await rejectsWith(Engram.open({ embedder: null, autoConsolidate }), "InvalidInput", EngramError);
  }
  await memory.close();
});

test("an epoch finds the links a new memory's bounded search missed, and they persist", async () => {
  const storage = new MemoryStorage();
  const memory = await open({ storage });
  const dims = 64;
  // A deterministic direction per filler, orthogonal to axis 0 (its first coordinate is 0).
  const filler = (i) => Array.from({ length: dims }, (_, d) => (d === 0 ? 0 : (Math.sin((i + 1) * (d + 1) * 12.9898) * 43758.5453) % 1));
  const axis = (c, off) => Array.from({ length: dims }, (_, d) => (d === 0 ? c : d === off ? Math.sqrt(1 - c * c) : 0));
  const older = (await memory.add({ content: "the garden plan", namespace: "work", embedding: axis(0.8, 1) })).id;
  // More memories of another namespace than the newest-vectors window a new memory's links are
  // searched in: the older one falls out of it, and nothing links to it.
  await memory.addMany(Array.from({ length: 4200 }, (_, i) => ({ content: `filler ${i}`, namespace: "filler", embedding: filler(i) })));
  const newer = await memory.add({ content: "the garden", namespace: "work", embedding: axis(1, 2) });
  assert.deepEqual(newer.links ?? [], [], "the bounded search on add cannot reach it");
  const report = await memory.consolidate({ namespace: "work" });
  assert.equal(report.found.scanned, 2);
  assert.equal(report.relinked, 1);
  assert.deepEqual((await memory.get(newer.id)).links, [older]);
  assert.deepEqual((await memory.get(older)).links ?? [], [], "never a memory written later");
  await memory.close();
  const reopened = await open({ storage });
  assert.deepEqual((await reopened.get(newer.id)).links, [older], "stored by the epoch's write");
  await reopened.close();
});
