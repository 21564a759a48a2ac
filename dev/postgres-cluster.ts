// A private PostgreSQL cluster for fault tests and the chaos run: `initdb` into a temporary
// folder, its own port on 127.0.0.1, so that a test may stop it (fast or immediate), restart
// it, or kill it, without touching the machine's shared server. PostgreSQL refuses to run as
// root, so when we are root the cluster's files belong to, and its processes run as, the
// `postgres` user. Development and test machinery only: nothing in lib/ or app/ imports it.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

export type ShutdownMode = "smart" | "fast" | "immediate";

export interface PostgresCluster {
  readonly port: number;
  readonly dataDir: string;
  /** A connection string for `database` (default `postgres`) as the superuser `postgres`. */
  url(database?: string): string;
  /** `pg_ctl stop -m mode`: fast rolls back sessions, immediate is a crash (recovery on start). */
  stop(mode?: ShutdownMode): Promise<void>;
  start(): Promise<void>;
  restart(mode?: ShutdownMode, downMs?: number): Promise<void>;
  isRunning(): boolean;
  /** Stops the server (immediate) and deletes its folder. */
  destroy(): Promise<void>;
}

export interface PostgresClusterOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string | number>;
}

/** The newest installed server's bin folder (Debian: /usr/lib/postgresql/<major>/bin). */
export function postgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  if (fs.existsSync(root)) {
    const majors = fs
      .readdirSync(root)
      .filter((name) => fs.existsSync(path.join(root, name, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (majors.length > 0) return path.join(root, majors[0]!, "bin");
  }
  try {
    return execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("no PostgreSQL server binaries found (initdb): install postgresql");
  }
}

/** uid and gid of `postgres` when we are root (PostgreSQL will not run as root). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/** Ours, without PG* variables (a PGPORT of ours must not move the private server). */
function serverEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LANG: "C.UTF-8" };
  for (const name of Object.keys(env)) if (name.startsWith("PG")) delete env[name];
  return env;
}

function run(
  command: string,
  args: string[],
  user: { uid: number; gid: number } | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      uid: user?.uid,
      gid: user?.gid,
      env: serverEnvironment(),
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`${path.basename(command)} ${args[0]} exited ${code}: ${output.trim()}`),
          ),
    );
  });
}

export async function startPostgresCluster(
  options: PostgresClusterOptions = {},
): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const user = serverUser();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pg-cluster-"));
  const dataDir = path.join(root, "data");
  const logFile = path.join(root, "server.log");
  if (user) fs.chownSync(root, user.uid, user.gid);
  const port = options.port || (await freePort());

  await run(
    path.join(bin, "initdb"),
    [
      "-D",
      dataDir,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
      "--no-instructions",
    ],
    user,
  );
  const settings: Record<string, string | number> = {
    listen_addresses: "127.0.0.1",
    port,
    unix_socket_directories: root,
    // A test cluster: the OS cache keeps what a killed server wrote; only a machine crash
    // would lose it, which no test simulates.
    fsync: "off",
    full_page_writes: "off",
    max_connections: 200,
    ...options.settings,
  };
  const serverOptions = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(" ");

  let running = false;
  const pgCtl = (args: string[]) => run(path.join(bin, "pg_ctl"), args, user);

  const cluster: PostgresCluster = {
    port,
    dataDir,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    isRunning: () => running,
    async start() {
      await pgCtl(["start", "-D", dataDir, "-w", "-t", "60", "-l", logFile, "-o", serverOptions]);
      running = true;
    },
    async stop(mode = "fast") {
      await pgCtl(["stop", "-D", dataDir, "-w", "-t", "60", "-m", mode]);
      running = false;
    },
    async restart(mode = "fast", downMs = 0) {
      await cluster.stop(mode);
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await cluster.start();
    },
    async destroy() {
      if (running) await cluster.stop("immediate").catch(() => {});
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
