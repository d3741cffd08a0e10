// A real PostgreSQL server for the tests, started from Debian's binaries (scripts/setup.sh installs
// the `postgresql` package): a new cluster in a temporary directory, on a free loopback port, run by
// the unprivileged `postgres` user when the tests run as root (initdb and postgres refuse root).
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The newest installed server's bin directory (Debian keeps them off PATH), or null. */
function binDir() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return versions.length ? join(root, versions[versions.length - 1], "bin") : null;
}

/** A port nothing listens on right now (the server binds it a moment later). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.listen(0, "127.0.0.1", resolve).once("error", reject));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts a server; resolves to `{connectionString, port, restart(), stop()}`. Rejects when no
 * PostgreSQL is installed or it does not start (the caller decides whether that fails or skips).
 */
export async function startPostgres() {
  const bin = binDir();
  if (!bin) throw new Error("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (scripts/setup.sh installs Debian's postgresql)");
  const asRoot = userInfo().uid === 0;
  // As root, every server command runs as `postgres`, which must own the directory.
  const command = asRoot ? (tool, args) => run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args]) : (tool, args) => run(join(bin, tool), args);
  const dir = mkdtempSync(join(tmpdir(), "engram-pg-"));
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, "data");
  const port = await freePort();
  // fsync off: the tests restart and kill the server's clients, never the machine, and a commit is
  // still written to the kernel before it is acknowledged (synchronous_commit stays on).
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const pgCtl = (...args) => command("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), ...args]);
  try {
    await command("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--no-locale"]);
    await pgCtl("-w", "-t", "60", "-o", serverOptions, "start");
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${e.stderr || e.message}`, { cause: e });
  }
  let stopped = false;
  // A test process that ends without its `after` hook (a crash, process.exit) still takes its
  // server along: exit handlers run synchronously, so this stop is synchronous too.
  const stopAtExit = () => {
    if (stopped) return;
    stopped = true;
    const args = ["-D", data, "-w", "-m", "immediate", "stop"];
    try {
      if (asRoot) execFileSync("runuser", ["-u", "postgres", "--", join(bin, "pg_ctl"), ...args], { stdio: "ignore" });
      else execFileSync(join(bin, "pg_ctl"), args, { stdio: "ignore" });
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", stopAtExit);
  return {
    port,
    dir,
    connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    /** `pg_ctl restart -m fast`: every connection is dropped, the server is back when this resolves. */
    restart: () => pgCtl("-w", "-t", "60", "-m", "fast", "-o", serverOptions, "restart"),
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off("exit", stopAtExit);
      try {
        await pgCtl("-w", "-m", "fast", "stop");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
