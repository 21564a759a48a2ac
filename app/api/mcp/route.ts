// POST /api/mcp: the MCP server (Streamable HTTP, stateless, JSON answers) for programs with
// an access token (Authorization: Bearer amk_…); each tool checks its own scope. GET and
// DELETE answer 405: there is no server-initiated stream and no session to end.
import { otherMethods, route } from "@/lib/api/http";
import { handleMcpPost } from "@/lib/api/mcp/transport";

export const POST = route({ auth: "token" }, async ({ req, caller, json }) => {
  const { value, bytes } = await json();
  return handleMcpPost(req, caller, { message: value, bytes });
});
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
