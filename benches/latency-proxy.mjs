// A delaying TCP proxy for the storage benches: it listens on a loopback port, forwards each
// connection to the real server (PostgreSQL, the S3 emulator) and holds every chunk it reads, in
// either direction, for half of `latencyMs` before writing it on, so each request-response round
// trip through it takes `latencyMs` more. Every chunk waits the same time, so one queue for all
// connections is ordered by due time and chunks leave in the order they came (an end of stream too).
//
// It runs in a worker thread: the bench's own thread is busy in wasm between requests, and a proxy
// on it would hold requests back while it is (a network does not). Node's timers count whole
// milliseconds, so a hold is a timer up to about 1 ms before its due time, then short sleeps
// (Atomics.wait, at most 0.25 ms each, letting new chunks in between) until it is due: 1 ms holds
// as well as 10 ms. `stats()` reports the holds it made, so a bench can print the delay it got.
//
//   const proxy = await startLatencyProxy({ port: 5432, latencyMs: 10 });
//   … connect to 127.0.0.1:proxy.port …
//   console.log(await proxy.stats()); await proxy.stop();
import { createConnection, createServer } from "node:net";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

/**
 * Starts a proxy to `host:port` adding `latencyMs` per round trip; resolves to `{port, stats(),
 * stop()}` (`stats()`: `{chunks, bytes, meanHoldMs, maxHoldMs}` over both directions).
 */
export async function startLatencyProxy({ host = "127.0.0.1", port, latencyMs }) {
  if (!(latencyMs >= 0)) throw new Error(`latency-proxy: latencyMs must be >= 0, got ${latencyMs}`);
  const worker = new Worker(new URL(import.meta.url), { workerData: { latencyProxy: { host, port, latencyMs } } });
  const replies = [];
  worker.on("message", (m) => replies.shift()?.(m));
  const ask = (m) =>
    new Promise((resolve, reject) => {
      replies.push(resolve);
      worker.once("error", reject);
      if (m) worker.postMessage(m);
    });
  const { listening } = await ask(null);
  return {
    port: listening,
    stats: () => ask({ stats: true }),
    async stop() {
      await ask({ stop: true });
      await worker.terminate();
    },
  };
}

/** The proxy itself, inside the worker. */
function runProxy({ host, port, latencyMs }) {
  const half = latencyMs / 2;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  /** Chunks waiting: {due, got, to, data} (data null: end `to`). */
  const queue = [];
  let next = 0;
  let timer = null;
  let pumping = false;
  const stats = { chunks: 0, bytes: 0, holdMs: 0, maxHoldMs: 0 };
  const sockets = new Set();

  const pending = () => queue.length - next;
  function release(now) {
    while (next < queue.length && queue[next].due <= now) {
      const { got, to, data } = queue[next];
      queue[next++] = undefined;
      if (to.destroyed) continue;
      if (data === null) {
        to.end();
        continue;
      }
      to.write(data);
      const held = now - got;
      stats.chunks++;
      stats.bytes += data.length;
      stats.holdMs += held;
      stats.maxHoldMs = Math.max(stats.maxHoldMs, held);
    }
    if (next > 1024 && next * 2 > queue.length) {
      queue.splice(0, next);
      next = 0;
    }
  }
  function pump() {
    timer = null;
    pumping = false;
    let now = performance.now();
    release(now);
    if (!pending()) return;
    const wait = queue[next].due - now;
    if (wait > 1.5) {
      timer = setTimeout(pump, Math.floor(wait - 1));
      return;
    }
    // Under a timer's resolution: sleep in short slices, reading new chunks between them.
    Atomics.wait(sleeper, 0, 0, Math.min(wait, 0.25));
    now = performance.now();
    release(now);
    if (pending()) {
      pumping = true;
      setImmediate(pump);
    }
  }
  function hold(to, data) {
    const got = performance.now();
    if (half === 0) {
      if (data === null) to.end();
      else to.write(data);
      return;
    }
    queue.push({ due: got + half, got, to, data });
    if (!timer && !pumping) pump();
  }

  const server = createServer({ noDelay: true }, (client) => {
    const upstream = createConnection({ host, port, noDelay: true });
    sockets.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      from.on("data", (d) => hold(to, d));
      from.on("end", () => hold(to, null));
      from.on("error", close);
      from.on("close", () => {
        if (client.destroyed && upstream.destroyed) close();
      });
    }
  });
  server.listen(0, "127.0.0.1", () => parentPort.postMessage({ listening: server.address().port }));
  parentPort.on("message", (m) => {
    if (m.stats) {
      const { chunks, bytes, holdMs, maxHoldMs } = stats;
      parentPort.postMessage({ chunks, bytes, meanHoldMs: chunks ? holdMs / chunks : 0, maxHoldMs });
    } else if (m.stop) {
      for (const s of sockets) s.destroy();
      server.close(() => parentPort.postMessage({ stopped: true }));
    }
  });
}

if (!isMainThread && workerData?.latencyProxy) runProxy(workerData.latencyProxy);
