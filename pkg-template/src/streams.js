// Export files in slices: `import` reads any byte source into the core's ImportFeed a slice at a
// time, and `exportStream` hands the core's ExportCursor out as a ReadableStream, so neither the
// wasm memory nor the JS heap ever holds a whole file (a 100k-memory store exports ≈ 225 MB).

import { invalid } from "./errors.js";
import { is, readOptions } from "./options.js";

/** Bytes handed to the core per call: large enough that per-call costs vanish, small next to a file. */
export const SLICE_BYTES = 1 << 20;

const SOURCE_KINDS = "a Uint8Array, an ArrayBuffer, a Blob, a ReadableStream or an (async) iterable of Uint8Array chunks";

/** The byte length of a source that knows it (bytes, a Blob), else undefined. */
function sizeOf(source) {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return source.byteLength;
  if (source !== null && typeof source === "object" && typeof source.stream === "function" && typeof source.size === "number") return source.size;
  return undefined;
}

/** The chunks of `source`, each a Uint8Array (not yet sliced). */
async function* chunksOf(source) {
  if (source instanceof Uint8Array) {
    yield source;
  } else if (source instanceof ArrayBuffer) {
    yield new Uint8Array(source);
  } else if (typeof source === "string") {
    throw invalid(`import: an export file is binary; expected ${SOURCE_KINDS}, not a string`);
  } else if (source !== null && typeof source === "object" && typeof source.stream === "function" && typeof source.arrayBuffer === "function") {
    yield* chunksOf(source.stream()); // a Blob or File
  } else if (source !== null && typeof source === "object" && typeof source.getReader === "function") {
    const reader = source.getReader();
    let done = false;
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          done = true;
          return;
        }
        yield next.value;
      }
    } finally {
      // Stopped early (a defect in the file, a bad chunk): the source need not be read further.
      if (!done) await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  } else if (source !== null && typeof source === "object" && (typeof source[Symbol.asyncIterator] === "function" || typeof source[Symbol.iterator] === "function")) {
    for await (const chunk of source) yield chunk;
  } else {
    throw invalid(`import: expected ${SOURCE_KINDS}`);
  }
}

/**
 * Reads `source` into a new `glue.ImportFeed` in slices of at most SLICE_BYTES and checks the whole
 * file; resolves to the feed (the caller hands it to the core and frees it). A file longer than
 * `limit` bytes is InvalidInput as soon as that many have arrived; a defect is Corrupt as soon as it
 * is seen, and the rest of the source is not read. `progress` (progress.js) counts bytes; an abort
 * stops the reading between two slices.
 */
async function readExport(source, glue, limit, progress) {
  const feed = new glue.ImportFeed();
  try {
    let total = 0;
    const size = sizeOf(source);
    progress.report("read", 0, size ?? 0);
    for await (const chunk of chunksOf(source)) {
      if (!(chunk instanceof Uint8Array)) throw invalid("import: every chunk of the file must be a Uint8Array");
      total += chunk.byteLength;
      if (total > limit) throw invalid(`import: the file is over ${limit} bytes, the limit`);
      for (let at = 0; at < chunk.byteLength; at += SLICE_BYTES) {
        progress.check();
        const slice = chunk.subarray(at, at + SLICE_BYTES);
        feed.push(slice);
        progress.report("read", total - chunk.byteLength + at + slice.byteLength, Math.max(size ?? 0, total));
      }
    }
    feed.finish();
    return feed;
  } catch (e) {
    feed.free();
    throw e;
  }
}

/** A promise with its resolve and reject. */
/** @returns {{promise: Promise<any>, resolve: (value?: any) => void, reject: (reason?: any) => void}} */
function deferred() {
  /** @type {(value?: any) => void} */
  let resolve = () => {};
  /** @type {(reason?: any) => void} */
  let reject = () => {};
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

// A stream dropped unread would hold the store's queue for good: when it is collected, let go.
const dropped = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((end) => end()) : null;

/**
 * The export file as a ReadableStream of Uint8Array slices. `hold(work)` queues `work(core)` on the
 * store's call queue; it keeps the queue until the stream is read to its end, cancelled or fails,
 * so the file is one consistent state of the store. `toError` maps a failure to an EngramError.
 */
export function exportStream(hold, options, toError) {
  let namespace;
  try {
    namespace = exportNamespace(options, "exportStream");
  } catch (e) {
    return new ReadableStream({ start: (controller) => controller.error(e) });
  }
  const turn = deferred();
  turn.promise.catch(() => {}); // reported by the first read; a stream never read has no one to tell
  const finished = deferred();
  let cursor = null;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    try {
      cursor?.free();
    } catch {
      // a stopped instance: nothing to free
    }
    finished.resolve();
  };
  hold(async (core) => {
    turn.resolve(core);
    await finished.promise;
  }).catch((e) => turn.reject(e));
  const stream = new ReadableStream(
    {
      async pull(controller) {
        try {
          const core = await turn.promise;
          cursor ??= core.exportCursor(namespace);
          const slice = core.exportNext(cursor, SLICE_BYTES);
          if (slice === undefined) {
            end();
            controller.close();
          } else {
            controller.enqueue(slice);
          }
        } catch (e) {
          end();
          controller.error(toError(e));
        }
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: 0 },
  );
  dropped?.register(stream, end);
  return stream;
}

/**
 * `import(source)` as one write through `write(prepare, commit)`: the file read into a feed outside
 * the storage lock, merged under it (unless the signal aborted meanwhile), the feed freed either way.
 */
export async function importExport(write, source, glue, limit, progress) {
  const out = await write(
    () => readExport(source, glue, limit, progress),
    async (core, feed) => {
      try {
        progress.check();
        return JSON.parse(await core.importFeed(feed));
      } finally {
        feed.free();
      }
    },
  );
  progress.finish("write");
  return out;
}

const EXPORT_OPTIONS = Object.freeze({ namespace: is.nameOrNull });

/** The namespace of `export` / `exportStream` options (undefined: the whole store). */
export function exportNamespace(options, what) {
  return readOptions(options, what, EXPORT_OPTIONS).namespace ?? undefined;
}
