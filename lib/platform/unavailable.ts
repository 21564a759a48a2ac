// A dependency that is down or unreachable (PostgreSQL, Redis, an RPC), told apart from a bug by
// the shapes its failure takes through Prisma's pg driver adapter, node-postgres, ioredis and
// Node's sockets. Such a failure is answered 503 + Retry-After (./errors.ts) and logged as one
// line, at most every few seconds per place: an outage must not print a stack per request.
import { redactSecrets, redactUrls } from "./redact";

/** Prisma: can't reach, timed out, server closed the connection, pool timeout, too many clients. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);
/** The pg driver adapter's kinds for the same (its `DriverAdapterError` cause). */
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);
/**
 * SQLSTATEs of a server going away or not taking connections: admin_shutdown (a fast or
 * immediate stop), crash_shutdown, cannot_connect_now (starting, recovering, stopping),
 * too_many_connections, and class 08, connection exceptions.
 */
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
/** Messages without a code: node-postgres and ioredis. */
const MESSAGES = [
  /^Connection terminated/, // pg: the server or the network closed it
  /^timeout exceeded when trying to connect$/, // pg-pool: connectionTimeoutMillis
  /^Query read timeout$/, // pg: query_timeout
  /is not queryable$/, // pg: a client whose connection already failed
  /^Connection is closed\.$/, // ioredis
  /^Reached the max retries per request limit/, // ioredis: maxRetriesPerRequest
  /^Command timed out$/, // ioredis: commandTimeout
];

interface Fields {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** The error and what it wraps (cause, Prisma's driverAdapterError), a few levels deep. */
function* chain(error: unknown): Generator<Fields> {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 8; seen++) {
    const next = queue.shift();
    if (typeof next !== "object" || next === null) continue;
    const fields = next as Fields;
    yield fields;
    if (fields.cause !== undefined && fields.cause !== next) queue.push(fields.cause);
    if (fields.meta?.driverAdapterError !== undefined) queue.push(fields.meta.driverAdapterError);
  }
}

function matches(fields: Fields): boolean {
  const code = typeof fields.code === "string" ? fields.code : undefined;
  const sqlState = typeof fields.originalCode === "string" ? fields.originalCode : code;
  if (code && (PRISMA_CODES.has(code) || SOCKET_CODES.has(code))) return true;
  if (sqlState && (SQLSTATES.has(sqlState) || /^08[0-9A-Z]{3}$/.test(sqlState))) return true;
  if (typeof fields.kind === "string" && ADAPTER_KINDS.has(fields.kind)) return true;
  const message = typeof fields.message === "string" ? fields.message : "";
  return MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * Whether PostgreSQL cancelled the statement (SQLSTATE 57014, query_canceled): past its
 * statement_timeout (lib/db/pool.ts), or by an operator's pg_cancel_backend. Not an outage and
 * not the request's fault: the database was too busy, or the statement too slow; the statement,
 * and the transaction it ran in, were undone. Told by the SQLSTATE, the same in every language
 * the server may speak, through the wrappings an outage takes (Prisma's driver adapter).
 */
export function isStatementCancelled(error: unknown): boolean {
  for (const fields of chain(error)) {
    const sqlState = typeof fields.originalCode === "string" ? fields.originalCode : fields.code;
    if (sqlState === "57014") return true;
  }
  return false;
}

/** Whether `error` says a dependency is down or unreachable (not that the request was wrong). */
export function isUnavailableError(error: unknown): boolean {
  for (const fields of chain(error)) if (matches(fields)) return true;
  return false;
}

/**
 * One line naming the failure: every code along its causes (Prisma's, the driver's, the
 * socket's), then the last line of its message (Prisma's start with the call site).
 */
export function describeUnavailable(error: unknown): string {
  const parts: string[] = [];
  for (const fields of chain(error)) {
    for (const value of [fields.code, fields.originalCode, fields.kind]) {
      if (typeof value === "string" && !parts.includes(value)) parts.push(value);
    }
  }
  const outer = (error as Fields | null)?.message;
  const last = (typeof outer === "string" ? outer : "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !/invocation:?$|^→|^\d+ /.test(line))
    .at(-1);
  const text = [parts.join(" "), last].filter(Boolean).join(": ");
  return redactSecrets(redactUrls(text || String(error))).slice(0, 300);
}

/** How often one place logs the same kind of trouble (the lines between are counted). */
export const OUTAGE_LOG_EVERY_MS = 10_000;

const state = globalThis as typeof globalThis & {
  __outageLog?: Map<string, { lastAt: number; suppressed: number }>;
};
const lastLines = (state.__outageLog ??= new Map());

/**
 * Warns `line` at most once every OUTAGE_LOG_EVERY_MS per `key`; the next line says how many
 * were left out. A dependency down or a database overloaded fails every request alike: a line
 * each would flood the log, and writing it would add to the load. Returns whether it logged.
 */
export function warnAtMostEvery(key: string, line: string, now = Date.now()): boolean {
  const last = lastLines.get(key);
  if (last && now - last.lastAt < OUTAGE_LOG_EVERY_MS) {
    last.suppressed += 1;
    return false;
  }
  const more = last?.suppressed ? ` (${last.suppressed} more like it since the last line)` : "";
  console.warn(`${line}${more}`);
  lastLines.set(key, { lastAt: now, suppressed: 0 });
  return true;
}

/** A dependency down, as seen in `where`: warnAtMostEvery's one line per place. */
export const logOutage = (where: string, line: string, now = Date.now()): boolean =>
  warnAtMostEvery(`unavailable ${where}`, `Dependency unavailable in ${where}: ${line}`, now);
