// The error answers an operation can give, each with its `{ error, code? }` body and a real
// example message (the wording lib/ and lib/http.ts use).
import type { ZodOpenApiResponsesObject } from "zod-openapi";
import { errorBodySchema } from "@/lib/shared/schemas/views";

type ErrorStatus =
  400 | 401 | 402 | 403 | 404 | 405 | 406 | 408 | 409 | 413 | 415 | 429 | 500 | 503;

interface ErrorExample {
  summary: string;
  value: { error: string; code: string };
}

const STANDARD: Record<ErrorStatus, { description: string; examples: ErrorExample[] }> = {
  400: {
    description: "The input is not valid (the message names the field and the rule).",
    examples: [
      { summary: "a field", value: { error: "title must not be empty", code: "invalid_request" } },
      {
        summary: "not JSON",
        value: { error: "the request body is not valid JSON", code: "invalid_request" },
      },
    ],
  },
  401: {
    description: "No valid session (sign in with SIWE first), or the sign-in was refused.",
    examples: [
      {
        summary: "no session",
        value: {
          error: "sign in with your wallet first (no valid session)",
          code: "unauthenticated",
        },
      },
    ],
  },
  402: {
    description: "Payment required or refused (x402): see the PAYMENT-REQUIRED header.",
    examples: [],
  },
  403: {
    description: "Signed in, but not allowed: the wrong role for this action, or a foreign Origin.",
    examples: [
      {
        summary: "role",
        value: {
          error: "only the job's poster and its assigned agent can download deliveries",
          code: "forbidden",
        },
      },
      {
        summary: "origin",
        value: {
          error: "requests from origin https://evil.example are not allowed",
          code: "cross_origin_request",
        },
      },
    ],
  },
  404: {
    description: "No such resource.",
    examples: [
      { summary: "job", value: { error: "job job_0000000000000000 not found", code: "not_found" } },
    ],
  },
  405: {
    description: "The path exists but not with this method (see the Allow header).",
    examples: [
      {
        summary: "method",
        value: { error: "method not allowed; this path accepts GET", code: "method_not_allowed" },
      },
    ],
  },
  406: {
    description: "The client does not accept application/json (MCP clients must).",
    examples: [],
  },
  408: {
    description: "The request body arrived too slowly and was cut off.",
    examples: [
      {
        summary: "slow body",
        value: {
          error: "the request (headers and body) did not arrive in time",
          code: "request_timeout",
        },
      },
    ],
  },
  409: {
    description: "The resource is not in a state that allows this (the lifecycle table).",
    examples: [
      {
        summary: "state",
        value: { error: "the job is no longer open; re-read it and retry", code: "conflict" },
      },
    ],
  },
  413: {
    description: "The request body is larger than this path accepts (refused before reading).",
    examples: [
      {
        summary: "body",
        value: { error: "the request body is larger than 1 MiB", code: "payload_too_large" },
      },
    ],
  },
  415: {
    description:
      "A cookie-authenticated write (or sign-in) whose body is not sent as application/json.",
    examples: [
      {
        summary: "media type",
        value: {
          error: "send the request body as JSON with Content-Type: application/json",
          code: "unsupported_media_type",
        },
      },
    ],
  },
  429: {
    description: "Too many requests from this client or wallet; see Retry-After.",
    examples: [
      {
        summary: "limit",
        value: { error: "too many requests; slow down and retry later", code: "rate_limited" },
      },
    ],
  },
  500: {
    description: "An unexpected error (logged on the server, never detailed here).",
    examples: [
      { summary: "internal", value: { error: "internal server error", code: "internal_error" } },
    ],
  },
  503: {
    description: "A dependency is unavailable (database, rate limiter, chain, facilitator).",
    examples: [
      {
        summary: "busy",
        value: { error: "rate limiting is unavailable; retry shortly", code: "unavailable" },
      },
    ],
  },
};

/**
 * The error part of an operation's responses: `statuses` and ALWAYS; `overrides` replaces a
 * status's examples.
 */
export function errorResponses(
  statuses: ErrorStatus[],
  overrides: Partial<Record<ErrorStatus, { description?: string; examples: ErrorExample[] }>> = {},
): ZodOpenApiResponsesObject {
  const responses: ZodOpenApiResponsesObject = {};
  for (const status of [...new Set([...statuses, ...ALWAYS])].sort()) {
    const standard = STANDARD[status];
    const override = overrides[status];
    const examples = override?.examples ?? standard.examples;
    responses[String(status) as `${ErrorStatus}`] = {
      description: override?.description ?? standard.description,
      content: {
        "application/json": {
          schema: errorBodySchema,
          examples: Object.fromEntries(examples.map((example, i) => [`example${i + 1}`, example])),
        },
      },
    };
  }
  return responses;
}

/** What every operation can answer besides its own errors (reads are rate-limited too). */
export const ALWAYS: ErrorStatus[] = [429, 500, 503];
/** What every write with a session can answer. */
export const WRITE: ErrorStatus[] = [400, 401, 403, 408, 413, 415, ...ALWAYS];
