// Types of engram-wasm/node-fs: the Node file-system storage adapter (Node-only entry).
import type { StorageAdapter, StorageDurability, StorageKey, StorageRecord } from "./index.js";

export type { StorageAdapter, StorageDurability, StorageKey, StorageRecord } from "./index.js";

export interface NodeFSStorageOptions {
  /** "strict" (default): every acknowledged write is fsynced. "relaxed": no fsync until `flush()`. */
  durability?: StorageDurability;
  /** How long `lock` waits for another process before rejecting with `Storage`; default 10000. */
  lockTimeoutMs?: number;
}

/**
 * Records as files under `dir` (created on first write): key ["a", "b"] is `<dir>/a/b.rec`, every
 * segment escaped to a safe file name. Writes are atomic (temp file + rename; `create`: temp file +
 * hard link, which fails if the record exists). `lock` is exclusive across processes and threads
 * (`<dir>/.lock`, taken over when its holder died on this host and in this PID namespace) and across
 * instances in one thread.
 */
export class NodeFSStorage implements StorageAdapter {
  constructor(dir: string | URL, options?: NodeFSStorageOptions);
  /** The store's directory, absolute. */
  readonly dir: string;
  readonly durability: StorageDurability;
  load(key: StorageKey): Promise<Uint8Array | undefined>;
  save(key: StorageKey, data: Uint8Array): Promise<void>;
  /** Saves only if the record does not exist: `true` when it wrote, `false` when it was there. */
  create(key: StorageKey, data: Uint8Array): Promise<boolean>;
  remove(key: StorageKey): Promise<void>;
  loadRange(prefix: StorageKey): Promise<StorageRecord[]>;
  removeRange(prefix: StorageKey): Promise<void>;
  close(): Promise<void>;
  /** fsyncs every file and directory written since the last flush (relaxed); at once when strict. */
  flush(): Promise<void>;
  lock<T>(fn: () => Promise<T>): Promise<T>;
}
