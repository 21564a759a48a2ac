import { ECHO_BODY_LIMIT } from "@/lib/shared/body-limits";
import { DomainError, notFound } from "@/lib/platform/errors";
import type { Db } from "@/lib/db";
import { readRows } from "@/lib/db/row-reader";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * The benchmark's ceiling (`npm run bench`): response bytes held in memory and served back
 * as they are, so that a run measures the real handlers side by side with a handler that
 * does no work in the same server. Served by /api/dev/echo (dev/hooks.ts decides when).
 */
export const ECHO_KEYS = ["list", "job", "session", "search", "budget", "sorted", "write"] as const;
/**
 * A mixed workload's requests each have their own answer, `mixed-0`..`mixed-<MIXED_ECHOES - 1>`
 * (tools/bench-mixed.ts), all of them together within MIXED_MAX_BYTES.
 */
export const MIXED_ECHOES = 10_000;
const MIXED_MAX_BYTES = 256 * 1024 * 1024;
const MIXED_KEY = /^mixed-(\d{1,5})$/;
export type EchoKey = (typeof ECHO_KEYS)[number] | `mixed-${number}`;

export const ECHO_MAX_BYTES = ECHO_BODY_LIMIT;

const store = globalThis as typeof globalThis & { __benchEcho?: Map<EchoKey, Uint8Array> };
const echoes = () => (store.__benchEcho ??= new Map());

export function echoKey(value: string | null): EchoKey {
  const mixed = MIXED_KEY.exec(value ?? "");
  if (mixed && Number(mixed[1]) < MIXED_ECHOES) return value as EchoKey;
  if (!(ECHO_KEYS as readonly (string | null)[]).includes(value)) {
    throw new DomainError(
      "invalid",
      `key must be one of: ${ECHO_KEYS.join(", ")}, or mixed-0..mixed-${MIXED_ECHOES - 1}`,
    );
  }
  return value as EchoKey;
}

function mixedBytes(): number {
  let bytes = 0;
  for (const [key, stored] of echoes()) if (key.startsWith("mixed-")) bytes += stored.byteLength;
  return bytes;
}

export function assertEchoSize(bytes: number): void {
  if (bytes > ECHO_MAX_BYTES)
    throw new DomainError("too_large", "the echo body is larger than 8 MiB");
}

export function storeEcho(key: EchoKey, bytes: Uint8Array): void {
  assertEchoSize(bytes.byteLength);
  if (key.startsWith("mixed-") && mixedBytes() + bytes.byteLength > MIXED_MAX_BYTES) {
    throw new DomainError("too_large", "the mixed echoes would hold more than 256 MiB");
  }
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

/**
 * The database's floor under a read (`?floor=1`): one statement through the reads' own path
 * (lib/db/row-reader.ts) answering as many bytes as the stored answer, which PostgreSQL writes
 * for nothing (repeat); answers the length it received. A handler whose one statement answers
 * its whole answer as text cannot do better than this on the same machine: what lies between
 * the ceiling and the floor is that round trip (the database's share of the cores included).
 */
export async function databaseRoundTrip(db: Db, bytes: number): Promise<number> {
  const [row] = await readRows<{ answer: string }>(
    db,
    Prisma.sql`SELECT repeat('x', ${bytes}::int) AS "answer"`,
  );
  return row!.answer.length;
}
