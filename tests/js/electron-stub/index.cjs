// Test-only stand-in for the parts of Electron the recipe in examples/electron/ uses, so its main
// process (main.mjs) and preload script (preload.cjs) run under Node from an install folder. It does
// what Electron does at those seams: ipcRenderer.invoke reaches the handler ipcMain registered, with
// arguments and result structured-cloned; `before-quit` listeners may preventDefault; app.quit()
// emits `before-quit` again unless a listener prevents it. `stub` lets the test drive and observe.
// One state per process, shared by the ESM and CJS entries.
const stub = (globalThis.__electronStub ??= (() => {
  let ready;
  const readyPromise = new Promise((ok) => (ready = ok));
  let quit;
  const quitPromise = new Promise((ok) => (quit = ok));
  return {
    ready,
    readyPromise,
    quit,
    quitPromise,
    listeners: new Map(),
    handlers: new Map(),
    windows: [],
    exposed: {},
    quitCalls: 0,
    userData: process.env.ELECTRON_STUB_USER_DATA,
  };
})());

function emit(event) {
  let prevented = false;
  const e = { preventDefault: () => (prevented = true) };
  for (const fn of stub.listeners.get(event) ?? []) fn(e);
  return !prevented;
}

const app = {
  whenReady: () => stub.readyPromise,
  getPath: (name) => {
    if (name !== "userData" || !stub.userData) throw new Error(`stub: no path for ${name}`);
    return stub.userData;
  },
  on(event, fn) {
    if (!stub.listeners.has(event)) stub.listeners.set(event, []);
    stub.listeners.get(event).push(fn);
    return app;
  },
  quit() {
    stub.quitCalls++;
    if (emit("before-quit")) stub.quit();
  },
};

class BrowserWindow {
  constructor(options) {
    this.options = options;
    this.loaded = null;
    stub.windows.push(this);
  }
  async loadFile(path) {
    this.loaded = path;
  }
}

const ipcMain = {
  handle(channel, fn) {
    if (stub.handlers.has(channel)) throw new Error(`stub: a second handler for ${channel}`);
    stub.handlers.set(channel, fn);
  },
  removeHandler: (channel) => stub.handlers.delete(channel),
};

const ipcRenderer = {
  async invoke(channel, ...args) {
    const handler = stub.handlers.get(channel);
    if (!handler) throw new Error(`Error invoking remote method '${channel}': No handler registered`);
    return structuredClone(await handler({ sender: {} }, ...structuredClone(args)));
  },
};

const contextBridge = { exposeInMainWorld: (key, api) => (stub.exposed[key] = api) };

module.exports = { app, BrowserWindow, ipcMain, ipcRenderer, contextBridge, net: { fetch: (...a) => fetch(...a) }, stub };
