// The CommonJS side of the package's types (`require`, resolved to index.d.cts / node-fs.d.cts /
// postgres.d.cts / s3.d.cts).
import engram = require("engram-wasm");
import nodeFs = require("engram-wasm/node-fs");
import pgStorage = require("engram-wasm/postgres");
import s3Entry = require("engram-wasm/s3");

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

/** engram-wasm/s3 through require (s3.d.cts). */
export function bucketStore(bucket: string): engram.StorageAdapter {
  return s3Entry.s3({ endpoint: "http://127.0.0.1:9000", bucket, credentials: { accessKeyId: "a", secretAccessKey: "b" } });
}
