import "server-only";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ErrorCode as ApiErrorCode } from "@/lib/shared/error-codes";

/**
 * What one MCP request may cost, bounded before it is paid (docs/limits.md):
 *   - a JSON-RPC batch holds at most MCP_MAX_BATCH messages (the SDK's own bound is 100, and
 *     100 × search_jobs built a 181 MB answer): beyond, the whole batch is refused;
 *   - one tool's answer at most MCP_MAX_TOOL_ANSWER_BYTES of JSON (list pages are held under
 *     LIMITS.pageBytes, so only a query no page can make small reaches it);
 *   - the whole answer at most MCP_MAX_ANSWER_BYTES, counting each tool answer twice (MCP sends
 *     it as text and as structuredContent): calls past it answer an error, not their result;
 *   - a body over the JSON limit (1 MiB) only for one `deliver_job` call, whose files need it;
 *   - `get_attachment` answers a file of at most MCP_MAX_ATTACHMENT_BYTES: its base64 (4 bytes
 *     for 3) within one tool's answer, with room for its name and type.
 * Each past a bound is a JSON-RPC error whose `data.code` says which.
 */
export const MCP_MAX_BATCH = 10;
export const MCP_MAX_TOOL_ANSWER_BYTES = 2 * 1024 * 1024;
export const MCP_MAX_ANSWER_BYTES = 8 * 1024 * 1024;
export const MCP_MAX_ATTACHMENT_BYTES = Math.floor((MCP_MAX_TOOL_ANSWER_BYTES - 4096) / 4) * 3;

/** A server-defined JSON-RPC error code (-32000 to -32099) for answers over a byte bound. */
export const ANSWER_TOO_LARGE = -32010;

export function answerTooLarge(message: string): McpError {
  return new McpError(ANSWER_TOO_LARGE, message, { code: "answer_too_large" });
}

/**
 * The refusals of a whole MCP request, answered as a JSON-RPC error (what an MCP client reads)
 * whose `data.code` is our error code, with the JSON-RPC code each carries. The OpenAPI
 * document shows them in that shape (lib/api/openapi/errors.ts).
 */
export const MCP_REFUSALS = {
  invalid_request: ErrorCode.InvalidRequest,
  batch_too_large: ErrorCode.InvalidRequest,
  body_too_large: ErrorCode.InvalidRequest,
  // As the SDK's transport answers these: a server-defined code.
  not_acceptable: -32000,
  unsupported_media_type: -32000,
} as const satisfies Partial<Record<ApiErrorCode, number>>;

export type McpRefusal = keyof typeof MCP_REFUSALS;

/** The MCP server's path: the one operation whose own refusals are JSON-RPC errors. */
export const MCP_PATH = "/api/mcp";

/** A JSON-RPC error answer for the whole request, as the SDK's transport words its own. */
export function jsonRpcRefusal(status: number, code: McpRefusal, message: string) {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: MCP_REFUSALS[code], message, data: { code } },
      id: null,
    }),
    {
      status,
      headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
    },
  );
}
