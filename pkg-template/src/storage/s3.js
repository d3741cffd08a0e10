// s3(options): a StorageAdapter (see adapter.js) over an S3-compatible object store (AWS S3, MinIO,
// R2, Garage, …), through `fetch` and SigV4 signing with WebCrypto: no SDK, so the same adapter runs
// in browsers, workers, Deno, Bun and Node. Its own package entry, `engram-wasm/s3`.
//
// Layout: key [s1, …, sn] is the object <prefix>enc(s1)/…/enc(sn)/ (path-style URLs:
// <endpoint>/<bucket>/<object>). `enc` (encodeSegment) maps a segment's UTF-16 code units, lone
// surrogates included, to [0-9A-Za-z] so that
// - S3's listing order (UTF-8 bytes, here plain ASCII) is the contract's key order: each code unit
//   becomes a literal character or a marker plus fixed-width digits, every encoding ordered as its
//   code unit and none a prefix of another; "/" ends each segment and sorts below every character
//   used, so ["a"] < ["a", "b"] < ["ab"];
// - the name of a key prefix is a name prefix ("a/" covers ["a"] and ["a", …], never ["ab"]), so
//   loadRange and removeRange are one paginated ListObjectsV2 each.
//
// `create` is a PUT with `If-None-Match: *`, which S3 applies atomically (412: the key exists).
// There is no `lock`: S3 has none, and Engram commits with `create`, which keeps writers apart
// without one. An acknowledged PUT is durable, so `flush` has nothing to do.

import { EngramError, invalid } from "../errors.js";
import { checkKey, compareKeys, copyData, describeKey, storageError } from "./adapter.js";

const OPTIONS = new Set(["endpoint", "bucket", "prefix", "region", "credentials", "fetch", "concurrency", "pageSize", "maxAttempts", "retryBaseMs", "timeoutMs"]);
/** S3's longest object name, in UTF-8 bytes (ours are ASCII). */
const MAX_NAME = 1024;
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/** A cached temporary credential is renewed this long before its `expiration`. */
const RENEW_BEFORE_MS = 60_000;
/** S3 error codes worth another attempt: throttling, transient faults, a conditional write racing another. */
const RETRY_CODES = new Set([
  "SlowDown",
  "Throttling",
  "ThrottlingException",
  "RequestTimeout",
  "InternalError",
  "ServiceUnavailable",
  "ConditionalRequestConflict",
  "OperationAborted",
]);
/** Codes saying the (temporary) credentials ran out: fetched anew once, then tried again. */
const EXPIRED_CODES = new Set(["ExpiredToken", "TokenRefreshRequired"]);

// --- Key names -----------------------------------------------------------------------------------

const DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"; // ascending ASCII
/**
 * Code units outside the literal ranges, in groups: marker character, first code unit, digits.
 * Each marker sorts between the literals around its group and is itself escaped (it is the group's
 * first code unit or lies in it), so every encoding is ordered as its code unit and prefix-free.
 */
const GROUPS = [
  { marker: "0", from: 0x00, to: 0x30, width: 1 }, // controls, space, punctuation, "/", "0"
  { marker: "9", from: 0x39, to: 0x40, width: 1 }, // "9" and ":;<=>?@"
  { marker: "Z", from: 0x5a, to: 0x60, width: 1 }, // "Z" and "[\]^_`"
  { marker: "z", from: 0x7a, to: 0xffff, width: 3 }, // "z" and everything above (62^3 > 0xffff - 0x7a)
];
const isLiteral = (c) => (c >= 0x31 && c <= 0x38) || (c >= 0x41 && c <= 0x59) || (c >= 0x61 && c <= 0x79);

/** A key segment as [0-9A-Za-z]: order-preserving by UTF-16 code units, injective, prefix-free per code unit. */
export function encodeSegment(segment) {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (isLiteral(c)) {
      out += segment[i];
      continue;
    }
    const g = GROUPS.find((group) => c >= group.from && c <= group.to);
    let n = c - g.from;
    let digits = "";
    for (let w = 0; w < g.width; w++, n = Math.floor(n / 62)) digits = DIGITS[n % 62] + digits;
    out += g.marker + digits;
  }
  return out;
}

/** The segment `name` encodes, or null unless `name` is exactly what `encodeSegment` makes. */
export function decodeSegment(name) {
  let out = "";
  for (let i = 0; i < name.length;) {
    const c = name.charCodeAt(i);
    if (isLiteral(c)) {
      out += name[i++];
      continue;
    }
    const g = GROUPS.find((group) => group.marker === name[i]);
    if (!g || i + 1 + g.width > name.length) return null;
    let n = 0;
    for (let w = 1; w <= g.width; w++) {
      const d = DIGITS.indexOf(name[i + w]);
      if (d < 0) return null;
      n = n * 62 + d;
    }
    if (g.from + n > g.to) return null;
    out += String.fromCharCode(g.from + n);
    i += 1 + g.width;
  }
  return out !== "" && encodeSegment(out) === name ? out : null;
}

/** The object name part of a key (or key prefix): every segment encoded and ended by "/". */
export function encodeKey(key) {
  let out = "";
  for (const segment of key) out += encodeSegment(segment) + "/";
  return out;
}

/** The key an object name part encodes, or null if it is not one of ours. */
export function decodeKey(name) {
  if (!name.endsWith("/")) return null;
  const segments = name.slice(0, -1).split("/");
  const key = [];
  for (const s of segments) {
    const segment = decodeSegment(s);
    if (segment === null) return null;
    key.push(segment);
  }
  return key;
}

// --- SigV4 ---------------------------------------------------------------------------------------

const utf8 = new TextEncoder();
const toHex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");

function subtle() {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new EngramError("Storage", "s3: WebCrypto (crypto.subtle) is not available here: it needs a secure context (https or localhost) in browsers, Node 20+ elsewhere");
  return s;
}

async function sha256Hex(bytes) {
  return toHex(await subtle().digest("SHA-256", bytes));
}

async function hmac(key, text) {
  const k = await subtle().importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle().sign("HMAC", k, utf8.encode(text)));
}

/** RFC 3986 percent-encoding as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ (and "/" when `keepSlash`). */
export function uriEncode(text, keepSlash = false) {
  let out = "";
  for (const byte of utf8.encode(text)) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(ch) || (keepSlash && ch === "/")) out += ch;
    else out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** `YYYYMMDD'T'HHMMSS'Z'` */
const amzDate = (date) =>
  date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/**
 * Signs a request with AWS Signature Version 4 (service "s3" unless told) and returns the headers to send:
 * `headers` (lower-case names; all of them are signed) plus x-amz-date, x-amz-content-sha256, the
 * session token and Authorization. `path` is the canonical, already percent-encoded path; `query`
 * the query parameters (unencoded). Exported for the known-answer test.
 */
export async function signV4({ method, host, path, query = {}, headers = {}, payloadHash, credentials, region, service = "s3", date = new Date(), signingKeys }) {
  const stamp = amzDate(date);
  const day = stamp.slice(0, 8);
  const all = { ...headers, host, "x-amz-date": stamp, "x-amz-content-sha256": payloadHash };
  if (credentials.sessionToken) all["x-amz-security-token"] = credentials.sessionToken;
  const names = Object.keys(all)
    .map((n) => n.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(all).map(([n, v]) => [n.toLowerCase(), String(v).trim().replace(/\s+/g, " ")]));
  const canonicalQuery = Object.entries(query)
    .map(([k, v]) => [uriEncode(k), uriEncode(String(v))])
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const signedHeaders = names.join(";");
  const canonicalRequest = [method, path, canonicalQuery, names.map((n) => `${n}:${lower[n]}\n`).join(""), signedHeaders, payloadHash].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, await sha256Hex(utf8.encode(canonicalRequest))].join("\n");
  // The signing key changes once a day per secret: kept by the caller across requests.
  const cacheKey = `${credentials.secretAccessKey}\n${scope}`;
  let signingKey = signingKeys?.get(cacheKey);
  if (!signingKey) {
    let k = await hmac(utf8.encode("AWS4" + credentials.secretAccessKey), day);
    for (const part of [region, service, "aws4_request"]) k = await hmac(k, part);
    signingKey = k;
    if (signingKeys) {
      signingKeys.clear(); // only the current day's key is ever needed
      signingKeys.set(cacheKey, signingKey);
    }
  }
  const signature = toHex(await hmac(signingKey, stringToSign));
  const out = /** @type {Record<string, string>} */ ({ ...all });
  delete out.host; // fetch sets it from the URL (and browsers forbid setting it)
  out.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return out;
}

// --- Responses -----------------------------------------------------------------------------------

const XML_ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const unxml = (s) =>
  s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, e) =>
    e[0] === "#" ? String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)) : (XML_ENTITIES[e] ?? m),
  );
/** The text of the first <tag> element in `xml`, or undefined. */
const element = (xml, tag) => {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  return m ? unxml(m[1]) : undefined;
};

/** An S3 error response: the HTTP status and S3's error code and message from its XML body. */
class S3Error extends Error {
  name = "S3Error";
  constructor(status, code, message, requestId) {
    super(`HTTP ${status}${code ? ` ${code}` : ""}${message ? `: ${message}` : ""}${requestId ? ` (request ${requestId})` : ""}`);
    this.status = status;
    this.s3Code = code;
  }
}

/** The S3Error for an answer `{status, data}` of #request. */
function errorOf({ status, data }) {
  const text = new TextDecoder().decode(data);
  return new S3Error(status, element(text, "Code"), element(text, "Message"), element(text, "RequestId"));
}

/** The credentials function failed: not a network error, so not retried. */
class CredentialsError extends Error {
  name = "CredentialsError";
}

const ok = (status) => status >= 200 && status < 300;
/**
 * A 404 for the object, not for the bucket: a store whose bucket is gone (deleted, a typo, another
 * region) must fail, never look empty.
 */
const noSuchKey = (answer) => answer.status === 404 && errorOf(answer).s3Code !== "NoSuchBucket";

// --- The adapter ---------------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function positiveInt(value, name, fallback, max = Infinity) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw invalid(`s3: ${name} must be an integer from 1 to ${max}, got ${String(value)}`);
  return value;
}

function checkCredentials(c, what) {
  if (c === null || typeof c !== "object" || typeof c.accessKeyId !== "string" || c.accessKeyId === "" || typeof c.secretAccessKey !== "string" || c.secretAccessKey === "") {
    throw invalid(`${what}: expected {accessKeyId, secretAccessKey, sessionToken?} with non-empty strings`);
  }
  if (c.sessionToken !== undefined && c.sessionToken !== null && typeof c.sessionToken !== "string") throw invalid(`${what}: sessionToken must be a string`);
  return c;
}

/** A storage adapter over an S3 bucket; see s3.d.ts for the options. */
export function s3(options) {
  return new S3Storage(options);
}

export class S3Storage {
  #fetch;
  #origin;
  #host;
  #basePath; // percent-encoded path of the bucket, "/…/bucket"
  #prefix;
  #region;
  #credentials;
  #cached = null; // {credentials, expiresAt} from a credentials function
  #asking = null; // the credentials function's call in progress
  #signingKeys = new Map();
  #concurrency;
  #pageSize;
  #maxAttempts;
  #retryBaseMs;
  #timeoutMs;

  constructor(options) {
    if (options === null || typeof options !== "object") throw invalid("s3: options must be an object {endpoint, bucket, region, credentials, …}");
    for (const name of Object.keys(options)) if (!OPTIONS.has(name)) throw invalid(`s3: unknown option ${name}`);
    const { endpoint, bucket, prefix = "", region = "us-east-1", credentials, fetch: fetchFn } = options;
    let url;
    try {
      url = new URL(String(endpoint));
    } catch {
      throw invalid(`s3: endpoint must be an http(s) URL, got ${String(endpoint)}`);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username) {
      throw invalid(`s3: endpoint must be an http(s) URL without query, fragment or user, got ${String(endpoint)}`);
    }
    // S3's bucket naming rules (lower case, digits, dots, hyphens), which also keep the path plain.
    if (typeof bucket !== "string" || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes("..")) {
      throw invalid(`s3: bucket must be an S3 bucket name (3-63 of a-z 0-9 . -), got ${describeKey(bucket)}`);
    }
    // Folders of safe characters, each ended by "/": a store's names never run into another store's
    // ("a/" and "ab/" are apart), and no "." or ".." segment that URL parsing would resolve away.
    if (typeof prefix !== "string" || !/^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*$/.test(prefix) || prefix.length > 512) {
      throw invalid(`s3: prefix must be "" or folders ending in "/" (e.g. "stores/alice/"), of A-Z a-z 0-9 . _ -, got ${describeKey(prefix)}`);
    }
    if (typeof region !== "string" || !/^[a-z0-9-]+$/.test(region)) throw invalid(`s3: region must be a region name such as "us-east-1", got ${describeKey(region)}`);
    if (typeof credentials === "function") this.#credentials = credentials;
    else this.#credentials = { ...checkCredentials(credentials, "s3: credentials") };
    const f = fetchFn ?? globalThis.fetch;
    if (typeof f !== "function") throw invalid("s3: no fetch: pass options.fetch");
    this.#fetch = fetchFn ? fetchFn : (input, init) => globalThis.fetch(input, init); // late-bound: a host may replace fetch
    this.#origin = url.origin;
    this.#host = url.host;
    this.#basePath = `${url.pathname.replace(/\/+$/, "")}/${bucket}`;
    this.#prefix = prefix;
    this.#region = region;
    this.#concurrency = positiveInt(options.concurrency, "concurrency", 8, 256);
    this.#pageSize = positiveInt(options.pageSize, "pageSize", 1000, 1000);
    this.#maxAttempts = positiveInt(options.maxAttempts, "maxAttempts", 5, 20);
    this.#retryBaseMs = options.retryBaseMs === undefined ? 100 : positiveInt(options.retryBaseMs, "retryBaseMs", 100, 60_000);
    this.#timeoutMs = positiveInt(options.timeoutMs, "timeoutMs", 30_000);
    this.bucket = bucket;
    this.prefix = prefix;
  }

  async load(key) {
    key = checkKey(key, "load");
    const name = this.#name(key, "load");
    try {
      const answer = await this.#request("GET", name);
      if (noSuchKey(answer)) return undefined;
      if (answer.status !== 200) throw errorOf(answer);
      return answer.data;
    } catch (e) {
      throw storageError("load", key, e);
    }
  }

  async save(key, data) {
    key = checkKey(key, "save");
    const bytes = copyData(data, "save", key);
    const name = this.#name(key, "save");
    try {
      const answer = await this.#request("PUT", name, { body: bytes });
      if (!ok(answer.status)) throw errorOf(answer);
    } catch (e) {
      throw storageError("save", key, e);
    }
  }

  async create(key, data) {
    key = checkKey(key, "create");
    const bytes = copyData(data, "create", key);
    const name = this.#name(key, "create");
    try {
      const answer = await this.#request("PUT", name, { body: bytes, headers: { "if-none-match": "*" } });
      if (ok(answer.status)) return true;
      if (answer.status !== 412) throw errorOf(answer);
      // An earlier attempt whose answer was lost (a dropped connection, a 5xx) may have written the
      // record: the key then holds our own bytes, and "taken" would have Engram commit twice.
      if (answer.retried) {
        const stored = await this.load(key);
        if (stored && stored.length === bytes.length && stored.every((b, i) => b === bytes[i])) return true;
      }
      return false;
    } catch (e) {
      throw storageError("create", key, e);
    }
  }

  async remove(key) {
    key = checkKey(key, "remove");
    const name = this.#name(key, "remove");
    try {
      await this.#delete(name);
    } catch (e) {
      throw storageError("remove", key, e);
    }
  }

  async loadRange(prefix) {
    prefix = checkKey(prefix, "loadRange", { prefix: true });
    const name = this.#name(prefix, "loadRange");
    try {
      const listed = await this.#list(name);
      const found = new Array(listed.length);
      await eachLimited(listed, this.#concurrency, async ({ object, key }, i) => {
        const answer = await this.#request("GET", object);
        if (noSuchKey(answer)) return; // removed since it was listed
        if (answer.status !== 200) throw errorOf(answer);
        found[i] = { key, data: answer.data };
      });
      return found.filter(Boolean);
    } catch (e) {
      throw storageError("loadRange", prefix, e);
    }
  }

  async removeRange(prefix) {
    prefix = checkKey(prefix, "removeRange", { prefix: true });
    const name = this.#name(prefix, "removeRange");
    try {
      const listed = await this.#list(name);
      await eachLimited(listed, this.#concurrency, ({ object }) => this.#delete(object));
    } catch (e) {
      throw storageError("removeRange", prefix, e);
    }
  }

  /** Nothing is held open between requests; the adapter stays usable. */
  async close() {}

  /** An acknowledged PUT or DELETE is already durable in S3: nothing to wait for. */
  async flush() {}

  // --- internals -------------------------------------------------------------------------------

  /** The object name of a key (or key prefix); InvalidInput when longer than S3 allows. */
  #name(key, what) {
    const name = this.#prefix + encodeKey(key);
    if (name.length > MAX_NAME) {
      throw invalid(`${what}: ${describeKey(key).slice(0, 80)}… is too long for an S3 object name (${name.length} bytes encoded with the prefix, at most ${MAX_NAME})`);
    }
    return name;
  }

  async #delete(object) {
    const answer = await this.#request("DELETE", object);
    if (!ok(answer.status) && !noSuchKey(answer)) throw errorOf(answer);
  }

  /** Every object of ours under `namePrefix`, with its key, in key order: ListObjectsV2 page by page. */
  async #list(namePrefix) {
    const out = [];
    let token;
    do {
      const query = { "list-type": "2", prefix: namePrefix, "max-keys": String(this.#pageSize) };
      if (token) query["continuation-token"] = token;
      const answer = await this.#request("GET", "", { query });
      if (answer.status !== 200) throw errorOf(answer);
      const xml = new TextDecoder().decode(answer.data);
      for (const [, contents] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const object = element(contents, "Key");
        if (object === undefined || !object.startsWith(this.#prefix)) continue;
        const key = decodeKey(object.slice(this.#prefix.length));
        if (key) out.push({ object, key }); // others' objects under our prefix are not records
      }
      token = element(xml, "IsTruncated") === "true" ? element(xml, "NextContinuationToken") : undefined;
    } while (token);
    // Listed in byte order, which the encoding makes key order; sorted anyway, for servers that differ.
    return out.sort((a, b) => compareKeys(a.key, b.key));
  }

  /** The credentials to sign with: the static ones, or the function's, kept until near their `expiration`. */
  async #currentCredentials() {
    if (typeof this.#credentials !== "function") return this.#credentials;
    if (this.#cached && this.#cached.expiresAt - RENEW_BEFORE_MS > Date.now()) return this.#cached.credentials;
    // Requests starting together share one call (a burst of reads does not ask the vault 8 times).
    this.#asking ??= this.#askCredentials().finally(() => (this.#asking = null));
    return this.#asking;
  }

  async #askCredentials() {
    let c;
    try {
      c = await this.#credentials();
    } catch (e) {
      throw new CredentialsError(`the credentials function failed: ${e?.message ?? e}`, { cause: e });
    }
    try {
      checkCredentials(c, "the credentials function's result");
    } catch (e) {
      throw new CredentialsError(e.message);
    }
    const expiresAt = c.expiration === undefined || c.expiration === null ? NaN : new Date(c.expiration).getTime();
    // Without an expiration the function is asked before every request (the host caches, if it wants).
    this.#cached = Number.isFinite(expiresAt) ? { credentials: c, expiresAt } : null;
    return c;
  }

  /**
   * Sends a signed request for `object` (the bucket itself when ""), trying again with exponential
   * backoff and jitter on network errors, timeouts, 5xx, 429 and throttling codes, up to maxAttempts.
   * Resolves to the final answer, its body read whole inside the retries (a connection lost
   * mid-body is retried too): `{status, data, retried}`, any status for the caller to judge, and
   * whether an attempt before it may have taken effect on the server.
   * @param {string} method
   * @param {string} object
   * @param {{query?: Record<string, string>, headers?: Record<string, string>, body?: Uint8Array}} [options]
   */
  async #request(method, object, { query = {}, headers = {}, body } = {}) {
    const path = this.#basePath + "/" + uriEncode(object, true);
    const search = Object.entries(query)
      .map(([k, v]) => `${uriEncode(k)}=${uriEncode(String(v))}`)
      .join("&");
    const url = `${this.#origin}${path}${search ? "?" + search : ""}`;
    const payloadHash = body ? await sha256Hex(body) : EMPTY_SHA256;
    let retried = false;
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const credentials = await this.#currentCredentials();
        const signed = await signV4({ method, host: this.#host, path, query, headers, payloadHash, credentials, region: this.#region, signingKeys: this.#signingKeys });
        if (body) signed["content-type"] = "application/octet-stream";
        const response = await this.#fetch(url, { method, headers: signed, body, signal: AbortSignal.timeout(this.#timeoutMs) });
        const answer = { status: response.status, data: new Uint8Array(await response.arrayBuffer()), retried };
        if (answer.status < 400 || answer.status === 404 || answer.status === 412) return answer;
        const code = errorOf(answer).s3Code;
        if (EXPIRED_CODES.has(code) && typeof this.#credentials === "function" && !renewed) {
          renewed = true;
          this.#cached = null; // the next pass asks the function again
          attempt--; // a renewal is not a failure
          continue;
        }
        const transient = answer.status >= 500 || answer.status === 429 || RETRY_CODES.has(code);
        if (!transient || attempt >= this.#maxAttempts) return answer;
      } catch (e) {
        if (e instanceof CredentialsError || e instanceof EngramError) throw e; // not the network's fault: no retry
        // A network error or timeout: the request may or may not have reached the server.
        if (attempt >= this.#maxAttempts) throw e;
      }
      retried = true;
      // Full jitter: anywhere up to base * 2^attempt, capped, so racing clients spread out.
      await sleep(Math.random() * Math.min(this.#retryBaseMs * 2 ** attempt, 10_000));
    }
  }
}
