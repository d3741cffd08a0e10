// Types of engram-wasm/postgres: the PostgreSQL storage adapter (Node-only entry; the host installs `pg`).
import type { LockHold, StorageAdapter, StorageKey, StorageRecord } from "./index.js";

export type { LockHold, StorageAdapter, StorageKey, StorageRecord } from "./index.js";

/**
 * What the adapter uses of a node-postgres `Pool` (`new pg.Pool(…)`): `query` for single
 * statements, `connect` for the connection that holds the lock. Typed loosely so `pg`'s own types
 * (which the host may not have) are not needed here.
 */
export interface PostgresPool {
  query(text: string, values?: unknown[]): Promise<unknown>;
  connect(): Promise<PostgresPoolClient>;
}

/** A connection checked out of a `PostgresPool` (a node-postgres `PoolClient`). */
export interface PostgresPoolClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
  /** Back to the pool; with an error or `true`, the connection is closed instead. */
  release(destroy?: Error | boolean): void;
}

interface PostgresStorageOptionsBase {
  /**
   * The store's name (1 to 256 characters, no "\0", no lone surrogates): many stores share one table,
   * each sees only the rows of its own name.
   */
  store: string;
  /** How long `lock` waits for another holder before rejecting with `Storage`; default 10000. */
  lockTimeoutMs?: number;
  /**
   * How long the lock is kept after a call for this adapter's next one (0 to 10000 ms; default 20):
   * a writer whose next write comes within it commits in one round trip instead of three (lock,
   * catch-up reads, insert). Writers on other connections wait up to this long more. Every 250 ms a held write also asks the server
   * whether another session waits for the lock, and if one does the hold ends after that call.
   */
  lockHoldMs?: number;
}

export type PostgresStorageOptions =
  /** The adapter makes its own pool (needs `pg` installed) and ends it on `close()`. */
  | (PostgresStorageOptionsBase & { connectionString: string; pool?: never })
  /** The host's pool, shared by any number of stores; `close()` leaves it open. */
  | (PostgresStorageOptionsBase & { pool: PostgresPool; connectionString?: never });

/**
 * Records of the store `store` in the table `engram_records` (created if missing) of a PostgreSQL
 * database: keys as order-preserving bytea on the primary key's index, records as bytea. Every
 * acknowledged write is committed; `flush()` makes them durable also where the server's
 * `synchronous_commit` is off. `create` is an atomic INSERT … ON CONFLICT DO NOTHING. `lock` is the
 * store's advisory lock on a connection of its own, released by the server if that connection
 * dies; it is kept `lockHoldMs` after a call, and while it is held `create` runs on that
 * connection, so it writes only while the lock is held. A lost connection rejects the call in flight with `Storage`; later calls reconnect. Keys
 * longer than 1792 bytes encoded (about 890 characters) reject with `InvalidInput`.
 */
export class PostgresStorage implements StorageAdapter {
  constructor(options: PostgresStorageOptions);
  /** The store's name. */
  readonly store: string;
  load(key: StorageKey): Promise<Uint8Array | undefined>;
  save(key: StorageKey, data: Uint8Array): Promise<void>;
  /** Inserts only if the key is free: `true` when it wrote, `false` when the key was taken. */
  create(key: StorageKey, data: Uint8Array): Promise<boolean>;
  remove(key: StorageKey): Promise<void>;
  loadRange(prefix: StorageKey): Promise<StorageRecord[]>;
  removeRange(prefix: StorageKey): Promise<void>;
  /** Ends the pool the adapter made itself (a host's pool stays open); the adapter stays usable. */
  close(): Promise<void>;
  /** Resolves once every write acknowledged before the call is flushed to the server's WAL on disk. */
  flush(): Promise<void>;
  lock<T>(fn: (hold: LockHold) => Promise<T>): Promise<T>;
}

/** `new PostgresStorage(options)`: `postgres({ connectionString, store })` or `postgres({ pool, store })`. */
export function postgres(options: PostgresStorageOptions): PostgresStorage;
