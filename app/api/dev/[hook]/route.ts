// /api/dev/:hook: development machinery, never the product (dev/hooks.ts decides which exist).
// POST /api/dev/faucet { address, amountUsdc }: test USDC on the local chain.
// GET|POST /api/dev/echo?key=...: the benchmark's ceiling (BENCHMARK_MODE only); GET with
// &floor=1 after one statement answering as many bytes (the database's floor).
// POST /api/dev/echo-write: the ceiling of an authenticated write (BENCHMARK_MODE only).
import type { NextRequest } from "next/server";
import { z } from "zod";
import {
  databaseRoundTrip,
  ECHO_MAX_BYTES,
  echoKey,
  echoResponse,
  readEcho,
  storeEcho,
} from "@/dev/bench-echo";
import { faucetSchema, requestTestUsdc } from "@/dev/faucet";
import { assertDevHook, devHookEnabled } from "@/dev/hooks";
import { getDb } from "@/lib/db";
import { DomainError } from "@/lib/platform/errors";
import { ok, otherMethods } from "@/lib/api/envelope";
import { readBody } from "@/lib/api/request-body";
import { route } from "@/lib/api/route";

type Params = { hook: string };

/** `floor=1`: the database's floor (dev/bench-echo.ts); any other value is refused. */
const echoQuery = z.object({ key: z.string().optional(), floor: z.literal("1").optional() });

export const GET = route<Params>({}, async ({ req, params }) => {
  if (assertDevHook(params.hook) !== "echo") throw onlyPost();
  const { key, floor } = echoQuery.parse(Object.fromEntries(req.nextUrl.searchParams));
  const bytes = readEcho(echoKey(key ?? null));
  if (floor) await databaseRoundTrip(await getDb(), bytes.byteLength);
  return echoResponse(bytes);
});

const devPost = route<Params>(
  { rateLimit: "write", bodyLimit: ECHO_MAX_BYTES },
  async ({ req, params, body }) => {
    if (assertDevHook(params.hook) === "faucet") {
      return ok(await requestTestUsdc(await body(faucetSchema)));
    }
    const key = echoKey(req.nextUrl.searchParams.get("key"));
    const bytes = await readBody(req, ECHO_MAX_BYTES);
    storeEcho(key, bytes);
    return ok({ key, bytes: bytes.byteLength });
  },
);

// What POST /api/v1/jobs does around its domain function (caller, scope, rate limit, JSON body
// read and parsed), then the stored answer of a real one.
const echoWrite = route<Params>(
  { auth: true, scope: "post", rateLimit: "write" },
  async ({ body }) => {
    await body(z.unknown());
    return echoResponse(readEcho("write"), 201);
  },
);

export async function POST(req: NextRequest, next: { params: Promise<Params> }) {
  const { hook } = await next.params;
  // Elsewhere (and where the echo is off) devPost answers, with its 404 for unknown hooks.
  if (hook === "echo-write" && devHookEnabled("echo")) return echoWrite(req, next);
  return devPost(req, next);
}

export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");

function onlyPost() {
  return new DomainError("method_not_allowed", "method not allowed; this path accepts POST", {
    Allow: "POST",
  });
}
