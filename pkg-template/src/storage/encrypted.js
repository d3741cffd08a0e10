// encrypted(adapter, key): any StorageAdapter (adapter.js) with its records and key names encrypted.
//
// Layout in the wrapped adapter:
// - ["engram-encrypted", h1, …, hn] holds the record saved under [s1, …, sn]. Each hi is a chained
//   HMAC-SHA-256 of the segments so far (names subkey), hex, so a key prefix maps to a key prefix
//   and loadRange / removeRange by prefix still work, while equal segments under different parents
//   look unrelated. The value is sealed with AES-256-GCM (records subkey, fresh nonce) over
//   [key length, u32 BE][the plaintext key as JSON][data], authenticated with the hashed key, so a
//   record moved or copied to another key fails to decrypt.
// - ["engram-encryption-check"] holds a known text sealed under the records subkey: it is read before
//   anything else, so a wrong key is a `Corrupt` error at once rather than an empty-looking store
//   (the hashed names of another key find nothing). Since format 2 it also holds the store's id (16
//   random bytes drawn when the store is made), and every record is authenticated with that id as
//   well as its hashed key: a record copied in from another store under the same key (same host
//   key, same name) fails to decrypt, `Corrupt`. Stores made before (check format 1) have no id and
//   keep working as they were; export and import into a new encrypted store to bind them.
// Hashed names lose the key order, so loadRange sorts by the decrypted keys.

import { EngramError, invalid } from "../errors.js";
import { hmac, hostKey, namesKey, seal, sealingKey, unseal } from "../encryption.js";
import { checkKey, checkLockFn, compareKeys, copyData, describeKey, storageError } from "./adapter.js";

const DATA = "engram-encrypted";
const CHECK = ["engram-encryption-check"];
const utf8 = new TextEncoder();
const CHECK_TEXT = utf8.encode("engram-wasm key check v1");
/** Format 2: the text, then the store's id. */
const CHECK_TEXT_V2 = utf8.encode("engram-wasm key check v2");
const STORE_ID_BYTES = 16;
const CHECK_CONTEXT = utf8.encode(JSON.stringify(CHECK));
/** Bytes of each hashed segment kept: 128 bits, so two names collide only after ~2^64 keys. */
const NAME_BYTES = 16;
const REQUIRED = ["load", "save", "remove", "loadRange", "removeRange"];
const DIGEST_CACHE = 1024;
const RECENT_WRITES = 16;
const RECENT_BYTES = 64 * 1024;

const isBytes = (v) => ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === "[object Uint8Array]";
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** A segment's UTF-16 code units as bytes: lossless even for lone surrogates, which UTF-8 would replace. */
function utf16(segment) {
  const out = new Uint8Array(segment.length * 2);
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    out[2 * i] = c & 0xff;
    out[2 * i + 1] = c >> 8;
  }
  return out;
}

function contract(what, detail) {
  return new EngramError("Storage", `encrypted: the wrapped adapter's ${what} broke the storage adapter contract: ${detail}`);
}

/**
 * `adapter` with AES-256-GCM encryption at rest. `key` is a CryptoKey from `deriveKey()` or 32 random
 * bytes. The result is a storage adapter with the same optional methods as `adapter` (`create`,
 * `lock`, `flush`, `close` pass through; `create` stays atomic).
 */
export function encrypted(adapter, key) {
  return new EncryptedStorage(adapter, key);
}

class EncryptedStorage {
  #inner;
  #base;
  #keys = null;
  /**
   * Digests of recently hashed key prefixes (JSON of the prefix → its HMAC), oldest first: a store
   * hashes the same few prefixes ("engram", "engram/chunk", …) on every call, and each WebCrypto
   * call is a round trip off the JS thread.
   */
  #digests = new Map();
  /** The last few small records this instance sealed, by wrapped key: `{sealed, record}`. */
  #recent = new Map();
  /** The key-check record was read and matched (or written) by this instance. */
  #verified = false;
  /** The store's id from its key check (format 2); `null` for a store made before ids. */
  #storeId = null;

  constructor(inner, key) {
    if (inner === null || typeof inner !== "object") throw invalid("encrypted: the first argument must be a storage adapter");
    for (const m of REQUIRED) if (typeof inner[m] !== "function") throw invalid(`encrypted: the adapter has no ${m}() method`);
    this.#base = hostKey(key, "encrypted");
    this.#inner = inner;
    // Tabs sharing the store tell each other of commits on it (a bare "commit", nothing stored).
    if (typeof inner.channel === "string") this.channel = inner.channel;
    // Optional methods exist only where the wrapped adapter has them: the core falls back without.
    if (typeof inner.create === "function") this.create = (k, d) => this.#create(k, d);
    if (typeof inner.lock === "function") {
      this.lock = async (fn) => {
        checkLockFn(fn);
        return inner.lock(fn);
      };
    }
    if (typeof inner.flush === "function") this.flush = async () => this.#run("flush", undefined, () => inner.flush());
    if (typeof inner.close === "function") this.close = async () => this.#run("close", undefined, () => inner.close());
  }

  async load(key) {
    key = checkKey(key, "load");
    return this.#run("load", key, async () => {
      await this.#ready(false);
      const name = await this.#name(key);
      const sealed = await this.#inner.load(name);
      if (sealed === undefined || sealed === null) return undefined;
      if (!isBytes(sealed)) throw contract("load", "expected a Uint8Array or undefined");
      const record = await this.#open(name, sealed);
      if (compareKeys(record.key, key) !== 0) throw new EngramError("Corrupt", `encrypted: the record at ${describeKey(name)} names another key`);
      return record.data;
    });
  }

  async save(key, data) {
    key = checkKey(key, "save");
    const bytes = copyData(data, "save", key);
    return this.#run("save", key, async () => {
      await this.#ready(true);
      const name = await this.#name(key);
      await this.#inner.save(name, await this.#seal(key, name, bytes));
    });
  }

  async #create(key, data) {
    key = checkKey(key, "create");
    const bytes = copyData(data, "create", key);
    return this.#run("create", key, async () => {
      await this.#ready(true);
      const name = await this.#name(key);
      const created = await this.#inner.create(name, await this.#seal(key, name, bytes));
      if (typeof created !== "boolean") throw contract("create", "expected true or false");
      return created;
    });
  }

  async remove(key) {
    key = checkKey(key, "remove");
    return this.#run("remove", key, async () => {
      await this.#ready(false);
      await this.#inner.remove(await this.#name(key));
    });
  }

  async loadRange(prefix) {
    prefix = checkKey(prefix, "loadRange", { prefix: true });
    return this.#run("loadRange", prefix, async () => {
      await this.#ready(false);
      const found = await this.#inner.loadRange(await this.#name(prefix));
      if (!Array.isArray(found)) throw contract("loadRange", "expected an array");
      const records = await Promise.all(
        found.map(({ key, data } = {}) => {
          if (!Array.isArray(key) || !key.every((s) => typeof s === "string") || !isBytes(data)) throw contract("loadRange", "an entry is not {key, data}");
          return this.#open(key, data);
        }),
      );
      return records.sort((a, b) => compareKeys(a.key, b.key));
    });
  }

  async removeRange(prefix) {
    prefix = checkKey(prefix, "removeRange", { prefix: true });
    return this.#run("removeRange", prefix, async () => {
      await this.#ready(false);
      // Under DATA even for []: the key check stays, so the store keeps its key.
      await this.#inner.removeRange(await this.#name(prefix));
    });
  }

  /** Every rejection an EngramError (the wrapped adapter's own errors pass through as they are). */
  async #run(operation, key, fn) {
    try {
      return await fn();
    } catch (e) {
      throw storageError(operation, key, e);
    }
  }

  #subkeys() {
    this.#keys ??= Promise.all([namesKey(this.#base), sealingKey(this.#base, "records")]).then(([names, records]) => ({ names, records }));
    return this.#keys;
  }

  /** The wrapped adapter's key for `key` (or prefix): DATA, then one chained HMAC per segment. */
  async #name(key) {
    const { names } = await this.#subkeys();
    const out = [DATA];
    let chain = new Uint8Array(32);
    for (let i = 0; i < key.length; i++) {
      const id = JSON.stringify(key.slice(0, i + 1));
      let digest = this.#digests.get(id);
      if (!digest) {
        const unit = utf16(key[i]);
        const input = new Uint8Array(chain.length + unit.length);
        input.set(chain);
        input.set(unit, chain.length);
        digest = await hmac(names, input);
        if (this.#digests.size >= DIGEST_CACHE) this.#digests.delete(this.#digests.keys().next().value);
        this.#digests.set(id, digest);
      }
      chain = digest;
      out.push(hex(chain.subarray(0, NAME_BYTES)));
    }
    return out;
  }

  async #seal(key, name, data) {
    const { records } = await this.#subkeys();
    const keyBytes = utf8.encode(JSON.stringify(key));
    const plain = new Uint8Array(4 + keyBytes.length + data.length);
    new DataView(plain.buffer).setUint32(0, keyBytes.length);
    plain.set(keyBytes, 4);
    plain.set(data, 4 + keyBytes.length);
    const sealed = await seal(records, plain, this.#context(name));
    if (sealed.length <= RECENT_BYTES) {
      if (this.#recent.size >= RECENT_WRITES) this.#recent.delete(this.#recent.keys().next().value);
      this.#recent.set(JSON.stringify(name), { sealed, record: { key, data } });
    }
    return sealed;
  }

  /** `{key, data}` of the record stored under the wrapped adapter's key `name`. */
  async #open(name, sealed) {
    // The core reads each commit back to see it landed: the very bytes this instance sealed need no
    // decrypting (same key, nonce and ciphertext give the same plaintext).
    const recent = this.#recent.get(JSON.stringify(name));
    if (recent && recent.sealed.length === sealed.length && recent.sealed.every((b, i) => b === sealed[i])) {
      return { key: recent.record.key.slice(), data: recent.record.data.slice() };
    }
    const { records } = await this.#subkeys();
    const plain = await unseal(records, sealed, this.#context(name), `encrypted: the record at ${describeKey(name)}`);
    const damaged = () => new EngramError("Corrupt", `encrypted: the record at ${describeKey(name)} decrypts but its layout is not Engram's`);
    if (plain.length < 4) throw damaged();
    const keyLength = new DataView(plain.buffer, plain.byteOffset).getUint32(0);
    if (4 + keyLength > plain.length) throw damaged();
    let key;
    try {
      key = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(plain.subarray(4, 4 + keyLength)));
    } catch {
      throw damaged();
    }
    if (!Array.isArray(key) || key.length !== name.length - 1 || !key.every((s) => typeof s === "string" && s !== "")) throw damaged();
    return { key, data: plain.subarray(4 + keyLength) }; // a view of a fresh buffer: already private
  }

  /** What a record is authenticated with: the store's id (format 2), then its hashed key. */
  #context(name) {
    const named = utf8.encode(JSON.stringify(name));
    if (this.#storeId === null) return named;
    const out = new Uint8Array(STORE_ID_BYTES + named.length);
    out.set(this.#storeId);
    out.set(named, STORE_ID_BYTES);
    return out;
  }

  /**
   * Checks the key against the store's key-check record before any other access. Writes the record
   * on a store's first write; a store that holds records but no key check is refused (an
   * unencrypted store, or one whose check was removed), since reading it would only find nothing.
   */
  async #ready(forWrite) {
    if (this.#verified) return;
    const { records } = await this.#subkeys();
    const stored = await this.#inner.load(CHECK);
    if (stored !== undefined && stored !== null) return this.#verify(records, stored);
    const existing = await this.#inner.loadRange([]);
    if (!Array.isArray(existing)) throw contract("loadRange", "expected an array");
    // Another writer may have made the store between the two reads: its check came first.
    const made = existing.find((r) => r?.key?.length === 1 && r.key[0] === CHECK[0]);
    if (made) return this.#verify(records, made.data);
    if (existing.length > 0) {
      throw new EngramError(
        "Corrupt",
        existing.some((r) => r?.key?.[0] === DATA)
          ? `encrypted: the store holds encrypted records but no key-check record ${describeKey(CHECK)}: it was removed from outside, so the key cannot be checked`
          : "encrypted: the store holds records that were not written through encrypted() (an unencrypted store?); open it without encryption, export it and import into an encrypted store",
      );
    }
    if (!forWrite) return; // an empty store: nothing to check yet, nothing written by a read
    const id = globalThis.crypto.getRandomValues(new Uint8Array(STORE_ID_BYTES));
    const text = new Uint8Array(CHECK_TEXT_V2.length + STORE_ID_BYTES);
    text.set(CHECK_TEXT_V2);
    text.set(id, CHECK_TEXT_V2.length);
    const check = await seal(records, text, CHECK_CONTEXT);
    if (typeof this.#inner.create !== "function") {
      await this.#inner.save(CHECK, check);
    } else if (!(await this.#inner.create(CHECK, check))) {
      // Another writer made the store first: its key must be this one.
      return this.#verify(records, await this.#inner.load(CHECK));
    }
    this.#storeId = id;
    this.#verified = true;
  }

  async #verify(records, stored) {
    if (!isBytes(stored)) throw contract("load", "expected a Uint8Array");
    const text = await unseal(records, stored, CHECK_CONTEXT, "encrypted: the key check").catch((e) => {
      throw e?.code === "Corrupt"
        ? new EngramError("Corrupt", "encrypted: this store was encrypted with another key (the key check does not decrypt with the one given)", { cause: e })
        : e;
    });
    const starts = (prefix) => text.length >= prefix.length && prefix.every((b, i) => b === text[i]);
    if (text.length === CHECK_TEXT.length && starts(CHECK_TEXT)) {
      this.#storeId = null; // made before store ids: records are bound to their keys only
    } else if (text.length === CHECK_TEXT_V2.length + STORE_ID_BYTES && starts(CHECK_TEXT_V2)) {
      this.#storeId = text.slice(CHECK_TEXT_V2.length);
    } else {
      throw new EngramError("Corrupt", "encrypted: the key check holds unexpected text");
    }
    this.#verified = true;
  }
}
