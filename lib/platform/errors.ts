import { ZodError } from "zod";
import { errorForLog } from "./redact";
import {
  describeUnavailable,
  isStatementCancelled,
  isUnavailableError,
  logOutage,
  warnAtMostEvery,
} from "./unavailable";
import type { ErrorCode } from "@/lib/shared/error-codes";
import { describeIssues } from "@/lib/shared/schemas/common";

/**
 * The one error type of the domain. Route handlers never build error responses by hand:
 * they throw (or let lib/ throw) a DomainError and lib/api/envelope.ts maps its kind to a status.
 */
export const ERROR_STATUS = {
  invalid: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  timeout: 408,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorKind = keyof typeof ERROR_STATUS;

/**
 * The code an error carries when nothing more specific was given (every error answer has a
 * `code`: contract, "Decided on 2026-11-23"). Specific codes (`handle_reserved`,
 * `settlement_pending`, …) are given where the error is thrown.
 */
export const DEFAULT_CODE: Record<ErrorKind, ErrorCode> = {
  invalid: "invalid_request",
  unauthenticated: "unauthenticated",
  payment_required: "payment_required",
  forbidden: "forbidden",
  not_found: "not_found",
  method_not_allowed: "method_not_allowed",
  timeout: "request_timeout",
  conflict: "conflict",
  // The one thing that can be gone today: a feed cursor into pruned events.
  gone: "cursor_expired",
  too_large: "payload_too_large",
  unsupported_media_type: "unsupported_media_type",
  rate_limited: "rate_limited",
  internal: "internal_error",
  unavailable: "unavailable",
};

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly headers: Record<string, string> = {},
    /** The stable code beside the message (`{ error, code }`): lib/shared/error-codes.ts. */
    readonly code?: ErrorCode,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.kind];
  }
}

export const invalid = (code: ErrorCode, message: string) =>
  new DomainError("invalid", message, {}, code);
export const unauthenticated = (
  message = "sign in with your wallet first",
  code: ErrorCode = "unauthenticated",
) => new DomainError("unauthenticated", message, {}, code);
export const forbidden = (code: ErrorCode, message: string) =>
  new DomainError("forbidden", message, {}, code);
export const notFound = (code: ErrorCode, message: string) =>
  new DomainError("not_found", message, {}, code);
export const conflict = (code: ErrorCode, message: string) =>
  new DomainError("conflict", message, {}, code);
export const paymentRequired = (
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
) => new DomainError("payment_required", message, headers, code);

/** Prisma's unique-constraint violation (P2002), from either driver adapter. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (code === "P2002" || code === "23505") return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isUniqueViolation(cause);
}

/**
 * Prisma's "transaction could not start in time" (P2028): every connection stayed busy for the
 * whole WRITE_TRANSACTION wait. Nothing of that transaction ran, so the client may retry.
 */
export function isTransactionQueueTimeout(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  if ((error as { code?: unknown }).code !== "P2028") return false;
  return /unable to start a transaction/i.test(String((error as { message?: unknown }).message));
}

const BUSY_RETRY_AFTER_SECONDS = "2";
/** A dependency that is down: most come back within seconds (a database restart, a failover). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = "2";

/** What a client is told about a failure: the HTTP envelope and MCP tool errors alike. */
export interface PublicError {
  status: number;
  message: string;
  code: ErrorCode;
  headers: Record<string, string>;
}

/**
 * Anything thrown → the one public shape: a DomainError's kind, a zod error's readable
 * sentence (400), a unique violation (409), a write that could not get the database in time
 * or a statement PostgreSQL cancelled past its statement_timeout (503 `server_busy`, retry), a
 * dependency down or unreachable (503 `unavailable`, retry). Those two log one line per place
 * at most every 10 s, not a stack per request (lib/platform/unavailable.ts). Anything
 * unexpected is logged (secrets blanked) and shown as a plain 500. Every 503 that passes
 * carries Retry-After.
 */
export function toPublicError(error: unknown, where: string): PublicError {
  if (error instanceof DomainError) {
    const code = error.code ?? DEFAULT_CODE[error.kind];
    const headers =
      TRANSIENT_CODES.has(code) && !hasRetryAfter(error.headers)
        ? { ...error.headers, "Retry-After": UNAVAILABLE_RETRY_AFTER_SECONDS }
        : error.headers;
    return { status: error.status, message: error.message, code, headers };
  }
  if (error instanceof ZodError) {
    return { status: 400, message: describeIssues(error), code: "invalid_request", headers: {} };
  }
  if (isUniqueViolation(error)) {
    return {
      status: 409,
      message: "this already exists (conflicting request)",
      code: "conflict",
      headers: {},
    };
  }
  if (isTransactionQueueTimeout(error)) {
    logBusy(where, "a write waited too long for the database");
    return busy();
  }
  if (isStatementCancelled(error)) {
    logBusy(where, `PostgreSQL cancelled a statement (${describeUnavailable(error)})`);
    return busy();
  }
  if (isUnavailableError(error)) {
    logOutage(where, `${describeUnavailable(error)}; answered 503`);
    return {
      status: 503,
      message: "a service this request needs is not answering; retry shortly",
      code: "unavailable",
      headers: { "Retry-After": UNAVAILABLE_RETRY_AFTER_SECONDS },
    };
  }
  console.error(`Unhandled error in ${where}:`, errorForLog(error));
  return { status: 500, message: "internal server error", code: "internal_error", headers: {} };
}

/** One warning per place at most every 10 s, as for an outage (warnAtMostEvery). */
function logBusy(where: string, cause: string) {
  warnAtMostEvery(`busy ${where}`, `Busy in ${where}: ${cause}; answered 503`);
}

/** The database could not do this request's work in time: the client may retry shortly. */
function busy(): PublicError {
  return {
    status: 503,
    message: "the server is busy; retry shortly",
    code: "server_busy",
    headers: { "Retry-After": BUSY_RETRY_AFTER_SECONDS },
  };
}

/**
 * 503s that pass (a dependency down, the server busy): always with Retry-After, so a client
 * knows to come back. `protected_payments_unavailable` is a configuration and does not pass.
 */
const TRANSIENT_CODES = new Set<ErrorCode>([
  "unavailable",
  "server_busy",
  "facilitator_unavailable",
  "chain_unavailable",
]);

function hasRetryAfter(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === "retry-after");
}
