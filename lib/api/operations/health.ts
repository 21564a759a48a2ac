import "server-only";
import { ERROR_CODES } from "@/lib/shared/error-codes";
import {
  healthViewSchema,
  notReadyBodySchema,
  readinessViewSchema,
} from "@/lib/shared/schemas/views";
import {
  currentReadiness,
  liveness,
  READINESS_RETRY_AFTER_SECONDS,
  READINESS_TIMEOUT_MS,
} from "../health";
import { answer, defineOperation, PUBLIC } from "../operation";

// The probes of load balancers and orchestrators (docs/operations.md, Health and readiness).
// Outside /api/v1, as probes are not the marketplace's API; public, never rate limited (a
// probe must not fail because the rate-limit store is down), never opening the database
// through the pipeline, and saying nothing of the configuration (no URL, host or key).

export const getHealthOperation = defineOperation({
  id: "getHealth",
  method: "GET",
  path: "/api/health",
  tag: "Health",
  summary: "Liveness: this process answers (no dependency is asked)",
  description:
    "200 as long as the process serves requests, even while the database or the chain is " +
    "down; a load balancer's liveness probe. Dependencies: GET /api/ready.",
  auth: PUBLIC,
  rate: "none",
  database: false,
  success: { description: "The process is up", data: healthViewSchema },
  handle: async () => answer(liveness()),
});

export const getReadinessOperation = defineOperation({
  id: "getReadiness",
  method: "GET",
  path: "/api/ready",
  tag: "Health",
  summary: "Readiness: the database, chain, facilitator and Redis answer",
  description:
    `Every check at once, each within ${READINESS_TIMEOUT_MS} ms: the database (SELECT 1), ` +
    "the chain RPC (eth_blockNumber), the facilitator (its /supported over HTTP, or the " +
    "in-process one's gas keys over the RPC), Redis when configured (PING). 200 when all " +
    `answered, else 503 not_ready with Retry-After: ${READINESS_RETRY_AFTER_SECONDS}; both ` +
    "list every check. A result is reused for a second.",
  auth: PUBLIC,
  rate: "none",
  database: false,
  success: { description: "Every dependency answered", data: readinessViewSchema },
  errors: ["not_ready"],
  openapi: {
    responses: {
      "503": {
        description:
          "A dependency did not answer (`not_ready`, with the checks), or the process is " +
          "shedding load (`server_busy`); see Retry-After.",
        content: {
          "application/json": {
            schema: notReadyBodySchema,
            examples: Object.fromEntries(
              (["not_ready", "server_busy", "unavailable"] as const).map((code) => [
                code,
                { summary: code, value: { error: ERROR_CODES[code].description, code } },
              ]),
            ),
          },
        },
      },
    },
  },
  handle: async () => {
    const { ready, checks } = await currentReadiness();
    if (ready) return answer({ status: "ready", checks });
    const down = checks.filter((check) => !check.ok).map((check) => check.name);
    return Response.json(
      {
        error: `not ready: ${down.join(", ")} did not answer`,
        code: "not_ready",
        data: { status: "not_ready", checks },
      },
      {
        status: 503,
        headers: {
          "Retry-After": String(READINESS_RETRY_AFTER_SECONDS),
          "Cache-Control": "no-store",
        },
      },
    );
  },
});
