// Lists the package keeps in more than one form stay equal: TypeScript types cannot be generated at
// run time, so index.d.ts is compared here with the lists the code uses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Engram, ERROR_CODES } from "engram-wasm";
import { FORWARDED_METHODS } from "../../pkg-template/src/methods.js";

const types = readFileSync(new URL("../../pkg-template/index.d.ts", import.meta.url), "utf8");

/** The string literals of the type declared as `export type <name> = …;`. */
function literals(name, body = new RegExp(`export type ${name} =([^;]*);`).exec(types)?.[1]) {
  assert.ok(body, `index.d.ts declares ${name}`);
  return [...body.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

test("index.d.ts's ErrorCode is ERROR_CODES (the Rust ErrorCode variants), in order", () => {
  assert.deepEqual(literals("ErrorCode"), [...ERROR_CODES]);
  assert.ok(Object.isFrozen(ERROR_CODES));
});

test("the worker forwards Engram methods, and index.d.ts's EngramWorker lists the same ones plus reindex", () => {
  for (const method of FORWARDED_METHODS) assert.equal(typeof Engram.prototype[method], "function", method);
  const pick = /export type EngramWorker = Pick<\s*Engram,([^>]*)>/.exec(types)?.[1];
  assert.deepEqual(literals("EngramWorker", pick).sort(), [...FORWARDED_METHODS, "reindex"].sort());
});
