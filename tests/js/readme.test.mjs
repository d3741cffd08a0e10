// The README's example runs as written (importing the package by name) and prints what it claims.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pkgDir, repo } from "./helpers.mjs";

test("README example prints its documented output", () => {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const marker = readme.indexOf("<!-- example: executed by tests/js/readme.test.mjs -->");
  assert.ok(marker >= 0, "README marks its example");
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(marker));
  assert.ok(block, "a js block follows the marker");
  const code = block[1];
  const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
  assert.ok(expected.length >= 3);

  // A throwaway project that depends on the package, as a user's would.
  const dir = mkdtempSync(join(tmpdir(), "engram-readme-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(pkgDir, join(dir, "node_modules", "engram-wasm"), "dir");
    writeFileSync(join(dir, "example.mjs"), code);
    const out = execFileSync(process.execPath, [join(dir, "example.mjs")], { encoding: "utf8" })
      .trim()
      .split("\n");
    assert.deepEqual(out, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
