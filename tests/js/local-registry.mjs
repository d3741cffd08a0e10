// A package registry on 127.0.0.1 for tests, so a command that fetches packages by name (`npx -y -p
// engram-mcp …`, the README's MCP configuration) runs exactly as written against this build's
// tarballs. It serves each given tarball under its package name the way a registry does (a packument
// with `dist-tags.latest`, the tarball's shasum and sha512 integrity) and forwards every other request
// to the upstream registry npm is configured with, so the packages' own dependencies install as usual.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { basename } from "node:path";

/** The registry npm would use without us (`npm config get registry`). */
function upstreamRegistry() {
  const url = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
  return url.endsWith("/") ? url : `${url}/`;
}

/**
 * Starts the registry serving `tarballs` (paths of `npm pack` outputs); resolves to
 * `{url, served, close}` where `served` lists the names of local packages fetched so far.
 */
export async function localRegistry(tarballs) {
  const upstream = upstreamRegistry();
  const packages = new Map();
  for (const path of tarballs) {
    const bytes = readFileSync(path);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", path, "package/package.json"], { encoding: "utf8" }));
    packages.set(manifest.name, { manifest, bytes, file: basename(path) });
  }
  const served = [];
  const server = createServer(async (req, res) => {
    const origin = `http://127.0.0.1:${server.address().port}`;
    const path = decodeURIComponent(new URL(req.url, origin).pathname).slice(1);
    const [name, dash, file] = path.split("/");
    const local = packages.get(name);
    try {
      if (local && !dash) {
        const { manifest, bytes, file: tgz } = local;
        const dist = {
          tarball: `${origin}/${name}/-/${tgz}`,
          shasum: createHash("sha1").update(bytes).digest("hex"),
          integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
        };
        const packument = { name, "dist-tags": { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, _id: `${name}@${manifest.version}`, dist } } };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument));
        return;
      }
      if (local && dash === "-" && file === local.file) {
        served.push(name);
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": local.bytes.length }).end(local.bytes);
        return;
      }
      // Everything else is the upstream registry's (scoped names keep their encoded slash).
      const upstreamResponse = await fetch(upstream + req.url.slice(1), { headers: { accept: req.headers.accept ?? "application/json" } });
      const body = Buffer.from(await upstreamResponse.arrayBuffer());
      res.writeHead(upstreamResponse.status, { "content-type": upstreamResponse.headers.get("content-type") ?? "application/json" }).end(body);
    } catch (e) {
      res.writeHead(502).end(String(e));
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const close = () =>
    new Promise((ok) => {
      server.close(ok);
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${server.address().port}/`, served, close };
}
