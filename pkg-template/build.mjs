// Assembles pkg/ (the engram-wasm npm package): one wasm-pack run per [[build]] in wasm-pack.toml,
// then the JS facade bundled per environment with esbuild, the types, package.json and README.
//
//   node pkg-template/build.mjs [--profile release|dev]
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { build as esbuild } from "esbuild";
import { trimTract } from "../scripts/tract-trim.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const template = join(root, "pkg-template");
const out = join(root, "pkg");
const matrix = parseToml(readFileSync(join(root, "wasm-pack.toml"), "utf8"));
const args = process.argv.slice(2);
const profile = args.includes("--profile") ? args[args.indexOf("--profile") + 1] : (matrix.profile ?? "release");
if (!["release", "dev", "profiling"].includes(profile)) throw new Error(`unknown profile ${profile}`);

const cargoToml = readFileSync(join(root, "Cargo.toml"), "utf8");
writeErrorCodes();
const version = /^version\s*=\s*"([^"]+)"/m.exec(cargoToml)[1];

// The wasm build links trimmed copies of tract-onnx and tract-nnef (scripts/tract-trim.mjs: only the
// ONNX operators of sentence encoders). Patching them in rewrites their Cargo.lock entries, so the
// committed lock file is put back afterwards, build failure or not.
const trimArgs = trimTract();
const lockPath = join(root, "Cargo.lock");
const lock = readFileSync(lockPath);
try {
  for (const b of matrix.build) {
    const outDir = join(root, b.out_dir);
    const cmd = ["build", root, "--target", b.target, "--out-dir", outDir, "--out-name", "engram", `--${profile}`, "--mode", "no-install", "--no-pack", "--"];
    if (b.features?.length) cmd.push("--features", b.features.join(","));
    cmd.push(...trimArgs);
    console.log(`build-pkg: wasm-pack ${b.name} (${b.target}, ${profile})`);
    execFileSync("wasm-pack", cmd, {
      stdio: "inherit",
      // A separate target dir: changing RUSTFLAGS would otherwise invalidate native builds.
      env: { ...process.env, RUSTFLAGS: [process.env.RUSTFLAGS, matrix.rustflags].filter(Boolean).join(" "), CARGO_TARGET_DIR: join(root, "target", "wasm") },
    });
  }
} finally {
  if (!readFileSync(lockPath).equals(lock)) writeFileSync(lockPath, lock);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "dist"), { recursive: true });
const byName = Object.fromEntries(matrix.build.map((b) => [b.name, join(root, b.out_dir)]));
for (const [name, type] of [
  ["node", "commonjs"],
  ["web", "module"],
]) {
  const dest = join(out, "dist", `wasm-${name}`);
  mkdirSync(dest, { recursive: true });
  cpSync(join(byName[name], "engram.js"), join(dest, "engram.js"));
  // The glue's module format, whatever the consumer's package type says.
  writeFileSync(join(dest, "package.json"), JSON.stringify({ type }) + "\n");
}
// Both targets compile the same module; ship it once and point the Node glue at the web copy.
const nodeWasm = readFileSync(join(byName.node, "engram_bg.wasm"));
const webWasm = readFileSync(join(byName.web, "engram_bg.wasm"));
if (!nodeWasm.equals(webWasm)) throw new Error("build-pkg: node and web wasm differ; cannot share one module");
// Release builds drop the `name` custom section (function names for stack traces: 1.6 MiB of the
// module); dev and profiling builds keep it.
const shipped = profile === "release" ? withoutCustomSections(webWasm, new Set(["name"])) : webWasm;
writeFileSync(join(out, "dist", "wasm-web", "engram_bg.wasm"), shipped);
console.log(`build-pkg: engram_bg.wasm ${(webWasm.length / 2 ** 20).toFixed(2)} MiB → ${(shipped.length / 2 ** 20).toFixed(2)} MiB shipped`);
const nodeGlue = join(out, "dist", "wasm-node", "engram.js");
const glueText = readFileSync(nodeGlue, "utf8");
const wasmPathLine = "const wasmPath = `${__dirname}/engram_bg.wasm`;";
if (!glueText.includes(wasmPathLine)) throw new Error("build-pkg: the Node glue no longer loads engram_bg.wasm the way this script expects");
writeFileSync(nodeGlue, glueText.replace(wasmPathLine, "const wasmPath = require('path').join(__dirname, '..', 'wasm-web', 'engram_bg.wasm');"));

const common = { bundle: true, external: ["./wasm-node/*", "./wasm-web/*"], logLevel: "warning", target: "es2022", legalComments: "none" };
await esbuild({ ...common, entryPoints: [join(template, "src", "entry-node.js")], outfile: join(out, "dist", "engram.node.mjs"), format: "esm", platform: "node" });
await esbuild({
  ...common,
  entryPoints: [join(template, "src", "entry-node.js")],
  outfile: join(out, "dist", "engram.node.cjs"),
  format: "cjs",
  platform: "node",
  // The CJS bundle finds its files by __dirname; the `import.meta.url` branch is the ESM bundle's.
  logOverride: { "empty-import-meta": "silent" },
});
await esbuild({ ...common, entryPoints: [join(template, "src", "entry-browser.js")], outfile: join(out, "dist", "engram.browser.mjs"), format: "esm", platform: "browser" });
// Node-only file-system storage, its own entry (engram-wasm/node-fs) so browser bundles never see
// `fs`. It bundles its own copy of errors.js; errors.js shares one EngramError class per realm.
for (const [ext, format] of [
  ["mjs", "esm"],
  ["cjs", "cjs"],
]) {
  await esbuild({ ...common, entryPoints: [join(template, "src", "storage", "node-fs.js")], outfile: join(out, "dist", `engram.node-fs.${ext}`), format, platform: "node" });
}
// PostgreSQL storage (engram-wasm/postgres), Node-only like node-fs: `pg` stays the host's (an
// optional peer dependency), imported by name at its first connection, never bundled. The S3
// storage adapter (engram-wasm/s3): fetch and WebCrypto only, so one build for every platform.
// Both ESM and CJS like node-fs.
for (const [ext, format] of [
  ["mjs", "esm"],
  ["cjs", "cjs"],
]) {
  await esbuild({
    ...common,
    external: [...common.external, "pg"],
    entryPoints: [join(template, "src", "storage", "postgres.js")],
    outfile: join(out, "dist", `engram.postgres.${ext}`),
    format,
    platform: "node",
  });
  await esbuild({ ...common, entryPoints: [join(template, "src", "storage", "s3.js")], outfile: join(out, "dist", `engram.s3.${ext}`), format, platform: "neutral" });
}
// The storage-adapter conformance suite (engram-wasm/adapter-tests): no glue, any platform.
await esbuild({
  ...common,
  entryPoints: [join(template, "src", "storage", "conformance.js")],
  outfile: join(out, "dist", "engram.adapter-tests.mjs"),
  format: "esm",
  platform: "neutral",
});
// The worker imports the browser build as a separate module, so both share one copy of the glue.
await esbuild({
  ...common,
  external: [...common.external, "./engram.browser.mjs"],
  entryPoints: [join(template, "src", "worker.js")],
  outfile: join(out, "dist", "engram.worker.mjs"),
  format: "esm",
  platform: "browser",
  plugins: [
    {
      name: "browser-entry-external",
      setup(b) {
        b.onResolve({ filter: /entry-browser\.js$/ }, () => ({ path: "./engram.browser.mjs", external: true }));
      },
    },
  ],
});

// LangChain.js adapters (engram-wasm/langchain): `@langchain/core` stays the host's (a peer
// dependency), so the classes extend the host's own; ESM only.
await esbuild({
  ...common,
  external: [...common.external, "@langchain/core", "@langchain/core/*"],
  entryPoints: [join(template, "src", "langchain.js")],
  outfile: join(out, "dist", "engram.langchain.mjs"),
  format: "esm",
  platform: "neutral",
});

// The AI SDK middleware (engram-wasm/ai): a plain object of the middleware's shape, so nothing of
// the SDK is bundled or imported; ESM only.
await esbuild({ ...common, entryPoints: [join(template, "src", "ai.js")], outfile: join(out, "dist", "engram.ai.mjs"), format: "esm", platform: "neutral" });

// Vector graph build workers, one per environment, each loading its own instance of the wasm module
// through the glue next to it: the browser entry starts dist/engram.vector-worker.mjs as a module
// Worker (`new URL(…, import.meta.url)`, which bundlers that understand workers follow), the Node
// entries start dist/engram.vector-worker.node.cjs with worker_threads.
await esbuild({
  ...common,
  entryPoints: [join(template, "src", "vector-build-worker.js")],
  outfile: join(out, "dist", "engram.vector-worker.mjs"),
  format: "esm",
  platform: "browser",
});
await esbuild({
  ...common,
  entryPoints: [join(template, "src", "vector-build-worker-node.js")],
  outfile: join(out, "dist", "engram.vector-worker.node.cjs"),
  format: "cjs",
  platform: "node",
});

/**
 * Writes pkg-template/src/error-codes.js (git-ignored) from the variants of the Rust `ErrorCode`,
 * declared in src/error.rs as the list in `error_codes! { … }`: one identifier per entry, each after
 * its doc comments.
 */
function writeErrorCodes() {
  const source = readFileSync(join(root, "src", "error.rs"), "utf8");
  const list = /^error_codes! \{\n([\s\S]*?)^\}/m.exec(source)?.[1];
  const codes = list
    ?.split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//"));
  if (!codes?.length || !codes.every((c) => /^[A-Z][A-Za-z]*,$/.test(c))) {
    throw new Error("build-pkg: cannot read the error codes from `error_codes! { … }` in src/error.rs");
  }
  const names = codes.map((c) => c.slice(0, -1));
  writeFileSync(
    join(template, "src", "error-codes.js"),
    "// Generated by pkg-template/build.mjs from the Rust ErrorCode (src/error.rs); do not edit.\n" + `export const ERROR_CODES = Object.freeze(${JSON.stringify(names)});\n`,
  );
}

/** A copy of a wasm module without the custom sections named in `drop` (other sections byte-identical). */
function withoutCustomSections(bytes, drop) {
  const leb = (at) => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return [value, at];
    }
  };
  if (bytes.readUInt32LE(0) !== 0x6d736100) throw new Error("build-pkg: not a wasm module");
  const kept = [bytes.subarray(0, 8)];
  let at = 8;
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at];
    const [size, body] = leb(at + 1);
    const end = body + size;
    if (end > bytes.length) throw new Error("build-pkg: truncated wasm section");
    let name = null;
    if (id === 0) {
      const [len, nameAt] = leb(body);
      name = bytes.subarray(nameAt, nameAt + len).toString("utf8");
    }
    if (!drop.has(name)) kept.push(bytes.subarray(start, end));
    at = end;
  }
  return Buffer.concat(kept);
}

const pkg = JSON.parse(readFileSync(join(template, "package.json"), "utf8"));
// Cargo.toml is the one version source; the template says the same so no copy of it misleads.
if (pkg.version !== version) throw new Error(`build-pkg: pkg-template/package.json says ${pkg.version}, Cargo.toml says ${version}`);
writeFileSync(join(out, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
// The types once per module format: TypeScript reads a `.d.ts` in a package without "type" as
// CommonJS, which misdescribes the ESM entries; `.d.mts` go with `import`, `.d.cts` with `require`
// (both through "exports"). The `.d.ts` files stay for resolvers that ignore "exports" (node10).
// reports.d.ts (generated from the Rust types, checked by `cargo test`) and index.d.ts import each
// other's types: each format's copy names the other's copy of the same format.
const indexTypes = readFileSync(join(template, "index.d.ts"), "utf8");
const reportTypes = readFileSync(join(template, "reports.d.ts"), "utf8");
if (!indexTypes.includes('from "./reports.js"') || !reportTypes.includes('from "./index.js"')) {
  throw new Error("build-pkg: index.d.ts and reports.d.ts no longer import each other as this script expects");
}
cpSync(join(template, "index.d.ts"), join(out, "index.d.ts"));
cpSync(join(template, "reports.d.ts"), join(out, "reports.d.ts"));
cpSync(join(template, "node-fs.d.ts"), join(out, "node-fs.d.ts"));
const nodeFsTypes = readFileSync(join(template, "node-fs.d.ts"), "utf8");
if (!nodeFsTypes.includes('from "./index.js"')) throw new Error("build-pkg: node-fs.d.ts no longer imports ./index.js as this script expects");
cpSync(join(template, "postgres.d.ts"), join(out, "postgres.d.ts"));
const postgresTypes = readFileSync(join(template, "postgres.d.ts"), "utf8");
if (!postgresTypes.includes('from "./index.js"')) throw new Error("build-pkg: postgres.d.ts no longer imports ./index.js as this script expects");
cpSync(join(template, "s3.d.ts"), join(out, "s3.d.ts"));
const s3Types = readFileSync(join(template, "s3.d.ts"), "utf8");
if (!s3Types.includes('from "./index.js"')) throw new Error("build-pkg: s3.d.ts no longer imports ./index.js as this script expects");
for (const [typesExt, jsExt] of [
  ["mts", "mjs"],
  ["cts", "cjs"],
]) {
  writeFileSync(join(out, `index.d.${typesExt}`), indexTypes.replaceAll('from "./reports.js"', `from "./reports.${jsExt}"`));
  writeFileSync(join(out, `reports.d.${typesExt}`), reportTypes.replaceAll('from "./index.js"', `from "./index.${jsExt}"`));
  writeFileSync(join(out, `node-fs.d.${typesExt}`), nodeFsTypes.replaceAll('from "./index.js"', `from "./index.${jsExt}"`));
  writeFileSync(join(out, `postgres.d.${typesExt}`), postgresTypes.replaceAll('from "./index.js"', `from "./index.${jsExt}"`));
  writeFileSync(join(out, `s3.d.${typesExt}`), s3Types.replaceAll('from "./index.js"', `from "./index.${jsExt}"`));
}
// The conformance suite is ESM only: one .d.mts beside the .d.ts.
const adapterTestsTypes = readFileSync(join(template, "adapter-tests.d.ts"), "utf8");
if (!adapterTestsTypes.includes('from "./index.js"')) throw new Error("build-pkg: adapter-tests.d.ts no longer imports ./index.js as this script expects");
cpSync(join(template, "adapter-tests.d.ts"), join(out, "adapter-tests.d.ts"));
writeFileSync(join(out, "adapter-tests.d.mts"), adapterTestsTypes.replaceAll('from "./index.js"', 'from "./index.mjs"'));
const langchainTypes = readFileSync(join(template, "langchain.d.ts"), "utf8");
if (!langchainTypes.includes('from "./index.js"')) throw new Error("build-pkg: langchain.d.ts no longer imports ./index.js as this script expects");
cpSync(join(template, "langchain.d.ts"), join(out, "langchain.d.ts"));
writeFileSync(join(out, "langchain.d.mts"), langchainTypes.replaceAll('from "./index.js"', 'from "./index.mjs"'));
const aiTypes = readFileSync(join(template, "ai.d.ts"), "utf8");
if (!aiTypes.includes('from "./index.js"')) throw new Error("build-pkg: ai.d.ts no longer imports ./index.js as this script expects");
cpSync(join(template, "ai.d.ts"), join(out, "ai.d.ts"));
writeFileSync(join(out, "ai.d.mts"), aiTypes.replaceAll('from "./index.js"', 'from "./index.mjs"'));
if (existsSync(join(root, "README.md"))) cpSync(join(root, "README.md"), join(out, "README.md"));
console.log(`build-pkg: pkg/ assembled (engram-wasm ${version})`);
