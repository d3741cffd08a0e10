// Namespaces do not leak through the package or the MCP server: every read in one namespace returns
// only its records and the shared `default`'s, and `deleteAll({namespace})` leaves nothing of it in
// a search, a listing, an export or (after compaction) a stored file. The native test
// (tests/isolation.rs) covers the engine's indexes; this one covers what hosts and agents call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { repo } from "./helpers.mjs";

// Each namespace's records carry a marker word no other namespace uses.
const SPACES = [
  // Tenant-style ids, as hosts already have them.
  ["alice@example.com", "xylophone"],
  ["user:42", "quokka"],
  ["default", "marmalade"],
];
const TOPICS = ["tea in the morning", "the pharmacy on 5th", "the weekly report"];

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-isolation-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function fill(db) {
  for (const [ns, marker] of SPACES) {
    for (const [i, topic] of TOPICS.entries()) {
      await db.add({
        content: `${ns} says ${marker} about ${topic} (note ${i})`,
        namespace: ns,
        shape: "evolving_attribute",
        thread: `user/topic-${i}`,
        value: `${marker} ${i}`,
        area: ["life"],
      });
    }
    await db.ingest({
      id: `${ns}-chat`,
      namespace: ns,
      turns: [
        { role: "user", content: `I told you ${marker} things about tea and the pharmacy` },
        { role: "assistant", content: `Noted: ${marker}.` },
      ],
    });
  }
}

/** Markers `ns` must never see. */
const foreign = (ns) => SPACES.filter(([n]) => n !== ns && n !== "default").map(([, m]) => m);

function assertClean(what, ns, value) {
  const text = typeof value === "string" ? value : value instanceof Uint8Array ? new TextDecoder().decode(value) : JSON.stringify(value);
  for (const marker of foreign(ns)) assert.ok(!text.includes(marker), `${what} in ${ns} shows another namespace's "${marker}"`);
}

/** Every read a host can make in `ns`, with the query naming every marker so a leak would match. */
async function everyRead(db, ns, within = {}) {
  const query = `${SPACES.map(([, m]) => m).join(" ")} tea pharmacy report`;
  const reads = {
    search: await db.search(query, { namespace: ns, ...within, limit: 50, scope: "all", neighbors: 2, expandLinks: true, includeSuperseded: true, explain: true }),
    recallContext: await db.recallContext(query, { namespace: ns, ...within, maxTokens: 4000 }),
    resume: await db.resume({ namespace: ns, ...within, maxTokens: 4000 }),
    recall: await db.recall(query, { namespace: ns, ...within, maxTokens: 4000 }),
    gather: await db.gather("life", { namespace: ns, ...within }),
    getAll: await db.getAll({ namespace: ns, limit: 100 }),
    sessions: await db.sessions({ namespace: ns }),
    export: await db.export({ namespace: ns }),
  };
  for (let i = 0; i < TOPICS.length; i++) reads[`thread ${i}`] = await db.thread(`user/topic-${i}`, { namespace: ns, ...within });
  return reads;
}

/** The reads that merge the shared namespace in (listings, sessions and exports never do). */
const MERGING = ["search", "recallContext", "resume", "recall", "gather", "thread 0", "thread 1", "thread 2"];

test("includeDefault: a tenant's reads leave the shared namespace out, per store or per call", async () => {
  const shared = SPACES.find(([n]) => n === "default")[1];
  const check = async (db, within, seesShared) => {
    const reads = await everyRead(db, "user:42", within);
    for (const what of MERGING) {
      assertClean(what, "user:42", reads[what]);
      assert.equal(JSON.stringify(reads[what]).includes(shared), seesShared, `${what} with ${JSON.stringify(within)}: the shared namespace seen`);
      // (A thread shared with "default" answers with its latest value, which may be the shared one.)
      if (!seesShared || (!what.startsWith("thread") && what !== "gather"))
        assert.ok(JSON.stringify(reads[what]).includes("quokka"), `${what}: the tenant's own records are still found`);
    }
  };
  const open = await Engram.open({ embedder: null });
  await fill(open);
  await check(open, {}, true);
  await check(open, { includeDefault: false }, false);
  await open.close();
  const tenant = await Engram.open({ embedder: null, includeDefault: false });
  await fill(tenant);
  await check(tenant, {}, false);
  await check(tenant, { includeDefault: true }, true);
  await assert.rejects(tenant.search("tea", { includeDefault: "no" }), { code: "InvalidInput" });
  await assert.rejects(Engram.open({ embedder: null, includeDefault: 0 }), { code: "InvalidInput" });
  await tenant.close();
});

test("every read through the package in one namespace sees only it and default", async () => {
  const db = await Engram.open({ embedder: null });
  await fill(db);
  for (const [ns, marker] of SPACES) {
    const reads = await everyRead(db, ns);
    for (const [what, value] of Object.entries(reads)) assertClean(what, ns, value);
    // The reads do find the namespace's own records, so a clean result is not an empty one.
    assert.ok(JSON.stringify(reads.search).includes(marker), `${ns}: its own records are found`);
    assert.ok(reads.recallContext.text.includes(marker), `${ns}: its own records reach the context block`);
  }
  await db.close();
});

test("deleteAll({namespace}) leaves nothing of it in any read, export or stored file", async (t) => {
  const dir = tempDir(t);
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  await fill(db);
  const aliceBefore = await everyRead(db, "alice@example.com");
  assert.equal(await db.deleteAll({ namespace: "user:42" }), TOPICS.length);
  for (const [ns] of SPACES) {
    const reads = await everyRead(db, ns);
    for (const [what, value] of Object.entries(reads))
      assert.ok(!JSON.stringify(value).includes("quokka") && !new TextDecoder().decode(reads.export).includes("quokka"), `${what} in ${ns} still shows the deleted namespace`);
  }
  assert.deepEqual(await db.sessions({ namespace: "user:42" }), [], "its sessions went with it");
  assert.ok(!new TextDecoder().decode(await db.export()).includes("quokka"), "the whole store's export");
  // Another namespace is untouched.
  const aliceAfter = await everyRead(db, "alice@example.com");
  assert.deepEqual(aliceAfter.getAll.map((m) => m.id).sort(), aliceBefore.getAll.map((m) => m.id).sort());
  assert.deepEqual(aliceAfter.sessions, ["alice@example.com-chat"]);
  await db.compact();
  await db.close();
  const files = [];
  const walk = (d) => readdirSync(d).forEach((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : files.push(join(d, n))));
  walk(dir);
  assert.ok(files.length > 0);
  for (const file of files) assert.ok(!readFileSync(file).toString("latin1").includes("quokka"), `${file} still holds the deleted namespace's text`);
  // And it reopens without it.
  const again = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  assert.equal((await again.getAll({ namespace: "user:42" })).length, 0);
  assert.equal((await again.getAll({ namespace: "alice@example.com" })).length, TOPICS.length);
  await again.close();
});

/** engram-mcp on a fresh store in `dir` with `flags`, and `call(name, args)` returning the result's JSON. */
async function mcpServer(t, dir, flags = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repo, "mcp", "bin", "engram-mcp.js"), "--dir", dir, "--keyword-only", ...flags],
    env: getDefaultEnvironment(),
    stderr: "pipe",
  });
  const client = new Client({ name: "engram-isolation-test", version: "0.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  return async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    assert.ok(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
    return JSON.stringify(r);
  };
}

test("engram-mcp --no-default: tool calls in a namespace leave the shared one out", async (t) => {
  const call = await mcpServer(t, tempDir(t), ["--no-default", "--namespace", "user:42"]);
  await call("remember", { content: "user:42 takes quokka tea in the morning" });
  await call("remember", { content: "everyone takes marmalade tea in the morning", namespace: "default" });
  for (const [tool, args] of [
    ["recall", { query: "tea in the morning" }],
    ["search", { query: "tea in the morning", scope: "all" }],
  ]) {
    const text = await call(tool, args);
    assert.ok(text.includes("quokka") && !text.includes("marmalade"), `${tool}: ${text}`);
  }
  // The default namespace itself still reads its own.
  assert.ok((await call("search", { query: "tea", namespace: "default" })).includes("marmalade"));
});

test("engram-mcp tool calls in one namespace see only it and default", async (t) => {
  const call = await mcpServer(t, tempDir(t));
  for (const [ns, marker] of SPACES) {
    for (const [i, topic] of TOPICS.entries()) await call("remember", { content: `${ns} says ${marker} about ${topic} (note ${i})`, namespace: ns });
    await call("ingest_conversation", { sessionId: `${ns}-chat`, namespace: ns, turns: [{ role: "user", content: `I told you ${marker} things about tea` }] });
  }
  const query = `${SPACES.map(([, m]) => m).join(" ")} tea pharmacy report`;
  for (const [ns, marker] of SPACES) {
    const out = {
      recall: await call("recall", { query, namespace: ns }),
      search: await call("search", { query, namespace: ns, scope: "all", limit: 50 }),
      resume: await call("resume", { namespace: ns }),
    };
    for (const [what, text] of Object.entries(out)) assertClean(`mcp ${what}`, ns, text);
    assert.ok(out.search.includes(marker), `mcp search in ${ns} finds its own records`);
  }
});
