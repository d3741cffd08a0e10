// engram-wasm/s3 as a host uses it (compiled only: --noEmit).
import { Engram, encrypted, type StorageAdapter } from "engram-wasm";
import { s3, S3Storage, type S3Credentials, type S3Options } from "engram-wasm/s3";

const options: S3Options = {
  endpoint: "https://s3.eu-west-1.amazonaws.com",
  bucket: "my-bucket",
  prefix: "stores/alice/",
  region: "eu-west-1",
  credentials: { accessKeyId: "AKIA…", secretAccessKey: "…" },
  pageSize: 500,
  concurrency: 16,
  maxAttempts: 4,
  retryBaseMs: 50,
  timeoutMs: 10_000,
  fetch: (input, init) => fetch(input, init),
};
const fromVault = async (): Promise<S3Credentials> => ({ accessKeyId: "ASIA…", secretAccessKey: "…", sessionToken: "…", expiration: new Date(Date.now() + 3_600_000) });
const storage: StorageAdapter = s3(options);
const temporary = new S3Storage({ ...options, credentials: fromVault });
const created: Promise<boolean> = temporary.create(["k"], new Uint8Array(1));
const where: string = temporary.bucket + temporary.prefix;
const db: Promise<Engram> = Engram.open({ storage: encrypted(storage, new Uint8Array(32)) });
// @ts-expect-error: S3 has no lock
temporary.lock(async () => 1);
// @ts-expect-error: the bucket is required
s3({ endpoint: "http://127.0.0.1:9000", credentials: { accessKeyId: "a", secretAccessKey: "b" } });
export { created, where, db };
