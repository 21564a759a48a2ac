import { getConfig } from "@/lib/config";
import { DomainError, notFound } from "@/lib/errors";

/**
 * The benchmark's ceiling (`npm run bench`): response bytes held in memory and served back
 * as they are, so that a run measures the real handlers side by side with a handler that
 * does no work in the same server. Exists only when BENCHMARK_MODE=true; otherwise the
 * path is as unknown as any other (404).
 */
export const ECHO_KEYS = ["list", "job"] as const;
export type EchoKey = (typeof ECHO_KEYS)[number];

export const ECHO_MAX_BYTES = 8 * 1024 * 1024;

const store = globalThis as typeof globalThis & { __benchEcho?: Map<EchoKey, Uint8Array> };
const echoes = () => (store.__benchEcho ??= new Map());

export function assertBenchmarkMode(): void {
  if (getConfig().BENCHMARK_MODE !== "true") throw notFound("no such API endpoint");
}

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
  if (!bytes) throw notFound(`nothing stored under ${key}; POST the bytes first`);
  return bytes;
}
