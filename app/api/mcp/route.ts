// POST /api/mcp: the MCP server (Streamable HTTP, stateless, JSON answers) for programs with
// an access token (Authorization: Bearer amk_…); each tool checks its own scope. GET and
// DELETE answer 405: there is no server-initiated stream and no session to end.
import { z } from "zod";
import { otherMethods, route } from "@/lib/http";
import { handleMcpPost } from "@/lib/mcp/transport";

export const POST = route({ auth: "token" }, async ({ req, caller, body }) =>
  handleMcpPost(req, caller, await body(z.unknown())),
);
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
