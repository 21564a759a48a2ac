// The chaos run's options: flags win over environment variables, every value bounded.
//   --duration S   CHAOS_DURATION   seconds of load in a chaos run (300)
//   --clients N    CHAOS_CLIENTS    simulated poster+agent pairs (6)
//   --seed N       CHAOS_SEED       the schedule's and the load's random seed (20261125)
//   --faults a,b   CHAOS_FAULTS     which faults, in this order (all, FAULT_NAMES)
//   --down S       CHAOS_DOWN       seconds each dependency stays down (6)
//   --soak         CHAOS_SOAK=1     no faults: memory, p99 and database growth over time
//   --minutes M    CHAOS_MINUTES    the soak's length (60)
//   --bucket M     CHAOS_BUCKET     the soak's p99 buckets, in minutes (5)
//   --sample S     CHAOS_SAMPLE     the soak's memory sampling, in seconds (60)
//   --out FILE     CHAOS_OUT        also write the final tables (markdown) to FILE
import { parseArgs } from "node:util";

export const FAULT_NAMES = [
  "postgres-fast",
  "postgres-immediate",
  "chain-restart",
  "facilitator-kill",
  "app-kill",
  "redis-stop",
  "db-partition",
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export interface ChaosOptions {
  soak: boolean;
  durationSeconds: number;
  clients: number;
  seed: number;
  faults: FaultName[];
  downSeconds: number;
  minutes: number;
  bucketMinutes: number;
  sampleSeconds: number;
  out?: string;
}

function bounded(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
) {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

export function parseOptions(
  argv: string[],
  env: Record<string, string | undefined>,
): ChaosOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: "string" },
      clients: { type: "string" },
      seed: { type: "string" },
      faults: { type: "string" },
      down: { type: "string" },
      soak: { type: "boolean" },
      minutes: { type: "string" },
      bucket: { type: "string" },
      sample: { type: "string" },
      out: { type: "string" },
    },
    strict: true,
  });
  const faultList = (values.faults ?? env.CHAOS_FAULTS ?? "all").trim();
  const faults =
    faultList === "all"
      ? [...FAULT_NAMES]
      : faultList
          .split(",")
          .map((name) => name.trim())
          .filter(Boolean)
          .map((name) => {
            if (!(FAULT_NAMES as readonly string[]).includes(name)) {
              throw new Error(`unknown fault "${name}": one of ${FAULT_NAMES.join(", ")}`);
            }
            return name as FaultName;
          });
  const soak = values.soak ?? env.CHAOS_SOAK === "1";
  return {
    soak,
    durationSeconds: bounded("--duration", values.duration ?? env.CHAOS_DURATION, 300, 30, 86_400),
    clients: Math.round(bounded("--clients", values.clients ?? env.CHAOS_CLIENTS, 6, 1, 64)),
    seed: Math.round(bounded("--seed", values.seed ?? env.CHAOS_SEED, 20261125, 0, 2 ** 31)),
    faults: soak ? [] : faults,
    downSeconds: bounded("--down", values.down ?? env.CHAOS_DOWN, 6, 1, 120),
    minutes: bounded("--minutes", values.minutes ?? env.CHAOS_MINUTES, 60, 1, 24 * 60),
    bucketMinutes: bounded("--bucket", values.bucket ?? env.CHAOS_BUCKET, 5, 0.5, 60),
    sampleSeconds: bounded("--sample", values.sample ?? env.CHAOS_SAMPLE, 60, 5, 3600),
    out: values.out ?? env.CHAOS_OUT ?? undefined,
  };
}
