// engram-wasm/postgres against a real PostgreSQL server this file starts itself (pg-server.mjs):
// the adapter contract (engram-wasm/adapter-tests) with the adapter's own pool and with a host's
// pool, key order and ranges against the reference order, option checks, the README example, the
// CommonJS build, Engram stores round-tripping through it, a thousand tenant stores in one table,
// the table made once under concurrent first use, close, a lost connection, the lock's timeout,
// writers in four processes on one store, writers killed with SIGKILL, and the server restarted
// under live writers. Without a server (no PostgreSQL installed) the file fails under CI and is
// skipped elsewhere.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { documentedOutput, readmeSnippet, repo, runInProject } from "./helpers.mjs";
import { startPostgres } from "./pg-server.mjs";
import { Engram, EngramError, MemoryStorage } from "engram-wasm";
import { PostgresStorage, postgres } from "engram-wasm/postgres";
import { TRICKY_KEYS, testAdapter } from "engram-wasm/adapter-tests";
import { decodeKey, encodeKey } from "../../pkg-template/src/storage/postgres.js";
import { compareKeys, hasPrefix } from "../../pkg-template/src/storage/adapter.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const bytes = (...b) => Uint8Array.from(b);

let server;
let skip = false;
try {
  server = await startPostgres();
} catch (e) {
  if (process.env.CI) throw e; // CI must have a server: scripts/setup.sh installs it
  skip = `no PostgreSQL server: ${e.message}`;
  console.log(`# postgres.test.mjs skipped: ${skip}`);
}
const connectionString = server?.connectionString;
/** The tests' own connections (counting rows, holding and breaking things); never the adapters'. */
const admin = server ? new pg.Pool({ connectionString, max: 4 }) : null;
admin?.on("error", () => {}); // its idle connections die with the server restart
after(async () => {
  await admin?.end();
  await server?.stop();
});

let counter = 0;
const freshStore = (what) => `${what}-${++counter}`;

function assertCode(e, code) {
  assert.ok(e instanceof EngramError, `an EngramError, got ${e?.constructor?.name}: ${e?.message}`);
  assert.equal(e.code, code, `code ${code}, got ${e.code}: ${e.message}`);
  assert.equal(e.name, code);
  return true;
}

/** Resolves once a session named `app` waits for a lock on the server. */
async function waitingForLock(app) {
  for (let i = 0; i < 250; i++) {
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [app]);
    if (rows[0].n > 0) return;
    await sleep(20);
  }
  throw new Error(`no session of ${app} ever waited for a lock`);
}

/** `promise`'s rejection (handled at once, so it never counts as unhandled), or null if it resolved. */
/** The advisory-lock key the adapter uses for `store` (as in postgres.js: 64 bits of SHA-256). */
const lockKeyOf = (store) => createHash("sha256").update(`engram_records\0${store}`).digest().readBigInt64BE(0).toString();
const rejectionOf = (promise) =>
  promise.then(
    () => null,
    (e) => e,
  );

/** Every `note <i> from <who>` in `acked` (who → count) is in the store, and no memory twice. */
async function assertAcknowledgedPresent(db, acked, { exact = true } = {}) {
  const contents = [...acked].flatMap(([who, n]) => Array.from({ length: n }, (_, i) => `note ${i} from ${who}`));
  return assertPresent(db, contents, { exact });
}

/** Every memory of the store, a page of 1,000 at a time (getAll's largest). */
async function allMemories(db) {
  const all = [];
  for (;;) {
    const page = await db.getAll({ limit: 1000, offset: all.length });
    all.push(...page);
    if (page.length < 1000) return all;
  }
}

/** Every content in `contents` is in the store, no memory twice; `exact`: nothing else. Resolves to the count. */
async function assertPresent(db, contents, { exact = true } = {}) {
  const all = await allMemories(db);
  const stored = new Set(all.map((m) => m.content));
  assert.equal(all.length, stored.size, "no memory twice");
  const missing = contents.filter((c) => !stored.has(c));
  assert.deepEqual(missing, [], `${missing.length} acknowledged adds lost`);
  if (exact) assert.equal(all.length, contents.length);
  return all.length;
}

/**
 * A child process adding `note <i> from <who>` for i < n to `store`, each awaited, printing "ack i"
 * once add resolved. `acks` counts what it printed: those adds were acknowledged.
 */
function writer(store, who, n) {
  const source = `
    const { Engram } = await import("engram-wasm");
    const { postgres } = await import("engram-wasm/postgres");
    const db = await Engram.open({ embedder: null, storage: postgres({ connectionString: process.env.PG, store: process.env.STORE }) });
    for (let i = 0; i < Number(process.env.N); i++) {
      await db.add({ content: "note " + i + " from " + process.env.WHO });
      process.stdout.write("ack " + i + "\\n");
    }
    await db.close();`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
    cwd: repo,
    env: { ...process.env, PG: connectionString, STORE: store, WHO: who, N: String(n) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const state = { child, acks: 0, stderr: "", onAck: null };
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop();
    for (const line of lines) {
      // Acks come in order: "ack i" means adds 0..i were acknowledged.
      assert.equal(line, `ack ${state.acks}`);
      state.acks++;
      state.onAck?.(state.acks);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (state.stderr += chunk));
  state.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return state;
}

describe("PostgresStorage on a real PostgreSQL server", { skip }, () => {
  testAdapter(() => postgres({ connectionString, store: freshStore("own") }), test, "its own pool: ");
  const hostPool = server ? new pg.Pool({ connectionString, max: 8 }) : null;
  hostPool?.on("error", () => {});
  after(() => hostPool?.end());
  testAdapter(() => postgres({ pool: hostPool, store: freshStore("host") }), test, "a host's pool: ");

  test("key bytes sort as the contract's key order, a prefix of segments is a byte prefix, every key round-trips", () => {
    // Code units at the edges of the escape ("\0", "\u0001"), of bytes, and surrogates alone.
    const alphabet = ["\0", "\u0001", "\u00ff", "\u0100", "a", "b", "\ud800", "\udc00", "\uffff", "é", "🎉"];
    let seed = 7;
    const random = (n) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const randomKey = () => Array.from({ length: 1 + random(3) }, () => Array.from({ length: 1 + random(3) }, () => alphabet[random(alphabet.length)]).join(""));
    const keys = [...TRICKY_KEYS.map((k) => [...k]), ...Array.from({ length: 600 }, randomKey)];
    for (const k of keys) assert.deepEqual(decodeKey(encodeKey(k)), k);
    for (let i = 0; i < keys.length; i++) {
      for (let j = 0; j < keys.length; j += 7) {
        const [a, b] = [keys[i], keys[j]];
        const [ea, eb] = [encodeKey(a), encodeKey(b)];
        assert.equal(Math.sign(Buffer.compare(ea, eb)), Math.sign(compareKeys(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        const bytePrefix = ea.length >= eb.length && ea.subarray(0, eb.length).equals(eb);
        assert.equal(bytePrefix, hasPrefix(a, b), `${JSON.stringify(b)} prefix of ${JSON.stringify(a)}`);
      }
    }
    for (const bad of [bytes(0), bytes(0, 0x61, 0, 2), bytes(0, 0x61), bytes(0, 0, 0, 0), bytes()]) assert.throws(() => decodeKey(Buffer.from(bad)));
  });

  test("ranges and order through the server match MemoryStorage's for hostile keys", async () => {
    const s = postgres({ pool: hostPool, store: freshStore("order") });
    const model = new MemoryStorage();
    const alphabet = ["\0", "\u0001", "a", "\ud800", "\udc00", "\uffff", "%", "_"];
    let seed = 11;
    const random = (n) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const randomKey = () => Array.from({ length: 1 + random(3) }, () => Array.from({ length: 1 + random(2) }, () => alphabet[random(alphabet.length)]).join(""));
    // Distinct keys: two saves of one key at once may land in either order.
    // Neighbours a wrong bound or escape would let into or keep out of a range: a segment extended by
    // "\0" or "\u0001", a "\0" segment after it.
    const edges = [["a"], ["a\0"], ["a\0", "b"], ["a", "\0"], ["a\u0001"], ["a", "b"], ["a\0\0"], ["\0"], ["\0", "\0"], ["\0\0"], ["\0\u0001"], ["\uffff"], ["\uffff\0"]];
    const keys = [...new Map([...edges, ...Array.from({ length: 250 }, randomKey)].map((k) => [JSON.stringify(k), k])).values()];
    await Promise.all(keys.map((k, i) => Promise.all([s.save(k, bytes(i & 255)), model.save(k, bytes(i & 255))])));
    const plain = (records) => records.map((r) => [r.key, Array.from(r.data)]);
    assert.deepEqual(plain(await s.loadRange([])), plain(await model.loadRange([])));
    const prefixes = [...edges, ...Array.from({ length: 40 }, () => randomKey().slice(0, 1 + random(2)))];
    for (const prefix of prefixes) {
      assert.deepEqual(plain(await s.loadRange(prefix)), plain(await model.loadRange(prefix)), JSON.stringify(prefix));
    }
    for (const prefix of [["a"], ["\0"], ["\uffff", "a"]]) {
      await Promise.all([s.removeRange(prefix), model.removeRange(prefix)]);
      assert.deepEqual(plain(await s.loadRange([])), plain(await model.loadRange([])), `after removeRange ${JSON.stringify(prefix)}`);
    }
  });

  test("bad options and keys too long for the index are InvalidInput", async () => {
    const bad = [
      undefined,
      null,
      "postgres://x",
      {},
      { store: "s" },
      { connectionString, pool: hostPool, store: "s" },
      { connectionString: "", store: "s" },
      { pool: {}, store: "s" },
      { connectionString },
      { connectionString, store: "" },
      { connectionString, store: "a\0b" },
      { connectionString, store: "\ud800" },
      { connectionString, store: "x".repeat(257) },
      { connectionString, store: 5 },
      { connectionString, store: "s", lockTimeoutMs: 0 },
      { connectionString, store: "s", lockTimeoutMs: 1.5 },
      { connectionString, store: "s", table: "t" },
    ];
    for (const [i, options] of bad.entries()) {
      assert.throws(
        () => postgres(options),
        (e) => assertCode(e, "InvalidInput"),
        `bad options #${i}`,
      );
    }
    assert.equal(postgres({ connectionString, store: "x".repeat(256) }).store.length, 256);
    assert.equal(postgres({ connectionString, store: "🎉" }).store, "🎉");
    // A single pg Client has query() and connect() too, but hands out no pooled connection.
    const client = new pg.Client({ connectionString });
    try {
      const wrong = postgres({ pool: client, store: freshStore("client") });
      await assert.rejects(
        wrong.lock(async () => "never"),
        (e) => assertCode(e, "Storage") && /pg Pool/.test(e.message),
      );
    } finally {
      await client.end();
    }
    const s = new PostgresStorage({ pool: hostPool, store: freshStore("long") });
    await assert.rejects(s.save(["x".repeat(900)], bytes(1)), (e) => assertCode(e, "InvalidInput"));
    await assert.rejects(s.loadRange(["x".repeat(900)]), (e) => assertCode(e, "InvalidInput"));
    await s.save(["x".repeat(890)], bytes(1)); // the longest one-segment keys still fit
    assert.deepEqual(Array.from(await s.load(["x".repeat(890)])), [1]);
  });

  test("an Engram store round-trips through it and reopens; another store in the same table stays empty", async () => {
    const store = freshStore("engram");
    const db = await Engram.open({ embedder: null, storage: postgres({ connectionString, store }) });
    const added = [];
    for (const content of ["Ada prefers tea", "The deploy runs at 9", "Ada moved to Lyon"]) added.push(await db.add({ content }));
    await db.update(added[0].id, { content: "Ada prefers green tea" });
    await db.delete(added[1].id);
    await db.flush();
    await db.close();
    const reopened = await Engram.open({ embedder: null, storage: postgres({ connectionString, store }) });
    const contents = (await reopened.getAll()).map((m) => m.content).sort();
    assert.deepEqual(contents, ["Ada moved to Lyon", "Ada prefers green tea"]);
    assert.equal((await reopened.history(added[0].id)).length >= 2, true, "the update's history survives");
    await reopened.close();
    const other = await Engram.open({ embedder: null, storage: postgres({ pool: hostPool, store: `${store}-other` }) });
    assert.deepEqual(await other.getAll(), []);
    await other.close();
  });

  test("the README's Many machines example prints what it claims", async () => {
    const code = readmeSnippet("<!-- example: executed by tests/js/postgres.test.mjs -->");
    const expected = documentedOutput(code);
    assert.equal(expected.length, 2);
    // A throwaway project that depends on the package and on pg, as a host's would; its own database.
    const database = `readme_${++counter}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const env = { ...process.env, DATABASE_URL: connectionString.replace(/\/postgres$/, `/${database}`) };
    assert.deepEqual(await runInProject(code, { packages: ["pg"], env }), expected);
  });

  test("the README's fleet example prints what it claims", async () => {
    const code = readmeSnippet("<!-- example: executed by tests/js/postgres.test.mjs (fleet) -->");
    const expected = documentedOutput(code);
    assert.equal(expected.length, 2);
    const database = `readme_${++counter}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const env = { ...process.env, DATABASE_URL: connectionString.replace(/\/postgres$/, `/${database}`) };
    const files = { "agent-fleet.mjs": readFileSync(join(repo, "examples", "agent-fleet.mjs"), "utf8") };
    assert.deepEqual(await runInProject(code, { packages: ["pg"], env, files }), expected);
  });

  test("the fleet recipe (examples/agent-fleet.mjs): opened on demand, shared by two machines, closed when idle, nothing lost", async () => {
    const { storeFleet } = await import("../../examples/agent-fleet.mjs");
    const otherMachine = new pg.Pool({ connectionString, max: 4 });
    const opened = [];
    const counting = (pool) => (userId) => {
      opened.push(userId);
      return Engram.open({ embedder: null, storage: postgres({ pool, store: `user:${userId}` }) });
    };
    const a = storeFleet({ pool: hostPool, idleMs: 100, max: 2, open: counting(hostPool) });
    const b = storeFleet({ pool: otherMachine, open: counting(otherMachine) });
    const user = `fleet-${++counter}`;
    const opens = () => opened.filter((u) => u === user).length;

    // Requests for one user made together share one opening.
    await Promise.all([1, 2, 3].map((i) => a.withStore(user, (m) => m.add(`fleet note ${i}`))));
    assert.equal(opens(), 1);
    // Another machine's process reads them; another user's store holds none of them.
    assert.equal((await b.withStore(user, (m) => m.getAll())).length, 3);
    assert.deepEqual(await a.withStore(`${user}-other`, (m) => m.getAll()), []);
    // More than `max` open: the least recently used idle one is closed.
    await a.withStore(`${user}-third`, (m) => m.stats());
    assert.equal(a.size, 2);
    // Idle past idleMs: closed; the next request opens again and sees the other machine's write.
    await sleep(400);
    assert.equal(a.size, 0);
    await b.withStore(user, (m) => m.add("written on the other machine"));
    assert.ok((await a.withStore(user, (m) => m.getAll())).some((m) => m.content === "written on the other machine"));
    assert.equal(opens(), 3, "a twice, b once");
    // A failing call rejects with Engram's error; the store stays usable.
    await assert.rejects(
      a.withStore(user, (m) => m.add("")),
      (e) => e.code === "InvalidInput",
    );
    // closeAll lets a request in progress finish, then closes; later requests are refused.
    let finished = false;
    const slow = a.withStore(user, async (m) => {
      await sleep(50);
      await m.add("last words before shutdown");
      finished = true;
    });
    await a.closeAll();
    assert.equal(finished, true);
    await slow;
    await assert.rejects(
      a.withStore(user, (m) => m.stats()),
      /closeAll/,
    );
    await b.closeAll();
    await otherMachine.end();
    const direct = await Engram.open({ embedder: null, storage: postgres({ pool: hostPool, store: `user:${user}` }) });
    assert.deepEqual((await direct.getAll()).map((m) => m.content).sort(), [
      "fleet note 1",
      "fleet note 2",
      "fleet note 3",
      "last words before shutdown",
      "written on the other machine",
    ]);
    await direct.close();
  });

  test("through require (the CommonJS build): the same adapter, the same EngramError class", async () => {
    const required = createRequire(import.meta.url)("engram-wasm/postgres");
    assert.equal(typeof required.postgres, "function");
    const s = required.postgres({ connectionString, store: freshStore("cjs") });
    assert.equal(await s.create(["k"], bytes(1)), true);
    assert.deepEqual(Array.from(await s.load(["k"])), [1]);
    await assert.rejects(s.load([]), (e) => assertCode(e, "InvalidInput"));
    await s.close();
  });

  test("1,000 tenant stores in one table: each reads, ranges over and removes only its own keys", async () => {
    const names = Array.from({ length: 1000 }, (_, i) => `tenant-${i}`);
    // Names that a LIKE pattern, a prefix match or string splicing would confuse.
    names.push("tenant-1%", "tenant-_", "tenant-1 ", "Tenant-1", "tenant-1'; DROP TABLE engram_records; --");
    const stores = names.map((store) => postgres({ pool: hostPool, store }));
    const eachLimited = async (fn) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < stores.length) {
            const i = next++;
            await fn(stores[i], i);
          }
        }),
      );
    };
    const secret = (i) => new TextEncoder().encode(`secret of ${names[i]}`);
    await eachLimited(async (s, i) => {
      await s.save(["shared", "key"], secret(i));
      await s.save(["own", names[i]], bytes(i & 255));
    });
    await eachLimited(async (s, i) => {
      assert.deepEqual(await s.load(["shared", "key"]), secret(i));
      const all = await s.loadRange([]);
      assert.deepEqual(
        all.map((r) => r.key),
        [
          ["own", names[i]],
          ["shared", "key"],
        ],
        names[i],
      );
      const j = (i * 7 + 1) % names.length;
      if (j !== i) assert.equal(await s.load(["own", names[j]]), undefined, `${names[i]} reads ${names[j]}'s key`);
      assert.equal(await s.create(["shared", "key"], bytes(0)), false);
    });
    // Removing everything of one store leaves every other store whole.
    await stores[1].removeRange([]);
    await stores[2].remove(["shared", "key"]);
    const { rows } = await admin.query("SELECT store, count(*)::int AS n FROM engram_records WHERE store LIKE 'tenant-%' OR store LIKE 'Tenant-%' GROUP BY store");
    const counts = new Map(rows.map((r) => [r.store, r.n]));
    assert.equal(counts.get("tenant-1"), undefined);
    assert.equal(counts.get("tenant-2"), 1);
    for (const [i, name] of names.entries()) if (i !== 1 && i !== 2) assert.equal(counts.get(name), 2, name);
    assert.equal(counts.size, names.length - 1);
  });

  test("a lost connection rejects the call in flight with Storage; later calls reconnect", async () => {
    const app = `engram-lost-${++counter}`;
    const s = postgres({ connectionString: `${connectionString}?application_name=${app}`, store: freshStore("lost") });
    await s.save(["before"], bytes(1));
    // A call that is surely in flight: waiting for the store's lock, which another adapter holds.
    const holder = postgres({ connectionString, store: s.store });
    let release;
    const held = new Promise((r) => (release = r));
    let entered;
    const inside = new Promise((r) => (entered = r));
    const holding = holder.lock(async () => {
      entered();
      await held;
    });
    await inside;
    const waiting = rejectionOf(s.lock(async () => "never"));
    await waitingForLock(app);
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t", [app]);
    assert.ok(rows[0].n >= 1, "the adapter's connections were found");
    assertCode(await waiting, "Storage");
    release();
    await holding;
    // Its idle connections died too: the pool drops them (once their sockets report it) without
    // crashing the process.
    await sleep(100);
    assert.deepEqual(Array.from(await s.load(["before"])), [1]);
    await s.save(["after"], bytes(2));
    assert.equal(await s.lock(async () => "locked again"), "locked again");
    await Promise.all([s.close(), holder.close()]);
  });

  test("first use of a database from many pools at once: the table is made once, every call succeeds", async () => {
    const database = `race_${++counter}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const url = connectionString.replace(/\/postgres$/, `/${database}`);
    // Each adapter has its own pool, so each makes its own first look and CREATE TABLE, at once.
    const adapters = Array.from({ length: 8 }, (_, i) => postgres({ connectionString: url, store: `s${i}` }));
    await Promise.all(adapters.map((s, i) => s.create(["k"], bytes(i))));
    for (const [i, s] of adapters.entries()) assert.deepEqual(Array.from(await s.load(["k"])), [i]);
    await Promise.all(adapters.map((s) => s.close()));
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const { rows } = await other.query("SELECT count(*)::int AS n FROM pg_class WHERE relname = 'engram_records'");
      assert.equal(rows[0].n, 1);
    } finally {
      await other.end();
    }
  });

  test("close ends the adapter's own connections, a later call opens new ones; a host's pool stays open", async () => {
    const app = `engram-close-${++counter}`;
    const sessions = async () => (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [app])).rows[0].n;
    const s = postgres({ connectionString: `${connectionString}?application_name=${app}`, store: freshStore("close") });
    await Promise.all([s.save(["a"], bytes(1)), s.save(["b"], bytes(2)), s.lock(async () => s.load(["a"]))]);
    assert.ok((await sessions()) >= 1);
    await s.close();
    for (let i = 0; i < 50 && (await sessions()) > 0; i++) await sleep(20);
    assert.equal(await sessions(), 0, "every connection of the adapter's pool ended");
    assert.deepEqual(Array.from(await s.load(["b"])), [2]);
    assert.ok((await sessions()) >= 1, "a new pool");
    await s.close();
    const onHost = postgres({ pool: hostPool, store: s.store });
    await onHost.close();
    assert.deepEqual(Array.from(await onHost.load(["a"])), [1]);
    assert.equal((await hostPool.query("SELECT 1 AS one")).rows[0].one, 1, "the host's pool is still open");
  });

  test("lock: held by another connection longer than lockTimeoutMs rejects with Storage; once released it is free again", async () => {
    const store = freshStore("lock");
    const a = postgres({ connectionString, store });
    const b = postgres({ connectionString, store, lockTimeoutMs: 300 });
    let release;
    let entered;
    const inside = new Promise((r) => (entered = r));
    const holding = a.lock(async () => {
      entered();
      await new Promise((r) => (release = r));
    });
    await inside;
    const started = Date.now();
    await assert.rejects(
      b.lock(async () => "never"),
      (e) => assertCode(e, "Storage") && /stayed locked/.test(e.message),
    );
    assert.ok(Date.now() - started < 5000);
    release();
    await holding;
    assert.equal(await b.lock(async () => "free"), "free");
    await Promise.all([a.close(), b.close()]);
  });

  test("lock holds: the lock is kept lockHoldMs for the adapter's next call, which follows the last; another connection gets it once the hold lapses", async () => {
    const store = freshStore("hold");
    const key = lockKeyOf(store);
    const granted = async () =>
      (
        await admin.query(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND ((classid::bigint << 32) | objid::bigint) = $1::bigint",
          [key],
        )
      ).rows[0].n;
    const a = postgres({ connectionString, store, lockHoldMs: 400 });
    const first = await a.lock(async (hold) => hold);
    assert.equal(first.follows, null, "taken anew");
    assert.equal(first.fenced, true);
    assert.equal(typeof first.token, "object");
    assert.ok(Object.isFrozen(first));
    assert.equal(await granted(), 1, "kept after the call");
    const second = await a.lock(async (hold) => hold);
    assert.equal(second.follows, first.token, "held from the first call to the second");
    assert.notEqual(second.token, first.token);
    // Another connection waits for the hold to lapse, then has the lock; a's next call takes it anew.
    const b = postgres({ connectionString, store, lockHoldMs: 0 });
    const other = await b.lock(async (hold) => hold);
    assert.equal(other.follows, null);
    assert.equal(await granted(), 0, "lockHoldMs 0: released with the call");
    assert.equal((await a.lock(async (hold) => hold)).follows, null, "the lock was someone else's in between");
    // A failed call releases the hold.
    await assert.rejects(
      a.lock(async () => {
        throw new Error("boom");
      }),
      /boom/,
    );
    assert.equal(await granted(), 0);
    assert.equal((await a.lock(async (hold) => hold)).follows, null);
    await Promise.all([a.close(), b.close()]);
    assert.equal(await granted(), 0, "close releases a hold");
    await assert.rejects(
      async () => postgres({ connectionString, store, lockHoldMs: -1 }),
      (e) => assertCode(e, "InvalidInput"),
    );
  });

  test("lock holds: kept while nobody else waits, given up to a session that waits even while its holder keeps writing", { timeout: 30_000 }, async () => {
    const store = freshStore("hold-fair");
    const a = postgres({ connectionString, store, lockHoldMs: 5000 });
    // Alone: one hold for a run of writes well past the 250 ms between checks for waiters.
    let taken = 0;
    const started = performance.now();
    for (let i = 0; performance.now() - started < 700; i++) {
      const hold = await a.lock(async (h) => {
        assert.equal(await a.create(["alone", String(i)], bytes(1)), true);
        return h;
      });
      if (hold.follows === null) taken++;
    }
    assert.equal(taken, 1, "the lock was taken once");
    // Another session asks for the lock while a keeps writing: it gets it within its timeout, and a
    // takes the lock anew afterwards.
    const b = postgres({ connectionString, store, lockHoldMs: 0, lockTimeoutMs: 5000 });
    let bDone = false;
    const waiter = b.lock(async () => b.create(["b"], bytes(2))).finally(() => (bDone = true));
    let afterB = null;
    for (let i = 0; afterB === null; i++) {
      const hold = await a.lock(async (h) => {
        await a.create(["busy", String(i)], bytes(1));
        return h;
      });
      if (bDone) afterB = hold;
    }
    assert.equal(await waiter, true);
    assert.equal(afterB.follows, null);
    await Promise.all([a.close(), b.close()]);
  });

  test("lock holds are fenced: once the hold's session is gone, create fails rather than write on another connection", async () => {
    const store = freshStore("fence");
    const app = `engram-fence-${++counter}`;
    const a = postgres({ connectionString: `${connectionString}?application_name=${app}`, store, lockHoldMs: 10_000 });
    assert.equal(await a.lock(async (hold) => a.create(["one"], bytes(1)).then(() => hold.fenced)), true);
    // The server ends the session holding the lock (an administrator, an idle timeout): the lock goes with it.
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity s USING (pid) WHERE l.locktype = 'advisory' AND s.application_name = $1) t",
      [app],
    );
    assert.equal(rows[0].n, 1, "the hold's session was found");
    // Another writer takes the lock and writes meanwhile.
    const b = postgres({ connectionString, store, lockHoldMs: 0 });
    await b.lock(async () => b.create(["two"], bytes(2)));
    assertCode(await rejectionOf(a.create(["three"], bytes(3))), "Storage");
    assert.equal(await a.load(["three"]), undefined, "nothing written outside the lock");
    // The next call takes the lock anew (and says so); creates go on.
    const hold = await a.lock(async (h) => {
      assert.equal(await a.create(["three"], bytes(3)), true);
      return h;
    });
    assert.equal(hold.follows, null);
    assert.deepEqual(Array.from(await b.load(["three"])), [3]);
    await Promise.all([a.close(), b.close()]);
  });

  test("an Engram writing within a hold commits in one statement, and still sees another machine's writes after it", async () => {
    let statements = 0;
    class Counting extends pg.Client {
      query(...args) {
        statements++;
        return super.query(...args);
      }
    }
    const store = freshStore("burst");
    const pools = [0, 1].map(() => new pg.Pool({ connectionString, Client: Counting }));
    const [a, b] = await Promise.all(pools.map((pool) => Engram.open({ embedder: null, storage: postgres({ pool, store, lockHoldMs: 2000 }) })));
    await a.add({ content: "the first note from a" });
    const before = statements;
    await a.add({ content: "the second note from a" });
    assert.equal(statements - before, 1, "one INSERT: no lock, no catching up, no check after the create");
    // b waits for a's hold to lapse, catches up, writes; a's next write takes the lock anew and catches up.
    await b.add({ content: "a note from b" });
    await a.add({ content: "the third note from a" });
    for (const db of [a, b]) assert.equal((await db.stats()).memories, 4);
    await Promise.all([a.close(), b.close()]);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  test("4 processes × 500 adds on one store: every acknowledged add is there", { timeout: 150_000 }, async () => {
    const store = freshStore("four");
    const started = Date.now();
    const writers = ["p0", "p1", "p2", "p3"].map((who) => [who, writer(store, who, 500)]);
    for (const [who, w] of writers) {
      const { code, signal } = await w.exited;
      assert.equal(code, 0, `${who} exited with ${code ?? signal}: ${w.stderr}`);
    }
    console.log(`# 4 × 500 adds in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const db = await Engram.open({ embedder: null, storage: postgres({ connectionString, store }) });
    await assertAcknowledgedPresent(db, new Map(writers.map(([who, w]) => [who, w.acks])));
    assert.equal((await allMemories(db)).length, 2000);
    await db.close();
  });

  test("writers killed with SIGKILL mid-write: the store opens, every acknowledged add is there, and writes go on", { timeout: 60_000 }, async () => {
    const store = freshStore("killed");
    const writers = ["k0", "k1", "k2"].map((who, n) => {
      const w = writer(store, who, 100_000);
      // Killed at once after its (40 + 25n)th acknowledgement: the next add is under way then.
      w.onAck = (acks) => {
        if (acks === 40 + 25 * n) w.child.kill("SIGKILL");
      };
      return [who, w];
    });
    for (const [who, w] of writers) {
      const { signal } = await w.exited;
      assert.equal(signal, "SIGKILL", `${who}: ${w.stderr}`);
    }
    const acked = new Map(writers.map(([who, w]) => [who, w.acks]));
    // The killed writers' locks went with their connections: this one takes it within its timeout.
    const db = await Engram.open({ embedder: null, storage: postgres({ connectionString, store, lockTimeoutMs: 5000 }) });
    // A kill can land after the commit and before the ack was printed: at most one extra per writer.
    const count = await assertAcknowledgedPresent(db, acked, { exact: false });
    assert.ok(count <= [...acked.values()].reduce((a, b) => a + b, 0) + writers.length);
    await db.add({ content: "after the kills" });
    await db.close();
  });

  // Last: it breaks every connection to the server, the shared pools' included.
  test("the server restarted mid-run: calls in flight reject with Storage, later ones succeed, nothing acknowledged is lost", { timeout: 90_000 }, async () => {
    const store = freshStore("restart");
    const app = `engram-restart-${++counter}`;
    const s = postgres({ connectionString: `${connectionString}?application_name=${app}`, store: `${store}-direct` });
    await s.save(["before"], bytes(1));
    const holder = postgres({ connectionString, store: s.store });
    let entered;
    let release;
    const inside = new Promise((r) => (entered = r));
    const holding = rejectionOf(
      holder.lock(async () => {
        entered();
        await new Promise((r) => (release = r)); // released after the restart ended its session
      }),
    );
    await inside;
    const waiting = rejectionOf(s.lock(async () => "never")); // in flight across the restart
    await waitingForLock(app);
    // Writers adding through Engram while the server goes away and comes back. Every attempt adds
    // new content, so an add that landed but was rejected (its reply lost) is no duplicate.
    const dbs = await Promise.all([0, 1, 2].map(() => Engram.open({ embedder: null, storage: postgres({ connectionString, store }) })));
    const acknowledged = [];
    const failures = [];
    let restarted = false;
    const loops = dbs.map(async (db, n) => {
      let successesAfter = 0;
      // Runs until 20 adds of this writer succeeded after the server was back.
      for (let i = 0; successesAfter < 20; i++) {
        const content = `note ${i} from w${n}`;
        try {
          await db.add({ content });
          acknowledged.push(content);
          if (restarted) successesAfter++;
        } catch (e) {
          failures.push(e);
          await sleep(20);
        }
      }
    });
    await sleep(300);
    await server.restart();
    restarted = true;
    assertCode(await waiting, "Storage");
    release();
    assertCode(await holding, "Storage");
    await Promise.all(loops);
    for (const e of failures) assertCode(e, "Storage");
    console.log(`# restart: ${failures.length} adds rejected with Storage, ${acknowledged.length} acknowledged`);
    assert.deepEqual(Array.from(await s.load(["before"])), [1]);
    await s.save(["after"], bytes(2));
    assert.equal(await s.lock(async () => "locked"), "locked");
    await Promise.all([...dbs.map((db) => db.close()), s.close(), holder.close()]);
    const reader = await Engram.open({ embedder: null, storage: postgres({ connectionString, store }) });
    await assertPresent(reader, acknowledged, { exact: false });
    await reader.close();
  });
});
