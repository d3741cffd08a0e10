// A real S3-compatible server for the S3 adapter's tests: moto's server (an S3 emulator, PyPI
// `moto[s3]`, installed by scripts/setup.sh into a venv), started on a free port and stopped after.
// No MinIO, Garage or SeaweedFS installs from the package registries here; moto implements the parts
// the adapter relies on: SigV4, conditional PUT (`If-None-Match: *`, atomic), ListObjectsV2 paging.
// moto's conditional PUT looks for the object, then writes it, without a lock: in its usual threaded
// mode two racing creates can both win (seen here: both true in one round of 20). So it runs
// single-threaded (moto's own app and request handler under werkzeug's run_simple, as its
// moto_server entry does, with threaded=False): requests are handled one at a time, writers still
// interleave request by request, and `If-None-Match` is then atomic as S3 guarantees it to be. The
// create race then checks the adapter's side (412 → false, one winner), not moto's atomicity.
// Once started, the server checks every request's signature (with botocore's SigV4, not ours) against
// an IAM user it was given, and STS hands out temporary credentials with session tokens.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { signV4, uriEncode } from "../../pkg-template/src/storage/s3.js";

export const motoVenv = process.env.ENGRAM_MOTO_VENV ?? join(homedir(), ".cache", "engram", "moto-venv");
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

/** moto_server's main(), single-threaded: argv host, port. */
const LAUNCH = `
import signal, sys
from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
run_simple(sys.argv[1], int(sys.argv[2]), DomainDispatcherApplication(create_backend_app), threaded=False, request_handler=MotoRequestHandler)
`;

/**
 * Starts moto_server on a free port with signatures checked; resolves to `{endpoint, stop(),
 * credentials, assumeRole()}` (an IAM user's keys; temporary keys from STS), or rejects saying why it
 * could not (not installed, did not come up).
 */
export async function startS3Server() {
  const bin = join(motoVenv, "bin", "moto_server");
  if (!existsSync(bin)) throw new Error(`moto_server not found at ${bin}: run scripts/setup.sh (or set ENGRAM_MOTO_VENV)`);
  let lastError;
  for (let tries = 0; tries < 3; tries++) {
    const port = await freePort();
    // The venv's python itself (no wrapper), so killing this pid stops the server.
    const child = spawn(join(motoVenv, "bin", "python"), ["-c", LAUNCH, "127.0.0.1", String(port)], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, MOTO_PORT: String(port) },
    });
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
        try {
          return { endpoint, stop, ...(await enableAuth(endpoint)) };
        } catch (e) {
          await stop();
          throw e;
        }
      } catch {
        await sleep(100);
      }
    }
    child.kill("SIGKILL");
    lastError = new Error(`moto_server on port ${port} did not come up${exited ? " (it exited)" : ""}: ${log.trim().split("\n").slice(-5).join(" | ")}`);
  }
  throw lastError;
}

const el = (xml, tag) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];

/** An IAM or STS query-protocol call (form-encoded POST), signed with `credentials`. */
async function query(endpoint, service, params, credentials) {
  const body = new TextEncoder().encode(new URLSearchParams({ ...params, Version: service === "sts" ? "2011-06-15" : "2010-05-08" }).toString());
  const url = new URL(endpoint);
  const payloadHash = Buffer.from(await crypto.subtle.digest("SHA-256", body)).toString("hex");
  const headers = await signV4({
    method: "POST",
    host: url.host,
    path: "/",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payloadHash,
    credentials,
    region: REGION,
    service,
  });
  const r = await fetch(`${url.origin}/`, { method: "POST", headers, body });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${service} ${params.Action}: HTTP ${r.status} ${text}`);
  return text;
}

/**
 * Makes an IAM user allowed everything in S3 and a role it may assume, then has the server check
 * every request from now on (moto's `reset-auth`: until then it accepts any signature).
 */
async function enableAuth(endpoint) {
  const bootstrap = { accessKeyId: "AKIAENGRAMBOOTSTRAP", secretAccessKey: "unchecked-until-auth-is-on" };
  await query(endpoint, "iam", { Action: "CreateUser", UserName: "engram" }, bootstrap);
  const key = await query(endpoint, "iam", { Action: "CreateAccessKey", UserName: "engram" }, bootstrap);
  const credentials = Object.freeze({ accessKeyId: el(key, "AccessKeyId"), secretAccessKey: el(key, "SecretAccessKey") });
  const policy = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: ["s3:*", "sts:AssumeRole"], Resource: "*" }] });
  await query(endpoint, "iam", { Action: "PutUserPolicy", UserName: "engram", PolicyName: "all", PolicyDocument: policy }, bootstrap);
  const trust = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { AWS: "*" }, Action: "sts:AssumeRole" }] });
  await query(endpoint, "iam", { Action: "CreateRole", RoleName: "writer", AssumeRolePolicyDocument: trust }, bootstrap);
  await query(endpoint, "iam", { Action: "PutRolePolicy", RoleName: "writer", PolicyName: "all", PolicyDocument: policy }, bootstrap);
  const r = await fetch(`${endpoint}/moto-api/reset-auth`, { method: "POST", body: "0" });
  if (r.status !== 200) throw new Error(`moto reset-auth: HTTP ${r.status} ${await r.text()}`);
  let session = 0;
  /** Temporary credentials for the role (key id, secret, session token, expiration), as STS issues them. */
  const assumeRole = async () => {
    const xml = await query(endpoint, "sts", { Action: "AssumeRole", RoleArn: "arn:aws:iam::123456789012:role/writer", RoleSessionName: `s${++session}` }, credentials);
    return { accessKeyId: el(xml, "AccessKeyId"), secretAccessKey: el(xml, "SecretAccessKey"), sessionToken: el(xml, "SessionToken"), expiration: el(xml, "Expiration") };
  };
  return { credentials, assumeRole };
}

/**
 * A signed request straight to the server (bucket creation, raw listings), outside the adapter.
 * `path` is "/bucket" or "/bucket/object" (unencoded).
 */
export async function s3Request({ endpoint, credentials }, method, path, { query = {}, body } = {}) {
  const url = new URL(endpoint);
  const encodedPath = uriEncode(path, true);
  const payload = body ?? new Uint8Array(0);
  const payloadHash = Buffer.from(await crypto.subtle.digest("SHA-256", payload)).toString("hex");
  const headers = await signV4({ method, host: url.host, path: encodedPath, query, payloadHash, credentials, region: REGION });
  const search = Object.entries(query)
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .join("&");
  return fetch(`${url.origin}${encodedPath}${search ? "?" + search : ""}`, { method, headers, body: body ?? undefined });
}

/** Creates `bucket` on the server (a signed PUT Bucket). */
export async function createBucket(server, bucket) {
  const r = await s3Request(server, "PUT", `/${bucket}`);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`creating bucket ${bucket}: HTTP ${r.status} ${text}`);
}

/** Every object name in `bucket` with its bytes (raw: what the server stores). */
export async function rawObjects(server, bucket) {
  const out = [];
  let token;
  do {
    const query = { "list-type": "2", ...(token && { "continuation-token": token }) };
    const r = await s3Request(server, "GET", `/${bucket}`, { query });
    const xml = await r.text();
    if (r.status !== 200) throw new Error(`listing ${bucket}: HTTP ${r.status} ${xml}`);
    for (const [, name] of xml.matchAll(/<Key>([^<]*)<\/Key>/g)) {
      const object = name.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
      const got = await s3Request(server, "GET", `/${bucket}/${object}`);
      out.push({ name: object, data: new Uint8Array(await got.arrayBuffer()) });
    }
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? /<NextContinuationToken>([^<]*)</.exec(xml)?.[1] : undefined;
  } while (token);
  return out;
}
