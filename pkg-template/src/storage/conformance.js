// The storage-adapter conformance suite, shipped as `engram-wasm/adapter-tests` so an adapter
// written outside this package (a database, an object store, a sync service) can be held to the
// same contract as the shipped ones (index.d.ts, `StorageAdapter`): round trips, `create` as an
// atomic insert, segment-wise ranges in key order, hostile keys kept distinct, typed rejections,
// private copies of the caller's buffers, `lock` exclusive, `flush` and `close`. Checks of an
// optional method the adapter lacks (`create`, `lock`, `flush`) resolve to "skipped". It brings
// its own assertions, so it runs under any test runner, in Node and in browsers.

class ConformanceError extends Error {
  name = "ConformanceError";
}

const fail = (message) => {
  throw new ConformanceError(message);
};

/** A value as comparable JSON: byte arrays as plain arrays. */
const plain = (v) => JSON.stringify(v, (_, x) => (ArrayBuffer.isView(x) ? Array.from(/** @type {Uint8Array} */ (x)) : x));

const assert = {
  ok: (v, message) => v || fail(message ?? `expected a truthy value, got ${plain(v)}`),
  equal: (a, b, message) => Object.is(a, b) || fail(`${message ? `${message}: ` : ""}expected ${plain(b)}, got ${plain(a)}`),
  deepEqual: (a, b, message) => plain(a) === plain(b) || fail(`${message ? `${message}: ` : ""}expected ${plain(b)}, got ${plain(a)}`),
  /** Awaits `promise` and checks that it rejects with an error `accept(error)` approves. */
  async rejects(promise, accept) {
    try {
      await promise;
    } catch (e) {
      if (!accept(e)) fail(`rejected with an unexpected error: ${e?.message ?? e}`);
      return;
    }
    fail("expected a rejection");
  },
};

/** Rejects with an Engram error of `code` (`name` and `code` both the code, as the contract says). */
const rejectsWith = (promise, code) => assert.rejects(promise, (e) => e?.code === code && e?.name === code);

/** A plain Uint8Array holding `expected` (not a Buffer, not a view of something larger). */
function assertBytes(actual, expected, message) {
  assert.ok(actual instanceof Uint8Array, message ?? `a Uint8Array, got ${plain(actual)}`);
  assert.equal(Object.getPrototypeOf(actual), Uint8Array.prototype, "a plain Uint8Array");
  assert.deepEqual(Array.from(actual), Array.from(expected), message);
}

const bytes = (...b) => Uint8Array.from(b);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const keysOf = (records) => records.map((r) => r.key);
const SKIPPED = "skipped";

/** Keys that break naive file-name or URL mappings; each must stay its own record. */
export const TRICKY_KEYS = [
  ["/"],
  ["a/b"],
  ["a", "/", "b"],
  [".."],
  ["."],
  ["..", ".."],
  [".lock"],
  [".x.rec.tmp-1-ab"],
  ["a.rec"],
  ["con"],
  ["CON"],
  ["nul"],
  ["Doc"],
  ["doc"],
  ["A"],
  ["%41"],
  ["%"],
  ["%u0041"],
  ["\\"],
  ["a:b"],
  [" "],
  ["\0"],
  ["日本語", "émoji 🎉"],
  ["\ud800"],
  ["\udc00x"],
  ["x".repeat(60)],
  ["Ä", "ä"],
];

const checks = [];
const check = (name, run) => checks.push(Object.freeze({ name, run }));

check("round trip, missing key, empty and large records", async (make) => {
  const s = make();
  assert.equal(await s.load(["doc", "snapshot", "h1"]), undefined);
  await s.save(["doc", "snapshot", "h1"], bytes(1, 2, 3));
  assertBytes(await s.load(["doc", "snapshot", "h1"]), [1, 2, 3]);
  await s.save(["empty"], new Uint8Array(0));
  assertBytes(await s.load(["empty"]), []);
  const big = new Uint8Array(1 << 20).map((_, i) => (i * 7) & 255);
  await s.save(["big"], big);
  assertBytes(await s.load(["big"]), big);
  assert.equal(await s.load(["doc", "snapshot"]), undefined, "a prefix of a key is not a key");
  assert.equal(await s.load(["doc", "snapshot", "h1", "more"]), undefined);
  await s.close?.();
});

check("overwrite replaces the record", async (make) => {
  const s = make();
  await s.save(["k"], bytes(1, 2, 3, 4, 5));
  await s.save(["k"], bytes(9));
  assertBytes(await s.load(["k"]), [9]);
  assert.equal((await s.loadRange(["k"])).length, 1);
  await s.close?.();
});

check("create writes only where nothing is stored; of concurrent creates exactly one wins", async (make) => {
  const s = make();
  if (typeof s.create !== "function") return SKIPPED;
  assert.equal(await s.create(["c", "1"], bytes(1)), true);
  assertBytes(await s.load(["c", "1"]), [1]);
  assert.equal(await s.create(["c", "1"], bytes(2)), false);
  assertBytes(await s.load(["c", "1"]), [1], "a taken key is left as it was");
  const results = await Promise.all([1, 2, 3, 4, 5].map((v) => s.create(["c", "2"], bytes(v))));
  assert.equal(results.filter(Boolean).length, 1, `one winner: ${results}`);
  assertBytes(await s.load(["c", "2"]), [results.indexOf(true) + 1], "the winner's bytes");
  await s.remove(["c", "1"]);
  assert.equal(await s.create(["c", "1"], bytes(3)), true, "free again once removed");
  assert.deepEqual(keysOf(await s.loadRange(["c"])), [
    ["c", "1"],
    ["c", "2"],
  ]);
  await rejectsWith(s.create([], bytes(1)), "InvalidInput");
  await rejectsWith(s.create(["c", "3"], "text"), "InvalidInput");
  await s.close?.();
});

check("remove: absent key resolves; a key and its extensions are independent", async (make) => {
  const s = make();
  await s.remove(["nothing", "here"]);
  await s.save(["a"], bytes(1));
  await s.save(["a", "b"], bytes(2));
  await s.remove(["a"]);
  assert.equal(await s.load(["a"]), undefined);
  assertBytes(await s.load(["a", "b"]), [2]);
  await s.remove(["a"]);
  await s.remove(["a", "b"]);
  assert.deepEqual(await s.loadRange([]), []);
  await s.close?.();
});

check("loadRange: segment prefixes, the prefix itself, nested keys, key order", async (make) => {
  const s = make();
  const keys = [["b"], ["ab", "x"], ["a", "c"], ["a", "b", "c"], ["ab"], ["a"], ["a", "b"], ["a", "b", "c", "d"], ["a", "\uffff", "z"], ["a\uffff"]];
  for (const [i, k] of keys.entries()) await s.save(k, bytes(i));
  const a = await s.loadRange(["a"]);
  assert.deepEqual(keysOf(a), [["a"], ["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"], ["a", "c"], ["a", "\uffff", "z"]]);
  for (const r of a) assertBytes(r.data, [keys.findIndex((k) => JSON.stringify(k) === JSON.stringify(r.key))]);
  assert.deepEqual(keysOf(await s.loadRange(["a", "b"])), [
    ["a", "b"],
    ["a", "b", "c"],
    ["a", "b", "c", "d"],
  ]);
  assert.deepEqual(keysOf(await s.loadRange(["a", "b", "c", "d"])), [["a", "b", "c", "d"]]);
  assert.deepEqual(keysOf(await s.loadRange(["ab"])), [["ab"], ["ab", "x"]]);
  assert.deepEqual(await s.loadRange(["a", "b", "c", "d", "e"]), []);
  assert.deepEqual(await s.loadRange(["zzz"]), []);
  assert.deepEqual(await s.loadRange(["a", "x"]), []);
  assert.deepEqual(keysOf(await s.loadRange([])), [
    ["a"],
    ["a", "b"],
    ["a", "b", "c"],
    ["a", "b", "c", "d"],
    ["a", "c"],
    ["a", "\uffff", "z"],
    ["ab"],
    ["ab", "x"],
    ["a\uffff"],
    ["b"],
  ]);
  await s.close?.();
});

check("removeRange: the prefix and everything under it, nothing else", async (make) => {
  const s = make();
  for (const k of [["a"], ["a", "b"], ["a", "b", "c"], ["ab"], ["ab", "x"], ["b"]]) await s.save(k, bytes(1));
  await s.removeRange(["nothing"]);
  await s.removeRange(["a", "b", "c", "d"]);
  await s.removeRange(["a", "b"]);
  assert.deepEqual(keysOf(await s.loadRange([])), [["a"], ["ab"], ["ab", "x"], ["b"]]);
  await s.removeRange(["a"]);
  assert.deepEqual(keysOf(await s.loadRange([])), [["ab"], ["ab", "x"], ["b"]]);
  await s.removeRange([]);
  assert.deepEqual(await s.loadRange([]), []);
  await s.save(["a"], bytes(3)); // usable after removing everything
  assertBytes(await s.load(["a"]), [3]);
  await s.close?.();
});

check('keys with "/", "..", ".", device names, case variants, escapes and unicode stay distinct', async (make) => {
  const s = make();
  for (const [i, k] of TRICKY_KEYS.entries()) await s.save(k, bytes(i));
  for (const [i, k] of TRICKY_KEYS.entries()) assertBytes(await s.load(k), [i], JSON.stringify(k));
  const all = await s.loadRange([]);
  assert.equal(all.length, TRICKY_KEYS.length);
  for (const { key, data } of all) {
    const i = TRICKY_KEYS.findIndex((k) => JSON.stringify(k) === JSON.stringify(key));
    assert.ok(i >= 0, `unexpected key ${JSON.stringify(key)}`);
    assertBytes(data, [i]);
  }
  assert.deepEqual(keysOf(await s.loadRange(["a"])), [["a", "/", "b"]]);
  assert.deepEqual(keysOf(await s.loadRange([".."])), [[".."], ["..", ".."]]);
  await s.removeRange([".."]);
  assertBytes(await s.load(["."]), [TRICKY_KEYS.findIndex((k) => k.length === 1 && k[0] === ".")], '"." survives');
  assert.equal(await s.load([".."]), undefined);
  await s.close?.();
});

check("invalid keys and data reject with InvalidInput", async (make) => {
  const s = make();
  const badKeys = ["a", [], [""], ["a", ""], ["a", 1], [null], [undefined], undefined, null, {}, [["a"]]];
  for (const k of badKeys) {
    await rejectsWith(s.load(k), "InvalidInput");
    await rejectsWith(s.save(k, bytes(1)), "InvalidInput");
    await rejectsWith(s.remove(k), "InvalidInput");
  }
  for (const p of ["a", [""], ["a", 2], undefined, null]) {
    await rejectsWith(s.loadRange(p), "InvalidInput");
    await rejectsWith(s.removeRange(p), "InvalidInput");
  }
  for (const d of ["abc", [1, 2], new ArrayBuffer(2), new Uint16Array(2), null, undefined]) {
    await rejectsWith(s.save(["k"], d), "InvalidInput");
  }
  assert.deepEqual(await s.loadRange([]), [], "nothing was written");
  await s.close?.();
});

check("save copies the caller's buffer at once; load hands out a private copy", async (make) => {
  const s = make();
  const buf = bytes(1, 2, 3);
  const saving = s.save(["k"], buf);
  buf[0] = 99; // before the save resolved
  await saving;
  buf[1] = 99;
  assertBytes(await s.load(["k"]), [1, 2, 3]);
  const loaded = await s.load(["k"]);
  loaded[2] = 99;
  assertBytes(await s.load(["k"]), [1, 2, 3]);
  const [ranged] = await s.loadRange(["k"]);
  ranged.data[0] = 99;
  assertBytes(await s.load(["k"]), [1, 2, 3]);
  // A view into a larger buffer stores exactly its bytes; a Buffer comes back as a Uint8Array.
  const large = new Uint8Array(64).map((_, i) => i);
  await s.save(["view"], new Uint8Array(large.buffer, 10, 4));
  assertBytes(await s.load(["view"]), [10, 11, 12, 13]);
  if (typeof Buffer === "function") {
    await s.save(["buffer"], Buffer.from([7, 8]));
    assertBytes(await s.load(["buffer"]), [7, 8]);
  }
  await s.close?.();
});

check("the caller's key array may change after the call", async (make) => {
  const s = make();
  const key = ["a", "b"];
  const saving = s.save(key, bytes(1));
  key[1] = "c";
  await saving;
  assertBytes(await s.load(["a", "b"]), [1]);
  assert.equal(await s.load(["a", "c"]), undefined);
  await s.close?.();
});

check("lock: overlapping calls never overlap; result and errors pass through; released after errors", async (make) => {
  const s = make();
  if (typeof s.lock !== "function") return SKIPPED;
  let inside = 0;
  let maxInside = 0;
  const order = [];
  const body = (id, ms) => async () => {
    inside++;
    maxInside = Math.max(maxInside, inside);
    order.push(`start ${id}`);
    await sleep(ms);
    order.push(`end ${id}`);
    inside--;
    return id;
  };
  const results = await Promise.all([s.lock(body(1, 30)), s.lock(body(2, 5)), s.lock(body(3, 1))]);
  assert.deepEqual(results, [1, 2, 3]);
  assert.equal(maxInside, 1, order.join(", "));
  const boom = new Error("boom");
  await assert.rejects(
    s.lock(async () => {
      throw boom;
    }),
    (e) => e === boom,
  );
  assert.equal(await s.lock(async () => "after"), "after");
  await rejectsWith(s.lock("not a function"), "InvalidInput");
  await s.close?.();
});

check("flush resolves after writes and removals; close, then the adapter reopens", async (make) => {
  const s = make();
  if (typeof s.flush !== "function" || typeof s.close !== "function") return SKIPPED;
  await s.save(["a", "b"], bytes(1));
  await s.save(["c"], bytes(2));
  await s.remove(["c"]);
  await s.flush();
  await s.flush();
  await s.close();
  await s.close();
  assertBytes(await s.load(["a", "b"]), [1]);
  await s.save(["d"], bytes(4));
  assert.deepEqual(keysOf(await s.loadRange([])), [["a", "b"], ["d"]]);
  await s.close();
});

check("concurrent saves, loads and removes all settle consistently", async (make) => {
  const s = make();
  await Promise.all(Array.from({ length: 50 }, (_, i) => s.save(["many", String(i % 10), String(i)], bytes(i))));
  await Promise.all([s.save(["same"], bytes(1)), s.save(["same"], bytes(2)), s.save(["same"], bytes(3))]);
  assert.ok([1, 2, 3].includes((await s.load(["same"]))[0]));
  assert.equal((await s.loadRange(["many"])).length, 50);
  await Promise.all(Array.from({ length: 25 }, (_, i) => s.remove(["many", String(i % 10), String(i)])));
  assert.equal((await s.loadRange(["many"])).length, 25);
  await s.close?.();
});

/**
 * Every check, in order: `{name, run(make)}`, where `make()` returns a fresh, empty adapter (a new
 * directory, database or prefix each time) and `run` resolves (to "skipped" when the adapter lacks
 * the optional method it checks) or rejects with what broke the contract.
 */
export const adapterConformance = Object.freeze(checks);

/**
 * Registers every check with a test runner's `test(name, fn)` (node:test, Vitest, Jest, Mocha, Deno):
 * `testAdapter(() => new MyStorage(), test)`. `prefix` goes in front of each name.
 */
export function testAdapter(make, test, prefix = "") {
  for (const { name, run } of adapterConformance) test(prefix + name, () => run(make));
}
