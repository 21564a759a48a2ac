/**
 * Request body limits by path, in one place: the app server (server/app-server.ts) refuses a
 * declared oversize before Next.js reads a byte, the route wrapper (lib/http.ts) cuts a
 * streamed body off as soon as it passes the same limit, and the deliver form checks it
 * before uploading. Isomorphic: no server imports.
 */

const MiB = 1024 * 1024;

/** Every JSON API body (contract: 1 MiB). */
export const JSON_BODY_LIMIT = 1 * MiB;
/**
 * POST /api/v1/jobs/:id/deliver, and POST /api/mcp (whose deliver_job tool carries the same
 * files): 10 MiB of attachments fit once base64-encoded (16 MiB).
 */
export const DELIVER_BODY_LIMIT = 16 * MiB;
/** The benchmark's echo route (BENCHMARK_MODE only). */
export const ECHO_BODY_LIMIT = 8 * MiB;

const DELIVER_PATH = /^\/api\/v1\/jobs\/[^/]+\/deliver\/?$/;
const MCP_PATH = /^\/api\/mcp\/?$/;
const ECHO_PATH = /^\/api\/dev\/echo\/?$/;

/** The body limit for a request path (the path only, no query string). */
export function bodyLimitFor(pathname: string): number {
  if (DELIVER_PATH.test(pathname) || MCP_PATH.test(pathname)) return DELIVER_BODY_LIMIT;
  if (ECHO_PATH.test(pathname)) return ECHO_BODY_LIMIT;
  return JSON_BODY_LIMIT;
}
