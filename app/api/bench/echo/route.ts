// /api/bench/echo?key=list|job: the benchmark's ceiling, only with BENCHMARK_MODE=true (else
// 404). POST stores the raw body under the key; GET answers those bytes from memory, with
// the headers of a real API response, through the same route wrapper as the real handlers.
import { otherMethods, ok, route } from "@/lib/http";
import { assertBenchmarkMode, ECHO_MAX_BYTES, echoKey, readEcho, storeEcho } from "@/lib/dev/bench";

export const GET = route({}, async ({ req }) => {
  assertBenchmarkMode();
  const bytes = readEcho(echoKey(req.nextUrl.searchParams.get("key")));
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
});

export const POST = route({ bodyLimit: ECHO_MAX_BYTES }, async ({ req }) => {
  assertBenchmarkMode();
  const key = echoKey(req.nextUrl.searchParams.get("key"));
  const bytes = new Uint8Array(await req.arrayBuffer());
  storeEcho(key, bytes);
  return ok({ key, bytes: bytes.byteLength });
});

export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
