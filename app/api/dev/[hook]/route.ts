// /api/dev/:hook: development machinery, never the product (dev/hooks.ts decides which exist).
// POST /api/dev/faucet { address, amountUsdc }: test USDC on the local chain.
// GET|POST /api/dev/echo?key=list|job|session: the benchmark's ceiling (BENCHMARK_MODE only).
import { ECHO_MAX_BYTES, echoKey, readEcho, storeEcho } from "@/dev/bench-echo";
import { faucetSchema, requestTestUsdc } from "@/dev/faucet";
import { assertDevHook } from "@/dev/hooks";
import { DomainError } from "@/lib/errors";
import { ok, otherMethods, readBody, route } from "@/lib/http";

type Params = { hook: string };

export const GET = route<Params>({}, async ({ req, params }) => {
  if (assertDevHook(params.hook) !== "echo") throw onlyPost();
  const bytes = readEcho(echoKey(req.nextUrl.searchParams.get("key")));
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
});

export const POST = route<Params>({ rateLimit: "write" }, async ({ req, params, body }) => {
  if (assertDevHook(params.hook) === "faucet") {
    return ok(await requestTestUsdc(await body(faucetSchema)));
  }
  const key = echoKey(req.nextUrl.searchParams.get("key"));
  const bytes = await readBody(req, ECHO_MAX_BYTES);
  storeEcho(key, bytes);
  return ok({ key, bytes: bytes.byteLength });
});

export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");

function onlyPost() {
  return new DomainError("method_not_allowed", "method not allowed; this path accepts POST", {
    Allow: "POST",
  });
}
