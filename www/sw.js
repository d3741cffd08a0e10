// The demo's service worker: keeps the page's own files (the page, its modules, the package's
// browser build, worker scripts and wasm) so a reload works with the network unplugged. The model
// files are not kept here: the embedder keeps them in its own Cache API store (engram-models-v1).
// Registered as sw.js?pkg=<the package's dist/ URL>, taken from the page's import map.
const CACHE = "engram-www-v1";
const here = new URL("./", self.location.href);
const pkg = new URL(new URL(self.location.href).searchParams.get("pkg") ?? "../pkg/dist/", here);

const PAGE_FILES = ["index.html", "style.css", "app.js", "config.js", "render.js", "sample.js", "settings.js", "engram-worker.js", "vector-worker.js"];
const PKG_FILES = ["engram.browser.mjs", "engram.worker.mjs", "engram.vector-worker.mjs", "wasm-web/engram.js", "wasm-web/engram_bg.wasm"];
const FILES = [...PAGE_FILES.map((f) => new URL(f, here).href), ...PKG_FILES.map((f) => new URL(f, pkg).href)];
const KEPT = new Set(FILES);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("engram-www-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

// Network first, so an updated page is picked up while online; the kept copy when the network fails.
self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  url.search = "";
  const key = request.mode === "navigate" && url.href.startsWith(here.href) ? new URL("index.html", here).href : url.href;
  if (!KEPT.has(key) && request.mode !== "navigate") return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok && KEPT.has(key)) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
        }
        return response;
      })
      .catch(async () => (await caches.match(key)) ?? Response.error()),
  );
});
