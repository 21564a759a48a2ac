// The whole deployment the chaos run drives, started by itself on loopback: a private
// PostgreSQL cluster (dev/postgres-cluster.ts) reached by the app through a TCP proxy that can
// partition it (dev/tcp-proxy.ts), the local chain kept on disk, the facilitator service, a
// private Redis, and two production app servers (each `--workers 1`, as `npm start` runs
// them) sharing all of it. Each piece is registered for cleanup as soon as it exists.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { LOCAL_FACILITATOR_ENV } from "@/dev/local-chain";
import { freePort } from "@/dev/free-port";
import { type PostgresCluster, startPostgresCluster } from "@/dev/postgres-cluster";
import { startTcpProxy, type TcpProxy } from "@/dev/tcp-proxy";
import { migrateTarget } from "@/lib/db/setup";
import { resolveDbTarget } from "@/lib/db/target";
import { type FacilitatorProcess, startFacilitatorProcess } from "@/tests/helpers/facilitator";
import { launchNextServer, type NextServer } from "../next-server";
import { onCleanup } from "./cleanup";
import { blockHeartbeat, chainProcess, type ManagedProcess, redisProcess } from "./services";

const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";
const DATABASE = "chaos";

export interface AppServer {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** The supervisor's pid (its process group holds the worker), or undefined while down. */
  pid(): number | undefined;
  start(): Promise<void>;
  kill(): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

export interface Facilitator {
  readonly url: string;
  pid(): number | undefined;
  start(): Promise<void>;
  kill(): Promise<void>;
  logs(): string;
}

export interface Stack {
  root: string;
  postgres: PostgresCluster;
  /** The app's way to PostgreSQL: partition() cuts it, heal() mends it. */
  dbProxy: TcpProxy;
  /** The database as the run's own checks reach it: directly, never through the proxy. */
  directDatabaseUrl: string;
  chain: ManagedProcess;
  rpcUrl: string;
  redis: ManagedProcess;
  facilitator: Facilitator;
  apps: AppServer[];
  /** Every process's output, by name (app servers, facilitator, chain, redis). */
  logs(): Record<string, string>;
}

/** The server settings the run needs: fast reconciliation, loopback webhooks, no rate limits in the way. */
function appEnvironment(stack: {
  databaseUrl: string;
  rpcUrl: string;
  facilitatorUrl: string;
  facilitatorSecret: string;
  redisUrl: string;
  appUrl: string;
}): Record<string, string> {
  return {
    // A test server (loopback webhooks are refused in production), production's runtime.
    NODE_ENV: "test",
    NEXT_DIST_DIR: DIST_DIR,
    DATABASE_URL: stack.databaseUrl,
    SESSION_SECRET: randomBytes(32).toString("hex"),
    ...LOCAL_FACILITATOR_ENV,
    CHAIN_RPC_URL: stack.rpcUrl,
    X402_FACILITATOR_URL: stack.facilitatorUrl,
    FACILITATOR_SECRET: stack.facilitatorSecret,
    FACILITATOR_TIMEOUT_SECONDS: "15",
    REDIS_URL: stack.redisUrl,
    // One public origin for both servers, as behind a load balancer: a SIWE message signed for
    // it is accepted by either, and a session made on one works on the other.
    APP_URL: stack.appUrl,
    RATE_LIMIT_WRITES_PER_MINUTE: "1000000",
    RATE_LIMIT_AUTH_PER_MINUTE: "1000000",
    RATE_LIMIT_READS_PER_MINUTE: "1000000",
    WEBHOOK_ALLOW_LOOPBACK: "true",
    WEBHOOK_WORKER_INTERVAL_MS: "500",
    WEBHOOK_RETRY_BASE_SECONDS: "1",
    WEBHOOK_TIMEOUT_SECONDS: "5",
    SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "5",
    SETTLEMENT_RECONCILE_AFTER_SECONDS: "15",
    SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "2",
  };
}

function appServer(name: string, port: number, env: Record<string, string>): AppServer {
  let current: NextServer | undefined;
  let pastLogs = "";
  const retire = () => {
    if (current) pastLogs += current.logs();
    current = undefined;
  };
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    pid: () => current?.pid,
    logs: () => pastLogs + (current?.logs() ?? ""),
    async start() {
      if (current) throw new Error(`${name} is already running`);
      current = await launchNextServer(env, { port, serverArgs: ["--workers", "1"] });
    },
    async kill() {
      await current?.kill();
      retire();
    },
    async stop() {
      await current?.stop();
      retire();
    },
  };
}

export async function startStack(log: (line: string) => void): Promise<Stack> {
  if (!fs.existsSync(path.join(DIST_DIR, "BUILD_ID"))) {
    throw new Error(`No production build in ${DIST_DIR}: run \`npx next build\` first.`);
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "chaos-run-"));
  onCleanup(
    "the run's folder",
    async () => fs.rmSync(root, { recursive: true, force: true }),
    () => fs.rmSync(root, { recursive: true, force: true }),
  );

  log("PostgreSQL: a private cluster (initdb)");
  const postgres = await startPostgresCluster();
  onCleanup(
    "postgres",
    () => postgres.destroy(),
    () => {
      // The last resort: SIGQUIT is PostgreSQL's immediate shutdown; then its folder goes.
      try {
        const pid = Number(
          fs.readFileSync(path.join(postgres.dataDir, "postmaster.pid"), "utf8").split("\n")[0],
        );
        if (pid > 0) process.kill(pid, "SIGQUIT");
      } catch {
        // not running
      }
      fs.rmSync(path.dirname(postgres.dataDir), { recursive: true, force: true });
    },
  );
  const admin = new pg.Client({ connectionString: postgres.url("postgres") });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const directDatabaseUrl = postgres.url(DATABASE);
  await migrateTarget(resolveDbTarget({ DATABASE_URL: directDatabaseUrl }));
  const dbProxy = await startTcpProxy({ port: postgres.port });
  onCleanup("the database proxy", () => dbProxy.close());

  const chainPort = await freePort();
  const chain = chainProcess(chainPort, path.join(root, "chain"));
  onCleanup("chain", () => chain.stop("SIGKILL"));
  log(`chain: npm run chain on port ${chainPort}, journal in ${path.join(root, "chain")}`);
  await chain.start();
  const rpcUrl = `http://127.0.0.1:${chainPort}`;
  const stopHeartbeat = blockHeartbeat(rpcUrl);
  onCleanup("the chain's block heartbeat", async () => stopHeartbeat(), stopHeartbeat);

  const redis = redisProcess(await freePort());
  onCleanup("redis", () => redis.stop("SIGKILL"));
  await redis.start();
  log(`redis: a private redis-server on port ${redis.port}`);

  const facilitatorPort = await freePort();
  const facilitatorSecret = randomBytes(24).toString("hex");
  const facilitatorEnv = {
    CHAIN_RPC_URL: rpcUrl,
    FACILITATOR_PORT: String(facilitatorPort),
    FACILITATOR_SECRET: facilitatorSecret,
    SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "5",
  };
  let facilitatorProcess: FacilitatorProcess | undefined;
  let facilitatorLogs = "";
  const facilitator: Facilitator = {
    url: `http://127.0.0.1:${facilitatorPort}`,
    pid: () => facilitatorProcess?.pid,
    logs: () => facilitatorLogs + (facilitatorProcess?.logs() ?? ""),
    async start() {
      facilitatorProcess = await startFacilitatorProcess(facilitatorEnv);
    },
    async kill() {
      await facilitatorProcess?.kill();
      facilitatorLogs += facilitatorProcess?.logs() ?? "";
      facilitatorProcess = undefined;
    },
  };
  onCleanup("facilitator", () => facilitator.kill());
  await facilitator.start();
  log(`facilitator: npm run facilitator on ${facilitator.url}`);

  const ports = [await freePort(), await freePort()];
  const env = appEnvironment({
    databaseUrl: `postgresql://postgres@127.0.0.1:${dbProxy.port}/${DATABASE}`,
    rpcUrl,
    facilitatorUrl: facilitator.url,
    facilitatorSecret,
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    appUrl: `http://127.0.0.1:${ports[0]}`,
  });
  const apps = ports.map((port, i) => appServer(`app-${String.fromCharCode(97 + i)}`, port, env));
  for (const app of apps) onCleanup(app.name, () => app.stop());
  log("app servers: starting two (--workers 1 each)");
  await Promise.all(apps.map((app) => app.start()));
  log(`app servers: ${apps.map((app) => app.url).join(", ")}`);

  return {
    root,
    postgres,
    dbProxy,
    directDatabaseUrl,
    chain,
    rpcUrl,
    redis,
    facilitator,
    apps,
    logs: () => ({
      ...Object.fromEntries(apps.map((app) => [app.name, app.logs()])),
      facilitator: facilitator.logs(),
      chain: chain.logs(),
      redis: redis.logs(),
    }),
  };
}
