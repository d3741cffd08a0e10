// A real S3-compatible server for the S3 adapter's tests: moto's server (an S3 emulator, PyPI
// `moto[s3]`, installed by scripts/setup.sh into a venv), started on a free port and stopped after.
// No MinIO, Garage or SeaweedFS installs from the package registries here; moto implements the parts
// the adapter relies on: SigV4, conditional PUT (`If-None-Match: *`, atomic), ListObjectsV2 paging.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { signV4, uriEncode } from "../../pkg-template/src/storage/s3.js";

export const motoVenv = process.env.ENGRAM_MOTO_VENV ?? join(homedir(), ".cache", "engram", "moto-venv");
export const CREDENTIALS = Object.freeze({ accessKeyId: "AKIAENGRAMTEST", secretAccessKey: "engram-test-secret" });
export const REGION = "us-east-1";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts moto_server on a free port; resolves to `{endpoint, stop()}`, or rejects saying why it
 * could not (not installed, did not come up).
 */
export async function startS3Server() {
  const bin = join(motoVenv, "bin", "moto_server");
  if (!existsSync(bin)) throw new Error(`moto_server not found at ${bin}: run scripts/setup.sh (or set ENGRAM_MOTO_VENV)`);
  let lastError;
  for (let tries = 0; tries < 3; tries++) {
    const port = await freePort();
    // The binary itself (not a wrapper), so killing this pid stops the server.
    const child = spawn(bin, ["-H", "127.0.0.1", "-p", String(port)], { stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    child.stderr.on("data", (d) => (log = (log + d).slice(-4000)));
    let exited = false;
    child.once("exit", () => (exited = true));
    const endpoint = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    while (!exited && Date.now() < deadline) {
      try {
        const r = await fetch(`${endpoint}/moto-api/`);
        await r.body?.cancel();
        const stop = () =>
          new Promise((resolve) => {
            if (exited || child.exitCode !== null) return resolve(undefined);
            child.once("exit", () => resolve(undefined));
            child.kill("SIGTERM");
          });
        return { endpoint, stop };
      } catch {
        await sleep(100);
      }
    }
    child.kill("SIGKILL");
    lastError = new Error(`moto_server on port ${port} did not come up${exited ? " (it exited)" : ""}: ${log.trim().split("\n").slice(-5).join(" | ")}`);
  }
  throw lastError;
}

/**
 * A signed request straight to the server (bucket creation, raw listings), outside the adapter.
 * `path` is "/bucket" or "/bucket/object" (unencoded).
 */
export async function s3Request(endpoint, method, path, { query = {}, body } = {}) {
  const url = new URL(endpoint);
  const encodedPath = uriEncode(path, true);
  const payload = body ?? new Uint8Array(0);
  const payloadHash = Buffer.from(await crypto.subtle.digest("SHA-256", payload)).toString("hex");
  const headers = await signV4({ method, host: url.host, path: encodedPath, query, payloadHash, credentials: CREDENTIALS, region: REGION });
  const search = Object.entries(query)
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .join("&");
  return fetch(`${url.origin}${encodedPath}${search ? "?" + search : ""}`, { method, headers, body: body ?? undefined });
}

/** Creates `bucket` on the server (a signed PUT Bucket). */
export async function createBucket(endpoint, bucket) {
  const r = await s3Request(endpoint, "PUT", `/${bucket}`);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`creating bucket ${bucket}: HTTP ${r.status} ${text}`);
}

/** Every object name in `bucket` with its bytes (raw: what the server stores). */
export async function rawObjects(endpoint, bucket) {
  const out = [];
  let token;
  do {
    const query = { "list-type": "2", ...(token && { "continuation-token": token }) };
    const r = await s3Request(endpoint, "GET", `/${bucket}`, { query });
    const xml = await r.text();
    if (r.status !== 200) throw new Error(`listing ${bucket}: HTTP ${r.status} ${xml}`);
    for (const [, name] of xml.matchAll(/<Key>([^<]*)<\/Key>/g)) {
      const object = name.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
      const got = await s3Request(endpoint, "GET", `/${bucket}/${object}`);
      out.push({ name: object, data: new Uint8Array(await got.arrayBuffer()) });
    }
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? /<NextContinuationToken>([^<]*)</.exec(xml)?.[1] : undefined;
  } while (token);
  return out;
}
