// Recipe, Electron companion: the preload script. Exposes `window.memory` to the renderer with one
// method per IPC channel; an `{ok: false}` reply becomes an Error carrying Engram's code again.
const { contextBridge, ipcRenderer } = require("electron");

async function call(channel, ...args) {
  const reply = await ipcRenderer.invoke(channel, ...args);
  if (reply.ok) return reply.value;
  throw Object.assign(new Error(reply.error.message), { name: reply.error.code, code: reply.error.code });
}

contextBridge.exposeInMainWorld("memory", {
  add: (input, options) => call("memory:add", input, options),
  recall: (query, options) => call("memory:recall", query, options),
  search: (query, options) => call("memory:search", query, options),
  forget: (id) => call("memory:forget", id),
  stats: () => call("memory:stats"),
  chat: (sessionId, text) => call("memory:chat", sessionId, text),
});
