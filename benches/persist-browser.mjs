// Chromium half of benches/persist.mjs: IndexedDBStorage open time, a fresh page per open.
import { serveStatic } from "../scripts/serve-static.mjs";
import { startBrowser } from "../tests/browser/harness.mjs";

/** For each `{n, file}` (a synthetic export served from the repo): import it into a fresh database
 *  once, then open the store `opens` times, each in a newly loaded page. */
export async function browserOpenTimes(sets, opens) {
  const server = await serveStatic();
  const browser = await startBrowser();
  const rows = [];
  try {
    for (const { n, file } of sets) {
      const db = `bench-${n}-${Date.now()}`;
      const url = (phase) => `${server.origin}/benches/persist.html?phase=${phase}&db=${db}&file=${encodeURIComponent(file)}`;
      await browser.goto(url("build"));
      const built = await browser.result();
      if (!built.ok) throw new Error(`browser build failed: ${built.failure}`);
      const e = [];
      for (let i = 0; i < opens; i++) {
        await browser.goto(url("open"));
        const r = await browser.result();
        if (!r.ok) throw new Error(`browser open failed: ${r.failure}`);
        if (r.memories !== n) throw new Error(`browser opened ${r.memories} memories, expected ${n}`);
        e.push(r.openMs);
      }
      await browser.goto(url("drop"));
      await browser.result();
      e.sort((a, b) => a - b);
      rows.push({ n, e, buildMs: built.buildMs });
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return rows;
}
