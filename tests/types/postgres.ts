// Compiled by `tsc -p tests/types`, never run: engram-wasm/postgres as a host uses it.
import { Engram, type StorageAdapter } from "engram-wasm";
import { PostgresStorage, postgres, type PostgresPool } from "engram-wasm/postgres";

export async function tenants(connectionString: string, pool: PostgresPool): Promise<number> {
  const own: StorageAdapter = postgres({ connectionString, store: "tenant-1", lockTimeoutMs: 5000 });
  const shared = new PostgresStorage({ pool, store: "tenant-2" });
  const name: string = shared.store;
  const db = await Engram.open({ embedder: null, storage: own });
  await db.add({ content: `stored as ${name}` });
  await db.close();
  const created: boolean = await shared.create(["k"], new Uint8Array([1]));
  // @ts-expect-error: the store's name is required
  postgres({ connectionString });
  // @ts-expect-error: one of connectionString and pool, not both
  postgres({ connectionString, pool, store: "x" });
  return created ? 1 : 0;
}
