import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { NextRequest } from "next/server";
import type { Caller } from "@/lib/auth/caller";
import { getDb } from "@/lib/db";
import { JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { isJsonMediaType } from "../browser-writes";
import { enforceRateLimit } from "../request-limits";
import { originOf } from "../serve";
import { formatBytes } from "@/lib/shared/format";
import { jsonRpcRefusal, MCP_MAX_ANSWER_BYTES, MCP_MAX_BATCH } from "./limits";
import { createMcpServer } from "./server";
import { DELIVERY_TOOL } from "./tools";

/** Over 1 MiB without being one deliver_job call by a token that may deliver. */
export function mcpBodyTooLarge(): Response {
  return jsonRpcRefusal(
    413,
    "body_too_large",
    `only a single deliver_job call, by a token with the deliver scope, may send more than ${formatBytes(JSON_BODY_LIMIT)}`,
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
  // Streamable HTTP's rule, which the SDK's transport would answer without our code.
  const accept = req.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonRpcRefusal(
      406,
      "not_acceptable",
      "Not Acceptable: send Accept: application/json, text/event-stream (MCP Streamable HTTP)",
    );
  }
  if (!isJsonMediaType(req.headers.get("content-type"))) {
    return jsonRpcRefusal(415, "unsupported_media_type", "send Content-Type: application/json");
  }
  const { message, bytes } = body;
  // A large delivery's write was counted before its body was read: its tool call is free.
  let prepaid = body.writePrepaid === true;
  if (Array.isArray(message) && message.length > MCP_MAX_BATCH) {
    return jsonRpcRefusal(
      400,
      "batch_too_large",
      `a batch may hold at most ${MCP_MAX_BATCH} messages (this one has ${message.length})`,
    );
  }
  const messages = Array.isArray(message) ? message : [message];
  if (
    messages.length === 0 ||
    !messages.every((one) => JSONRPCMessageSchema.safeParse(one).success)
  ) {
    return jsonRpcRefusal(
      400,
      "invalid_request",
      "the body must be a JSON-RPC 2.0 message, or a batch of 1 to 10 of them",
    );
  }
  if (bytes > JSON_BODY_LIMIT && !isOneDelivery(message)) return mcpBodyTooLarge();
  // Every message is paid for before any is answered: a tool call and a resource read count
  // themselves as their HTTP twins do; any other (tools/list, prompts, initialize, ping, a
  // notification) is one read. Uncounted, a batch of tools/list was a megabyte for nothing.
  for (const one of messages) {
    if (!SELF_COUNTED.has(String((one as { method?: unknown }).method))) {
      await enforceRateLimit(req, "read", caller.wallet);
    }
  }
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
    from: originOf(req),
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

/** Methods whose handlers count themselves against the rate limit (lib/api/mcp/server.ts). */
const SELF_COUNTED = new Set(["tools/call", "resources/read"]);

/** One `tools/call` of deliver_job: the only MCP message whose body may pass the JSON limit. */
function isOneDelivery(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  return method === "tools/call" && params?.name === DELIVERY_TOOL;
}
