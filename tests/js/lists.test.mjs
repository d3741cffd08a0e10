// Lists the package keeps in more than one form stay equal. reports.d.ts is generated from the Rust
// types (and `cargo test` holds it to them); index.d.ts's hand-written parts are compared here with
// the lists the code uses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Engram, ERROR_CODES } from "engram-wasm";
import { FORWARDED_METHODS, WATCHED_METHODS } from "../../pkg-template/src/methods.js";

const types = readFileSync(new URL("../../pkg-template/index.d.ts", import.meta.url), "utf8");
const reports = readFileSync(new URL("../../pkg-template/reports.d.ts", import.meta.url), "utf8");

/** The string literals of the type declared as `export type <name> = …;`. */
function literals(name, body = new RegExp(`export type ${name} =([^;]*);`).exec(types)?.[1]) {
  assert.ok(body, `the types declare ${name}`);
  return [...body.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

test("the generated ErrorCode type is ERROR_CODES (both from the Rust ErrorCode), in order", () => {
  assert.deepEqual(literals("ErrorCode", new RegExp(`export type ErrorCode =([^;]*);`).exec(reports)?.[1]), [...ERROR_CODES]);
  assert.ok(Object.isFrozen(ERROR_CODES));
});

test("the worker forwards Engram methods, and index.d.ts's EngramWorker lists the same ones", () => {
  for (const method of FORWARDED_METHODS) assert.equal(typeof Engram.prototype[method], "function", method);
  const pick = /export type EngramWorker = Pick<\s*Engram,([^>]*)>/.exec(types)?.[1];
  assert.deepEqual(literals("EngramWorker", pick).sort(), [...FORWARDED_METHODS].sort());
});

test("the worker relays {signal, onProgress} of forwarded methods, at the index their options are declared at", () => {
  const body = /^export class Engram \{\n([\s\S]*?)^\}/m.exec(types)?.[1];
  for (const [method, at] of Object.entries(WATCHED_METHODS)) {
    assert.ok(FORWARDED_METHODS.includes(method), method);
    const overloads = [...body.matchAll(new RegExp(`^ {2}${method}\\((.*)\\): Promise`, "gm"))].map((m) => m[1].split(/,\s*(?=\w+\??:)/));
    assert.ok(overloads.length > 0, `index.d.ts declares ${method}`);
    assert.ok(
      overloads.some((params) => /^options\??:/.test(params[at] ?? "")),
      `${method}'s argument ${at} is its options`,
    );
  }
});

test("index.d.ts's class Engram declares exactly the facade's public methods", () => {
  const body = /^export class Engram \{\n([\s\S]*?)^\}/m.exec(types)?.[1];
  assert.ok(body, "index.d.ts declares class Engram");
  const declared = new Set([...body.matchAll(/^ {2}(?:static )?(\w+)\(/gm)].map((m) => m[1]).filter((name) => name !== "constructor"));
  const own = (o) =>
    Object.getOwnPropertyNames(o).filter((name) => name !== "constructor" && !name.startsWith("_") && typeof Object.getOwnPropertyDescriptor(o, name)?.value === "function");
  const implemented = new Set([...own(Engram.prototype), ...own(Engram)]);
  assert.deepEqual([...declared].sort(), [...implemented].sort());
});
