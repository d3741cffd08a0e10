// engram-wasm/postgres as a TypeScript host uses it, with pg's own types: its Pool is a PostgresPool.
import pg from "pg";
import { Engram } from "engram-wasm";
import { postgres, type PostgresPool } from "engram-wasm/postgres";

export async function perTenant(userId: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  const asAdapterSees: PostgresPool = pool;
  const db = await Engram.open({ embedder: null, storage: postgres({ pool: asAdapterSees, store: `user:${userId}` }) });
  const shared = await Engram.open({ embedder: null, storage: postgres({ pool, store: "team" }) });
  // @ts-expect-error: one Client is not a pool (its connect() hands out no connection)
  postgres({ pool: new pg.Client(), store: "x" });
  const count = (await db.getAll()).length + (await shared.getAll()).length;
  await Promise.all([db.close(), shared.close()]);
  await pool.end();
  return count;
}
