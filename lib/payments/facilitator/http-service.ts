// The self-hosted facilitator as its own service, so that one process owns the gas key while
// N app servers settle through it (X402_FACILITATOR_URL): the x402 facilitator HTTP interface,
// POST /verify, POST /settle, GET /supported. Bound to loopback, or protected by a shared
// secret sent as a bearer token.
import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PaymentPayloadV2Schema, PaymentRequirementsV2Schema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { z } from "zod";
import type { FacilitatorClient } from "./facilitators";

const BODY_LIMIT = 256 * 1024;

export interface FacilitatorServiceOptions {
  facilitator: FacilitatorClient;
  host: string;
  port: number;
  /** Required as `Authorization: Bearer <secret>` when set. */
  secret?: string;
  log?: (line: string) => void;
}

export interface RunningFacilitatorService {
  url: string;
  close(): Promise<void>;
}

const requestSchema = z.object({
  x402Version: z.literal(2),
  paymentPayload: z.unknown(),
  paymentRequirements: z.unknown(),
});

export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}

export async function startFacilitatorService(
  options: FacilitatorServiceOptions,
): Promise<RunningFacilitatorService> {
  if (!options.secret && !isLoopback(options.host)) {
    throw new Error(
      `The facilitator service listens on ${options.host}, beyond loopback: set FACILITATOR_SECRET`,
    );
  }
  const log = options.log ?? ((line: string) => console.log(line));
  const server = http.createServer((req, res) => {
    handle(req, options)
      .then(({ status, body }) => send(res, status, body))
      .catch((error: unknown) => {
        log(`facilitator: ${req.method} ${req.url} failed: ${describe(error)}`);
        send(res, 500, { error: "facilitator error" });
      });
  });
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  req: http.IncomingMessage,
  options: FacilitatorServiceOptions,
): Promise<{ status: number; body: unknown }> {
  if (options.secret && !authorized(req.headers.authorization, options.secret)) {
    return { status: 401, body: { error: "missing or wrong bearer token" } };
  }
  const path = new URL(req.url ?? "/", "http://facilitator").pathname;
  if (req.method === "GET" && path === "/supported") {
    return { status: 200, body: await options.facilitator.getSupported() };
  }
  if (req.method === "POST" && (path === "/verify" || path === "/settle")) {
    const parsed = await readRequest(req);
    if ("error" in parsed) return { status: 400, body: parsed };
    const { payload, requirements } = parsed;
    if (path === "/verify") {
      return { status: 200, body: await options.facilitator.verify(payload, requirements) };
    }
    const settled = await options.facilitator.settle(payload, requirements);
    (options.log ?? console.log)(
      `facilitator: settle ${settled.success ? "ok" : "not settled"} ${settled.transaction} ${settled.errorReason ?? ""}`.trim(),
    );
    return { status: 200, body: settled };
  }
  if (path === "/verify" || path === "/settle" || path === "/supported") {
    return { status: 405, body: { error: "method not allowed" } };
  }
  return { status: 404, body: { error: "not found: POST /verify, POST /settle, GET /supported" } };
}

async function readRequest(
  req: http.IncomingMessage,
): Promise<{ payload: PaymentPayload; requirements: PaymentRequirements } | { error: string }> {
  if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT) return { error: "body too large" };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return { error: "body too large" };
    chunks.push(chunk as Buffer);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return { error: "the body is not JSON" };
  }
  const envelope = requestSchema.safeParse(json);
  if (!envelope.success)
    return { error: "expected { x402Version: 2, paymentPayload, paymentRequirements }" };
  const payload = PaymentPayloadV2Schema.safeParse(envelope.data.paymentPayload);
  const requirements = PaymentRequirementsV2Schema.safeParse(envelope.data.paymentRequirements);
  if (!payload.success || !requirements.success) {
    return { error: "paymentPayload or paymentRequirements is not x402 version 2" };
  }
  return {
    payload: payload.data as PaymentPayload,
    requirements: requirements.data as PaymentRequirements,
  };
}

function authorized(header: string | undefined, secret: string): boolean {
  const expected = Buffer.from(`Bearer ${secret}`);
  const given = Buffer.from(header ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
  res.end(
    JSON.stringify(body, (_key, value) => (typeof value === "bigint" ? value.toString() : value)),
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.message.split("\n")[0] ?? error.name) : String(error);
}
