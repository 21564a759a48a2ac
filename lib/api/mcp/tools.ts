import "server-only";
import { deliverJobOperation } from "../operations/jobs";
import { allOperations } from "../operations";
import { type Tool, toolOf } from "./tool";

/**
 * The MCP server's tools: the operations that declare `mcp` (lib/api/operations), each the
 * twin of its HTTP route, with the same schemas, handler, role and lifecycle rules and scope.
 * Paying is not a tool: it is the x402 resource, signed by the poster's wallet. Built on first
 * use (the operations module imports the MCP route's operation, which imports this).
 */
let tools: { list: Tool[]; byName: Map<string, Tool> } | undefined;

export function mcpTools() {
  if (!tools) {
    const list = allOperations()
      .filter((operation) => operation.mcp)
      .map(toolOf);
    tools = { list, byName: new Map(list.map((tool) => [tool.name, tool])) };
  }
  return tools;
}

/** The one tool whose call may carry more than the JSON body limit (lib/api/mcp/limits.ts). */
export const DELIVERY_TOOL = deliverJobOperation.mcp!.name;
export { TEXT_DELIVERY_NAME } from "../operations/jobs";
