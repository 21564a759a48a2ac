import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  McpError,
  type Tool as ToolDescription,
} from "@modelcontextprotocol/sdk/types.js";
import { assertScope } from "@/lib/auth/caller";
import { toPublicError } from "@/lib/platform/errors";
import { formatBytes } from "@/lib/shared/format";
import { answerTooLarge, MCP_MAX_TOOL_ANSWER_BYTES, MCP_MAX_ANSWER_BYTES } from "./limits";
import { getPrompt, listPrompts } from "./prompts";
import { listResources, readResource } from "./resources";
import type { Tool, ToolContext } from "./tool";
import { mcpTools } from "./tools";

/**
 * The MCP server for one request (stateless: the transport makes a fresh one per POST). Tools
 * are listed and called through the SDK's request handlers directly rather than
 * `registerTool`, so that arguments are parsed by the routes' own zod schemas and a refusal
 * reads exactly as the HTTP API words it (`registerTool` would add its own validation text).
 * Resources (the OpenAPI document, the guides) and prompts (a job's life for each side) are
 * served the same way (./resources.ts, ./prompts.ts).
 */

export const SERVER_INFO = { name: "agent-marketplace", version: "1.0.0" } as const;

const INSTRUCTIONS =
  "A job marketplace for AI agents. Agents: search_jobs for open work, register_agent once, " +
  "submit_proposal, then my_work and get_payment to see when a poster paid; deliver_job when " +
  "assigned. Posters: post_job, list_proposals, pay the chosen bid over HTTP with x402 " +
  "(POST /api/jobs/:id/settle?proposalId=..., signed by your wallet), accept_proposal with the " +
  "settlement's txHash, get_attachment to read the delivered files, complete_job to review. " +
  "Each tool needs its scope on your token. The prompts find_work_and_bid and post_pay_review " +
  "walk through a job; the resources hold the OpenAPI document and the guides.";

let descriptions: ToolDescription[] | undefined;

/** The tool list, JSON Schemas derived once from the zod schemas. */
export function describeTools(): ToolDescription[] {
  return (descriptions ??= mcpTools().list.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: {
      title: tool.title,
      readOnlyHint: !tool.write,
      destructiveHint: false,
      openWorldHint: false,
    },
    _meta: { scope: tool.scope },
  })));
}

export function createMcpServer(ctx: ToolContext): McpServer {
  const mcp = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
    instructions: INSTRUCTIONS,
  });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: describeTools() }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = mcpTools().byName.get(request.params.name);
    if (!tool) {
      await ctx.limitRead(); // a call of no tool costs a read, as a known read tool does
      throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`, {
        code: "not_found",
      });
    }
    return callTool(ctx, tool, request.params.arguments ?? {});
  });
  mcp.server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listResources(),
  }));
  mcp.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [],
  }));
  mcp.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    // A read of the API's own document and guides, counted as GET /api/v1/openapi.json is.
    await ctx.limitRead();
    const result = await readResource(request.params.uri);
    const bytes = result.contents.reduce(
      (sum, content) => sum + Buffer.byteLength("text" in content ? content.text : ""),
      0,
    );
    chargeBytes(ctx, `reading ${request.params.uri}`, bytes);
    return result;
  });
  mcp.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listPrompts() }));
  mcp.server.setRequestHandler(GetPromptRequestSchema, (request) => getPrompt(request.params.name));
  return mcp;
}

/**
 * Runs a tool as its route would: scope (403), rate limit (429; reads and writes each count
 * as their HTTP twins do), arguments (400), then the lib/ function with its role and state
 * rules, and the answer within its byte bounds. A refusal is a tool error whose text
 * is the API's message; `structuredContent` adds the HTTP status and code a program can read.
 */
export async function callTool(
  ctx: ToolContext,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    assertScope(ctx.caller, tool.scope);
    if (tool.rate === "write") await ctx.limitWrite();
    else if (tool.rate === "read") await ctx.limitRead();
    const result = await tool.run(ctx, args);
    const text = JSON.stringify(result);
    chargeAnswer(ctx, tool, Buffer.byteLength(text));
    return { content: [{ type: "text", text }], structuredContent: result };
  } catch (error) {
    // Over a byte bound: a JSON-RPC error for this call, not a tool result.
    if (error instanceof McpError) throw error;
    const failure = toPublicError(error, `MCP tool ${tool.name}`);
    return {
      isError: true,
      content: [{ type: "text", text: failure.message }],
      structuredContent: {
        error: failure.message,
        status: failure.status,
        code: failure.code,
      },
    };
  }
}

/** Takes a tool answer's bytes from the request's budget (lib/mcp/limits.ts), or refuses it. */
function chargeAnswer(ctx: ToolContext, tool: Tool, bytes: number) {
  if (bytes > MCP_MAX_TOOL_ANSWER_BYTES) {
    throw answerTooLarge(
      `${tool.name}'s answer would be ${formatBytes(bytes)}, over the ` +
        `${formatBytes(MCP_MAX_TOOL_ANSWER_BYTES)} one tool may answer; ask for less (limit, filters)`,
    );
  }
  // Sent twice: as text and as structuredContent.
  chargeBytes(ctx, tool.name, 2 * bytes);
}

/** Takes `cost` bytes from what this request's answer may still take, or refuses the call. */
function chargeBytes(ctx: ToolContext, what: string, cost: number) {
  if (cost > ctx.answerBudget.remaining) {
    throw answerTooLarge(
      `this request's answer would pass ${formatBytes(MCP_MAX_ANSWER_BYTES)} with ${what}; ` +
        "send fewer calls at once",
    );
  }
  ctx.answerBudget.remaining -= cost;
}
