// engram-wasm/s3 in headless Chromium against moto's server (tests/js/s3-server.mjs): the same
// adapter the Node tests run, now with the page's fetch and WebCrypto, temporary keys from STS and
// a store sealed with encrypted(). moto does not answer CORS preflight requests (500, also with a
// bucket CORS configuration), so a proxy in front of it plays the part a real bucket's CORS rules
// play: it answers the preflight and adds the response headers; every other request is forwarded
// with its Host header, which the signature covers.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, request as httpRequest } from "node:http";
import { serveStatic } from "../../scripts/serve-static.mjs";
import { createBucket, rawObjects, startS3Server } from "../js/s3-server.mjs";
import { startBrowser } from "./harness.mjs";

const BUCKET = "engram-browser";
let s3Server;
let site;
let browser;
let cors;
before(async () => {
  s3Server = await startS3Server();
  await createBucket(s3Server, BUCKET);
  cors = await corsProxy(new URL(s3Server.endpoint));
  site = await serveStatic();
  browser = await startBrowser();
});
after(async () => {
  await browser?.close();
  await site?.close();
  await cors?.close();
  await s3Server?.stop();
});

/** What a bucket's CORS rules do for a page: preflights answered, responses readable by the page. */
async function corsProxy(target) {
  const preflights = [];
  const proxy = createServer((req, res) => {
    const allow = { "access-control-allow-origin": req.headers.origin ?? "*", "access-control-expose-headers": "etag, x-amz-request-id" };
    if (req.method === "OPTIONS") {
      preflights.push(req.headers["access-control-request-method"]);
      res.writeHead(204, {
        ...allow,
        "access-control-allow-methods": "GET, PUT, DELETE, HEAD",
        "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*",
        "access-control-max-age": "600",
      });
      return res.end();
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode, { ...up.headers, ...allow });
      up.pipe(res);
    });
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
  proxy.keepAliveTimeout = 1;
  return {
    endpoint: `http://127.0.0.1:${proxy.address().port}`,
    preflights,
    close: () =>
      new Promise((r) => {
        proxy.close(r);
        proxy.closeAllConnections();
      }),
  };
}

test("engram-wasm/s3 in a page: encrypted store, concurrent adds, temporary keys, reopened whole; the bucket holds ciphertext", async () => {
  const credentials = await s3Server.assumeRole();
  const prefix = "browser/alice/";
  const params = encodeURIComponent(JSON.stringify({ endpoint: cors.endpoint, bucket: BUCKET, prefix, credentials }));
  await browser.goto(`${site.origin}/tests/browser/s3.html#${params}`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.distinct, 3);
  assert.deepEqual(r.reopened, ["Alice's flight lands at 18:40", "The boiler is serviced every October", "The spare key is with Noor"]);
  assert.equal(r.search, "Alice's flight lands at 18:40");
  assert.ok(r.asked >= 1, "the keys came from the page's function");
  assert.equal(r.wrongKey, "Corrupt");
  assert.equal(r.forged, "Storage", "the server checked the session token");
  assert.ok(cors.preflights.includes("PUT"), "the page's requests went through CORS preflight");
  const objects = (await rawObjects(s3Server, BUCKET)).filter((o) => o.name.startsWith(prefix));
  assert.ok(objects.length > 0);
  for (const { name, data } of objects) assert.ok(!Buffer.from(data).toString("latin1").includes("boiler"), name);
});
