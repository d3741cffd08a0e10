// The vector index build worker, started from the demo's folder for the same reason as
// engram-worker.js: so the service worker serves it offline.
import "../pkg/dist/engram.vector-worker.mjs";
