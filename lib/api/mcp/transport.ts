import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { NextRequest } from "next/server";
import type { Caller } from "@/lib/auth/caller";
import { getDb } from "@/lib/db";
import { invalid } from "@/lib/platform/errors";
import { JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { enforceRateLimit } from "../request-limits";
import { formatBytes } from "@/lib/shared/format";
import { INVALID_REQUEST, jsonRpcRefusal, MCP_MAX_ANSWER_BYTES, MCP_MAX_BATCH } from "./limits";
import { createMcpServer } from "./server";
import { DELIVERY_TOOL } from "./tools";

/** Over 1 MiB without being one deliver_job call by a token that may deliver. */
export function mcpBodyTooLarge(): Response {
  return jsonRpcRefusal(
    413,
    INVALID_REQUEST,
    `only a single deliver_job call, by a token with the deliver scope, may send more than ${formatBytes(JSON_BODY_LIMIT)}`,
    { code: "body_too_large" },
  );
}

/**
 * One MCP POST over Streamable HTTP, stateless: a fresh server and transport per request,
 * answered as plain JSON (no SSE stream, no session id), so any server process can answer any
 * request. The body was read by `route()` within its limit and the caller authenticated by
 * its bearer token before this runs.
 */
export async function handleMcpPost(
  req: NextRequest,
  caller: Caller,
  body: { message: unknown; bytes: number; writePrepaid?: boolean },
): Promise<Response> {
  const { message, bytes } = body;
  // A large delivery's write was counted before its body was read: its tool call is free.
  let prepaid = body.writePrepaid === true;
  if (message === undefined)
    throw invalid("invalid_request", "the request body must be a JSON-RPC message");
  if (Array.isArray(message) && message.length > MCP_MAX_BATCH) {
    return jsonRpcRefusal(
      400,
      INVALID_REQUEST,
      `a batch may hold at most ${MCP_MAX_BATCH} messages (this one has ${message.length})`,
      { code: "batch_too_large" },
    );
  }
  if (bytes > JSON_BODY_LIMIT && !isOneDelivery(message)) return mcpBodyTooLarge();
  const db = await getDb();
  const server = createMcpServer({
    db,
    caller,
    limitWrite: async () => {
      if (prepaid) prepaid = false;
      else await enforceRateLimit(req, "write", caller.wallet);
    },
    limitRead: () => enforceRateLimit(req, "read", caller.wallet),
    answerBudget: { remaining: MCP_MAX_ANSWER_BYTES },
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    // In JSON mode the answer is complete when this resolves.
    const response = await transport.handleRequest(req, { parsedBody: message });
    response.headers.set("Cache-Control", "no-store");
    return response;
  } finally {
    await server.close();
  }
}

/** One `tools/call` of deliver_job: the only MCP message whose body may pass the JSON limit. */
function isOneDelivery(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  return method === "tools/call" && params?.name === DELIVERY_TOOL;
}
