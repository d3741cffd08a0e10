// openInWorker's worker for the fault test: the package's worker, plus one test-only behaviour — an
// `add` whose content starts with "TRAP:" first makes the worker's current wasm instance trap at its
// next storage result (the first instance's glue, then each replacement's, by URL).
import "/pkg/dist/engram.worker.mjs";

let traps = 0;
const serve = self.onmessage;
// Messages are handed on in arrival order (arming a trap awaits an import), each without waiting
// for the one before it to finish, as the package's worker does.
let order = Promise.resolve();
self.onmessage = (event) => {
  order = order.then(async () => {
    const { method, args } = event.data ?? {};
    if (method === "add" && typeof args?.[0]?.content === "string" && args[0].content.startsWith("TRAP:")) {
      const url = traps === 0 ? "/pkg/dist/wasm-web/engram.js" : `/pkg/dist/wasm-web/engram.js?instance=${traps}`;
      traps++;
      (await import(url)).panicOnNextStorageResultForTests();
    }
    serve(event);
  });
};
