// Shared by the Node tests: where the built package is, a helper to assert typed rejections, the
// README's examples run as a user's project would run them, and call counts through a wrapper.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

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
 * The first ````lang` block of README.md after `marker` (a heading, or the `<!-- example: … -->`
 * comment that marks an executed example), asserting both are there.
 */
export function readmeSnippet(marker, lang = "js") {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `README has ${marker}`);
  const block = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(readme.slice(at));
  assert.ok(block, `a ${lang} block follows ${marker}`);
  return block[1];
}

/** The lines a README example says it prints: the `// …` after each one-line `console.log(…);`. */
export function documentedOutput(code) {
  return [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
}

const runFile = promisify(execFile);

/**
 * Runs `code` as `example.mjs` of a throwaway project whose node_modules holds the built package as
 * `engram-wasm` (and `packages`, linked from the repository's node_modules), as a user's project
 * would depend on them, beside `files` (name → text); resolves to its stdout lines. Asynchronous, so a server in this process
 * (the test PostgreSQL) keeps answering meanwhile.
 */
export async function runInProject(code, { packages = [], env, files = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "engram-project-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(pkgDir, join(dir, "node_modules", "engram-wasm"), "dir");
    for (const name of packages) symlinkSync(join(repo, "node_modules", name), join(dir, "node_modules", name), "dir");
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, "example.mjs"), code);
    const { stdout } = await runFile(process.execPath, [join(dir, "example.mjs")], { env: env ?? process.env, encoding: "utf8" });
    return stdout.trim().split("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
