// Compiled by `tsc -p tests/types`, never run: encryption at rest as a host uses it.
import { Engram, MemoryStorage, decryptBytes, deriveKey, encryptBytes, encrypted, type EncryptionKey, type StorageAdapter } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

export async function encryptedStores(passphrase: string, salt: Uint8Array): Promise<Uint8Array> {
  const key: CryptoKey = await deriveKey(passphrase, salt, { iterations: 600_000 });
  const onDisk: StorageAdapter = encrypted(new NodeFSStorage("./engram-data"), key);
  const raw: EncryptionKey = crypto.getRandomValues(new Uint8Array(32));
  const inMemory = await Engram.open({ embedder: null, storage: encrypted(new MemoryStorage(), raw) });
  await inMemory.close();
  const db = await Engram.open({ embedder: null, storage: onDisk });
  const sealed = await encryptBytes(key, await db.export());
  await db.import(await decryptBytes(key, sealed));
  await db.close();
  return sealed;
}
