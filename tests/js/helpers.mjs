// Shared by the Node tests: where the built package is, a helper to assert typed rejections, and
// call counts through a wrapper.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const pkgDir = join(repo, "pkg");
if (!existsSync(join(pkgDir, "package.json"))) {
  throw new Error("pkg/ is not built: run `node pkg-template/build.mjs` (or scripts/test.sh) first");
}

/** Awaits `promise` and asserts it rejects with an EngramError of `code`. */
export async function rejectsWith(promise, code, EngramError) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof Error, "an Error object");
    if (EngramError) assert.ok(e instanceof EngramError, `an EngramError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, code, `code ${code}, got ${e.code}: ${e.message}`);
    assert.equal(e.name, code);
    return true;
  });
}

/**
 * `target` behind a wrapper that counts its method calls by name (`calls`), each still made on
 * `target` itself (so private fields work).
 */
export function countingCalls(target) {
  const calls = {};
  const wrapper = new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key, object);
      if (typeof value !== "function") return value;
      return (...args) => {
        calls[key] = (calls[key] ?? 0) + 1;
        return value.apply(object, args);
      };
    },
  });
  return { wrapper, calls };
}
