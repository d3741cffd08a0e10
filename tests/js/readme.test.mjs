// The README's example runs as written (importing the package by name) and prints what it claims.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { documentedOutput, pkgDir, readmeSnippet, repo, runInProject } from "./helpers.mjs";

test("README example prints its documented output", async () => {
  const code = readmeSnippet("<!-- example: executed by tests/js/readme.test.mjs -->");
  const expected = documentedOutput(code);
  assert.ok(expected.length >= 3);
  // A throwaway project that depends on the package, as a user's would.
  assert.deepEqual(await runInProject(code), expected);
});

// The sizes the README states are the built files' sizes, rounded as written, so a change to the
// module or the model shows up here instead of leaving the README behind.
test("README's stated sizes are the measured ones", async (t) => {
  const { gzipSync } = await import("node:zlib");
  const { existsSync } = await import("node:fs");
  const readme = readFileSync(join(repo, "README.md"), "utf8");

  const wasm = readFileSync(join(pkgDir, "dist", "wasm-web", "engram_bg.wasm"));
  const gzipMb = gzipSync(wasm, { level: 9 }).length / 1e6;
  const stated = /keeps the module at ([0-9.]+) MB gzip/.exec(readme);
  assert.ok(stated, "README states the module's gzip size");
  // Within the last digit written: the module moves by a few KB from build to build.
  assert.ok(Math.abs(Number(stated[1]) - gzipMb) <= 0.1, `the shipped module is ${gzipMb.toFixed(2)} MB gzipped (level 9); README says ${stated[1]} MB`);

  const model = join(process.env.ENGRAM_MODEL_DIR ?? join(repo, "models"), "model.onnx");
  if (!existsSync(model)) {
    if (process.env.CI) assert.fail(`${model} is missing (scripts/fetch-models.sh)`);
    t.skip(`${model} not fetched`);
    return;
  }
  const modelMb = String(Math.round(readFileSync(model).length / 1e6));
  const statedModel = /\(all-MiniLM-L6-v2, int8 ONNX, ([0-9]+) MB\)/.exec(readme);
  assert.ok(statedModel, "README states the model's size");
  assert.equal(statedModel[1], modelMb, `model.onnx is ${modelMb} MB; README says ${statedModel[1]} MB`);
});
