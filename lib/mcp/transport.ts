import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { NextRequest } from "next/server";
import type { Caller } from "@/lib/auth/caller";
import { getDb } from "@/lib/db";
import { invalid } from "@/lib/errors";
import { enforceRateLimit } from "@/lib/http";
import { createMcpServer } from "./server";

/**
 * One MCP POST over Streamable HTTP, stateless: a fresh server and transport per request,
 * answered as plain JSON (no SSE stream, no session id), so any server process can answer any
 * request. The body was read by `route()` within its limit and the caller authenticated by
 * its bearer token before this runs.
 */
export async function handleMcpPost(
  req: NextRequest,
  caller: Caller,
  message: unknown,
): Promise<Response> {
  if (message === undefined) throw invalid("the request body must be a JSON-RPC message");
  const db = await getDb();
  const server = createMcpServer({
    db,
    caller,
    limitWrite: () => enforceRateLimit(req, "write", caller.wallet),
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
