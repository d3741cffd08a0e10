// Fuzzing the public API: ≥ 10^5 seeded random calls — valid ones and ones with wrong types, NaN,
// huge strings, cycles, throwing getters, unknown keys and bad ids — with the store closed and
// reopened on the same storage now and then. Every call must return a promise; every rejection
// must be an EngramError with a known code (never Internal: no trap, no bug surfacing as one); and
// after each reopen the store must hold exactly what a plain JS model of the acknowledged calls
// holds. ENGRAM_FUZZ_SEED replays a run; ENGRAM_FUZZ_CALLS changes its length.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, EngramError, ERROR_CODES, MemoryStorage } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

const CALLS = Number(process.env.ENGRAM_FUZZ_CALLS ?? 100_000);
const SEED = Number(process.env.ENGRAM_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32));
const REOPEN_EVERY = 2_500;
/** The last calls run on NodeFSStorage (relaxed durability: no fsync per write), the rest on MemoryStorage. */
const ON_DISK = Math.min(5_000, Math.floor(CALLS / 10));
const NAMESPACES = ["default", "alpha", "team/b"];
const WORDS = ["tea", "green", "river", "build", "cargo", "quiet", "lamp", "north", "paper", "orbit", "maple", "stone", "violet", "engine", "garden", "pixel"];

/** mulberry32: small, fast, reproducible. */
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
  };
}

const HUGE = "x".repeat(100_000);
const OVER_LIMIT = "word ".repeat(1700); // 8500 characters: over the 8192 content limit

/** A value of a random shape, mostly not what the API expects. */
function junk(r, depth = 0) {
  switch (r.int(18)) {
    case 0:
      return undefined;
    case 1:
      return null;
    case 2:
      return NaN;
    case 3:
      return r.pick([Infinity, -Infinity, -0, 1e308, -1, 2 ** 53 + 1, 0.5, 7, 1.5]);
    case 4:
      return BigInt(r.int(1000));
    case 5:
      return Symbol("junk");
    case 6:
      return () => "a function";
    case 7:
      return r.pick([HUGE, OVER_LIMIT]);
    case 8:
      return r.pick(["", " ", "\u0000", "\ud800", "a".repeat(70), "../..", "ns with space", "🙂", "default", "alpha", "NotAnId", "00000000-0000-4000-8000-000000000000"]);
    case 9: {
      const o = { content: "cycle" };
      o.self = o;
      return o;
    }
    case 10:
      return depth > 2 ? [] : Array.from({ length: r.int(4) }, () => junk(r, depth + 1));
    case 11:
      return depth > 2 ? {} : { [r.pick(["content", "namespace", "limit", "bogus", "layer", "__proto__x"])]: junk(r, depth + 1), unknownKey: 1 };
    case 12:
      return Object.defineProperty({}, "content", {
        enumerable: true,
        get() {
          throw new Error("a throwing getter");
        },
      });
    case 13:
      return new Date(0);
    case 14:
      return new Uint8Array(Array.from({ length: r.int(64) }, () => r.int(256)));
    case 15:
      return r.pick([true, false]);
    case 16:
      return r.chance(0.5) ? Object.create(null) : hostileProxy(r);
    default:
      return words(r, 1 + r.int(4));
  }
}

/** An object whose every inspection (prototype, keys, a field) may throw. */
function hostileProxy(r) {
  if (r.chance(0.2)) {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke(); // every operation on it throws, even Array.isArray
    return proxy;
  }
  const trap = r.pick(["getPrototypeOf", "ownKeys", "get", "getOwnPropertyDescriptor", "has"]);
  return new Proxy(
    { content: "proxied" },
    {
      [trap]() {
        throw new Error(`a hostile ${trap} trap`);
      },
    },
  );
}

function words(r, n) {
  return Array.from({ length: n }, () => r.pick(WORDS)).join(" ");
}

/** `value` with one field replaced by junk, one unknown key added, or one key dropped. */
function mutate(r, value, keep = []) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return junk(r);
  const out = { ...value };
  const keys = Object.keys(out).filter((k) => !keep.includes(k));
  const how = r.int(3);
  if (how === 0 && keys.length) out[r.pick(keys)] = junk(r);
  else if (how === 1) out[r.pick(["bogus", "layer", "userId", "Content", "limit", "namespace"])] = junk(r);
  else if (keys.length) delete out[r.pick(keys)];
  return out;
}

/** The store as the acknowledged calls left it: memories by id, sessions by id. */
class Model {
  memories = new Map();
  sessions = new Map();
  /** Every namespace the model holds something in (a mutated call may have used one outside NAMESPACES). */
  namespaces() {
    return [...new Set([...NAMESPACES, ...[...this.memories.values(), ...this.sessions.values()].map((x) => x.namespace)])];
  }
  byContent(namespace, content) {
    for (const [id, m] of this.memories) if (m.namespace === namespace && m.content === content) return id;
    return null;
  }
  remember(m) {
    this.memories.set(m.id, { content: m.content, namespace: m.namespace, kind: m.kind, importance: m.importance, tags: [...(m.tags ?? [])].sort() });
  }
}

const withoutContent = ({ content, ...rest }) => rest;
const view = (m) => ({ content: m.content, namespace: m.namespace, kind: m.kind, importance: m.importance, tags: [...(m.tags ?? [])].sort() });

test(`the public API under ${CALLS} random calls (seed ${SEED}): typed rejections only, state equal to a model across reopens`, { timeout: 600_000 }, async (t) => {
  t.diagnostic(`seed ${SEED} (replay: ENGRAM_FUZZ_SEED=${SEED})`);
  const r = prng(SEED);
  const model = new Model();
  const dir = mkdtempSync(join(tmpdir(), "engram-fuzz-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let storage = new MemoryStorage();
  const open = () => Engram.open({ embedder: null, storage, autoReindex: false, idSeed: undefined });
  let db = await open();
  const codes = new Map();
  const traps = [];
  const onTrap = (e) => traps.push(String(e?.stack ?? e));
  process.on("uncaughtException", onTrap);
  process.on("unhandledRejection", onTrap);
  t.after(() => {
    process.off("uncaughtException", onTrap);
    process.off("unhandledRejection", onTrap);
  });
  let counter = 0;
  let call = 0;
  const where = () => `call ${call} (seed ${SEED})`;

  /** Runs one API call: it must return a promise that resolves, or rejects with a typed error. */
  async function run(name, invoke) {
    let promise;
    try {
      promise = invoke();
    } catch (e) {
      assert.fail(`${where()}: ${name} threw synchronously instead of rejecting: ${e?.name}: ${e?.message}`);
    }
    assert.ok(promise && typeof promise.then === "function", `${where()}: ${name} returned no promise`);
    try {
      return { ok: true, value: await promise };
    } catch (e) {
      assert.ok(e instanceof EngramError, `${where()}: ${name} rejected with a ${e?.constructor?.name}, not an EngramError: ${e?.message}`);
      assert.ok(ERROR_CODES.includes(e.code), `${where()}: ${name}: unknown code ${e.code}`);
      assert.notEqual(e.code, "Internal", `${where()}: ${name} rejected with Internal: ${e.message}`);
      codes.set(e.code, (codes.get(e.code) ?? 0) + 1);
      return { ok: false, error: e };
    }
  }

  const anyId = () => (model.memories.size && r.chance(0.8) ? r.pick([...model.memories.keys()]) : r.pick(["missing-id", "00000000-0000-4000-8000-000000000000", ""]));
  const freshContent = () => `${words(r, 2 + r.int(5))} ${counter++}`;
  const validMemory = () => {
    const m = { content: freshContent() };
    if (r.chance(0.6)) m.namespace = r.pick(NAMESPACES);
    if (r.chance(0.3)) m.kind = r.pick(["episodic", "semantic", "procedural"]);
    if (r.chance(0.3)) m.importance = r.int(11) / 10;
    if (r.chance(0.3)) m.tags = Array.from({ length: r.int(3) }, () => r.pick(WORDS));
    return m;
  };
  const expectOk = (name, out) => assert.ok(out.ok, `${where()}: ${name} should have succeeded: ${out.error?.code}: ${out.error?.message}`);

  const ops = [
    // add: valid (fresh or repeated content), mutated, or junk
    [
      14,
      async () => {
        const valid = r.chance(0.6);
        const input = valid ? validMemory() : mutate(r, validMemory(), []);
        const repeat = valid && model.memories.size > 0 && r.chance(0.15);
        if (repeat) {
          const [, m] = r.pick([...model.memories.entries()]);
          input.content = m.content;
          input.namespace = m.namespace;
        }
        const before = valid ? model.byContent(input.namespace ?? "default", input.content) : null;
        const out = await run("add", () => (r.chance(0.2) && valid ? db.add(input.content, withoutContent(input)) : db.add(input)));
        if (valid) expectOk("add", out);
        if (!out.ok) return;
        const m = out.value;
        if (valid) {
          assert.equal(m.content, input.content, where());
          assert.equal(m.deduplicated, before !== null, `${where()}: deduplicated`);
          if (before !== null) assert.equal(m.id, before, where());
        }
        if (m.deduplicated) assert.ok(model.memories.has(m.id), `${where()}: reinforced an unknown memory`);
        model.remember(m);
      },
    ],
    [
      8,
      async () => {
        const id = anyId();
        const patch = {};
        if (r.chance(0.4)) patch.content = freshContent();
        if (r.chance(0.5)) patch.importance = r.int(11) / 10;
        if (r.chance(0.3)) patch.tags = [r.pick(WORDS)];
        if (Object.keys(patch).length === 0) patch.content = freshContent();
        const valid = r.chance(0.6);
        const out = await run("update", () => db.update(valid ? id : junk(r), valid ? patch : mutate(r, patch)));
        if (valid && model.memories.has(id)) expectOk("update", out);
        if (valid && !model.memories.has(id)) assert.equal(out.error?.code, "NotFound", where());
        if (out.ok) model.remember(out.value);
      },
    ],
    [
      3,
      async () => {
        const id = r.chance(0.85) ? anyId() : junk(r);
        const out = await run("delete", () => db.delete(id));
        if (typeof id === "string" && model.memories.has(id)) expectOk("delete", out);
        if (out.ok) {
          assert.ok(model.memories.has(id), `${where()}: deleted an unknown id`);
          model.memories.delete(id);
        }
      },
    ],
    [
      1,
      async () => {
        const valid = r.chance(0.1); // rare: it empties a namespace
        const options = valid ? { namespace: r.pick(NAMESPACES) } : junk(r);
        const out = await run("deleteAll", () => db.deleteAll(options));
        if (valid) expectOk("deleteAll", out);
        if (!out.ok) return;
        const ns = options?.namespace ?? "default";
        const gone = [...model.memories].filter(([, m]) => m.namespace === ns).map(([id]) => id);
        assert.equal(out.value, gone.length, `${where()}: deleteAll count`);
        for (const id of gone) model.memories.delete(id);
        // The namespace's raw sessions go too (no fuzzed memory is derived from a turn).
        for (const [id, s] of [...model.sessions]) if (s.namespace === ns) model.sessions.delete(id);
      },
    ],
    [
      8,
      async () => {
        const id = r.chance(0.85) ? anyId() : junk(r);
        const out = await run("get", () => db.get(id));
        if (typeof id !== "string") return;
        expectOk("get", out);
        const known = model.memories.get(id);
        if (!known) assert.equal(out.value, null, where());
        else assert.deepEqual(view(out.value), known, where());
      },
    ],
    [
      4,
      async () => {
        const valid = r.chance(0.7);
        const options = valid ? { namespace: r.pick(NAMESPACES), limit: 1000 } : mutate(r, { namespace: r.pick(NAMESPACES), limit: 1000 });
        const out = await run("getAll", () => db.getAll(options));
        if (valid) {
          expectOk("getAll", out);
          assert.equal(out.value.length, [...model.memories.values()].filter((m) => m.namespace === options.namespace).length, where());
        }
      },
    ],
    [
      4,
      async () => {
        const id = r.chance(0.8) ? anyId() : junk(r);
        const out = await run("history", () => db.history(id));
        if (typeof id === "string" && model.memories.has(id)) expectOk("history", out);
      },
    ],
    [
      10,
      async () => {
        const valid = r.chance(0.6);
        const query = valid ? words(r, 1 + r.int(3)) : junk(r);
        const options = { namespace: r.pick(NAMESPACES), limit: 1 + r.int(10) };
        if (r.chance(0.2)) options.kinds = [r.pick(["episodic", "semantic"])];
        const out = await run("search", () => db.search(query, valid ? options : r.chance(0.5) ? mutate(r, options) : options));
        if (valid) expectOk("search", out);
        if (out.ok) for (const hit of out.value) if (hit.type === "memory") assert.ok(model.memories.has(hit.memory.id), `${where()}: search found an unknown memory`);
      },
    ],
    [
      3,
      async () => {
        const method = r.pick(["recall", "recallContext"]);
        const valid = r.chance(0.6);
        const options = { namespace: r.pick(NAMESPACES), maxTokens: 50 + r.int(400) };
        const out = await run(method, () => db[method](valid ? words(r, 2) : junk(r), valid ? options : mutate(r, options)));
        if (valid) expectOk(method, out);
      },
    ],
    [
      2,
      async () => {
        const method = r.pick(["resume", "sessions", "stats", "vectorIndexStats", "llmUsage"]);
        const arg = r.chance(0.6) ? (method === "stats" || method === "vectorIndexStats" || method === "llmUsage" ? undefined : { namespace: r.pick(NAMESPACES) }) : junk(r);
        const out = await run(method, () => db[method](arg));
        if (method === "stats" && out.ok) assert.equal(out.value.memories, model.memories.size, `${where()}: stats.memories`);
        if (method === "sessions" && out.ok && arg?.namespace) {
          const expected = [...model.sessions]
            .filter(([, s]) => s.namespace === arg.namespace)
            .map(([id]) => id)
            .sort();
          assert.deepEqual([...out.value].sort(), expected, `${where()}: sessions`);
        }
      },
    ],
    [
      2,
      async () => {
        const method = r.pick(["thread", "gather"]);
        const out = await run(method, () => db[method](r.chance(0.6) ? r.pick(WORDS) + "/" + r.pick(WORDS) : junk(r), r.chance(0.7) ? { namespace: r.pick(NAMESPACES) } : junk(r)));
        void out;
      },
    ],
    [
      4,
      async () => {
        // ingest: a new session, or a known one grown by a turn
        const known = model.sessions.size && r.chance(0.4) ? r.pick([...model.sessions.keys()]) : null;
        const prior = known ? model.sessions.get(known) : null;
        const turns = (prior?.turns ?? []).map((content, i) => ({ role: i % 2 ? "assistant" : "user", content }));
        for (let i = 0, n = 1 + r.int(3); i < n; i++) turns.push({ role: turns.length % 2 ? "assistant" : "user", content: freshContent() });
        const session = { id: known ?? `s-${counter++}`, namespace: prior?.namespace ?? r.pick(NAMESPACES), turns };
        const options = r.chance(0.1) ? junk(r) : undefined;
        const valid = r.chance(0.65) && (options === undefined || options === null);
        let input = session;
        if (!valid) input = r.chance(0.5) ? mutate(r, session, ["id"]) : { ...session, turns: [...turns.slice(0, -1), mutate(r, turns.at(-1))] };
        const viaAdd = valid && !known && r.chance(0.2);
        const out = await run("ingest", () => (viaAdd ? db.add(turns, { sessionId: session.id, namespace: session.namespace }) : db.ingest(input, options)));
        if (valid) expectOk("ingest", out);
        if (out.ok && input === session) model.sessions.set(session.id, { namespace: session.namespace, turns: turns.map((x) => x.content) });
        else if (out.ok) {
          // a mutated session that was still valid: learn what was stored
          const got = await run("session", () => db.session(out.value.sessionId));
          expectOk("session", got);
          model.sessions.set(out.value.sessionId, { namespace: got.value[0]?.namespace ?? input.namespace ?? "default", turns: got.value.map((e) => e.content) });
        }
      },
    ],
    [
      3,
      async () => {
        const id = model.sessions.size && r.chance(0.7) ? r.pick([...model.sessions.keys()]) : r.chance(0.5) ? "no-such-session" : junk(r);
        const out = await run("session", () => db.session(id));
        if (model.sessions.has(id)) {
          expectOk("session", out);
          assert.deepEqual(
            out.value.map((e) => e.content),
            model.sessions.get(id).turns,
            `${where()}: session ${id}`,
          );
        }
      },
    ],
    [
      2,
      async () => {
        // (more often once there are many: every reopen reads every session back)
        const id = model.sessions.size && r.chance(model.sessions.size > 100 ? 0.95 : 0.7) ? r.pick([...model.sessions.keys()]) : junk(r);
        const out = await run("deleteSession", () => db.deleteSession(id));
        if (model.sessions.has(id)) expectOk("deleteSession", out);
        if (out.ok) model.sessions.delete(id);
      },
    ],
    [
      1,
      async () => {
        const out = await run("export", () => db.export(r.chance(0.7) ? (r.chance(0.5) ? undefined : { namespace: r.pick(NAMESPACES) }) : junk(r)));
        if (!out.ok) return;
        // The store's own file merges by id: nothing changes. A damaged copy is refused whole.
        const bytes = out.value;
        if (r.chance(0.5)) {
          expectOk("import", await run("import", () => db.import(bytes)));
        } else {
          const damaged = bytes.slice();
          damaged[r.int(damaged.length)] ^= 1 + r.int(255);
          await run("import", () => db.import(r.chance(0.8) ? damaged : junk(r)));
        }
      },
    ],
    [
      1,
      async () => {
        const method = r.pick(["flush", "compact", "refresh"]);
        expectOk(method, await run(method, () => db[method]()));
      },
    ],
    [
      1,
      async () => {
        await run("consolidate", () =>
          db.consolidate(r.chance(0.7) ? { dryRun: true, namespace: r.pick(NAMESPACES) } : mutate(r, { dryRun: true, namespace: "alpha" }, ["dryRun"])),
        );
      },
    ],
    [
      1,
      async () => {
        // open with bad options (never the default model: `embedder: null` stays)
        const options = mutate(
          r,
          { embedder: null, storage: new MemoryStorage(), autoReindex: false, compactAfter: 8, vectorIndex: { graphMin: 100 }, guards: { secrets: "redact" } },
          ["embedder"],
        );
        const out = await run("open", () => Engram.open(options));
        if (out.ok) await out.value.close();
      },
    ],
    [
      1,
      async () => {
        const method = r.pick(["release", "retract"]);
        await run(method, () => db[method](r.chance(0.5) ? anyId() : junk(r), r.chance(0.5) ? undefined : junk(r)));
      },
    ],
  ];
  const total = ops.reduce((n, [w]) => n + w, 0);
  const pickOp = () => {
    let x = r.int(total);
    for (const [w, op] of ops) {
      if (x < w) return op;
      x -= w;
    }
  };

  /** Closes, reopens on the same storage, and compares everything with the model. */
  async function reopenAndCompare() {
    await db.close();
    db = await open();
    const stored = new Map();
    const stats = await db.stats();
    assert.equal(stats.memories, model.memories.size, `${where()}: stats.memories after reopen`);
    assert.equal(stats.sessions, model.sessions.size, `${where()}: stats.sessions after reopen`);
    for (const ns of model.namespaces()) {
      for (let offset = 0; ; offset += 1000) {
        const page = await db.getAll({ namespace: ns, limit: 1000, offset });
        for (const m of page) stored.set(m.id, view(m));
        if (page.length < 1000) break;
      }
    }
    assert.equal(stored.size, model.memories.size, `${where()}: memories after reopen`);
    for (const [id, m] of model.memories) assert.deepEqual(stored.get(id), m, `${where()}: memory ${id} after reopen`);
    const sessions = [];
    for (const ns of model.namespaces()) sessions.push(...(await db.sessions({ namespace: ns })));
    assert.deepEqual(sessions.sort(), [...model.sessions.keys()].sort(), `${where()}: sessions after reopen`);
    for (const [id, s] of model.sessions)
      assert.deepEqual(
        (await db.session(id)).map((e) => e.content),
        s.turns,
        `${where()}: session ${id} after reopen`,
      );
  }

  const started = Date.now();
  for (call = 0; call < CALLS; call++) {
    if (call === CALLS - ON_DISK) {
      // The rest on disk: the model's state moves there through an export and an import.
      const file = await db.export();
      await db.close();
      storage = new NodeFSStorage(dir, { durability: "relaxed" });
      db = await open();
      await db.import(file);
      await reopenAndCompare();
    }
    await pickOp()();
    if (traps.length) assert.fail(`${where()}: a trap or an unhandled error: ${traps[0]}`);
    if ((call + 1) % REOPEN_EVERY === 0) await reopenAndCompare();
  }
  await reopenAndCompare();
  await db.close();
  t.diagnostic(
    `${CALLS} calls in ${((Date.now() - started) / 1000).toFixed(1)} s; rejections by code: ${JSON.stringify(Object.fromEntries(codes))}; ${model.memories.size} memories, ${model.sessions.size} sessions at the end`,
  );
  assert.equal(traps.length, 0);
  assert.ok(codes.get("InvalidInput") > CALLS / 20, "a good share of the calls were invalid");
});
