// A bundler resolving engram-wasm for the browser gets the browser build, and no Node built-in
// reaches it; for Node it gets the Node build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
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
    assert.ok(
      inputs.some((p) => p.endsWith("dist/engram.browser.mjs")),
      inputs.join(", "),
    );
    assert.ok(inputs.some((p) => p.endsWith("dist/wasm-web/engram.js")));
    assert.ok(!inputs.some((p) => p.includes("wasm-node") || p.includes("node.mjs") || p.includes("node.cjs")));
    const code = browser.outputFiles[0].text;
    assert.doesNotMatch(code, /require\(|from "node:|from "fs"|from "path"/);
    assert.match(code, /engram_bg\.wasm/);
    // The vector build worker is started as `new Worker(new URL("./engram.vector-worker.mjs",
    // import.meta.url), {type: "module"})`, the form webpack and Vite emit as a worker chunk.
    assert.match(code, /new Worker\(new URL\("\.\/engram\.vector-worker\.mjs", import\.meta\.url\), \{ type: "module" \}\)/);
    assert.ok(existsSync(join(pkgDir, "dist", "engram.vector-worker.mjs")));
    assert.ok(existsSync(join(pkgDir, "dist", "engram.vector-worker.node.cjs")));
    // The worker itself bundles for the browser with the web glue and no Node built-in.
    writeFileSync(join(dir, "worker.js"), 'import "engram-wasm/vector-worker";\n');
    const worker = await build({ entryPoints: [join(dir, "worker.js")], bundle: true, write: false, platform: "browser", format: "esm", metafile: true, logLevel: "silent" });
    const workerInputs = Object.keys(worker.metafile.inputs);
    assert.ok(
      workerInputs.some((p) => p.endsWith("dist/wasm-web/engram.js")),
      workerInputs.join(", "),
    );
    assert.ok(!workerInputs.some((p) => p.includes("wasm-node")));
    assert.doesNotMatch(worker.outputFiles[0].text, /require\(|from "node:/);

    const node = await build({ entryPoints: [join(dir, "app.js")], bundle: true, write: false, platform: "node", format: "esm", metafile: true, logLevel: "silent" });
    assert.ok(Object.keys(node.metafile.inputs).some((p) => p.endsWith("dist/engram.node.mjs")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
