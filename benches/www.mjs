// The demo page (www/) in headless Chromium from the local static server: time from navigation to
// a usable page (store open, panels filled, controls enabled: engramDemo.usableMs) on a first visit
// (fresh profile: the model is downloaded) and on the next visit (model from the Cache API), with
// keyword-only first visits (no model at all) as the peer; and the bytes the page loads, gzipped.
//   node benches/www.mjs [--runs 5]
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repo, serveStatic } from "../scripts/serve-static.mjs";
import { startBrowser } from "../tests/browser/harness.mjs";

const args = process.argv.slice(2);
const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 5;

const served = new Map();
let recording = false;
const server = await serveStatic(repo, 0, { onServe: (path, bytes) => recording && served.set(path, bytes) });

async function visit(browser, query) {
  await browser.goto(`${server.origin}/www/index.html?${query}`);
  const d = await browser.evalAsync(`(function poll(n) {
      const d = window.engramDemo;
      if (d?.ready && d.offlineReady) done(JSON.parse(JSON.stringify(d)));
      else if (d?.errors?.length || n > 2400) done({ failed: d?.errors ?? "timeout" });
      else setTimeout(() => poll(n + 1), 25);
    })(0);`);
  if (d.failed) throw new Error(`the page did not become usable: ${JSON.stringify(d.failed)}`);
  return d;
}

const times = { first: [], next: [], keyword: [] };
try {
  for (let i = 0; i < runs; i++) {
    const a = await startBrowser();
    try {
      recording = i === 0;
      const first = await visit(a, `db=bench-${i}`);
      recording = false;
      if (first.modelFromCache !== false) throw new Error("a fresh profile had the model cached");
      const next = await visit(a, `db=bench-${i}`);
      if (next.modelFromCache !== true) throw new Error("the second visit downloaded the model again");
      times.first.push(first.usableMs);
      times.next.push(next.usableMs);
    } finally {
      await a.close();
    }
    const b = await startBrowser();
    try {
      times.keyword.push((await visit(b, `db=bench-kw-${i}&embedder=none`)).usableMs);
    } finally {
      await b.close();
    }
  }
} finally {
  await server.close();
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const range = (xs) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
console.log(`runs: ${runs}`);
console.log("| visit | usable after, median ms | range ms |\n|---|---|---|");
for (const [name, label] of [
  ["keyword", "first visit, keyword-only (no model)"],
  ["first", "first visit, model downloaded"],
  ["next", "next visit, model from the Cache API"],
]) {
  console.log(`| ${label} | ${Math.round(median(times[name]))} | ${range(times[name])} |`);
}
console.log(`first ÷ next: ${(median(times.first) / median(times.next)).toFixed(2)}×; next ÷ keyword-only: ${(median(times.next) / median(times.keyword)).toFixed(2)}×`);

const groups = new Map();
for (const [path, bytes] of served) {
  const group = path.startsWith("/models/")
    ? "model files (model.onnx int8, tokenizer.json; kept by the page)"
    : path.endsWith(".wasm")
      ? "wasm"
      : path.startsWith("/www/")
        ? "page (HTML, CSS, JS, service worker)"
        : "package JS (browser build, worker scripts, wasm glue)";
  const gz = gzipSync(readFileSync(join(repo, path))).length;
  const g = groups.get(group) ?? { files: 0, bytes: 0, gz: 0 };
  groups.set(group, { files: g.files + 1, bytes: g.bytes + bytes, gz: g.gz + gz });
}
const kib = (n) => `${(n / 1024).toLocaleString("en", { maximumFractionDigits: 0 })} KiB`;
console.log("\n| first visit loads | files | bytes | gzip |\n|---|---|---|---|");
let code = { files: 0, bytes: 0, gz: 0 };
for (const [group, g] of groups) {
  console.log(`| ${group} | ${g.files} | ${kib(g.bytes)} | ${kib(g.gz)} |`);
  if (!group.startsWith("model")) code = { files: code.files + g.files, bytes: code.bytes + g.bytes, gz: code.gz + g.gz };
}
console.log(`| wasm + JS + page | ${code.files} | ${kib(code.bytes)} | ${kib(code.gz)} |`);
