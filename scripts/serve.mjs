// Serves the repo on 127.0.0.1 so www/index.html can load pkg/ as a browser would (no bundler).
//   node scripts/serve.mjs [port]
import { serveStatic } from "./serve-static.mjs";

const port = Number(process.argv[2] ?? 0);
const server = await serveStatic(undefined, port);
console.log(`Engram demo page: ${server.origin}/www/index.html  (Ctrl-C to stop)`);
