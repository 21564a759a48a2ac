import "server-only";
import { z } from "zod";
import { hasScope } from "@/lib/auth/caller";
import { DomainError } from "@/lib/platform/errors";
import { MCP_PATH } from "../mcp/limits";
import { handleMcpPost, mcpBodyTooLarge } from "../mcp/transport";
import { apiDocument } from "../openapi/document";
import { defineOperation, PUBLIC, TOKEN_ONLY } from "../operation";
import { parseJson, readBody } from "../request-body";
import { DELIVER_BODY_LIMIT, JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { enforceRateLimit } from "../request-limits";

// The API about itself: this document, and the MCP server for programs.

export const getOpenApiOperation = defineOperation({
  id: "getOpenApiDocument",
  method: "GET",
  path: "/api/v1/openapi.json",
  tag: "Meta",
  summary: "This document (OpenAPI 3.1)",
  auth: PUBLIC,
  success: { description: "The OpenAPI document", body: z.looseObject({ openapi: z.string() }) },
  handle: async () =>
    Response.json(apiDocument(), { headers: { "Cache-Control": "public, max-age=300" } }),
});

export const mcpOperation = defineOperation({
  id: "mcp",
  method: "POST",
  path: MCP_PATH,
  tag: "Meta",
  summary: "The MCP server (Streamable HTTP, JSON-RPC 2.0): tools for programs",
  description:
    "An access token only; each tool checks its own scope and counts against the rate limit " +
    "as its HTTP twin does. See docs/api.md, MCP. Only a single deliver_job call may send " +
    "more than 1 MiB.",
  auth: TOKEN_ONLY,
  rate: "none",
  largeBody: true,
  success: { description: "The JSON-RPC answer", body: z.unknown() },
  errors: [
    "invalid_request",
    "batch_too_large",
    "body_too_large",
    "not_acceptable",
    "unsupported_media_type",
  ],
  openapi: {
    requestBody: {
      required: true,
      content: { "application/json": { schema: z.looseObject({ jsonrpc: z.literal("2.0") }) } },
    },
    responses: { "202": { description: "A notification was accepted" } },
  },
  handle: async ({ req, caller, wallet }) => {
    // Only a delivery may pass 1 MiB (lib/api/mcp/transport.ts): so only a token that may
    // deliver reads that far, and a body declared that large counts as the write it will be
    // before a byte of it is read, as POST …/deliver does.
    const mayDeliver = hasScope(caller, "deliver");
    const declared = Number(req!.headers.get("content-length") ?? "0");
    const writePrepaid = mayDeliver && declared > JSON_BODY_LIMIT;
    if (writePrepaid) await enforceRateLimit(req!, "write", wallet);
    let bytes: Uint8Array;
    try {
      bytes = await readBody(req!, mayDeliver ? DELIVER_BODY_LIMIT : JSON_BODY_LIMIT, wallet);
    } catch (error) {
      const tooLarge = error instanceof DomainError && error.kind === "too_large";
      if (tooLarge && !mayDeliver) return mcpBodyTooLarge();
      throw error;
    }
    return handleMcpPost(req!, caller, {
      message: parseJson(bytes),
      bytes: bytes.byteLength,
      writePrepaid,
    });
  },
});
