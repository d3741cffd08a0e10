// The ESM entry of the test-only Electron stand-in (index.cjs holds it).
import electron from "./index.cjs";
export const { app, BrowserWindow, ipcMain, ipcRenderer, contextBridge, net, stub } = electron;
export default electron;
