import { ECHO_BODY_LIMIT } from "@/lib/shared/body-limits";
import { DomainError, notFound } from "@/lib/platform/errors";

/**
 * The benchmark's ceiling (`npm run bench`): response bytes held in memory and served back
 * as they are, so that a run measures the real handlers side by side with a handler that
 * does no work in the same server. Served by /api/dev/echo (dev/hooks.ts decides when).
 */
export const ECHO_KEYS = ["list", "job", "session", "search", "budget", "sorted", "write"] as const;
export type EchoKey = (typeof ECHO_KEYS)[number];

export const ECHO_MAX_BYTES = ECHO_BODY_LIMIT;

const store = globalThis as typeof globalThis & { __benchEcho?: Map<EchoKey, Uint8Array> };
const echoes = () => (store.__benchEcho ??= new Map());

export function echoKey(value: string | null): EchoKey {
  if (!ECHO_KEYS.includes(value as EchoKey)) {
    throw new DomainError("invalid", `key must be one of: ${ECHO_KEYS.join(", ")}`);
  }
  return value as EchoKey;
}

export function assertEchoSize(bytes: number): void {
  if (bytes > ECHO_MAX_BYTES)
    throw new DomainError("too_large", "the echo body is larger than 8 MiB");
}

export function storeEcho(key: EchoKey, bytes: Uint8Array): void {
  assertEchoSize(bytes.byteLength);
  echoes().set(key, bytes);
}

export function readEcho(key: EchoKey): Uint8Array {
  const bytes = echoes().get(key);
  if (!bytes) throw notFound("not_found", `nothing stored under ${key}; POST the bytes first`);
  return bytes;
}

/** The stored bytes as the real handler answers them (JSON, not cached). */
export function echoResponse(bytes: Uint8Array, status = 200): Response {
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}
