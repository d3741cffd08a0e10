// NodeFSStorage: a StorageAdapter (see adapter.js) over a directory, for Node (and Electron's main
// process). Node-only: it is its own package entry, `engram-wasm/node-fs`, so browser bundles never
// see `fs`.
//
// Layout: key ["a", "b", "c"] is the file <dir>/a/b/c.rec, i.e. every segment but the last is a
// directory and the last one names the record file. The ".rec" suffix keeps a record and a
// directory of the same segment apart, so ["a"] and ["a", "b"] can both exist (a/ and a.rec).
// Segments are escaped so that any string is a safe, collision-free file name, also on
// case-insensitive file systems (macOS, Windows): everything outside [a-z0-9_-] becomes %XX (code
// units below 0x100, upper-case hex) or %uXXXX, so "." and ".." and "/" can never reach the path, no
// name starts with ".", and upper-case letters are escaped too. Names starting with "." are ours
// (temp files, the lock) and are never records; other names that are not canonical escapes are
// ignored.
//
// Writes are atomic: a temp file ".<name>.tmp-<pid>-<random>" in the same directory, renamed over the
// record (`create`: hard-linked to the record's name, which fails if it exists). "strict" durability fsyncs the temp file before the rename and the directory after it (and
// every directory it had to create), so an acknowledged save or remove survives a power loss.
// "relaxed" does no fsync: a save is acknowledged once the OS has it (it survives the process
// crashing, not a power loss) and `flush()` fsyncs every file and directory written since the last
// flush. After a power loss without a flush, a relaxed record may be missing, old, or torn.

import { link, mkdir, open, readdir, readFile, readlink, rename, rm, stat, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { hostname, uptime } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { threadId } from "node:worker_threads";
import { EngramError, invalid } from "../errors.js";
import { checkKey, checkLockFn, compareKeys, copyData, describeKey, runExclusive, storageError } from "./adapter.js";

const REC = ".rec";
const LOCK = ".lock";
const OWNER = "owner";
const DURABILITIES = new Set(["relaxed", "strict"]);
const OPTIONS = new Set(["durability", "lockTimeoutMs"]);
/** Longest escaped segment: with ".rec" and the temp-file decoration it stays under NAME_MAX (255). */
const MAX_SEGMENT = 200;
/**
 * A lock directory without a readable owner this old is a leftover: locks are published with their
 * owner record inside (older versions made the directory first and could die before writing it).
 */
const OWNERLESS_STALE_MS = 2_000;
/** File systems without hard links (some network and FUSE mounts): `create` writes in place. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);
/** A lock taken more than this before the machine booted cannot be held by a live process. */
const BOOT_SLACK_MS = 60_000;
const IO_PARALLELISM = 16;

// Shared by every copy of this module in this thread (the ESM and CJS builds can both be loaded): a
// mutex per store directory, and the nonces of the locks this thread holds right now. Worker threads
// have their own globalThis, so each has its own registry: that is why lock owners name their thread.
const LOCKS_KEY = Symbol.for("engram.NodeFSStorage.locks");
const registry = (globalThis[LOCKS_KEY] ??= { mutexes: new Map(), held: new Set() });

// --- Segment escaping --------------------------------------------------------------------------

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const hex = (n, width) => n.toString(16).toUpperCase().padStart(width, "0");
const isSafe = (c) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;

/** A key segment as a file name: injective, no "/", no leading ".", no upper case, never a Windows device name. */
export function encodeSegment(segment) {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (isSafe(c)) out += segment[i];
    else if (c < 0x100) out += `%${hex(c, 2)}`;
    else out += `%u${hex(c, 4)}`;
  }
  // "con" → "%63on": still decodes to "con", and is an ordinary name on Windows.
  if (WINDOWS_RESERVED.test(out)) out = `%${hex(out.charCodeAt(0), 2)}${out.slice(1)}`;
  return out;
}

/** The segment a file name encodes, or null if the name is not exactly what `encodeSegment` makes. */
export function decodeSegment(name) {
  let out = "";
  for (let i = 0; i < name.length;) {
    const c = name.charCodeAt(i);
    if (c !== 0x25) {
      if (!isSafe(c)) return null;
      out += name[i++];
    } else if (name[i + 1] === "u") {
      const h = name.slice(i + 2, i + 6);
      if (!/^[0-9A-F]{4}$/.test(h)) return null;
      out += String.fromCharCode(parseInt(h, 16));
      i += 6;
    } else {
      const h = name.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(h)) return null;
      out += String.fromCharCode(parseInt(h, 16));
      i += 3;
    }
  }
  // Only the canonical spelling counts (so "%61" is not a second name for "a").
  return out !== "" && encodeSegment(out) === name ? out : null;
}

// --- File-system helpers -----------------------------------------------------------------------

const absent = (e) => e?.code === "ENOENT" || e?.code === "ENOTDIR";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** fsyncs a directory so the entries created, renamed or removed in it are durable. */
async function syncDir(path) {
  let fh;
  try {
    fh = await open(path, "r");
    await fh.sync();
  } catch (e) {
    // Windows cannot open a directory for flushing; NTFS journals its metadata itself.
    if (process.platform === "win32" && ["EISDIR", "EPERM", "EACCES"].includes(e?.code)) return;
    throw e;
  } finally {
    await fh?.close();
  }
}

async function syncFile(path) {
  const fh = await open(path, "r+"); // writable: Windows' FlushFileBuffers needs write access
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** rename, retrying briefly on Windows where a reader holding the target open makes it fail. */
async function renameOver(from, to) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await rename(from, to);
    } catch (e) {
      if (process.platform !== "win32" || attempt >= 20 || !["EPERM", "EACCES", "EBUSY"].includes(e?.code)) throw e;
      await sleep(5 * (attempt + 1));
    }
  }
}

/** A record's bytes as a plain Uint8Array, or undefined if it is not there. */
async function readRecord(path) {
  let buf;
  try {
    buf = await readFile(path);
  } catch (e) {
    if (absent(e)) return undefined;
    throw e;
  }
  // A plain Uint8Array over exactly these bytes (never a view into a shared pool).
  return buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength ? new Uint8Array(buf.buffer, 0, buf.byteLength) : new Uint8Array(buf);
}

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

// --- Lock helpers --------------------------------------------------------------------------------

const GONE = Symbol("gone");

/**
 * The owner record of the lock at `lockPath` — a file holding it, or (made by older versions) a
 * directory with an `owner` file; null if unreadable (being written, or torn); GONE if no lock.
 */
async function readOwner(lockPath) {
  let text;
  try {
    text = await readFile(lockPath, "utf8");
  } catch (e) {
    if (e?.code === "EISDIR") return readLegacyOwner(lockPath);
    if (absent(e)) return GONE;
    throw e;
  }
  return parseOwner(text);
}

async function readLegacyOwner(lockDir) {
  let text;
  try {
    text = await readFile(join(lockDir, OWNER), "utf8");
  } catch (e) {
    if (!absent(e)) throw e;
    try {
      await stat(lockDir);
      return null;
    } catch (e2) {
      if (absent(e2)) return GONE;
      throw e2;
    }
  }
  return parseOwner(text);
}

function parseOwner(text) {
  try {
    const owner = JSON.parse(text);
    return Number.isInteger(owner?.pid) && typeof owner.hostname === "string" && typeof owner.nonce === "string" ? owner : null;
  } catch {
    return null;
  }
}

function describeOwner(owner) {
  if (!owner || owner === GONE) return "a process that has not yet written its owner record";
  const thread = owner.threadId ? ` (thread ${owner.threadId})` : "";
  return `pid ${owner.pid}${thread} on host ${owner.hostname}, since ${new Date(owner.acquiredAt).toISOString()}`;
}

let ownPidNamespace;
/**
 * The PID namespace this process runs in (Linux: "pid:[4026531836]"), or null where there is no such
 * thing. Containers sharing a volume (and often a host name) each have their own: a pid seen from one
 * says nothing about a process in another.
 */
async function pidNamespace() {
  if (process.platform !== "linux") return null;
  try {
    return await readlink("/proc/self/ns/pid");
  } catch {
    return null;
  }
}

let ownStart;
/** When the process `pid` started (Linux: clock ticks since boot), or null if that cannot be known. */
async function processStart(pid) {
  if (process.platform !== "linux") return null;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Field 22; the command name (field 2) may hold spaces and parentheses, so count after its ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** True if the process `pid` on this host is gone. */
function isDead(pid) {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return e?.code === "ESRCH"; // EPERM: alive, someone else's
  }
}

// --- The adapter ---------------------------------------------------------------------------------

export class NodeFSStorage {
  #root;
  #strict;
  #lockTimeoutMs;
  /** relaxed: what flush() must fsync. */
  #dirtyFiles = new Set();
  #dirtyDirs = new Set();

  /**
   * @param {string | URL} dir the store's directory (created on first write).
   * @param {{durability?: "strict" | "relaxed", lockTimeoutMs?: number}} [options] `durability`
   *   ("strict" by default: every acknowledged write is on disk); `lockTimeoutMs`: how long `lock`
   *   waits for another process before rejecting (10000).
   */
  constructor(dir, options = {}) {
    if (dir instanceof URL) dir = fileURLToPath(dir);
    if (typeof dir !== "string" || dir === "") throw invalid("NodeFSStorage: dir must be a non-empty path or a file: URL");
    if (options === null || typeof options !== "object") throw invalid("NodeFSStorage: expected an options object");
    for (const k of Object.keys(options)) {
      if (!OPTIONS.has(k)) throw invalid(`NodeFSStorage: unknown option \`${k}\` (allowed: ${[...OPTIONS].join(", ")})`);
    }
    const { durability = "strict", lockTimeoutMs = 10_000 } = options;
    if (!DURABILITIES.has(durability)) throw invalid(`NodeFSStorage: durability must be "strict" or "relaxed", got ${JSON.stringify(durability)}`);
    if (typeof lockTimeoutMs !== "number" || !(lockTimeoutMs >= 0) || lockTimeoutMs === Infinity) {
      throw invalid("NodeFSStorage: lockTimeoutMs must be a finite number ≥ 0");
    }
    this.#root = resolve(dir);
    this.#strict = durability === "strict";
    this.#lockTimeoutMs = lockTimeoutMs;
  }

  /** The store's directory, absolute. */
  get dir() {
    return this.#root;
  }

  get durability() {
    return this.#strict ? "strict" : "relaxed";
  }

  async load(key) {
    key = checkKey(key, "load");
    const path = this.#recordPath(key, "load");
    try {
      return await readRecord(path);
    } catch (e) {
      throw storageError("load", key, e);
    }
  }

  async save(key, data) {
    key = checkKey(key, "save");
    const bytes = copyData(data, "save", key); // now, before any await: the caller may reuse `data`
    const path = this.#recordPath(key, "save");
    try {
      await this.#writeAtomic(path, bytes);
    } catch (e) {
      throw storageError("save", key, e);
    }
  }

  /**
   * Saves only if the record does not exist: the temp file is hard-linked into place, which fails
   * if the name is taken (atomic across threads and processes; readers see the whole record or
   * none). On a file system without hard links, the record is created with O_EXCL and written in
   * place.
   */
  async create(key, data) {
    key = checkKey(key, "create");
    const bytes = copyData(data, "create", key);
    const path = this.#recordPath(key, "create");
    try {
      return await this.#createExclusive(path, bytes);
    } catch (e) {
      throw storageError("create", key, e);
    }
  }

  async remove(key) {
    key = checkKey(key, "remove");
    const path = this.#recordPath(key, "remove");
    try {
      await unlink(path);
    } catch (e) {
      if (absent(e)) return;
      throw storageError("remove", key, e);
    }
    try {
      await this.#touched(dirname(path));
    } catch (e) {
      throw storageError("remove", key, e);
    }
  }

  async loadRange(prefix) {
    prefix = checkKey(prefix, "loadRange", { prefix: true });
    const names = this.#encode(prefix, "loadRange");
    const out = [];
    try {
      if (prefix.length > 0) {
        const data = await readRecord(this.#recordPath(prefix, "loadRange"));
        if (data) out.push({ key: prefix, data });
      }
      await this.#walk(join(this.#root, ...names), prefix, out);
    } catch (e) {
      throw storageError("loadRange", prefix, e);
    }
    return out.sort((a, b) => compareKeys(a.key, b.key));
  }

  async removeRange(prefix) {
    prefix = checkKey(prefix, "removeRange", { prefix: true });
    const names = this.#encode(prefix, "removeRange");
    try {
      let parent;
      if (prefix.length === 0) {
        // Every record and record directory; never the lock, nor files that are not ours.
        parent = this.#root;
        let entries;
        try {
          entries = await readdir(parent);
        } catch (e) {
          if (absent(e)) return;
          throw e;
        }
        const ours = entries.filter((n) => decodeSegment(n.endsWith(REC) ? n.slice(0, -REC.length) : n) !== null);
        await eachLimited(ours, IO_PARALLELISM, (n) => rm(join(parent, n), { recursive: true, force: true }));
      } else {
        parent = join(this.#root, ...names.slice(0, -1));
        const last = names[names.length - 1];
        await rm(join(parent, last + REC), { force: true });
        await rm(join(parent, last), { recursive: true, force: true });
      }
      try {
        await this.#touched(parent);
      } catch (e) {
        if (!absent(e)) throw e; // no such directory: nothing was there to remove
      }
    } catch (e) {
      throw storageError("removeRange", prefix, e);
    }
  }

  /** Nothing is held open between calls. */
  async close() {}

  /**
   * Makes every save and remove acknowledged so far durable: fsyncs the files and directories that
   * relaxed writes touched since the last flush (strict writes are already durable).
   */
  async flush() {
    const files = [...this.#dirtyFiles];
    const dirs = [...this.#dirtyDirs];
    this.#dirtyFiles.clear();
    this.#dirtyDirs.clear();
    const ignoreAbsent = (e) => {
      if (!absent(e)) throw e; // removed since: its directory's fsync covers that
    };
    try {
      // Data first, then the directory entries naming it.
      await eachLimited(files, IO_PARALLELISM, (f) => syncFile(f).catch(ignoreAbsent));
      await eachLimited(dirs, IO_PARALLELISM, (d) => syncDir(d).catch(ignoreAbsent));
    } catch (e) {
      for (const f of files) this.#dirtyFiles.add(f);
      for (const d of dirs) this.#dirtyDirs.add(d);
      throw storageError("flush", undefined, e);
    }
  }

  /**
   * Runs `fn` holding the store's writer lock: exclusive across processes (the directory
   * <dir>/.lock, made atomically by mkdir, with an `owner` record: pid, host, start times) and
   * across instances in this process. A lock whose holder died (same host: its pid is gone, or was
   * reused by a process started later, or the lock predates the last boot) is taken over. Waits up to
   * `lockTimeoutMs`, then rejects with `Storage` saying who holds it.
   */
  async lock(fn) {
    checkLockFn(fn);
    return runExclusive(registry.mutexes, this.#root, async () => {
      const token = await this.#acquire();
      let result;
      try {
        result = await fn();
      } catch (e) {
        await this.#release(token).catch(() => {}); // fn's error is the one to report
        throw e;
      }
      try {
        await this.#release(token);
      } catch (e) {
        throw storageError(`lock: releasing ${join(this.#root, LOCK)}`, undefined, e);
      }
      return result;
    });
  }

  // --- internals -------------------------------------------------------------------------------

  /** The escaped segments of `key`; InvalidInput if one is too long for a file name. */
  #encode(key, what) {
    return key.map((segment, i) => {
      const name = encodeSegment(segment);
      if (name.length > MAX_SEGMENT) {
        throw invalid(`${what}: key segment ${i} of ${describeKey(key).slice(0, 80)}… is too long for a file name (${name.length} characters escaped, at most ${MAX_SEGMENT})`);
      }
      return name;
    });
  }

  #recordPath(key, what) {
    const names = this.#encode(key, what);
    names[names.length - 1] += REC;
    return join(this.#root, ...names);
  }

  /** After an entry of `dir` changed: fsync it now (strict) or at the next flush (relaxed). */
  async #touched(dir) {
    if (this.#strict) await syncDir(dir);
    else this.#dirtyDirs.add(dir);
  }

  /** Creates `dir` and its missing parents, making the new entries durable as the mode says. */
  async #ensureDir(dir) {
    const first = await mkdir(dir, { recursive: true }); // the topmost directory created, if any
    if (first === undefined) return;
    // Each new directory's entry lives in its parent: those parents are what must be synced.
    const parents = [];
    for (let d = dir; ; d = dirname(d)) {
      parents.push(dirname(d));
      if (d === first || dirname(d) === d) break;
    }
    if (this.#strict) for (const p of parents.reverse()) await syncDir(p);
    else for (const p of parents) this.#dirtyDirs.add(p);
  }

  /** `bytes` in a fresh temp file beside `path` (same directory, so a rename or link stays on one filesystem). */
  #writeTemp(path, bytes) {
    return this.#writeFileNew(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`, bytes);
  }

  async #writeAtomic(path, bytes) {
    const temp = await this.#writeTemp(path, bytes);
    try {
      await renameOver(temp, path);
    } catch (e) {
      await unlink(temp).catch(() => {});
      throw e;
    }
    await this.#written(path);
  }

  /** True if it wrote `path`, false if `path` existed (nothing written). */
  async #createExclusive(path, bytes) {
    const temp = await this.#writeTemp(path, bytes);
    try {
      await link(temp, path);
    } catch (e) {
      if (e?.code === "EEXIST") return false;
      if (!NO_LINKS.has(e?.code)) throw e;
      try {
        await this.#writeFileNew(dirname(path), basename(path), bytes);
      } catch (e2) {
        if (e2?.code === "EEXIST") return false;
        throw e2;
      }
    } finally {
      await unlink(temp).catch(() => {});
    }
    await this.#written(path);
    return true;
  }

  /** Creates `dir/name` (failing with EEXIST if it exists), writes `bytes`, and fsyncs it (strict). */
  async #writeFileNew(dir, name, bytes) {
    await this.#ensureDir(dir);
    const path = join(dir, name);
    let fh;
    try {
      fh = await open(path, "wx");
    } catch (e) {
      if (e?.code !== "ENOENT") throw e;
      await this.#ensureDir(dir); // removed under us (a concurrent removeRange): once more
      fh = await open(path, "wx");
    }
    try {
      try {
        await fh.writeFile(bytes);
        if (this.#strict) await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (e) {
      await unlink(path).catch(() => {});
      throw e;
    }
    return path;
  }

  /** After a record file was put in place: its directory entry durable now (strict) or at flush. */
  async #written(path) {
    if (this.#strict) {
      await syncDir(dirname(path));
    } else {
      this.#dirtyFiles.add(path);
      this.#dirtyDirs.add(dirname(path));
    }
  }

  /** Appends every record under directory `dir` (whose key is `key`) to `out`. */
  async #walk(dir, key, out) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (absent(e)) return;
      throw e;
    }
    const files = [];
    for (const entry of entries) {
      const name = entry.name;
      if (name.startsWith(".")) continue; // temp files, the lock: never records
      if (entry.isDirectory()) {
        const segment = decodeSegment(name);
        if (segment !== null) await this.#walk(join(dir, name), [...key, segment], out);
      } else if (entry.isFile() && name.endsWith(REC)) {
        const segment = decodeSegment(name.slice(0, -REC.length));
        if (segment !== null) files.push({ path: join(dir, name), key: [...key, segment] });
      }
    }
    await eachLimited(files, IO_PARALLELISM, async ({ path, key: k }) => {
      const data = await readRecord(path);
      if (data) out.push({ key: k, data }); // gone meanwhile: a concurrent remove
    });
  }

  async #acquire() {
    const lockPath = join(this.#root, LOCK);
    const deadline = Date.now() + this.#lockTimeoutMs;
    let backoff = 2;
    try {
      await mkdir(this.#root, { recursive: true });
    } catch (e) {
      throw storageError(`lock: creating ${this.#root}`, undefined, e);
    }
    for (;;) {
      const token = {
        pid: process.pid,
        threadId,
        hostname: hostname(),
        pidNamespace: (ownPidNamespace ??= await pidNamespace()),
        nonce: randomBytes(8).toString("hex"),
        acquiredAt: Date.now(),
        processStartedAt: Math.round(Date.now() - process.uptime() * 1000),
        processStart: (ownStart ??= await processStart(process.pid)),
      };
      if (await this.#publishLock(lockPath, token)) {
        registry.held.add(token.nonce);
        return token;
      }
      let owner;
      try {
        owner = await readOwner(lockPath);
        if (owner === GONE) continue; // released meanwhile
        if (await this.#isStale(lockPath, owner)) {
          await this.#steal(lockPath, owner);
          continue;
        }
      } catch (e) {
        throw storageError(`lock: inspecting ${lockPath}`, undefined, e);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new EngramError(
          "Storage",
          `storage: lock on ${this.#root} not acquired within ${this.#lockTimeoutMs} ms: held by ${describeOwner(owner)}; if that process is gone (e.g. it ran on another host or container), delete ${lockPath}`,
        );
      }
      await sleep(Math.min(left, backoff * (0.5 + Math.random())));
      backoff = Math.min(backoff * 2, 200);
    }
  }

  /**
   * Takes the lock if it is free: the owner record is written aside and hard-linked into place as
   * the lock file, which fails if any lock (file, or an older version's directory) is there. So the
   * lock never exists without its owner, and a holder never cleans up anything but its own file.
   * False if the lock is held.
   */
  async #publishLock(lockPath, token) {
    const prepared = join(this.#root, `${LOCK}.new-${token.nonce}`);
    try {
      const fh = await open(prepared, "wx");
      try {
        await fh.writeFile(JSON.stringify(token));
      } finally {
        await fh.close();
      }
      try {
        await link(prepared, lockPath);
      } catch (e) {
        if (!NO_LINKS.has(e?.code)) throw e;
        // No hard links here: create the lock exclusively and write into it (readers may find it
        // empty for a moment, and wait).
        const lock = await open(lockPath, "wx");
        try {
          await lock.writeFile(JSON.stringify(token));
        } finally {
          await lock.close();
        }
      }
      return true;
    } catch (e) {
      if (e?.code === "EEXIST") return false;
      throw storageError(`lock: creating ${lockPath}`, undefined, e);
    } finally {
      await unlink(prepared).catch(() => {});
    }
  }

  /** True when the lock's holder is certainly gone. */
  async #isStale(lockPath, owner) {
    if (owner === null) {
      // No readable owner: the holder is between mkdir and writing it, or died there.
      try {
        return Date.now() - (await stat(lockPath)).mtimeMs > OWNERLESS_STALE_MS;
      } catch (e) {
        if (absent(e)) return false; // gone: the next mkdir will tell
        throw e;
      }
    }
    if (owner.hostname !== hostname()) return false; // cannot look at another machine's processes
    // Nor into another container's: its pids are not ours (an owner from before this field: same host).
    ownPidNamespace ??= await pidNamespace();
    if (typeof owner.pidNamespace === "string" && owner.pidNamespace !== ownPidNamespace) return false;
    if (typeof owner.acquiredAt === "number" && owner.acquiredAt < Date.now() - uptime() * 1000 - BOOT_SLACK_MS) return true;
    if (owner.pid === process.pid) {
      // Another thread of this process holds it while this process lives; this thread knows its own.
      if ((owner.threadId ?? 0) !== threadId) return false;
      return !registry.held.has(owner.nonce);
    }
    if (isDead(owner.pid)) return true;
    // Alive, but is it the same process? (Linux: a reused pid has another start time.)
    if (typeof owner.processStart === "string") {
      const now = await processStart(owner.pid);
      if (now !== null && now !== owner.processStart) return true;
    }
    return false;
  }

  /**
   * Takes over a stale lock: renames it aside (atomic: of several stealers one wins), checks that
   * what it moved is the lock it judged stale, and removes it. If a live holder took the lock in
   * between, its lock is put back.
   */
  async #steal(lockPath, owner) {
    const aside = join(this.#root, `${LOCK}.stale-${process.pid}-${randomBytes(6).toString("hex")}`);
    try {
      await rename(lockPath, aside);
    } catch (e) {
      if (absent(e)) return; // someone else moved it first
      throw e;
    }
    const moved = await readOwner(aside);
    const same = moved === GONE || (moved === null ? owner === null : owner !== null && moved.nonce === owner.nonce);
    if (!same) {
      try {
        // Put back only where the place is still free: a link (a lock file) or a rename of a
        // directory (an older version's lock) fails if someone took the lock meanwhile.
        if ((await stat(aside)).isDirectory()) await rename(aside, lockPath);
        else await link(aside, lockPath);
        await unlink(aside).catch(() => {});
        return;
      } catch {
        // a third process took the free lock meanwhile: the holder we moved will find its lock
        // gone at release; a commit it makes still cannot overwrite another's (see `create`)
      }
    }
    await rm(aside, { recursive: true, force: true });
  }

  async #release(token) {
    registry.held.delete(token.nonce);
    const lockPath = join(this.#root, LOCK);
    const owner = await readOwner(lockPath);
    if (owner === GONE || owner === null || owner.nonce !== token.nonce) return; // taken over: not ours to remove
    // Renamed away first so the lock disappears in one step, then deleted.
    const aside = join(this.#root, `${LOCK}.released-${process.pid}-${token.nonce}`);
    await rename(lockPath, aside);
    await rm(aside, { recursive: true, force: true });
  }
}
