// The production server's supervisor (`npm start`): a small primary process that holds the
// listening socket (node:cluster) and runs the app in worker processes, restarting a worker
// that dies, whatever killed it (a crash, the heap limit, SIGKILL), with a log line saying
// why. Connections that arrive while no worker is up wait in the primary's queue instead of
// being refused. The primary never loads Next.js or the app.
import cluster, { type Worker } from "node:cluster";

export interface SupervisorOptions {
  workers: number;
  /** Seconds a worker must live to count as started; dying sooner counts toward giving up. */
  startupGraceSeconds?: number;
  /** Quick deaths in a row after which the supervisor gives up (a broken configuration). */
  maxQuickDeaths?: number;
  log?: (line: string) => void;
}

const BACKOFF_MAX_MS = 30_000;

/** Runs in the primary: forks `workers` workers and keeps that many alive until told to stop. */
export function superviseWorkers(options: SupervisorOptions): void {
  const {
    workers,
    startupGraceSeconds = 10,
    maxQuickDeaths = 5,
    log = (line: string) => console.log(line),
  } = options;
  let stopping = false;
  let quickDeaths = 0;
  const startedAt = new Map<number, number>();

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
    log(`[supervisor] worker ${worker.process.pid} started`);
  };

  cluster.on("exit", (worker: Worker, code: number | null, signal: string | null) => {
    const lived = Date.now() - (startedAt.get(worker.id) ?? Date.now());
    startedAt.delete(worker.id);
    if (stopping) return;
    const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const oom = code === 134 || signal === "SIGABRT" ? " (likely out of memory)" : "";
    quickDeaths = lived < startupGraceSeconds * 1000 ? quickDeaths + 1 : 0;
    if (quickDeaths >= maxQuickDeaths) {
      log(
        `[supervisor] worker ${worker.process.pid} ${why}${oom}; ${quickDeaths} workers in a ` +
          "row died while starting: giving up (check the configuration and the log above)",
      );
      stop(1);
      return;
    }
    const delay = quickDeaths === 0 ? 0 : Math.min(BACKOFF_MAX_MS, 500 * 2 ** quickDeaths);
    log(
      `[supervisor] worker ${worker.process.pid} ${why}${oom} after ${Math.round(lived / 1000)} s; ` +
        `starting another${delay ? ` in ${delay / 1000} s` : ""}`,
    );
    setTimeout(() => {
      if (!stopping) fork();
    }, delay);
  });

  const stop = (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter(
      (worker): worker is Worker => worker !== undefined && !worker.isDead(),
    );
    if (alive.length === 0) process.exit(exitCode);
    let left = alive.length;
    for (const worker of alive) {
      worker.once("exit", () => {
        left -= 1;
        if (left === 0) process.exit(exitCode);
      });
      worker.process.kill("SIGTERM");
    }
    // Workers drain and stop within 7 s themselves (server/main.ts); this is the backstop.
    setTimeout(() => {
      for (const worker of alive) if (!worker.isDead()) worker.process.kill("SIGKILL");
      process.exit(exitCode);
    }, 10_000).unref();
  };
  process.on("SIGTERM", () => stop(0));
  process.on("SIGINT", () => stop(0));

  log(`[supervisor] ${process.pid} runs ${workers} worker${workers === 1 ? "" : "s"}`);
  for (let i = 0; i < workers; i++) fork();
}
