// The error answers of an operation in the OpenAPI document: per status, the codes it can give
// (its own, declared in its contract, and the generic ones its auth, body and limits imply),
// each with an example `{ error, code }` body. The HTTP suites check every observed error's
// code against this list (tests/helpers/openapi.ts).
import type { ZodOpenApiResponsesObject } from "zod-openapi";
import { ERROR_CODES, type ErrorCode, statusesOf } from "@/lib/shared/error-codes";
import { errorBodySchema } from "@/lib/shared/schemas/views";
import { z } from "zod";
import { MCP_PATH, MCP_REFUSALS, type McpRefusal } from "../mcp/limits";
import { isWrite, type Operation } from "../operation";

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: "The input is not valid (the message names the field and the rule).",
  401: "No valid session or token.",
  402: "Payment required or refused.",
  403: "Signed in, but not allowed.",
  404: "No such resource.",
  406: "The client does not accept application/json.",
  408: "The request did not arrive in time.",
  409: "The resource is not in a state that allows this.",
  410: "What this request points to was deleted (past its retention).",
  413: "The request body is larger than this path accepts (refused before reading).",
  415: "A cookie-authenticated write whose body is not JSON.",
  429: "Too many requests from this client or wallet; see Retry-After.",
  500: "An unexpected error (logged on the server, never detailed here).",
  503: "A dependency is unavailable, or the server is busy; see Retry-After.",
};

/** Every code the operation can answer, with its status. */
export function errorCodesOf(operation: Operation): [ErrorCode, number][] {
  const write = isWrite(operation);
  const auth = operation.auth.kind;
  // The app server answers some before any route runs (a path it cannot decode, the heap guard).
  const generic: ErrorCode[] = [
    "invalid_path",
    "rate_limited",
    "internal_error",
    "unavailable",
    "server_busy",
  ];
  if (operation.params || operation.query || operation.body) generic.push("invalid_request");
  if (auth !== "public") generic.push("unauthenticated", "invalid_token");
  if (auth === "sessionOrToken") generic.push("insufficient_scope");
  if (auth === "session") generic.push("session_required");
  if (auth === "token") generic.push("token_required");
  if (write) generic.push("payload_too_large", "request_timeout");
  // Cookie writes (and public ones) pass the browser checks (lib/api/browser-writes.ts).
  if (write && auth !== "token") {
    generic.push("cross_origin_request", "cross_site_request", "unsupported_media_type");
  }
  if (operation.largeBody) generic.push("upload_too_slow", "too_many_uploads");
  const declared = operation.errors ?? [];
  const pairs = new Map<string, [ErrorCode, number]>();
  for (const entry of [...generic, ...declared]) {
    const [code, only] = typeof entry === "string" ? [entry, undefined] : entry;
    for (const status of only ? [only] : statusesOf(code))
      pairs.set(`${code}@${status}`, [code, status]);
  }
  return [...pairs.values()];
}

/** The error part of an operation's responses, one entry per status. */
export function errorResponses(operation: Operation): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, status] of errorCodesOf(operation)) {
    if (status < 400) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const jsonRpc = operation.path === MCP_PATH && codes.some(isMcpRefusal);
    (responses as Record<string, unknown>)[String(status)] = {
      description:
        `${STATUS_DESCRIPTIONS[status] ?? "An error."} Codes: ` +
        codes.map((code) => `\`${code}\``).join(", ") +
        (jsonRpc ? ". MCP's own refusals are JSON-RPC errors, the code in `error.data.code`." : ""),
      content: {
        "application/json": {
          schema: jsonRpc ? z.union([errorBodySchema, jsonRpcRefusalSchema]) : errorBodySchema,
          examples: Object.fromEntries(codes.map((code) => [code, example(code, jsonRpc)])),
        },
      },
    };
  }
  return responses;
}

const isMcpRefusal = (code: ErrorCode): code is McpRefusal => code in MCP_REFUSALS;

/** lib/api/mcp/limits.ts's jsonRpcRefusal: a whole MCP request refused. */
const jsonRpcRefusalSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    error: z.object({
      code: z.number().int().meta({ description: "The JSON-RPC error code" }),
      message: z.string(),
      data: z.object({ code: z.enum(Object.keys(MCP_REFUSALS) as [McpRefusal, ...McpRefusal[]]) }),
    }),
    id: z.null(),
  })
  .meta({ id: "JsonRpcRefusal", description: "An MCP request refused as a whole" });

function example(code: ErrorCode, jsonRpc: boolean) {
  const message = ERROR_CODES[code].description;
  return {
    summary: code,
    value:
      jsonRpc && isMcpRefusal(code)
        ? { jsonrpc: "2.0", error: { code: MCP_REFUSALS[code], message, data: { code } }, id: null }
        : { error: message, code },
  };
}
