// engram-wasm/adapter-tests through the package, as an adapter author outside it would use it: the
// shipped MemoryStorage passes every check; an adapter that breaks the contract fails the checks
// its defect touches; one without the optional methods has those checks skipped, not failed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStorage } from "engram-wasm";
import { adapterConformance, testAdapter } from "engram-wasm/adapter-tests";

testAdapter(() => new MemoryStorage(), test, "MemoryStorage through the package: ");

/** MemoryStorage whose ranges come back unsorted and without the prefix record itself. */
class CarelessRanges extends MemoryStorage {
  async loadRange(prefix) {
    const all = await super.loadRange(prefix);
    return all.filter((r) => r.key.length > prefix.length).reverse();
  }
}

/** The required methods only (no create, lock, flush). */
function minimal() {
  const inner = new MemoryStorage();
  return {
    load: (k) => inner.load(k),
    save: (k, d) => inner.save(k, d),
    remove: (k) => inner.remove(k),
    loadRange: (p) => inner.loadRange(p),
    removeRange: (p) => inner.removeRange(p),
  };
}

test("a broken adapter fails the checks its defect touches; missing optional methods are skipped", async () => {
  const outcome = async (make, check) => {
    try {
      return (await check.run(make)) ?? "passed";
    } catch {
      return "failed";
    }
  };
  const ranges = new Map();
  const optional = new Map();
  for (const check of adapterConformance) {
    ranges.set(check.name, await outcome(() => new CarelessRanges(), check));
    optional.set(check.name, await outcome(minimal, check));
  }
  assert.equal(ranges.get("loadRange: segment prefixes, the prefix itself, nested keys, key order"), "failed");
  assert.equal(ranges.get("round trip, missing key, empty and large records"), "passed");
  assert.deepEqual(
    [...optional].filter(([, o]) => o === "skipped").map(([n]) => n.split(":")[0]),
    ["create writes only where nothing is stored; of concurrent creates exactly one wins", "lock", "flush resolves after writes and removals; close, then the adapter reopens"],
  );
  assert.ok(
    [...optional.values()].every((o) => o !== "failed"),
    JSON.stringify([...optional]),
  );
});
