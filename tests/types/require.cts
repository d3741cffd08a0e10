// The CommonJS side of the package's types (`require`, resolved to index.d.cts / node-fs.d.cts /
// postgres.d.cts).
import engram = require("engram-wasm");
import nodeFs = require("engram-wasm/node-fs");
import pgStorage = require("engram-wasm/postgres");

export async function openOnDisk(dir: string): Promise<engram.MemoryItem[]> {
  const db = await engram.Engram.open({ embedder: null, storage: new nodeFs.NodeFSStorage(dir) });
  try {
    return await db.getAll({ limit: 10 });
  } catch (e) {
    throw e instanceof engram.EngramError ? new engram.EngramError(e.code, `reading ${dir}: ${e.message}`, { cause: e }) : e;
  } finally {
    await db.close();
  }
}

export function tenantStore(connectionString: string, store: string): engram.StorageAdapter {
  return pgStorage.postgres({ connectionString, store });
}
