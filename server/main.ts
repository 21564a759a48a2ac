// The app server's entry point:
//   node --import tsx server/main.ts [--dev] [-H host] [-p port] [--workers N]
// npm start, npm run dev, the tests and the benchmark all start the app through it (never
// plain `next start`: see server/app-server.ts for what this server decides before Next).
// With --workers (npm start), this process only supervises: it holds the port and keeps N
// worker processes running the app (server/supervisor.ts), restarting any that dies.
import cluster from "node:cluster";
import { parseArgs } from "node:util";
import { MAX_WORKERS } from "./workers";

const DRAIN_MS = 5_000;
const EXIT_MS = 7_000;

async function main() {
  const { values } = parseArgs({
    options: {
      dev: { type: "boolean", default: false },
      // A built app as a test server (the benchmark's): NODE_ENV=test, loopback only.
      test: { type: "boolean", default: false },
      hostname: { type: "string", short: "H" },
      port: { type: "string", short: "p" },
      workers: { type: "string" },
    },
  });
  // Before any configuration is read: a production server started without NODE_ENV must not
  // fall back to development's origins and non-Secure cookies.
  const env = process.env as Record<string, string | undefined>;
  const mode = values.dev ? "development" : values.test ? "test" : "production";
  env.NODE_ENV ??= mode;
  // NODE_ENV alone never turns a production start into a test server (which skips
  // production's refusals): that takes --test, and a test server listens on loopback only.
  if (env.NODE_ENV !== mode) {
    throw new Error(`NODE_ENV=${env.NODE_ENV} does not match a ${mode} start`);
  }
  if (values.test && !["127.0.0.1", "::1", "localhost"].includes(values.hostname ?? "")) {
    throw new Error("a --test server listens on loopback only: pass -H 127.0.0.1");
  }
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`bad port: ${port}`);

  if (values.workers !== undefined && cluster.isPrimary) {
    const workers = Number(values.workers);
    if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
      throw new Error(
        `--workers must be a whole number from 1 to ${MAX_WORKERS} (got ${values.workers})`,
      );
    }
    if (workers > 1 && !process.env.DATABASE_URL?.trim()) {
      throw new Error(
        "the embedded database (PGlite) belongs to one process: run one worker without " +
          "DATABASE_URL, or use PostgreSQL for several",
      );
    }
    const { superviseWorkers } = await import("./supervisor");
    superviseWorkers({ workers });
    return;
  }

  // Loaded only where the app runs: a supervisor never loads Next.js.
  const { startAppServer } = await import("./app-server");
  const app = await startAppServer({ dev: values.dev, hostname: values.hostname, port });
  console.log(
    `> Ready on ${app.url} (${mode}${cluster.isWorker ? `, worker ${process.pid}` : ""})`,
  );

  // SIGTERM drains: requests in flight get DRAIN_MS to be answered (a long-poll is cut then),
  // and the process exits within EXIT_MS whatever happens (the supervisor's backstop is later).
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const forced = setTimeout(() => process.exit(0), EXIT_MS);
    forced.unref();
    app.close(DRAIN_MS).finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
