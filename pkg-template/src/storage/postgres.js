// PostgreSQL storage: a StorageAdapter (see adapter.js) over one table of a PostgreSQL database, for
// Node. Its own package entry, `engram-wasm/postgres`; `pg` (node-postgres) is the host's, an
// optional peer dependency, imported only when a call first needs a connection of our own.
//
// Many stores share one table, `engram_records(store text, key bytea, data bytea, primary key
// (store, key))`: every statement names its store, so one store can never read or write another's
// keys. The table is created on first use if missing.
//
// Keys are stored as bytea whose byte order is the contract's key order and where a prefix of
// segments is a byte prefix (see encodeKey), so a range is `key >= prefix AND key < upper` on the
// primary key's index, and ORDER BY key is key order whatever the database's collation.
//
// Writes are single statements in autocommit: acknowledged means committed, as durable as the
// server's `synchronous_commit` makes commits; `flush()` commits with `synchronous_commit = on`,
// which flushes the WAL up to and past every earlier commit. `create` is INSERT … ON CONFLICT DO
// NOTHING and its row count says whether it wrote. `lock` is a session-level advisory lock held on
// a connection of its own: if that connection dies, the server drops the lock with it.
//
// Holds: taking and releasing the lock are a round trip each, and a writer that finds the lock
// taken anew must re-read the store (another). So the lock is kept `lockHoldMs` after a call for the
// writer's next one, which is told (LockHold in index.d.ts) that nobody wrote in between. While held,
// `create` runs on the lock's own connection: it can only write while that session, and with it
// the lock, is alive (the hold is fenced), so the core can also leave out its check after a create.
// Every CHECK_WAITERS_MS a held `create` also asks the server whether another session waits for the
// lock (pg_locks, in the same statement); if one does, the hold is released after its call and the
// waiter, queued first by the server, gets its turn. A hold whose calls made no such check for twice
// that long (calls without a create) is released too.
//
// Every failure of the database or the connection rejects with `Storage` (the call in flight when a
// connection is lost included); the pool replaces dead connections, so later calls reconnect.

import { createHash } from "node:crypto";
import { invalid } from "../errors.js";
import { checkKey, checkLockFn, copyData, describeKey, runExclusive, storageError } from "./adapter.js";

const TABLE = "engram_records";
/** Longest store name, in UTF-16 code units (at most 768 bytes of UTF-8 in the index entry). */
export const MAX_STORE_LENGTH = 256;
/**
 * Longest encoded key: with the store name it stays under the ~2,700 bytes a B-tree index entry
 * may take on 8 KiB pages, so a long key is InvalidInput here rather than a server error later.
 */
export const MAX_KEY_BYTES = 1792;
const OPTIONS = new Set(["connectionString", "pool", "store", "lockTimeoutMs", "lockHoldMs"]);
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/** How long the lock is kept after a call for the next one, by default: a few round trips saved per write burst. */
const DEFAULT_LOCK_HOLD_MS = 20;
const MAX_LOCK_HOLD_MS = 10_000;
/** How often a hold looks for other sessions waiting for its lock (fairness to other connections). */
const CHECK_WAITERS_MS = 250;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// --- Key encoding ------------------------------------------------------------------------------

/**
 * A key (or a prefix of one) as bytes: each segment's UTF-16 code units as big-endian 2-byte units,
 * the unit 0x0000 written as 0x0000 0x0001, and 0x0000 0x0000 closing the segment. Byte order then
 * equals the contract's order (segment by segment, by code units, shorter first: a segment's end
 * sorts below any unit that could follow it), a prefix of segments is a byte prefix, and every
 * string round-trips, "\0" and lone surrogates included.
 */
export function encodeKey(segments) {
  let units = 0;
  for (const s of segments) {
    units += s.length + 2;
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 0) units++;
  }
  const out = Buffer.alloc(units * 2); // zero-filled: terminators and escapes need only their low bytes
  let at = 0;
  for (const s of segments) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0) {
        out[at + 3] = 1;
        at += 4;
      } else {
        out[at] = c >> 8;
        out[at + 1] = c & 0xff;
        at += 2;
      }
    }
    at += 4;
  }
  return out;
}

/** The key `encodeKey` made these bytes from; throws on bytes it cannot have made. */
export function decodeKey(bytes) {
  if (bytes.length % 2 !== 0) throw new Error("a stored key has an odd number of bytes");
  const key = [];
  let units = [];
  for (let at = 0; at < bytes.length; at += 2) {
    const c = (bytes[at] << 8) | bytes[at + 1];
    if (c !== 0) {
      units.push(c);
      continue;
    }
    at += 2;
    const next = at < bytes.length ? (bytes[at] << 8) | bytes[at + 1] : -1;
    if (next === 1) units.push(0);
    else if (next === 0 && units.length > 0) {
      let segment = "";
      for (let i = 0; i < units.length; i += 4096) segment += String.fromCharCode(...units.slice(i, i + 4096));
      key.push(segment);
      units = [];
    } else throw new Error("a stored key is not a valid key encoding");
  }
  if (units.length > 0 || key.length === 0) throw new Error("a stored key is not a valid key encoding");
  return key;
}

/**
 * The least byte string above every key that starts with `prefix` (non-empty): its encoding ends
 * in the terminator 0x0000 0x0000, and every key under it continues from there, so raising the last
 * byte to 0x01 bounds them all and nothing else.
 */
function upperBound(encodedPrefix) {
  const upper = Buffer.from(encodedPrefix);
  upper[upper.length - 1] = 1;
  return upper;
}

// --- Shared state -------------------------------------------------------------------------------

// Shared by every copy of this module in this realm (the ESM and CJS builds can both be loaded).
const STATE_KEY = Symbol.for("engram.PostgresStorage.state");
const shared = (globalThis[STATE_KEY] ??= {
  /** pool → the promise that the table exists in its database (dropped on failure, so it is retried). */
  tables: new WeakMap(),
  /** pool (or adapter, for an adapter's own pool) → Map of store → in-process mutex for `lock`. */
  mutexes: new WeakMap(),
});

/** The table's DDL, made safe to run from many processes at once (see ensureTable). */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE} (store text NOT NULL, key bytea NOT NULL, data bytea NOT NULL, PRIMARY KEY (store, key))`;
/**
 * After a held create's INSERT (a CTE named `inserted`): whether it inserted, and whether another
 * session waits for the store's advisory lock, whose bigint key the server keeps as two oids
 * ($4: high half, $5: low half; objsubid 1 marks a bigint key).
 */
const WAITERS = `SELECT (SELECT count(*)::int FROM inserted) AS inserted, EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1 AND classid = $4::oid AND objid = $5::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS waited`;

/** The advisory-lock key that serializes creating the table (any constant unlikely to be used by the host). */
const DDL_LOCK = "7306373373101158257";

/**
 * Makes sure the table exists. A look first, so a role without CREATE on the schema can use a table
 * made by someone else; then CREATE TABLE IF NOT EXISTS under a transaction-scoped advisory lock,
 * because two sessions creating it at once can otherwise fail with a unique violation on the
 * catalog (the lock makes the second one see the first's table). A unique violation or "already
 * exists" is still taken as success, for servers where the lock is not shared (a pooler).
 */
function ensureTable(pool) {
  let ready = shared.tables.get(pool);
  if (!ready) {
    ready = (async () => {
      const found = await pool.query("SELECT to_regclass($1) IS NOT NULL AS present", [TABLE]);
      if (found.rows[0]?.present) return;
      const client = await pool.connect();
      let failed;
      try {
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock($1)", [DDL_LOCK]);
        await client.query(CREATE_TABLE);
        await client.query("COMMIT");
      } catch (e) {
        failed = e;
      } finally {
        // A session whose transaction failed is not handed out again: destroyed, its transaction with it.
        client.release(failed ?? undefined);
      }
      if (failed && failed.code !== "23505" && failed.code !== "42P07") throw failed;
    })();
    shared.tables.set(pool, ready);
    ready.catch(() => {
      if (shared.tables.get(pool) === ready) shared.tables.delete(pool);
    });
  }
  return ready;
}

/**
 * The advisory-lock key of a store: 64 bits of SHA-256 of the table and store names. Two stores
 * whose keys collide (about 1 in 2^64 per pair) only serialize each other's writers more than needed.
 */
function lockKey(store) {
  const digest = createHash("sha256").update(`${TABLE}\0${store}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/** node-postgres, imported on first use so that hosts passing their own pool never need it resolved here. */
let pgModule;
async function loadPg() {
  if (!pgModule) {
    pgModule = import("pg").then(
      (m) => m.default ?? m,
      (e) => {
        pgModule = undefined;
        throw new Error(`engram-wasm/postgres needs the \`pg\` package (npm install pg): ${e?.message ?? e}`, { cause: e });
      },
    );
  }
  return pgModule;
}

// --- The adapter ---------------------------------------------------------------------------------

function checkOptions(options) {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw invalid("postgres: expected options {connectionString | pool, store}");
  }
  for (const name of Object.keys(options)) {
    if (!OPTIONS.has(name)) throw invalid(`postgres: unknown option \`${name}\` (expected ${[...OPTIONS].join(", ")})`);
  }
  const { connectionString, pool, store, lockTimeoutMs = DEFAULT_LOCK_TIMEOUT_MS, lockHoldMs = DEFAULT_LOCK_HOLD_MS } = options;
  if ((connectionString === undefined) === (pool === undefined)) throw invalid("postgres: give exactly one of `connectionString` and `pool`");
  if (connectionString !== undefined && (typeof connectionString !== "string" || connectionString === "")) {
    throw invalid("postgres: `connectionString` must be a non-empty string");
  }
  if (pool !== undefined && (pool === null || typeof pool !== "object" || typeof pool.query !== "function" || typeof pool.connect !== "function")) {
    throw invalid("postgres: `pool` must be a pg Pool (an object with query() and connect())");
  }
  // Text columns cannot hold "\0", and a lone surrogate would be sent as U+FFFD, making two names one.
  if (typeof store !== "string" || store === "" || store.length > MAX_STORE_LENGTH || store.includes("\0") || LONE_SURROGATE.test(store)) {
    throw invalid(`postgres: \`store\` must be a non-empty string of at most ${MAX_STORE_LENGTH} characters, without "\\0" or lone surrogates`);
  }
  if (!Number.isInteger(lockTimeoutMs) || lockTimeoutMs < 1 || lockTimeoutMs > 2 ** 31 - 1) {
    throw invalid("postgres: `lockTimeoutMs` must be a positive integer (milliseconds)");
  }
  if (!Number.isInteger(lockHoldMs) || lockHoldMs < 0 || lockHoldMs > MAX_LOCK_HOLD_MS) {
    throw invalid(`postgres: \`lockHoldMs\` must be an integer from 0 to ${MAX_LOCK_HOLD_MS} (milliseconds)`);
  }
  return { connectionString, pool, store, lockTimeoutMs, lockHoldMs };
}

export class PostgresStorage {
  #connectionString;
  /** The host's pool (never ended here), or null when this adapter makes its own. */
  #hostPool;
  /** The pool this adapter made, until `close()`; a later call makes a new one. */
  #ownPool = null;
  #store;
  #lockKey;
  /** The lock key's high and low 32 bits, unsigned, as pg_locks shows them (classid, objid). */
  #lockParts;
  #lockTimeoutMs;
  #lockHoldMs;
  /**
   * The lock this adapter holds, between and during calls: `{client, watch, checked, waited, last,
   * lost, timer, active, releaseAfter}` (see #acquire); null when not held.
   */
  #hold = null;
  /** A hold's release under way (never rejects): the lock is taken again only after it. */
  #releasing = null;

  constructor(options) {
    const { connectionString, pool, store, lockTimeoutMs, lockHoldMs } = checkOptions(options);
    this.#connectionString = connectionString;
    this.#hostPool = pool ?? null;
    this.#store = store;
    this.#lockKey = lockKey(store);
    const unsigned = BigInt.asUintN(64, BigInt(this.#lockKey));
    this.#lockParts = [String(unsigned >> 32n), String(unsigned & 0xffffffffn)];
    this.#lockTimeoutMs = lockTimeoutMs;
    this.#lockHoldMs = lockHoldMs;
  }

  /** The store's name: the value of the `store` column of its rows. */
  get store() {
    return this.#store;
  }

  async load(key) {
    key = checkKey(key, "load");
    const encoded = this.#encode(key, "load");
    const result = await this.#query("load", key, `SELECT data FROM ${TABLE} WHERE store = $1 AND key = $2`, [this.#store, encoded]);
    return result.rows.length > 0 ? plainBytes(result.rows[0].data) : undefined;
  }

  async save(key, data) {
    key = checkKey(key, "save");
    const bytes = copyData(data, "save", key); // now, before any await: the caller may reuse `data`
    const encoded = this.#encode(key, "save");
    await this.#query("save", key, `INSERT INTO ${TABLE} (store, key, data) VALUES ($1, $2, $3) ON CONFLICT (store, key) DO UPDATE SET data = EXCLUDED.data`, [
      this.#store,
      encoded,
      asBuffer(bytes),
    ]);
  }

  /**
   * One atomic INSERT: of any number of writers, on any connections, exactly one inserts. While
   * this adapter holds the lock, on the lock's connection (fenced: see the top of this file).
   */
  async create(key, data) {
    key = checkKey(key, "create");
    const bytes = copyData(data, "create", key);
    const encoded = this.#encode(key, "create");
    const insert = `INSERT INTO ${TABLE} (store, key, data) VALUES ($1, $2, $3) ON CONFLICT (store, key) DO NOTHING`;
    const values = [this.#store, encoded, asBuffer(bytes)];
    const hold = this.#hold;
    if (!hold) return (await this.#query("create", key, insert, values)).rowCount === 1;
    if (performance.now() - hold.checked < CHECK_WAITERS_MS) return (await this.#queryHeld(hold, "create", key, insert, values)).rowCount === 1;
    // Time to look for sessions waiting for the lock, in the same round trip as the insert.
    const asked = performance.now();
    const result = await this.#queryHeld(hold, "create", key, `WITH inserted AS (${insert} RETURNING 1) ${WAITERS}`, [...values, ...this.#lockParts]);
    hold.checked = asked;
    hold.waited ||= result.rows[0].waited === true;
    return result.rows[0].inserted === 1;
  }

  async remove(key) {
    key = checkKey(key, "remove");
    const encoded = this.#encode(key, "remove");
    await this.#query("remove", key, `DELETE FROM ${TABLE} WHERE store = $1 AND key = $2`, [this.#store, encoded]);
  }

  async loadRange(prefix) {
    prefix = checkKey(prefix, "loadRange", { prefix: true });
    const [where, values] = this.#range(prefix, "loadRange");
    const result = await this.#query("loadRange", prefix, `SELECT key, data FROM ${TABLE} WHERE ${where} ORDER BY key`, values);
    try {
      return result.rows.map((row) => ({ key: decodeKey(row.key), data: plainBytes(row.data) }));
    } catch (e) {
      throw storageError("loadRange", prefix, e);
    }
  }

  async removeRange(prefix) {
    prefix = checkKey(prefix, "removeRange", { prefix: true });
    const [where, values] = this.#range(prefix, "removeRange");
    await this.#query("removeRange", prefix, `DELETE FROM ${TABLE} WHERE ${where}`, values);
  }

  /**
   * Ends the pool this adapter made (waiting for calls in flight); a host's pool is left alone.
   * The adapter stays usable: a later call makes a new pool.
   */
  async close() {
    const hold = this.#hold;
    if (hold?.active)
      hold.releaseAfter = true; // a call is running under it: released when it ends
    else if (hold) this.#endHold(hold);
    await this.#releasing;
    const pool = this.#ownPool;
    this.#ownPool = null;
    if (!pool) return;
    try {
      await pool.end();
    } catch (e) {
      throw storageError("close", undefined, e);
    }
  }

  /**
   * A commit with `synchronous_commit = on` (it takes a transaction id, so it writes a commit
   * record): the server flushes the WAL up to it, which covers every commit acknowledged before, also
   * on a server whose default is `synchronous_commit = off`.
   */
  async flush() {
    await this.#query("flush", undefined, "SELECT set_config('synchronous_commit', 'on', true), txid_current()", []);
  }

  /**
   * Runs `fn` holding the store's advisory lock (`pg_advisory_lock`) on a connection of its own:
   * exclusive across connections, processes and machines using this database. Calls in this process
   * on the same pool and store queue in a mutex first, so waiting writers hold one connection, not
   * one each. Waits up to `lockTimeoutMs`, then rejects with `Storage`. If the lock's connection dies,
   * the server releases the lock (no holder can leave it behind); `fn` is not stopped, and the
   * commit's `create` still keeps two writers' commits apart.
   *
   * The lock is kept `lockHoldMs` after `fn` for this adapter's next call, and `fn` gets a
   * `LockHold` (index.d.ts): `follows` is the previous call's token when the lock was held from
   * that call to this one. A failed `fn`, a lost connection, `lockHoldMs: 0` or a
   * hold with another session waiting for the lock (or not checked for 2 × CHECK_WAITERS_MS) release
   * it at once.
   */
  async lock(fn) {
    checkLockFn(fn);
    let pool;
    try {
      pool = await this.#pool();
    } catch (e) {
      throw storageError("lock", undefined, e);
    }
    const scope = this.#hostPool ?? this;
    let registry = shared.mutexes.get(scope);
    if (!registry) shared.mutexes.set(scope, (registry = new Map()));
    return runExclusive(registry, this.#store, async () => {
      let hold = this.#hold;
      if (hold) {
        clearTimeout(hold.timer);
        hold.timer = null;
        // The server ended the session, and the lock with it: someone else may have written.
        if (hold.lost) this.#endHold(hold);
      }
      if (!this.#hold) {
        await this.#releasing;
        this.#hold = await this.#acquire(pool);
      }
      hold = this.#hold;
      const token = {};
      const info = Object.freeze({ token, follows: hold.last, fenced: true });
      hold.last = null;
      hold.active = true;
      let result;
      try {
        result = await fn(info);
      } catch (e) {
        this.#endHold(hold);
        await this.#releasing; // fn's error is the one to report
        throw e;
      } finally {
        hold.active = false;
      }
      if (hold.lost || hold.releaseAfter || hold.waited || this.#lockHoldMs === 0 || performance.now() - hold.checked >= 2 * CHECK_WAITERS_MS) {
        if (this.#hold === hold) this.#hold = null;
        try {
          await this.#release(hold);
        } catch (e) {
          throw storageError(`lock: releasing the lock of store ${JSON.stringify(this.#store)}`, undefined, e);
        }
        return result;
      }
      hold.last = token;
      hold.timer = setTimeout(() => this.#endHold(hold), this.#lockHoldMs);
      return result;
    });
  }

  // --- internals -------------------------------------------------------------------------------

  /** The pool to use: the host's, or this adapter's own, made on first use (again after `close`). */
  async #pool() {
    if (this.#hostPool) return this.#hostPool;
    if (!this.#ownPool) {
      const pg = await loadPg();
      if (this.#ownPool) return this.#ownPool; // another call made it meanwhile
      const pool = new pg.Pool({ connectionString: this.#connectionString, connectionTimeoutMillis: 10_000, keepAlive: true });
      // An idle connection that dies (a server restart) is dropped by the pool and reported here;
      // without a listener that report would crash the process. The next call connects anew.
      pool.on("error", () => {});
      this.#ownPool = pool;
    }
    return this.#ownPool;
  }

  /** Runs one statement (autocommit) on the pool; every failure is `Storage` naming the call. */
  async #query(operation, key, text, values) {
    try {
      const pool = await this.#pool();
      await ensureTable(pool);
      return await pool.query(text, values);
    } catch (e) {
      throw storageError(operation, key, e);
    }
  }

  /** Runs one statement on the held lock's connection; if that connection was lost, `Storage` without trying. */
  async #queryHeld(hold, operation, key, text, values) {
    try {
      if (hold.lost) throw new Error(`the connection holding the store's lock was lost (${hold.lost.message})`);
      await ensureTable(await this.#pool());
      return await hold.client.query(text, values);
    } catch (e) {
      throw storageError(operation, key, e);
    }
  }

  /** Releases `hold` in the background (this.#releasing until done); a failure destroys its connection, ending the lock with it. */
  #endHold(hold) {
    clearTimeout(hold.timer);
    hold.timer = null;
    if (this.#hold === hold) this.#hold = null;
    const previous = this.#releasing;
    const releasing = Promise.resolve(previous)
      .then(() => this.#release(hold))
      .catch(() => {})
      .then(() => {
        if (this.#releasing === releasing) this.#releasing = null;
      });
    this.#releasing = releasing;
  }

  /**
   * A connection of its own holding the store's advisory lock, as a hold: `lost` is set if the
   * connection fails or ends while it is held (the server drops the lock with the session).
   */
  async #acquire(pool) {
    let client;
    try {
      client = await pool.connect();
    } catch (e) {
      throw storageError("lock", undefined, e);
    }
    if (typeof client?.query !== "function" || typeof client.release !== "function" || typeof client.on !== "function") {
      throw storageError("lock", undefined, new Error("`pool.connect()` handed out no pooled connection: is `pool` a pg Pool?"));
    }
    // While the lock is held the connection is checked out, where the pool no longer listens for its
    // errors: one that dies meanwhile must not crash the process (its lock dies with it).
    const hold = { client, watch: null, checked: 0, waited: false, last: null, lost: null, timer: null, active: false, releaseAfter: false };
    hold.watch = (e) => {
      hold.lost ??= e instanceof Error ? e : new Error("the connection ended");
    };
    client.on("error", hold.watch);
    client.on("end", hold.watch);
    try {
      // One statement, one round trip: the CTE (volatile, so evaluated first and once) sets
      // lock_timeout for this statement's transaction only, bounding the wait for the lock, which is
      // session-level and outlives the statement.
      await client.query("WITH timeout AS (SELECT set_config('lock_timeout', $2, true)) SELECT pg_advisory_lock($1) FROM timeout", [this.#lockKey, `${this.#lockTimeoutMs}ms`]);
    } catch (e) {
      unwatch(hold);
      client.release(true); // destroyed: a timed-out or broken session is not handed out again
      const timedOut = e?.code === "55P03";
      throw storageError(timedOut ? `lock: store ${JSON.stringify(this.#store)} stayed locked by another connection for ${this.#lockTimeoutMs} ms` : "lock", undefined, e);
    }
    hold.checked = performance.now();
    return hold;
  }

  async #release(hold) {
    const { client } = hold;
    try {
      if (hold.lost) throw hold.lost; // the session is gone, and its lock with it
      const result = await client.query("SELECT pg_advisory_unlock($1) AS released", [this.#lockKey]);
      if (result.rows[0]?.released !== true) throw new Error("the advisory lock was not held by its connection");
    } catch (e) {
      unwatch(hold);
      client.release(true); // ending the session releases whatever it still holds
      throw e;
    }
    unwatch(hold);
    client.release();
  }

  /** `key`'s bytes; InvalidInput if they are too long for the index. */
  #encode(key, what) {
    const encoded = encodeKey(key);
    if (encoded.length > MAX_KEY_BYTES) {
      throw invalid(`${what}: the key ${describeKey(key).slice(0, 80)}… is too long for PostgresStorage (${encoded.length} bytes encoded, at most ${MAX_KEY_BYTES})`);
    }
    return encoded;
  }

  /** The WHERE clause and its values selecting every key of this store under `prefix`. */
  #range(prefix, what) {
    if (prefix.length === 0) return ["store = $1", [this.#store]];
    const lower = this.#encode(prefix, what);
    return ["store = $1 AND key >= $2 AND key < $3", [this.#store, lower, upperBound(lower)]];
  }
}

function unwatch(hold) {
  hold.client.removeListener("error", hold.watch);
  hold.client.removeListener("end", hold.watch);
}

/** A bytea from node-postgres (a Buffer, possibly a view into a shared pool) as a plain, private Uint8Array. */
function plainBytes(buffer) {
  return new Uint8Array(buffer);
}

/** The bytes as a Buffer over the same memory (what node-postgres sends as bytea), no copy. */
function asBuffer(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A storage adapter keeping the store named `store` in PostgreSQL: `postgres({connectionString,
 * store})` (the adapter makes and ends its own pool) or `postgres({pool, store})` (the host's
 * pg Pool, shared by many stores).
 */
export function postgres(options) {
  return new PostgresStorage(options);
}
