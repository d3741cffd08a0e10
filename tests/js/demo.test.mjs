// The main demo keeps its store on disk: a second run (a new process) answers from what the first
// one stored, without adding anything again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));

test("the demo's store survives a process restart", () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-demo-"));
  const run = (...args) => execFileSync(process.execPath, ["examples/demo.mjs", ...args], { cwd: repo, env: { ...process.env, ENGRAM_DEMO_DIR: dir } }).toString();
  try {
    const first = run();
    assert.match(first, /\(new\)/);
    assert.equal(first.match(/^stored /gm)?.length, 7);
    const second = run();
    assert.match(second, /7 memories from an earlier run/);
    assert.doesNotMatch(second, /^stored /m, "nothing is added twice");
    assert.match(second, /is Priya allergic to anything\?\n\s+[\d.]+\s+Priya is allergic to peanuts/);
    assert.match(second, /orders-v3/);
    assert.match(second, /history of the pipeline fact: ADD → UPDATE/);
    assert.match(second, /guards: Priya's CI token is \[secret:github-token\]\n/);
    assert.match(second, /guards: flags injection:override; quarantined: true; in context: false/);
    assert.match(run("--fresh"), /^stored /m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
