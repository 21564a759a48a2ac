// The health probes' answers (GET /api/health, GET /api/ready: lib/api/operations/health.ts).
// One part of lib/shared/schemas/views.ts, which collects them. Load balancers and the chaos
// run read these shapes: fields are only ever added.
import { z } from "zod";
import { ERROR_CODE_NAMES } from "../../error-codes";

export const healthViewSchema = z
  .object({
    status: z.literal("ok"),
    uptimeSeconds: z.number().int().min(0).meta({ description: "Since this process started" }),
    version: z.string().optional().meta({ description: "The app's version (package.json)" }),
  })
  .meta({ id: "Health" });

/** What readiness checks, in this order (Redis only when REDIS_URL is set). */
export const READINESS_CHECK_NAMES = ["database", "chain", "facilitator", "redis"] as const;

export const readinessCheckViewSchema = z
  .object({
    name: z.enum(READINESS_CHECK_NAMES),
    ok: z.boolean(),
    latencyMs: z
      .number()
      .int()
      .min(0)
      .meta({ description: "How long the check took (its timeout when it gave up)" }),
    error: z
      .string()
      .optional()
      .meta({ description: "Why it failed: a short sentence (no address, key or stack)" }),
  })
  .meta({ id: "ReadinessCheck" });

export const readinessViewSchema = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    checks: z.array(readinessCheckViewSchema),
  })
  .meta({ id: "Readiness" });

/**
 * 503 from GET /api/ready: the error envelope with the checks beside it (`not_ready`), or the
 * app server's own `server_busy` (shedding load: no checks were run).
 */
export const notReadyBodySchema = z
  .object({
    error: z.string(),
    code: z.enum(ERROR_CODE_NAMES),
    data: readinessViewSchema.optional(),
  })
  .meta({ id: "NotReady" });
