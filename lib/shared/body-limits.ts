/**
 * Request body limits: the app server (server/app-server.ts) refuses a declared oversize by
 * path before Next.js reads a byte, the route pipeline (lib/api/route.ts) cuts a streamed body
 * off as soon as it passes its operation's limit, and the deliver form checks it before
 * uploading. Which paths take large bodies is generated from the operations
 * (./large-body-paths.ts). Isomorphic: no server imports.
 */
import { LARGE_BODY_PATHS } from "./large-body-paths";

const MiB = 1024 * 1024;

/** Every JSON API body (contract: 1 MiB). */
export const JSON_BODY_LIMIT = 1 * MiB;
/**
 * The operations with `largeBody` (deliveries, and MCP whose deliver_job tool carries the same
 * files): 10 MiB of attachments fit once base64-encoded (16 MiB).
 */
export const DELIVER_BODY_LIMIT = 16 * MiB;
/** The benchmark's echo route (BENCHMARK_MODE only). */
export const ECHO_BODY_LIMIT = 8 * MiB;

const ECHO_PATH = /^\/api\/dev\/echo\/?$/;
/** The large-body operations' paths as patterns (`{id}` matches one segment). */
const LARGE_BODY = LARGE_BODY_PATHS.map(
  (template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
);

/** The body limit for a request path (the path only, no query string). */
export function bodyLimitFor(pathname: string): number {
  if (LARGE_BODY.some((pattern) => pattern.test(pathname))) return DELIVER_BODY_LIMIT;
  if (ECHO_PATH.test(pathname)) return ECHO_BODY_LIMIT;
  return JSON_BODY_LIMIT;
}
