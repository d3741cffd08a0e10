// Types of engram-wasm/s3: the S3-compatible object-storage adapter (any platform with fetch and WebCrypto).
import type { StorageAdapter, StorageKey, StorageRecord } from "./index.js";

export type { StorageAdapter, StorageKey, StorageRecord } from "./index.js";

/** Keys to sign requests with (SigV4). `sessionToken` goes with temporary keys (STS, SSO, IAM roles). */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /**
   * When temporary keys stop working (a Date, ISO string or epoch ms). From a credentials function,
   * a result with `expiration` is kept until a minute before it; without, the function is called
   * before every request (requests starting while a call is pending share it).
   */
  expiration?: Date | string | number;
}

export interface S3Options {
  /** The service's URL, e.g. "https://s3.eu-west-1.amazonaws.com" or "http://127.0.0.1:9000"; requests are path-style: `<endpoint>/<bucket>/<object>`. */
  endpoint: string;
  /** The bucket (it must exist; the adapter never creates one). */
  bucket: string;
  /**
   * Folders for this store's objects: "" (default) or names ending in "/" (e.g. "stores/alice/"), of
   * A-Z a-z 0-9 . _ -. The store owns every object under it whose name is one of its encodings (others
   * are ignored): give each store its own prefix, or its own bucket.
   */
  prefix?: string;
  /** The signing region; default "us-east-1". */
  region?: string;
  /** Static keys, or a function (sync or async) returning them: called when the last ones are near their `expiration`, and once more on `ExpiredToken`. */
  credentials: S3Credentials | (() => S3Credentials | Promise<S3Credentials>);
  /** The fetch to use (a custom agent, a proxy, tests); default `globalThis.fetch`. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Requests in flight at once for the reads of `loadRange` and the deletes of `removeRange`; default 8. */
  concurrency?: number;
  /** Objects per ListObjectsV2 page (1-1000); default 1000. */
  pageSize?: number;
  /** Attempts per request before giving up on network errors, timeouts, 5xx, 429 and throttling (`SlowDown`); default 5. */
  maxAttempts?: number;
  /** Backoff base in ms: attempt n waits a random time up to `retryBaseMs * 2^n` (at most 10 s); default 100. */
  retryBaseMs?: number;
  /** Per-attempt timeout in ms; default 30000. */
  timeoutMs?: number;
}

/**
 * Records as objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Garage, …) through
 * `fetch` with SigV4 signing by WebCrypto: the same adapter in browsers (the bucket needs CORS for
 * the page's origin, exposing no headers, allowing GET, PUT, DELETE and the headers `authorization`,
 * `x-amz-*`, `if-none-match`, `content-type`), workers and Node.
 *
 * Key `[s1, …, sn]` is the object `<prefix>enc(s1)/…/enc(sn)/`, each segment encoded to [0-9A-Za-z]
 * so that S3's listing order is the key order and a key prefix is a name prefix: `loadRange` and
 * `removeRange` are one paginated ListObjectsV2 plus a GET (or DELETE) per object. `create` is a PUT
 * with `If-None-Match: *`, atomic on the server (AWS S3 since 2024, MinIO, R2; a service that ignores
 * the header would let writers overwrite each other's commits); after a retried attempt finds the key
 * taken it reads the object back, so its own write whose answer was lost still counts as written.
 *
 * There is no `lock`: S3 has none, and Engram commits with `create`, which keeps concurrent writers
 * from overwriting each other without one. `flush` resolves at once (an acknowledged PUT is durable)
 * and `close` holds nothing (the adapter stays usable). Errors: `InvalidInput` for bad options (thrown
 * by the constructor), keys and data, or a key too long for an object name (1024 bytes with the
 * prefix); `Storage` naming the operation, the key and S3's error code otherwise, after retries
 * where retrying can help. A missing bucket (`NoSuchBucket`) is `Storage` too, never an empty store.
 */
export class S3Storage implements StorageAdapter {
  constructor(options: S3Options);
  readonly bucket: string;
  readonly prefix: string;
  load(key: StorageKey): Promise<Uint8Array | undefined>;
  save(key: StorageKey, data: Uint8Array): Promise<void>;
  /** A PUT with `If-None-Match: *`: `true` when it wrote, `false` when the object was there. */
  create(key: StorageKey, data: Uint8Array): Promise<boolean>;
  remove(key: StorageKey): Promise<void>;
  loadRange(prefix: StorageKey): Promise<StorageRecord[]>;
  removeRange(prefix: StorageKey): Promise<void>;
  close(): Promise<void>;
  flush(): Promise<void>;
}

/** `new S3Storage(options)`. */
export function s3(options: S3Options): S3Storage;
