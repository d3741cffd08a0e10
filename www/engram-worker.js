// The engine's worker, started from here rather than from the package's folder: a worker's script is
// matched to a service worker by its own URL, and only this folder is the demo's service-worker
// scope, so only a worker started from here is served offline. Keep the path in step with the import
// map in index.html (workers have no import maps).
import "../pkg/dist/engram.worker.mjs";
