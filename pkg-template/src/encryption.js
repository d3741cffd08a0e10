// Encryption keys and sealing through WebCrypto (browsers, Node, Electron): the host's key becomes
// separate subkeys by HKDF (one for storage key names, one for stored records, one for exported
// files), messages are sealed with AES-256-GCM under a fresh random nonce, and a passphrase becomes a
// key with PBKDF2-SHA-256 (`deriveKey`). The storage wrapper that uses them is storage/encrypted.js.

import { EngramError, invalid } from "./errors.js";

const FORMAT_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** A sealed message: version byte, nonce, ciphertext, tag. */
export const SEALED_OVERHEAD = 1 + NONCE_BYTES + TAG_BYTES;

export const DEFAULT_ITERATIONS = 600_000; // OWASP's 2023 figure for PBKDF2-HMAC-SHA-256
const MIN_ITERATIONS = 100_000;
const MAX_ITERATIONS = 100_000_000;
const MIN_SALT_BYTES = 16;

const utf8 = new TextEncoder();
// HKDF's salt is a fixed label: the input is already a uniformly random key (or PBKDF2's output).
const HKDF_SALT = utf8.encode("engram-wasm encryption at rest");
const SUBKEY_INFO = { names: "v1 storage key names", records: "v1 storage records", files: "v1 exported files" };

function subtle() {
  const s = globalThis.crypto?.subtle;
  if (!s) throw invalid("encryption needs WebCrypto (crypto.subtle), which browsers provide only in secure contexts (https, localhost)");
  return s;
}

function isCryptoKey(v) {
  return Object.prototype.toString.call(v) === "[object CryptoKey]";
}

function isBytes(v) {
  return ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === "[object Uint8Array]";
}

/**
 * Checks a host key and returns a function that resolves to its HKDF base key (imported once). A
 * key is an HKDF `CryptoKey` usable for `deriveKey` (what `deriveKey()` returns) or 32 random bytes.
 */
export function hostKey(key, what) {
  if (isCryptoKey(key)) {
    if (key.algorithm?.name !== "HKDF" || !key.usages.includes("deriveKey")) {
      throw invalid(
        `${what}: a CryptoKey must be an HKDF key with usage "deriveKey" (as deriveKey() returns), got ${key.algorithm?.name} for ${key.usages.join(", ") || "nothing"}`,
      );
    }
    return () => Promise.resolve(key);
  }
  if (key instanceof ArrayBuffer) key = new Uint8Array(key);
  if (!isBytes(key)) throw invalid(`${what}: the key must be a CryptoKey (see deriveKey) or a Uint8Array of 32 random bytes, got ${key === null ? "null" : typeof key}`);
  if (key.length !== 32) throw invalid(`${what}: a raw key must be 32 bytes (256 bits), got ${key.length}`);
  const raw = new Uint8Array(key); // the caller may reuse its array before the first use
  let imported = null;
  return () =>
    (imported ??= subtle()
      .importKey("raw", raw, "HKDF", false, ["deriveKey"])
      .finally(() => raw.fill(0)));
}

function hkdf(info) {
  return { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info: utf8.encode(info) };
}

/** The HMAC-SHA-256 key that hashes storage key names. */
export async function namesKey(base) {
  return subtle().deriveKey(hkdf(SUBKEY_INFO.names), await base(), { name: "HMAC", hash: "SHA-256", length: 256 }, false, ["sign"]);
}

/** The AES-256-GCM key of stored records (`"records"`) or of exported files (`"files"`). */
export async function sealingKey(base, use) {
  return subtle().deriveKey(hkdf(SUBKEY_INFO[use]), await base(), { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

export async function hmac(key, bytes) {
  return new Uint8Array(await subtle().sign("HMAC", key, bytes));
}

/** `plaintext` sealed under `key` with a fresh nonce; `context` is authenticated, not stored. */
export async function seal(key, plaintext, context) {
  const nonce = globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const body = new Uint8Array(await subtle().encrypt({ name: "AES-GCM", iv: nonce, additionalData: context }, key, plaintext));
  const out = new Uint8Array(1 + NONCE_BYTES + body.length);
  out[0] = FORMAT_VERSION;
  out.set(nonce, 1);
  out.set(body, 1 + NONCE_BYTES);
  return out;
}

/**
 * The plaintext `sealed` holds, if it was sealed under `key` with the same `context`; otherwise a
 * `Corrupt` error naming `what` (GCM cannot tell a wrong key from a damaged or moved message).
 */
export async function unseal(key, sealed, context, what) {
  if (sealed.length < SEALED_OVERHEAD) throw new EngramError("Corrupt", `${what} is too short (${sealed.length} bytes) to be encrypted by Engram`);
  if (sealed[0] !== FORMAT_VERSION) throw new EngramError("Corrupt", `${what} has encryption format ${sealed[0]}, this version reads ${FORMAT_VERSION}`);
  try {
    const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
    return new Uint8Array(await subtle().decrypt({ name: "AES-GCM", iv: nonce, additionalData: context }, key, sealed.subarray(1 + NONCE_BYTES)));
  } catch (e) {
    if (e?.name !== "OperationError") throw e;
    throw new EngramError("Corrupt", `${what} cannot be decrypted: the key may be wrong, or the data was damaged or moved`, { cause: e });
  }
}

const DERIVE_OPTIONS = new Set(["iterations"]);

/**
 * A storage key from a passphrase: PBKDF2-SHA-256 (`iterations`, default 600,000) over the
 * passphrase (Unicode NFC, so the same words typed anywhere give the same key) and `salt` (at least
 * 16 random bytes the host keeps with the store; not secret). Resolves to a non-extractable HKDF
 * CryptoKey for `encrypted()`, `encryptBytes()` and `decryptBytes()`.
 * @param {string} passphrase
 * @param {Uint8Array} salt
 * @param {{iterations?: number}} [options]
 */
export async function deriveKey(passphrase, salt, options = {}) {
  if (typeof passphrase !== "string" || passphrase === "") throw invalid("deriveKey: the passphrase must be a non-empty string");
  if (salt instanceof ArrayBuffer) salt = new Uint8Array(salt);
  if (!isBytes(salt) || salt.length < MIN_SALT_BYTES) {
    throw invalid(`deriveKey: the salt must be a Uint8Array of at least ${MIN_SALT_BYTES} random bytes (e.g. crypto.getRandomValues(new Uint8Array(16)), kept with the store)`);
  }
  if (options === null || typeof options !== "object") throw invalid("deriveKey: options must be an object");
  for (const name of Object.keys(options)) if (!DERIVE_OPTIONS.has(name)) throw invalid(`deriveKey: unknown option \`${name}\``);
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
    throw invalid(`deriveKey: iterations must be an integer from ${MIN_ITERATIONS} to ${MAX_ITERATIONS}, got ${iterations}`);
  }
  const s = subtle();
  const secret = utf8.encode(passphrase.normalize("NFC"));
  const material = await s.importKey("raw", secret, "PBKDF2", false, ["deriveBits"]);
  secret.fill(0);
  const bits = new Uint8Array(await s.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(salt), iterations }, material, 256));
  try {
    return await s.importKey("raw", bits, "HKDF", false, ["deriveKey"]);
  } finally {
    bits.fill(0);
  }
}

const FILE_CONTEXT = utf8.encode("engram-wasm encrypted file v1");

/** `bytes` (an export, say) encrypted under `key` (a CryptoKey from deriveKey, or 32 bytes). */
export async function encryptBytes(key, bytes) {
  const base = hostKey(key, "encryptBytes");
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!isBytes(bytes)) throw invalid("encryptBytes: the data must be a Uint8Array");
  const plaintext = new Uint8Array(bytes);
  return seal(await sealingKey(base, "files"), plaintext, FILE_CONTEXT);
}

/** What `encryptBytes(key, …)` encrypted; `Corrupt` for another key or damaged bytes. */
export async function decryptBytes(key, bytes) {
  const base = hostKey(key, "decryptBytes");
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!isBytes(bytes)) throw invalid("decryptBytes: the data must be a Uint8Array");
  return unseal(await sealingKey(base, "files"), new Uint8Array(bytes), FILE_CONTEXT, "decryptBytes: the data");
}
