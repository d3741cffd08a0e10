// engram-mcp's wire, spoken raw over the process's stdin and stdout: a message over the size limit,
// a line that is not JSON, JSON that is not JSON-RPC and params that do not fit their method are
// each answered with their JSON-RPC error, and the server goes on serving the next request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repo } from "./helpers.mjs";
import { idAtEnds } from "../../mcp/src/stdio.js";

const bin = join(repo, "mcp", "bin", "engram-mcp.js");

/** A server process on a fresh directory, with a reader of its answers line by line. */
function serve(t, args = []) {
  const dir = mkdtempSync(join(tmpdir(), "engram-mcp-wire-"));
  const child = spawn(process.execPath, [bin, "--dir", dir, "--keyword-only", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  let buffered = "";
  const answers = [];
  const waiting = [];
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(message);
      else answers.push(message);
    }
  });
  let exited = null;
  child.on("exit", (code) => (exited = code));
  t.after(() => {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  const next = () =>
    answers.length
      ? Promise.resolve(answers.shift())
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no answer within 20 s (exited: ${exited}); stderr:\n${stderr}`)), 20_000);
          waiting.push((m) => {
            clearTimeout(timer);
            resolve(m);
          });
        });
  const write = (text) => new Promise((resolve) => (child.stdin.write(text) ? resolve() : child.stdin.once("drain", resolve)));
  const send = (message) => write(`${JSON.stringify(message)}\n`);
  // stderr is its own pipe: a line logged before an answer may still be in flight when the answer
  // arrives on stdout, so a log line is awaited rather than read at once.
  const logged = async (pattern) => {
    for (const end = Date.now() + 10_000; !pattern.test(stderr);) {
      if (Date.now() > end) assert.fail(`stderr never matched ${pattern}:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { child, next, write, send, logged, exited: () => exited };
}

async function initialize(s) {
  await s.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "wire-test", version: "0" } } });
  const init = await s.next();
  assert.equal(init.id, 0);
  assert.equal(init.result.serverInfo.name, "engram-mcp");
  await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

/** tools/list answers: the server is still serving. */
async function stillServes(s, id) {
  await s.send({ jsonrpc: "2.0", id, method: "tools/list" });
  const r = await s.next();
  assert.equal(r.id, id, JSON.stringify(r).slice(0, 300));
  assert.ok(r.result.tools.length > 0);
}

test("a message over --max-message-mib is answered under its id and skipped; the server goes on", async (t) => {
  const s = serve(t, ["--max-message-mib", "1"]);
  await initialize(s);
  // 3 MiB of content, the id last as the SDK's client writes it.
  const big = "x".repeat(3 << 20);
  await s.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"remember","arguments":{"content":"${big}"}},"id":41}\n`);
  const refused = await s.next();
  assert.equal(refused.id, 41);
  assert.equal(refused.error.code, -32600);
  assert.match(refused.error.message, /exceeds this server's limit of 1048576 bytes/);
  // The id first, as other clients write it; split across many writes.
  const line = `{"jsonrpc":"2.0","id":"big-2","method":"tools/call","params":{"name":"remember","arguments":{"content":"${big}"}}}\n`;
  for (let i = 0; i < line.length; i += 65_536) await s.write(line.slice(i, i + 65_536));
  const second = await s.next();
  assert.equal(second.id, "big-2");
  assert.equal(second.error.code, -32600);
  await stillServes(s, 42);
  assert.equal(s.exited(), null);
  await s.logged(/refused a message of \d+ bytes/);
});

test("a message over the SDK's 10 MiB buffer is read by default and answered (here: Engram's InvalidInput)", async (t) => {
  const s = serve(t);
  await initialize(s);
  const content = "y".repeat(11 << 20);
  await s.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "remember", arguments: { content } } });
  const r = await s.next();
  assert.equal(r.id, 7);
  assert.equal(r.result.isError, true);
  assert.equal(r.result.structuredContent.error.code, "InvalidInput", JSON.stringify(r.result).slice(0, 300));
  await stillServes(s, 8);
});

test("malformed JSON, non-JSON-RPC and ill-fitting params get their JSON-RPC errors; the server goes on", async (t) => {
  const s = serve(t);
  await initialize(s);
  await s.write('{"jsonrpc":"2.0","id":3,"method":"tools/list"\n');
  const parse = await s.next();
  assert.equal(parse.id, null);
  assert.equal(parse.error.code, -32700);
  await s.write("[1,2,3]\n");
  assert.equal((await s.next()).error.code, -32600);
  await s.send({ id: 4, method: "tools/list" }); // no "jsonrpc": "2.0"
  const noVersion = await s.next();
  assert.deepEqual([noVersion.id, noVersion.error.code], [4, -32600]);
  await s.send({ jsonrpc: "2.0", id: 5, method: "tools/list", params: 5 });
  const badParams = await s.next();
  assert.deepEqual([badParams.id, badParams.error.code], [5, -32602], JSON.stringify(badParams));
  await s.send({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "remember", arguments: "not an object" } });
  const badArgs = await s.next();
  assert.deepEqual([badArgs.id, badArgs.error.code], [6, -32602], JSON.stringify(badArgs));
  await s.send({ jsonrpc: "2.0", id: 9, method: "no/such/method" });
  const unknown = await s.next();
  assert.deepEqual([unknown.id, unknown.error.code], [9, -32601]);
  // A malformed notification is never answered (JSON-RPC), only logged.
  await s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: 3 });
  await stillServes(s, 10);
  await s.logged(/dropped a malformed notification/);
  assert.equal(s.exited(), null);
});

test("the id of an oversized line is read from its start or its end, never from inside it", () => {
  assert.equal(idAtEnds('{"jsonrpc":"2.0","id":12,"method":"x","params":{"a":"', ""), 12);
  assert.equal(idAtEnds('{"id":"a\\"b","jsonrpc":"2.0"', ""), 'a"b');
  assert.equal(idAtEnds('{"method":"tools/call","params":{"x":"', 'aaa"},"jsonrpc":"2.0","id":99}'), 99);
  assert.equal(idAtEnds('{"method":"tools/call","params":{"x":"', 'aaa","id":5}}}'), null, "a nested id is not the request's");
  assert.equal(idAtEnds("garbage", "garbage"), null);
});
