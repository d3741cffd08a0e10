// A bundler resolving engram-wasm for the browser gets the browser build, and no Node built-in
// reaches it; for Node it gets the Node build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { pkgDir } from "./helpers.mjs";

test("bundling for the browser picks the browser entry and pulls in no Node built-ins", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-bundle-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(pkgDir, join(dir, "node_modules", "engram-wasm"), "dir");
    writeFileSync(join(dir, "app.js"), 'import { Engram } from "engram-wasm";\nexport const open = () => Engram.open();\n');
    const browser = await build({ entryPoints: [join(dir, "app.js")], bundle: true, write: false, platform: "browser", format: "esm", metafile: true, logLevel: "silent" });
    const inputs = Object.keys(browser.metafile.inputs);
    assert.ok(inputs.some((p) => p.endsWith("dist/engram.browser.mjs")), inputs.join(", "));
    assert.ok(inputs.some((p) => p.endsWith("dist/wasm-web/engram.js")));
    assert.ok(!inputs.some((p) => p.includes("wasm-node") || p.includes("node.mjs") || p.includes("node.cjs")));
    const code = browser.outputFiles[0].text;
    assert.doesNotMatch(code, /require\(|from "node:|from "fs"|from "path"/);
    assert.match(code, /engram_bg\.wasm/);

    const node = await build({ entryPoints: [join(dir, "app.js")], bundle: true, write: false, platform: "node", format: "esm", metafile: true, logLevel: "silent" });
    assert.ok(Object.keys(node.metafile.inputs).some((p) => p.endsWith("dist/engram.node.mjs")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
